"""A changelog written with sqlalchemyorg's `changelog` Sphinx extension (SQLAlchemy's, Alembic's) reads as the built
page shows it: a section per release, titled by its version, and in it a section per kind of change, as conf.py's
`changelog_sections` divides them. Alembic's docs live in `docs/build/`, a folder name scree skips as build output
unless it holds a conf.py. Pure parts directly; the sync, search and read_doc with a real index."""

from __future__ import annotations

from pathlib import Path

from synced import keyword_hits, synced_index
from scree.mcpserver import read_output
from scree.notes import sphinxchangelog
from scree.notes.chunker import chunk_note
from scree.notes.sections import sections
from scree.notes.sphinxchangelog import kind_of, release_kinds, sections_of

CONF = 'extensions = ["changelog"]\nchangelog_sections = [\n    "changed",\n    "feature",\n    "bug",\n    "orm declarative",\n]\n'
SECTIONS = ("changed", "feature", "bug", "orm declarative")
PAGE = """\
==========
Changelog
==========

.. changelog::
    :version: 1.19.1
    :released: August 8, 2026

    .. change::
        :tags: bug, autogenerate
        :tickets: 1842

        Fixed the check constraint detection (quasarflux).

    .. change::
        :tags: feature, commands

        Added the zephyrine command.

    .. change::
        :tags: autogenerate, bug

        Fixed a second thing.

.. changelog::
    :version: 1.19.0
    :released: August 4, 2026

    .. change::
        :tags: installation

        Environmental updates (nimbostratus).

Older releases
==============

Read the old changelog.
"""


def test_the_conf_sections_are_read_as_a_literal_never_run() -> None:
    assert sections_of(CONF) == SECTIONS
    assert sections_of("changelog_sections = sorted(['bug'])\n") == ()  # not a literal
    assert sections_of("this is not python (\n") == ()
    assert sections_of("html_theme = 'x'\n") == ()


def test_a_change_goes_under_its_first_tag_that_is_a_section_a_two_word_section_first() -> None:
    assert kind_of(["autogenerate", "bug", "feature"], SECTIONS) == "bug"  # the first as written
    assert kind_of(["bug", "orm", "declarative"], SECTIONS) == "orm declarative"  # carries both words
    assert kind_of(["installation"], SECTIONS) == "misc"
    assert kind_of(["bug"], ()) == ""  # no sections configured: none between the release and its changes


def test_a_release_none_of_whose_changes_has_a_section_tag_shows_them_with_no_section() -> None:
    assert release_kinds([["installation"], ["tests"]], SECTIONS) == ["", ""]
    assert release_kinds([["installation"], ["bug"]], SECTIONS) == ["misc", "bug"]


def test_releases_are_sections_by_version_and_changes_by_kind_in_the_source_order() -> None:
    note = chunk_note(PAGE, "rst", SECTIONS)
    trails = [c.heading for c in note.chunks]
    assert trails == ["Changelog > 1.19.1", "Changelog > 1.19.1 > bug", "Changelog > 1.19.1 > feature",
                      "Changelog > 1.19.1 > bug", "Changelog > 1.19.0", "Changelog > Older releases"]
    assert "quasarflux" in note.chunks[1].text and ":released: August 8, 2026" in note.chunks[0].text
    assert "nimbostratus" in note.chunks[4].text  # no change of 1.19.0 has a section's tag


def test_without_the_conf_sections_a_release_is_one_section() -> None:
    trails = [c.heading for c in chunk_note(PAGE, "rst").chunks]
    assert trails == ["Changelog > 1.19.1", "Changelog > 1.19.0", "Changelog > Older releases"]


def test_the_text_after_a_release_is_the_page_section_again() -> None:
    page = "Changes\n=======\n\n.. changelog::\n    :version: 2.0\n\n    .. change::\n        :tags: bug\n\n" \
           "        Fixed.\n\nSee also the upgrade notes.\n"
    note = chunk_note(page, "rst", SECTIONS)
    assert [(c.heading, c.text.splitlines()[-1]) for c in note.chunks] == [
        ("Changes > 2.0", "    :version: 2.0"), ("Changes > 2.0 > bug", "        Fixed."),
        ("Changes", "See also the upgrade notes.")]


def test_while_the_rule_is_off_the_changelog_is_one_section(monkeypatch) -> None:
    monkeypatch.setattr(sphinxchangelog, "CHANGELOG_SECTIONS", False)
    assert {c.heading for c in chunk_note(PAGE, "rst", SECTIONS).chunks} == {"Changelog", "Changelog > Older releases"}


def test_read_doc_sections_name_the_releases_and_kinds() -> None:
    trails = [s.trail for s in sections(PAGE, "rst", SECTIONS)]
    assert trails == ["Changelog", "Changelog > 1.19.1", "Changelog > 1.19.1 > bug", "Changelog > 1.19.1 > feature",
                      "Changelog > 1.19.1 > bug", "Changelog > 1.19.0", "Changelog > Older releases"]


def test_a_synced_changelog_answers_by_release_and_read_doc_shows_it(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    files = {"docs/build/conf.py": CONF, "docs/build/changelog.rst": PAGE}
    with synced_index(root, files) as index:
        assert [h.heading for h in keyword_hits(index, root, "quasarflux")] == ["Changelog > 1.19.1 > bug"]
        assert [h.heading for h in keyword_hits(index, root, "zephyrine")] == ["Changelog > 1.19.1 > feature"]
    out = read_output(root, "docs/build/changelog.rst", heading="1.19.1 > feature", start_line=None, end_line=None,
                      max_file_bytes=1 << 20, max_bytes=100_000)
    assert out.heading == "Changelog > 1.19.1 > feature" and "zephyrine" in out.text and "quasarflux" not in out.text


def test_a_changelog_directive_inside_a_release_is_its_text_so_each_body_is_read_once() -> None:
    page = "Changes\n=======\n\n.. changelog::\n    :version: 2.0\n\n    .. changelog::\n        :version: 1.0\n\n" \
           "        Nested.\n"
    assert [c.heading for c in chunk_note(page, "rst", SECTIONS).chunks] == ["Changes > 2.0"]
