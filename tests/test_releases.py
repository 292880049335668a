"""A question asking which release first had a name gets the earliest history entry spelling it (issue 38).

The miss it mends: "Which Black release introduced the separate --unstable style?" ranked the guide page and
newer changelog entries (a fix to the flag, a feature moved out of it) above the release that added it, which
was 12th. The predicates directly; the lookup on a real index (fake embedder).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write
from fake_embedder import FakeEmbedder
from scree.config import load_config
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.search import releases
from scree.search.releases import asks_first_release, earliest, release_event, release_version
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names


@pytest.mark.parametrize("query", [
    "Which Black release introduced the separate --unstable style?",
    "In which version did --line-ranges first appear?",
    "Which coverage.py release first added the source_dirs setting?",
    "Since which version does max_line_length=off work?",
])
def test_a_question_for_the_release_that_added_a_name_asks_for_the_first_release(query: str) -> None:
    assert asks_first_release(query)


@pytest.mark.parametrize("query", [
    "Which Node.js version do I need for prettier.config.ts?",  # no first appearance
    "In which release was hatch fmt deprecated, and what replaces it?",  # an event, not the first appearance
    "How do I add --unstable to my config?",  # no release asked for
])
def test_other_questions_ask_for_no_first_release(query: str) -> None:
    assert not asks_first_release(query)


@pytest.mark.parametrize(("query", "event"), [
    ("In which release was hatch fmt deprecated, and what replaces it?", "deprecat"),
    ("Which version removed the --legacy flag?", "remov"),
    ("Which release dropped Python 3.8?", "drop"),
    ("In which release did that change?", "chang"),  # a change: the latest entry saying one (`earliest(latest=)`)
    ("In which version did exclude_docs stop keeping drafts?", "chang"),
    ("Which release added the pointer style for changing the cursor?", ""),  # what the feature does, no change
    ("My code broke after upgrading. Which release was it?", "chang"),
    ("Which release added --x?", ""),
    ("Why was --x deprecated?", None),  # no release asked for
])
def test_a_question_for_the_release_that_deprecated_a_name_asks_for_that_event(query: str, event: str | None) -> None:
    assert release_event(query) == event


@pytest.mark.parametrize(("trail", "version"), [
    ("Change Log > Version 24.1.0 > Preview style", (24, 1, 0)),
    ("Change Log > [7.4.0] - 2026-01-25 > Added", (7, 4, 0)),
    ("Changelog > 0.20.0 (13th October, 2021)", (0, 20, 0)),
    ("Changes > v14.1.1 > Drop Python 3.8", (14, 1, 1)),  # the outer heading's, not a subsection's
    ("Changelog > Release v2.5.0b0 (2023-03-29) > Features", (2, 5, 0)),  # a pre-release is its version
    ("Changelog > 1.5.0.alpha.7 (2015-05-31) - @mojavelinux", (1, 5, 0)),
    ("Changes > 2.0.0rc1", (2, 0, 0)),
    ("News > 2024-05-01", None),  # a date is no version
    ("Usage > Options", None),
])
def test_a_sections_version_is_the_first_version_number_of_its_trail(trail: str,
                                                                     version: tuple[int, ...] | None) -> None:
    assert release_version(trail) == version


def test_the_earliest_version_among_sections_spelling_the_most_names_wins_in_the_given_order() -> None:
    def at(key: str, trail: str, count: int) -> tuple[str, tuple[int, ...] | None, int]:
        return key, release_version(trail), count

    sections = [at("fix", "Changes > 2.1.0 > Fixed", 1), at("added", "Changes > 1.10.0 > Added", 1),
                at("highlight", "Changes > 1.10.0 > Highlights", 1), at("older", "Changes > 1.2.0", 0),
                at("undated", "Changes > Unreleased", 1)]
    assert earliest(sections) == ["added", "highlight"]  # 1.10 is above 1.2 (numbers, not text); 1.2 spells none
    assert earliest([at("both", "Changes > 3.0.0", 2), at("one", "Changes > 1.0.0", 1)]) == ["both"]
    assert earliest([at("undated", "Changes > Unreleased", 1)]) == []


def _hits(root: Path, query: str, mode: str = "auto") -> list[tuple[str, str]]:
    index = open_index(index_location(root, load_config()), root)
    try:
        sync(index, NotesPolicy.load(root), FakeEmbedder())
        result = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(query, k=5, mode=mode))
        return [(h.path, h.heading) for h in result.hits]
    finally:
        index.close()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Newest first, as most changelogs are: the flag's later entries say more of the question's words."""
    root = tmp_path / "docs"
    write(root, "CHANGES.md", "# Changes\n\n## 2.3.0\n\n- The separate `--unstable` style now also enables the "
                              "unstable string style; `--unstable` implies `--preview`.\n\n## 2.1.0\n\n- "
                              "`SpinColumn` spins "
                              "faster.\n- Fix the "
                              "cache shared between runs with and without the separate `--unstable` style.\n\n"
                              "## 1.10.0\n\n- Add `--unstable`, for preview features with known problems.\n\n"
                              "## 1.9.0\n\n- Add `--preview` and the `SpinColumn` column.\n\n## 1.2.0\n\n- "
                              "Deprecate `frob`, the old name of `--preview`.\n\n## 1.0.0\n\n- Initial SpinTool "
                              "version, with the `frob` command.\n")
    write(root, "usage.md", "# Usage\n\n## Styles\n\nThe separate unstable style (`--unstable`) has the features "
                            "of `--preview` and those with known problems. Which release you run decides which "
                            "features the style introduced holds.\n")
    write(root, "blog/posts/release-1-10.md", "# Release 1.10.0\n\nThis release introduced `--unstable`, the "
                                              "separate style.\n")
    write(root, "src/tool.py", "def frob(config):\n    return config\n")  # the code's names: `frob`
    return root


def test_the_release_that_first_spells_the_flag_answers_which_release_introduced_it(project: Path) -> None:
    query = "Which release introduced the separate --unstable style?"
    for mode in ("auto", "keyword", "hybrid"):
        assert _hits(project, query, mode)[0] == ("CHANGES.md", "Changes > 1.10.0"), mode


def test_a_class_name_is_a_name_by_its_shape_as_typed(project: Path) -> None:
    # `SpinColumn` is CamelCase as typed; case-folded first, it read as a plain word and the rule did not fire
    assert _hits(project, "Which release added SpinColumn?")[0] == ("CHANGES.md", "Changes > 1.9.0")
    assert _hits(project, "In which version did the tool start honouring --unstable?")[0] == ("CHANGES.md",
                                                                                            "Changes > 1.10.0")


def test_the_project_named_as_whose_release_is_not_the_name_asked_about(project: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # "Which SpinTool release": SpinTool (CamelCase) says whose release, and its first release spells it; nothing else
    # the question says is a name, so nothing is pinned
    query = "Which SpinTool release added faster spinning for the column?"
    hits = _hits(project, query)
    assert hits[0] != ("CHANGES.md", "Changes > 1.0.0")
    monkeypatch.setattr(releases, "FIRST_RELEASE", False)
    assert _hits(project, query) == hits


def test_without_the_rule_a_newer_entry_or_the_guide_leads(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(releases, "FIRST_RELEASE", False)
    assert _hits(project, "Which release introduced the separate --unstable style?")[0] != ("CHANGES.md",
                                                                                             "Changes > 1.10.0")


def test_a_question_about_a_later_change_keeps_the_fused_order(project: Path) -> None:
    # "fixed" asks for another entry than the first: the rule stays out of it
    assert _hits(project, "Which release fixed the cache shared with the --unstable style?")[0] == (
        "CHANGES.md", "Changes > 2.1.0")


def test_a_name_marked_as_code_outweighs_a_word_named_by_its_capitals_alone(project: Path) -> None:
    # SpinTool (a name by its capitals alone: the product) is spelled by 1.0.0, `--unstable` from 1.10.0 on: the
    # release that added the flag is asked for, the product is what the question speaks of
    query = "Which release added --unstable to SpinTool?"
    assert _hits(project, query)[0] == ("CHANGES.md", "Changes > 1.10.0")


def test_the_release_that_deprecated_a_name_is_the_earliest_entry_saying_so(project: Path) -> None:
    # `frob` is a plain word, not a name by its shape: an event's entry, which says the event beside it, still counts
    assert _hits(project, "In which release was frob deprecated?")[0] == ("CHANGES.md", "Changes > 1.2.0")


@pytest.fixture
def changed(tmp_path: Path) -> Path:
    """A name added in 1.0.0, its behaviour changed in 1.5.0 and again in 3.0.0; 2.0.0 fixed it in more of the
    question's words."""
    root = tmp_path / "docs"
    write(root, "CHANGELOG.md", "# Change Log\n\n## [3.0.0]\n\n### Changed\n\n- Breaking change: `Select.BLANK` "
                                "is now `Select.NULL`, to avoid a clash with `Widget.BLANK`.\n\n## [2.0.0]\n\n"
                                "### Fixed\n\n- Code that compares a value against `Select.BLANK` after upgrading "
                                "works again.\n\n## [1.5.0]\n\n### Changed\n\n- Setting the value to `None` no "
                                "longer clears the selection (see `Select.BLANK`).\n\n## [1.0.0]\n\n### Added\n\n- "
                                "`Select.BLANK` flags an empty selection.\n")
    write(root, "select.md", "# Select\n\n## Blank\n\nCompare the value against `Select.NULL` to tell whether "
                             "anything is selected.\n")
    return root


def test_the_release_that_changed_a_name_is_the_latest_entry_saying_a_change(changed: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # the name's first release (1.0.0) and an earlier change (1.5.0) are not what broke the user's code after upgrading
    query = "My code compares against Select.BLANK and broke after upgrading. In which release did that change?"
    for mode in ("auto", "keyword", "hybrid"):
        assert _hits(changed, query, mode)[0] == ("CHANGELOG.md", "Change Log > [3.0.0] > Changed"), mode
    monkeypatch.setattr(releases, "CHANGE_EVENTS", False)
    assert _hits(changed, query)[0] != ("CHANGELOG.md", "Change Log > [3.0.0] > Changed")


@pytest.fixture
def history_only(tmp_path: Path) -> Path:
    """A command only the changelog names: one release added it, later ones fixed it."""
    root = tmp_path / "docs"
    write(root, "CHANGELOG.md", "# Changelog\n\n## Release v2.10.1\n\n### Bug Fixes\n\n- `spin fix` no longer "
                                "rewrites a lock file that spin fix already migrated; spin fix keeps comments.\n\n"
                                "## Release v2.5.0b0\n\n### Features\n\n- New command: `spin fix` to migrate to the "
                                "new features.\n\n## Release v2.4.0\n\n- Fix the lock file of spin.\n")
    write(root, "usage.md", "# Usage\n\n## Lock files\n\nspin writes a lock file; run `spin lock` to fix it.\n")
    return root


def test_a_lookup_only_the_changelog_spells_answers_from_the_release_that_added_it(history_only: Path) -> None:
    for mode in ("auto", "keyword", "hybrid"):
        assert _hits(history_only, "spin fix", mode)[0] == ("CHANGELOG.md", "Changelog > Release v2.5.0b0 > Features")


def test_without_the_rule_another_section_leads(history_only: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(releases, "ADDED_LOOKUPS", False)
    assert _hits(history_only, "spin fix", "keyword")[0] != ("CHANGELOG.md", "Changelog > Release v2.5.0b0 > Features")


def test_a_lookup_the_docs_spell_keeps_its_order(history_only: Path) -> None:
    assert _hits(history_only, "spin lock")[0] == ("usage.md", "Usage > Lock files")
