"""A Docusaurus site's copies of its docs for past releases (`versioned_docs/version-X/`) are searched after the current
docs: jest's three copies of `docs/` filled the places of the other answers. Pure parts directly; the search over a
real index."""

from __future__ import annotations

from pathlib import Path

from conftest import write
from synced import full_sync, keyword_hits, synced_index
from scree.notes import secondary as versions
from scree.notes.secondary import agent_note, in_test_folder, later_files, names_version, one_per_section, versioned

PAGE = """\
# Reference

## `test.concurrent(name, fn)`

Runs the zephyrine test concurrently.

## `test.each(table)`

Runs a table of tests.
"""
OLD_ONLY = "# Legacy\n\n## `runInBand`\n\nThe zephyrine runner of old.\n"


def test_a_copy_is_known_by_its_version_and_its_path_below_it() -> None:
    assert versioned("website/versioned_docs/version-30.4/CLI.md") == ("30.4", "CLI.md")
    assert versioned("community_versioned_docs/version-2.x/guides/a.md") == ("2.x", "guides/a.md")
    assert versioned("docs/CLI.md") is None
    assert versioned("docs/versioned_docs.md") is None


def test_a_query_names_a_version_only_as_a_word_of_its_own() -> None:
    assert names_version("what did --watch do in jest 29.7?", "29.7")
    assert names_version("v29.7 config", "29.7")
    assert not names_version("jest 29.70", "29.7")
    assert not names_version("129.7", "29.7")


def test_the_copies_of_a_version_the_query_names_are_searched_with_the_current_docs() -> None:
    files = [(1, "docs/CLI.md"), (2, "website/versioned_docs/version-29.7/CLI.md"),
             (3, "website/versioned_docs/version-30.4/CLI.md")]
    assert later_files(files, "--watch") == {2, 3}
    assert later_files(files, "--watch in 29.7") == {3}


def test_one_hit_per_section_across_the_versions() -> None:
    hits = [("website/versioned_docs/version-30.4/CLI.md", "Reference > a"), ("docs/x.md", "X"),
            ("website/versioned_docs/version-29.7/CLI.md", "Reference > a"),
            ("website/versioned_docs/version-29.7/CLI.md", "Reference > b")]
    assert one_per_section(hits, lambda h: h) == [hits[0], hits[1], hits[3]]


def _files() -> dict[str, str]:
    return {"docs/GlobalAPI.md": PAGE, "website/versioned_docs/version-29.7/GlobalAPI.md": PAGE,
            "website/versioned_docs/version-30.4/GlobalAPI.md": PAGE,
            "website/versioned_docs/version-29.7/Legacy.md": OLD_ONLY}


def test_the_current_docs_answer_first_and_the_copies_only_fill_free_places(tmp_path: Path) -> None:
    root = tmp_path / "site"
    with synced_index(root, _files()) as index:
        hits = keyword_hits(index, root, "test.concurrent", k=1)
        assert [(h.path, h.heading) for h in hits] == [("docs/GlobalAPI.md", "Reference > `test.concurrent(name, fn)`")]
        # the current docs hold one section spelling it: the copies fill the places left, one per section
        hits = keyword_hits(index, root, "zephyrine", k=5)
        assert hits[0].path == "docs/GlobalAPI.md" and len(hits) == 3  # the copied section once
        assert {(versioned(h.path)[1], h.heading) for h in hits[1:]} == {  # type: ignore[index]
            ("GlobalAPI.md", "Reference > `test.concurrent(name, fn)`"), ("Legacy.md", "Legacy > `runInBand`")}


def test_a_query_naming_a_version_finds_its_copy_with_the_current_docs(tmp_path: Path) -> None:
    root = tmp_path / "site"
    with synced_index(root, _files()) as index:
        paths = [h.path for h in keyword_hits(index, root, "test.concurrent 29.7", k=3)]
        assert "website/versioned_docs/version-29.7/GlobalAPI.md" in paths
        assert "website/versioned_docs/version-30.4/GlobalAPI.md" not in paths


def test_while_the_rule_is_off_every_copy_is_searched_alike(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(versions, "VERSIONED_COPIES_LATER", False)
    root = tmp_path / "site"
    with synced_index(root, _files()) as index:
        assert len({h.path for h in keyword_hits(index, root, "test.concurrent", k=3)}) == 3


def test_copies_synced_after_a_search_are_known_as_copies_at_the_next_one(tmp_path: Path) -> None:
    root = tmp_path / "site"
    with synced_index(root, {"docs/GlobalAPI.md": PAGE}) as index:
        assert [h.path for h in keyword_hits(index, root, "test.concurrent", k=1)] == ["docs/GlobalAPI.md"]
        for version in ("29.7", "30.4"):  # a section the current docs no longer have, in two releases
            write(root, f"website/versioned_docs/version-{version}/Legacy.md", OLD_ONLY)
        full_sync(index, root)
        # read as copies (the index changed since the last search): one hit for the section of both releases
        assert [h.heading for h in keyword_hits(index, root, "runInBand", k=5)] == ["Legacy > `runInBand`"]


def test_a_note_below_a_test_folder_is_searched_later_the_notes_folder_s_own_name_aside() -> None:
    assert in_test_folder("tests/format/markdown/ignore.md")
    assert in_test_folder("packages/expect/__tests__/fixtures/a.md")
    assert in_test_folder("pkg/testdata/README.md")
    assert not in_test_folder("docs/testing.md") and not in_test_folder("docs/test-plan/index.md")
    assert not in_test_folder("plan.md")  # a notes folder named `test` is notes
    assert in_test_folder("t/README") and in_test_folder("t/perf/README")  # git's and Perl's test folder
    assert not in_test_folder("docs/t.md") and not in_test_folder("at/README")
    assert later_files([(1, "docs/ignore.md"), (2, "tests/format/ignore.md")], "@noprettier") == {2}


def test_a_perl_module_s_namespace_is_no_test_folder_but_a_test_folder_s_module_is() -> None:
    assert not in_test_folder("lib/Test/Mojo.pm") and not in_test_folder("lib/Test/More.pod")  # Test::Mojo
    assert in_test_folder("test/lib/Test/Fixture.pm") and in_test_folder("lib/Test/notes.md")


def test_an_agent_s_instruction_files_are_searched_later_at_any_depth() -> None:
    assert agent_note("CLAUDE.md") and agent_note("pkg/AGENTS.md") and agent_note("CLAUDE.local.md")
    assert not agent_note("docs/reference/api/agents.md") and not agent_note("docs/claude-md.md")
    assert later_files([(1, "docs/testing.md"), (2, "AGENTS.md"), (3, "CLAUDE.md")], "run the tests") == {2, 3}


def test_the_docs_answer_before_the_agents_notes_that_sum_them_up(tmp_path: Path) -> None:
    # an AGENTS.md (imported by CLAUDE.md, so already in the agent's context) spells the commands more tersely
    root = tmp_path / "repo"
    files = {"docs/contributing.md": "# Contributing\n\n## Running the tests\n\nRun `make quasartest` from the "
                                     "top folder; it builds the fixtures first.\n",
             "CLAUDE.md": "@AGENTS.md\n", "AGENTS.md": "# Agents\n\n## Tests\n\n`make quasartest`\n"}
    with synced_index(root, files) as index:
        assert [h.path for h in keyword_hits(index, root, "quasartest", k=5)] == ["docs/contributing.md", "AGENTS.md"]


def test_test_fixtures_answer_only_where_the_docs_leave_places(tmp_path: Path) -> None:
    # prettier's Markdown fixtures spell its pragmas more often than its docs, and are shorter
    root = tmp_path / "repo"
    files = {"docs/options.md": "# Options\n\n## Insert Pragma\n\nPrettier can insert a `@format` marker; "
                                "`@noprettier` in the docblock makes it skip the file.\n",
             "tests/format/markdown/pragma/noprettier.md": "<!-- @noprettier -->\n\n# @noprettier\n\n@noprettier\n",
             "tests/format/markdown/pragma/other.md": "# Other\n\nNo pragma here.\n"}
    with synced_index(root, files) as index:
        hits = keyword_hits(index, root, "@noprettier", k=5)
        assert hits[0].path == "docs/options.md"
        assert {h.path for h in hits[1:]} == {"tests/format/markdown/pragma/noprettier.md"}


def test_a_lookup_the_docs_answer_by_its_spelling_is_not_filled_with_fixtures_the_vectors_find(tmp_path: Path) -> None:
    from fake_embedder import FakeEmbedder
    from scree.notes.policy import NotesPolicy
    from scree.search.search import Query
    from scree.search.vocabsearch import search_with_names

    root = tmp_path / "repo"
    files = {"docs/logo.md": "# Logo\n\n## `replacesTitle`\n\nHide the site title when the logo shows it.\n",
             "tests/fixtures/page.md": "# A page\n\nText about logos and titles, for the tests.\n"}
    with synced_index(root, files) as index:
        result = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query("replacesTitle", k=5))
        assert [h.path for h in result.hits] == ["docs/logo.md"]


def test_a_path_filter_on_a_test_folder_still_finds_its_notes_and_every_mode_keeps_them_later(tmp_path: Path) -> None:
    from fake_embedder import FakeEmbedder
    from scree.notes.policy import NotesPolicy
    from scree.search.search import Query
    from scree.search.vocabsearch import search_with_names

    root = tmp_path / "repo"
    files = {"docs/pragma.md": "# Pragmas\n\nThe quasarflux pragma skips a file.\n",
             "tests/fixtures/pragma.md": "# quasarflux\n\nquasarflux quasarflux\n"}
    with synced_index(root, files) as index:
        policy, embedder = NotesPolicy.load(root), FakeEmbedder()
        for cache in (index.vectors.max_bytes, 0):  # the vectors in memory, then sqlite-vec's own search
            index.vectors.max_bytes = cache
            for mode in ("keyword", "semantic", "hybrid"):
                hits = search_with_names(index, policy, embedder, Query("quasarflux", k=5, mode=mode)).hits
                assert hits[0].path == "docs/pragma.md", (mode, cache)
        only = search_with_names(index, policy, embedder, Query("quasarflux", k=5, paths=("tests/**",))).hits
        assert [h.path for h in only] == ["tests/fixtures/pragma.md"]


def test_git_s_test_folder_t_answers_only_where_the_docs_leave_places(tmp_path: Path) -> None:
    # git's `t/README` tells how to run git's own test suite, which a question about running one's tests matches
    root = tmp_path / "repo"
    files = {"Documentation/git-bisect.adoc": "= git-bisect(1)\n\n== Bisect run\n\nRun a zephyrine script at each step.\n",
             "t/README": "Core Git Tests\n==============\n\nRunning Tests\n-------------\n\nThe zephyrine suite runs here.\n"}
    with synced_index(root, files) as index:
        assert [h.path for h in keyword_hits(index, root, "zephyrine", k=5)] == ["Documentation/git-bisect.adoc",
                                                                               "t/README"]
