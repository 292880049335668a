"""A note made of one huge line of markup openers is indexed in bounded time and nothing is lost (issue 36).

Before the fix, the language filters' spans (`<[^>\\n]*>`, `{\\*.*?\\*}`, `\\](…\\)`, the code fence's run)
retried the rest of the line from every opener: one 100 KB line of `<` held the writer for 27.5 s, four times
longer per doubling, and the whole server with it. Here every shape runs through a real `scree reindex`
process; its bound is generous (the fixed filters take milliseconds), the quadratic ones took minutes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write
from scree.notes.language import prose_of

SHAPES = {"tags": "<", "includes": "{*", "links": "](", "backticks": "`", "heading-ids": "{ #", "comments": "<!--"}
LINE_BYTES = 200 * 1024


def _line(fragment: str) -> str:
    return (fragment * (LINE_BYTES // len(fragment) + 1))[:LINE_BYTES]


def scree(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scree.cli", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=timeout)


@pytest.mark.parametrize("fragment", list(SHAPES.values()), ids=list(SHAPES))
def test_the_prose_filter_reads_a_huge_line_of_openers_and_keeps_the_words_beside_it(fragment: str) -> None:
    text = f"Retention keeps logs.\n{_line(fragment)}\nDeploys run on Tuesdays."
    prose = prose_of(text)
    assert "Retention keeps logs." in prose and "Deploys run on Tuesdays." in prose


def test_prose_filters_still_take_out_the_markup_they_are_for() -> None:
    text = "See [the guide](http://x.test/a) and <b>this</b> {* ../src/app.py *} title { #anchor } `code`\n```py\nx = 1\n```\nend"
    prose = prose_of(text)
    for gone in ("http://x.test/a", "<b>", "src/app.py", "#anchor", "code", "x = 1"):
        assert gone not in prose
    for kept in ("See", "the guide", "this", "title", "end"):
        assert kept in prose


def test_notes_of_huge_lines_of_openers_are_indexed_by_a_real_process_in_bounded_time(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    for name, fragment in SHAPES.items():
        write(notes, f"{name}.md", f"# {name.title()}\n\nThe {name} page explains rotation.\n\n{_line(fragment)}\n")
    write(notes, "plain.md", "# Plain\n\nRotation happens nightly.\n")
    done = scree("reindex", "--notes", str(notes), timeout=90)  # the quadratic filters needed minutes
    assert done.returncode == 0, done.stderr
    status = json.loads(scree("status", "--json", "--notes", str(notes), timeout=60).stdout)
    assert status["files"] == len(SHAPES) + 1 and status["incomplete_files"] == 0, status
    found = scree("search", "--json", "-k", "10", "--mode", "keyword", "--notes", str(notes), "rotation", timeout=60)
    assert found.returncode == 0, found.stderr
    paths = {hit["path"] for hit in json.loads(found.stdout)["results"]}
    assert paths == {f"{name}.md" for name in SHAPES} | {"plain.md"}


def _first_hit_after_reindex(notes: Path, query: str) -> str:
    """The first hit's path for `query` once a real `scree reindex` process has indexed `notes` (the quadratic
    readers needed minutes; the bound is generous)."""
    done = scree("reindex", "--notes", str(notes), timeout=90)
    assert done.returncode == 0, done.stderr
    found = scree("search", "--json", "--mode", "keyword", "--notes", str(notes), query, timeout=60)
    assert found.returncode == 0, found.stderr
    return str(json.loads(found.stdout)["results"][0]["path"])


def test_vim_help_of_huge_lines_of_tags_and_blanks_is_indexed_by_a_real_process_in_bounded_time(tmp_path: Path) -> None:
    # a line of tags that ends in a word, and blanks before a `~`, were each minutes of regex backtracking
    notes = tmp_path / "plugin.vim"
    write(notes, "plugin/x.vim", "command! X echo 1\n")
    tags = (("*a* " * (LINE_BYTES // 4)) + "x")
    blanks = "a" + " " * LINE_BYTES + "b~"
    help_text = f"*x.txt*  X\n\nROTATION      *x-rotation*\n\n{tags}\n{blanks}\n\nRotation nightly.\n"
    write(notes, "doc/x.txt", help_text)
    assert _first_hit_after_reindex(notes, "rotation") == "doc/x.txt"


def test_an_rd_page_of_huge_lines_of_markup_is_indexed_by_a_real_process_in_bounded_time(tmp_path: Path) -> None:
    # commands nested past any real page, unclosed arguments and a line of bare braces, in one R help page
    notes = tmp_path / "pkg"
    write(notes, "DESCRIPTION", "Package: x\n")
    lines = "\n".join(_line(fragment) for fragment in ("\\code{", "\\item{", "{", "\\section{x}{", "a\\%"))
    write(notes, "man/x.Rd", f"\\name{{x}}\n\\title{{Rotation}}\n\\description{{\nRotation nightly.\n{lines}\n}}\n")
    assert _first_hit_after_reindex(notes, "rotation") == "man/x.Rd"


def test_a_manual_page_of_huge_lines_of_escapes_and_macros_is_indexed_by_a_real_process_in_bounded_time(
        tmp_path: Path) -> None:
    # unclosed escapes (`\[`, `\*[`, `\h'`), a macro line of enclosures, and thousands of nested tagged lists
    notes = tmp_path / "tool"
    lines = "\n".join(_line(fragment) for fragment in ("\\[", "\\*[", "\\h'", "\\f"))
    nested = ".Bl -tag\n.It x\n" * 2_000
    text = f".Dt X 1\n.Sh DESCRIPTION\nRotation nightly.\n{lines}\n.Op {_line('Op ')}\n{nested}"
    write(notes, "x.1", text)
    assert _first_hit_after_reindex(notes, "rotation") == "x.1"


def test_a_pod_page_of_huge_lines_of_formatting_codes_is_indexed_by_a_real_process_in_bounded_time(
        tmp_path: Path) -> None:
    # a nest of codes (each level copies what it holds: bounded), unclosed doubled brackets, links and escapes
    notes = tmp_path / "dist"
    lines = "\n".join(_line(fragment) for fragment in ("C<", "C<< ", "L<a|", "E<", "B<x> "))
    write(notes, "lib/X.pod", f"=head1 NAME\n\nX - x\n\n=head1 ROTATION\n\nRotation nightly.\n\n{lines}\n")
    assert _first_hit_after_reindex(notes, "rotation") == "lib/X.pod"


def test_a_texinfo_manual_of_huge_lines_of_commands_and_braces_is_indexed_by_a_real_process_in_bounded_time(
        tmp_path: Path) -> None:
    # a nest of braces (each level copies what it holds: bounded), unclosed commands, a line of bare `@`
    notes = tmp_path / "tool"
    lines = "\n".join(_line(fragment) for fragment in ("@code{", "{", "@", "@xref{a,"))
    write(notes, "doc/x.texi", f"@settitle X\n@chapter Rotation\nRotation nightly.\n{lines}\n")
    assert _first_hit_after_reindex(notes, "rotation") == "doc/x.texi"


def test_an_rdoc_page_of_huge_lines_of_markup_is_indexed_by_a_real_process_in_bounded_time(tmp_path: Path) -> None:
    # unclosed tags, word marks with no closing one, link-shaped words
    notes = tmp_path / "gem"
    lines = "\n".join(_line(fragment) for fragment in ("<tt>", "<b>x</tt>", "*a.", "_a.", "a.", "{x}["))
    write(notes, "README.rdoc", f"= X\n== Rotation\nRotation nightly.\n{lines}\n")
    assert _first_hit_after_reindex(notes, "rotation") == "README.rdoc"


def test_a_docbook_page_of_huge_lines_of_markup_is_indexed_by_a_real_process_in_bounded_time(tmp_path: Path) -> None:
    # unclosed tags and comments, a nest of entries and titles (bounded depth), stray closing tags, bare ampersands
    notes = tmp_path / "tool"
    lines = "\n".join(_line(fragment) for fragment in ("<", "<!--x-->", "<varlistentry><term>", "</title>", "&",
                                                       "<option>", "<a b='"))
    write(notes, "man/x.8.xml", "<?xml version='1.0'?>\n<!DOCTYPE refentry PUBLIC '-//OASIS//DTD DocBook V4.5//EN'>\n"
                                f"<refentry><refsect1><title>Rotation</title><para>Rotation nightly.</para>\n{lines}\n")
    assert _first_hit_after_reindex(notes, "rotation") == "man/x.8.xml"
