"""A name only the release histories spell is looked up by the spelling the docs use (issue 38): tox's changelog
adds `--skip-missing-interpreters`, its reference explains the key `skip_missing_interpreters`; uv's changelog names
`UV_NO_SYNC`, its docs explain `--no-sync`. Pure spellings directly; the lookup on a real index."""

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
from scree.search import siblings
from scree.search.search import Query
from scree.search.siblings import sibling_spellings
from scree.search.vocabsearch import search_with_names


@pytest.mark.parametrize(("name", "spellings"), [
    ("--skip-missing-interpreters", ["skip_missing_interpreters", "skip-missing-interpreters"]),
    ("skip_install", ["skip-install"]),  # found as `--skip-install` too
    ("editable-mode", ["editable_mode", "--editable-mode"]),
    ("PIP_NO_CACHE_DIR", ["--no-cache-dir", "no_cache_dir", "no-cache-dir"]),
    ("UV_NO_SYNC", ["--no-sync", "no_sync", "no-sync"]),
    ("--locked", []),  # one word: a flag's word is a plain word too
    ("UV_CACHE", []),  # a prefix and one word
    ("--color=auto", []), ("httpx.Client", []), ("Path", []),
])
def test_an_option_is_spelled_as_flag_key_and_variable(name: str, spellings: list[str]) -> None:
    assert sibling_spellings(name) == spellings


@pytest.fixture
def repo(tmp_path: Path):
    root = tmp_path / "repo"
    write(root, "CHANGELOG.md", "# Changelog\n\n## 4.2\n\n- Add `--skip-missing-interpreters` to the run command.\n"
                                "\n## 4.1\n\n- `--color` now respects `NO_COLOR`.\n- Pass `editable-mode=strict` for a strict "
                                "editable install.\n")
    write(root, "docs/config.md", "# Configuration\n\n## Core\n\n- `skip_missing_interpreters`: when true, an "
                                  "environment whose interpreter is missing is skipped, not failed.\n\n## Output\n\n"
                                  "- `--color`: when to colour the output.\n\n## Editable installs\n\nRun `pip install -e . "
                                  "--config-settings editable_mode=strict` for a strict editable install.\n")
    write(root, "docs/guide.md", "# Guide\n\n## Interpreters\n\nEach environment runs with one interpreter; a missing "
                                 "interpreter fails the run.\n")
    index = open_index(index_location(root, load_config()), root)
    sync(index, NotesPolicy.load(root), FakeEmbedder())
    yield root, index
    index.close()


def _search(root: Path, index, text: str, mode: str = "auto"):
    return search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(text, k=3, mode=mode))


@pytest.mark.parametrize(("query", "trail", "sibling"), [
    ("--skip-missing-interpreters", "Configuration > Core", "skip_missing_interpreters"),
    ("what does --skip-missing-interpreters do", "Configuration > Core", "skip_missing_interpreters"),
    ("editable-mode", "Configuration > Editable installs", "editable_mode"),
])
def test_a_name_only_the_changelog_spells_answers_from_the_docs_spelling(repo, query: str, trail: str,
                                                                          sibling: str) -> None:
    root, index = repo
    result = _search(root, index, query)
    assert (result.hits[0].path, result.hits[0].heading) == ("docs/config.md", trail)
    assert any(sibling in note and "release notes" in note for note in result.notes)


def test_a_name_the_docs_spell_is_looked_up_as_asked(repo) -> None:
    root, index = repo
    result = _search(root, index, "--color")
    assert (result.hits[0].path, result.hits[0].heading) == ("docs/config.md", "Configuration > Output")
    assert not any("release notes" in note for note in result.notes)


def test_without_the_rule_only_the_changelog_answers(repo, monkeypatch) -> None:
    root, index = repo
    monkeypatch.setattr(siblings, "SIBLING_SPELLINGS", False)
    result = _search(root, index, "--skip-missing-interpreters")
    assert result.hits[0].path == "CHANGELOG.md"


def test_a_semantic_search_reads_the_name_as_asked(repo) -> None:
    root, index = repo
    assert not any("release notes" in n for n in _search(root, index, "--skip-missing-interpreters", "semantic").notes)
