"""Org files (`README.org`, Magit's manual `docs/magit.org`) read as Emacs shows them. The reader directly; the sync,
search and read_doc with a real index."""

from __future__ import annotations

from pathlib import Path

import pytest

from synced import full_sync, keyword_hits, synced_index
from scree.mcpserver import read_output
from scree.notes import formats, orgblocks
from scree.notes.chunker import chunk_note
from scree.notes.mdblocks import split_lines
from scree.notes.orgblocks import clean_org_heading, parse_org
from scree.notes.policy import NotesPolicy
from scree.notes.sections import sections

MANUAL = """#+title: Magit User Manual
#+options: broken-links:mark
:PREAMBLE:
Magit is an interface to Git.
:END:
* Introduction
Magit is a porcelain.
* Interface Concepts
** Switching Buffers                                       :buffers:
:PROPERTIES:
:CUSTOM_ID: switching_buffers
:END:
- User Option: magit-display-buffer-function ::

  The function used to display a quasarhub buffer.

- Key: q (magit-mode-bury-buffer) ::

  Bury the current buffer.
#+begin_src emacs-lisp
* not a heading (setq x 1)
#+end_src
: * fixed width, not a heading
# a comment, not a heading
** TODO [#A] Use =magit-status= with [[info:magit#Status][the status buffer]] [1/2]
Text.
"""


def test_an_org_file_s_headings_blocks_and_title() -> None:
    lines = split_lines(MANUAL)
    blocks = parse_org(lines)
    assert [(h.start, h.level, h.text, h.body) for h in blocks.headings] == [
        (5, 1, "Introduction", False), (7, 1, "Interface Concepts", False), (8, 2, "Switching Buffers", False),
        (24, 2, "Use `magit-status` with the status buffer", False)]
    assert blocks.verbatim == ((19, 22), (22, 23))
    assert {0, 1, 2, 4, 9, 10, 11, 23} <= set(blocks.inert) and 3 not in blocks.inert  # a preamble drawer is text
    assert blocks.front_matter == 'title: "Magit User Manual"'


def test_a_description_list_item_is_an_entry_titled_by_its_term_when_entries_are_on(monkeypatch) -> None:
    monkeypatch.setattr(orgblocks, "ORG_ENTRIES", True)
    entries = [(h.start, h.level, h.text, h.body) for h in parse_org(split_lines(MANUAL)).headings if h.body]
    assert entries == [(12, 3, "User Option: magit-display-buffer-function", True),
                       (16, 3, "Key: q (magit-mode-bury-buffer)", True)]


def test_chunks_carry_the_trail_and_the_file_title_is_the_note_s() -> None:
    note = chunk_note(MANUAL, formats.ORG)
    assert note.title == "Magit User Manual"
    by_heading = {c.heading: c.text for c in note.chunks}
    assert "quasarhub" in by_heading["Interface Concepts > Switching Buffers"]
    assert [s.trail for s in sections(MANUAL, formats.ORG)][:3] == [
        "Introduction", "Interface Concepts", "Interface Concepts > Switching Buffers"]


@pytest.mark.parametrize(("raw", "clean"), [
    ("DONE Release :ops:urgent:", "Release"), ("[#B] Fix [50%]", "Fix"), ("~code~ and *bold* /it/", "`code` and bold it"),
    ("[[https://x.org]]", "https://x.org"), ("a = b = c", "a = b = c"), ("TODOS are words", "TODOS are words")])
def test_a_heading_reads_without_its_keywords_cookies_tags_and_markup(raw: str, clean: str) -> None:
    assert clean_org_heading(raw) == clean


@pytest.mark.parametrize("text", ["*", "* ", "#+begin_src\nnever closed", ":PROPERTIES:\nnever closed", "- ::",
                                  "#+title:", "\x00* \ufffd", "*" * 50_000 + " x", "- " + " " * 100_000 + "::x",
                                  "* " + "=a" * 50_000, "* " + "[[" * 50_000])
@pytest.mark.timeout(60)  # a quadratic term pattern took minutes on such a line; speed: benchmarks/hostile_readers.py
def test_broken_or_hostile_org_never_raises(text: str) -> None:
    blocks = parse_org(split_lines(text))
    starts = [h.start for h in blocks.headings]
    assert starts == sorted(set(starts))


def test_org_files_are_notes_without_a_setting_and_answer_by_section(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    with synced_index(root, {"docs/magit.org": MANUAL, "README.md": "# Magit\n"}) as index:
        full_sync(index, root)
        assert NotesPolicy.load(root).note_kind("docs/magit.org") == formats.ORG
        assert [(h.path, h.heading) for h in keyword_hits(index, root, "quasarhub")] == [
            ("docs/magit.org", "Interface Concepts > Switching Buffers")]
    out = read_output(root, "docs/magit.org", heading="Switching Buffers", start_line=None, end_line=None,
                      max_file_bytes=1 << 20, max_bytes=100_000)
    assert out.heading == "Interface Concepts > Switching Buffers" and "quasarhub" in out.text
