"""reStructuredText `replace::` substitutions are written out where a page uses them (`notes/rstsubst.py`), so a
section that spells a name only through one is found by it."""

from __future__ import annotations

from pathlib import Path

from conftest import write
from scree.config import load_config
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.notes.chunker import chunk_note
from scree.notes.policy import NotesPolicy
from scree.notes.rstsubst import MAX_LINE_GROWTH, MAX_REPLACEMENT_CHARS, definitions, expand
from scree.search.search import Query, search

PAGE = """\
Troubleshooting
===============

.. |env-rule| replace:: the ``NO_COLOR`` environment
   variable
.. _env-rule: https://example.org/

Colors
------

Loguru honors |env-rule|_ and disables colors when it is set.

.. code-block:: text

   |env-rule| stays as written in code

Other
-----

Nothing here uses |undefined| or a|env-rule|b.
"""


def test_a_reference_is_written_out_on_its_own_line_and_code_keeps_its_bars() -> None:
    chunks = chunk_note(PAGE, "rst").chunks
    colors = next(c for c in chunks if c.heading.endswith("Colors"))
    assert "Loguru honors the ``NO_COLOR`` environment variable and disables colors" in colors.text
    assert "|env-rule| stays as written in code" in colors.text
    # lines stay where the source has them: the reference is on line 11
    assert colors.text.split("\n")[11 - colors.start_line].startswith("Loguru honors the ``NO_COLOR``")
    other = next(c for c in chunks if c.heading.endswith("Other"))
    assert "|undefined| or a|env-rule|b" in other.text  # no definition; inside a word


def test_definitions_join_continuation_lines_and_match_names_as_docutils_does() -> None:
    lines = PAGE.split("\n")
    defined = definitions(lines)
    assert defined == {"env-rule": "the ``NO_COLOR`` environment variable"}
    assert expand(["See |Env-Rule|.", "See |env-rule|__ too"], defined, ()) == [
        "See the ``NO_COLOR`` environment variable.", "See the ``NO_COLOR`` environment variable too"]
    assert expand(["See |env-rule|."], defined, (0,)) == ["See |env-rule|."]  # a skipped line


def test_markdown_bars_are_not_substitutions() -> None:
    text = "# Table\n\n.. |x| replace:: nothing\n\n| a | b |\n|---|---|\n| |x| | 1 |\n"
    assert "| |x| | 1 |" in "".join(c.text for c in chunk_note(text, "markdown").chunks)


def test_a_line_of_many_references_to_a_long_text_stays_bounded() -> None:
    long = "word " * 400
    defined = {"x": long.strip()}
    line = " ".join(["|x|"] * 5000)
    out = expand([line], defined, ())[0]
    assert len(out) <= len(line) + MAX_LINE_GROWTH * len(line) + MAX_REPLACEMENT_CHARS
    assert "|x|" in out  # the rest stays as written
    assert out.startswith("word word")


def test_search_finds_the_section_that_spells_a_name_only_through_a_substitution(tmp_path: Path, embedder) -> None:
    root = tmp_path / "repo"
    write(root, "docs/faq.rst", PAGE)
    write(root, "docs/setup.rst", "Setup\n=====\n\nInstall it and run it; colors are on by default.\n")
    index = open_index(index_location(root, load_config()), root)
    try:
        sync(index, NotesPolicy.load(root), embedder)
        hits = search(index, NotesPolicy.load(root), embedder, Query("NO_COLOR", mode="keyword")).hits
        assert [(h.path, h.heading) for h in hits][:1] == [("docs/faq.rst", "Troubleshooting > Colors")]
    finally:
        index.close()
