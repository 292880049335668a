"""Texinfo manuals (GNU make's `doc/make.texi`) read as their Info and HTML output show them. The reader directly;
the sync, search and read_doc with a real index."""

from __future__ import annotations

from pathlib import Path

import pytest

from synced import full_sync, keyword_hits, synced_index
from scree.mcpserver import read_output
from scree.notes import formats
from scree.notes.chunker import chunk_note
from scree.notes.mdblocks import split_lines
from scree.notes.policy import NotesPolicy
from scree.notes.sections import sections
from scree.notes.texiblocks import parse_texinfo, render

MANUAL = r"""\input texinfo   @c -*- Texinfo -*-
@setfilename quasar.info
@settitle Quasar Manual
@copying
Copyright nebulight notice.
@end copying
@node Top
@top Quasar

@menu
* Options::   nebulight menu entry
@end menu

@node Options
@chapter Running @code{quasar}
@cindex options

@section Summary of Options
@table @code
@item -j [@var{jobs}]
@itemx --jobs[=@var{jobs}]
Runs zephyrine jobs at once.

@item -k
@table @asis
@item nested
Inner text.
@end table
@end table

@table @samp
@item bare
@item tags
@end table

@iftex
quasarhub only in print
@end iftex
@ifinfo
Info readers see this.
@end ifinfo

@deffn Command frob @var{x}
@deffnx Command frobnicate
Frobs @var{x}.  @xref{Options}.  See @uref{https://x.org, the site}@dots{} @@home.
@end deffn

@example
@group
make -j4
@end group
@end example

@verbatim
@code{kept as written}
@end verbatim

@itemize @bullet
@item A bullet
@end itemize
@multitable @columnfractions .5 .5
@item left @tab right
@end multitable
@bye
"""


def _heads(text: str) -> list[tuple[int, int, str, bool]]:
    return [(h.start, h.level, h.text, h.body) for h in parse_texinfo(split_lines(text)).blocks.headings]


def test_a_manual_s_chapters_sections_table_items_and_definitions() -> None:
    assert _heads(MANUAL) == [
        (7, 1, "Quasar", False), (14, 1, "Running `quasar`", False), (17, 2, "Summary of Options", False),
        (19, 3, "-j [jobs]", True),  # its @itemx is one entry with it
        (23, 3, "-k", True), (25, 4, "nested", True),  # a nested table one level down
        # the table of bare tags has none
        (42, 3, "frob", True)]  # a definition, titled by the name it defines; its @deffnx one entry with it


def test_the_shown_text_reads_commands_as_printed_and_leaves_markup_out() -> None:
    lines = split_lines(MANUAL)
    page = parse_texinfo(lines)
    assert len(page.text) == len(lines)
    shown = "\n".join(page.text)
    assert "nebulight" not in shown and "quasarhub" not in shown and "cindex" not in shown and "input" not in shown
    assert "Info readers see this." in shown and "Runs zephyrine jobs at once." in shown
    assert "Frobs x.  See Options.  See the site... @home." in shown
    assert page.text[19:21] == ["`-j [jobs]`", "`--jobs[=jobs]`"]
    assert page.text[42] == "Command: frob x" and page.text[14] == "# Running `quasar`"
    assert "@code{kept as written}" in shown and "- A bullet" in shown and "left | right" in shown
    assert page.blocks.verbatim == ((48, 51), (54, 55))  # an example's @group lines are markup
    assert page.blocks.front_matter == 'title: "Quasar Manual"'


@pytest.mark.parametrize(("raw", "shown"), [
    ("@code{x} @samp{y} @var{z} @emph{w}", "`x` `y` z w"), ("@xref{Node, , Title}", "See Title"),
    ("@pxref{Node}", "see Node"), ("@uref{https://x.org}", "https://x.org"), ("@email{a@@b.org, me}", "me"),
    ("@dots{} @result{} @@ @{ @}", "... \u21d2 @ { }"), ("caf@'e", "cafe"), ("@anchor{here}there", "there"),
    ("@code{unclosed", "unclosed"), ("{grouped}", "grouped"), ("a @w{b c} d", "a b c d")])
def test_inline_commands_read_as_the_words_they_print(raw: str, shown: str) -> None:
    assert render([raw]) == [shown]


def test_chunks_carry_the_trail_and_the_settitle_is_the_note_s_title() -> None:
    note = chunk_note(MANUAL, formats.TEXINFO)
    assert note.title == "Quasar Manual"
    by_heading = {c.heading: c.text for c in note.chunks}
    assert "zephyrine" in by_heading["Running `quasar` > Summary of Options > -j [jobs]"]
    assert [s.trail for s in sections(MANUAL, formats.TEXINFO)][:3] == [
        "Quasar", "Running `quasar`", "Running `quasar` > Summary of Options"]


@pytest.mark.parametrize("text", ["@", "@end", "@end table", "@item", "@itemx x", "@table", "@deffn", "@iftex\nnever",
                                  "@verbatim\nnever", "@example\nnever", "@chapter", "{" * 50_000, "}" * 50_000,
                                  "@code{" * 50_000, "@" * 50_000, "@table @code\n" * 5_000 + "@item x\ntext\n",
                                  "\x00@chapter \ufffd", "@ignore\n@ignore\n@end ignore\n"])
@pytest.mark.timeout(60)  # each level of a nest of braces copies what it holds; speed: benchmarks/hostile_readers.py
def test_broken_or_hostile_texinfo_never_raises_and_keeps_every_line(text: str) -> None:
    lines = split_lines(text)
    page = parse_texinfo(lines)
    assert len(page.text) == len(lines)
    starts = [h.start for h in page.blocks.headings]
    assert starts == sorted(set(starts))


def test_texinfo_manuals_are_notes_and_one_exported_from_org_is_read_as_the_org(tmp_path: Path) -> None:
    root = tmp_path / "tool"
    org = "#+title: Quasar\n* Options\nThe quasarhub options.\n"
    with synced_index(root, {"doc/quasar.texi": MANUAL, "docs/magit.org": org, "docs/magit.texi": MANUAL}) as index:
        report = full_sync(index, root)
        assert NotesPolicy.load(root).note_kind("doc/quasar.texi") == formats.TEXINFO
        assert [(h.path, h.heading) for h in keyword_hits(index, root, "zephyrine")] == [
            ("doc/quasar.texi", "Running `quasar` > Summary of Options > -j [jobs]")]  # not docs/magit.texi too
        assert "docs/magit.texi" not in {s.rel_path for s in report.skipped}  # not a skip: the Org is read instead
    verdict = NotesPolicy.load(root).inspect("docs/magit.texi")
    assert verdict.code is not None and "exported from magit.org" in str(verdict.reason)
    out = read_output(root, "doc/quasar.texi", heading="-j [jobs]", start_line=None, end_line=None,
                      max_file_bytes=1 << 20, max_bytes=100_000)
    assert out.heading == "Running `quasar` > Summary of Options > -j [jobs]" and "@itemx --jobs" in out.text
