"""A project's plain-text docs by their conventional names (GNU's `README`, `INSTALL` and `NEWS`, OpenSSH's
`PROTOCOL.agent`, PostgreSQL's `src/backend/**/README`) are notes read as text, titled where their writer underlined or
numbered a title. The name rule and the text reader directly; the policy; the sync, search and read_doc with a real
index."""

from __future__ import annotations

from pathlib import Path

import pytest

from synced import keyword_hits, synced_index
from scree.mcpserver import read_output
from scree.notes import formats
from scree.notes.mdblocks import split_lines
from scree.notes.policy import NotesPolicy
from scree.notes.textblocks import parse_text


@pytest.mark.parametrize(("name", "plain"), [
    ("README", True), ("INSTALL", True), ("NEWS", True), ("HACKING", True), ("PROTOCOL.agent", True),
    ("README.platform", True), ("README.VMS", True), ("README.online-recovery", True), ("INSTALL.txt", True),
    ("src/backend/access/nbtree/README", True), ("README.utf8", True),
    ("README.md", False),  # Markdown by its suffix
    ("README.in", False),  # configure's template
    ("README.euc_jp", False), ("README.sjis", False),  # not UTF-8: read as UTF-8 it is noise
    ("protocol.c", False), ("install.rs", False), ("Readme", False),  # code, or not the convention's case
    ("ChangeLog", False), ("CHANGELOG", False), ("TODO", False), ("COPYING", False), ("AUTHORS", False),
    ("README.html", False), ("README.sh", False), ("READMEFIRST", False), ("README.", False),
    ("README.Rmd", False), ("README.qmd", False),  # knitted to README.md: a format of their own
])
def test_a_plain_doc_is_named_as_the_convention_writes_it(name: str, plain: bool) -> None:
    assert formats.is_plain_doc(name) is plain
    if plain:
        assert formats.kind_of(name) == formats.TEXT


def test_plain_docs_are_notes_in_any_folder_unless_the_extensions_are_narrowed(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    for rel in ("README", "PROTOCOL.agent", "src/backend/nbtree/README", "README.in", "ChangeLog", "TODO",
                "src/protocol.c"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("Some words.\n", encoding="utf-8")
    policy = NotesPolicy.load(root)
    assert policy.file_skip_reason("README") is None
    assert policy.file_skip_reason("PROTOCOL.agent") is None
    assert policy.file_skip_reason("src/backend/nbtree/README") is None
    for rel in ("README.in", "ChangeLog", "TODO", "src/protocol.c"):
        assert policy.file_skip_reason(rel) is not None, rel
    narrowed = NotesPolicy.load(root, suffixes=(".md",))
    assert narrowed.file_skip_reason("README") is not None


PROTOCOL = """\
This file documents the quasar extensions to the agent protocol.

1. session-bind@quasar.example extension

This extension binds an agent connection to a zephyrine session.

2. restrict-destination extension

The message names the hosts a key may be used for.
"""


def test_plain_docs_are_searched_and_read_whole(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    files = {"PROTOCOL.agent": PROTOCOL, "README": "Quasar is a tool.\n\nSee INSTALL for how to build it.\n",
             "TODO": "zephyrine cleanup\n"}
    with synced_index(root, files) as index:
        assert [h.path for h in keyword_hits(index, root, "zephyrine")] == ["PROTOCOL.agent"]
        assert [h.path for h in keyword_hits(index, root, "build")] == ["README"]
    out = read_output(root, "PROTOCOL.agent", heading=None, start_line=3, end_line=5, max_file_bytes=1 << 20,
                      max_bytes=100_000)
    assert "session-bind@quasar.example" in out.text and "restrict-destination" not in out.text


LAID_OUT = """\
Quasar, a tool for nebulae.

-----------------------------------------------------------
Copyright (C) 2026 The Quasar Authors. This file is free;
you may copy it. See <https://example.org/licenses/>.
-----------------------------------------------------------

Basic Installation
==================

Run the steps below.

1. Prerequisites

You need a compiler.

1.1. zephyrine: the optional library

Build it first.

2. Do this before you start.

How to test
-----------

Run the suite.
"""


def _heads(text: str) -> list[tuple[int, int, str]]:
    return [(h.start, h.level, h.text) for h in parse_text(split_lines(text)).headings]


def test_underlined_and_numbered_titles_are_headings_and_paragraphs_are_not() -> None:
    assert _heads(LAID_OUT) == [(7, 1, "Basic Installation"), (12, 2, "1. Prerequisites"),
                                (16, 3, "1.1. zephyrine: the optional library"), (22, 2, "How to test")]


def test_a_plain_doc_s_sections_carry_its_titles(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    with synced_index(root, {"INSTALL": LAID_OUT}) as index:
        assert [(h.path, h.heading) for h in keyword_hits(index, root, "zephyrine")] == [
            ("INSTALL", "Basic Installation > 1. Prerequisites > 1.1. zephyrine: the optional library")]


@pytest.mark.parametrize("text", ["-" * 200_000, "a\n" + "-" * 100_000, "x\n---\n" * 50_000, "1. a\n\n" * 50_000,
                                  "\n" * 100_000, "1." + " " * 100_000 + "x", "=\n" * 100_000, "\x00\n===\n" * 1000])
@pytest.mark.timeout(60)
def test_hostile_plain_text_never_raises(text: str) -> None:
    blocks = parse_text(split_lines(text))
    starts = [h.start for h in blocks.headings]
    assert starts == sorted(set(starts))


def test_a_numbered_title_may_wrap_onto_one_more_line() -> None:
    text = ("2.2. connection: disallow additional sessions extension\n     \"no-more-sessions@quasar.example\"\n\n"
            "Most clients open one session.\n\n3. A list item that wraps\nonto a sentence.\n\nText.\n")
    assert _heads(text) == [(0, 2, "2.2. connection: disallow additional sessions extension "
                                   "\"no-more-sessions@quasar.example\"")]
