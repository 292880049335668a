"""A dotted config key is spelled by a TOML or INI table and a key set in it (issue 38): pdm's changelog names
`resolution.respect-source-order`, its docs show `[tool.pdm.resolution]` / `respect-source-order = true`. The
predicate directly; the lookup on a real index."""

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
from scree.search import names
from scree.search.names import spelled_in_table
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names


@pytest.mark.parametrize(("text", "name"), [
    ("```toml\n[tool.pdm.resolution]\nrespect-source-order = true\n```", "resolution.respect-source-order"),
    ("[tool.pdm.resolution]\nallow-prereleases = true\nexcludes = [\"requests\"]", "resolution.excludes"),
    ("[[tool.pdm.source]]\nname = \"private\"", "source.name"),  # an array of tables
    ("[flake8]\nmax-line-length = 88", "flake8.max-line-length"),  # an INI section
    ("[tool.ruff.lint.isort]\nknown-first-party = [\"app\"]", "lint.isort.known-first-party"),
])
def test_a_key_set_under_its_table_spells_the_dotted_key(text: str, name: str) -> None:
    assert spelled_in_table(text, name)


@pytest.mark.parametrize(("text", "name"), [
    ("[tool.pdm.resolution]\nexcludes = []\n\n[tool.pdm.source]\nrespect-source-order = 1", "resolution.respect-source-order"),  # another table's
    ("[tool.pdm.myresolution]\nexcludes = []", "resolution.excludes"),  # a table that only ends with the word
    ("[tool.pdm.resolution]\nexcludes-extra = []", "resolution.excludes"),  # a longer key
    ("Set `excludes` under [tool.pdm.resolution] to skip packages.", "resolution.excludes"),  # prose
])
def test_a_key_elsewhere_or_only_in_prose_does_not(text: str, name: str) -> None:
    assert not spelled_in_table(text, name)


@pytest.fixture
def project(tmp_path: Path):
    root = tmp_path / "repo"
    write(root, "CHANGELOG.md", "# Changelog\n\n## 2.5.0\n\n- Add `resolution.respect-source-order` to return packages "
                                "from the first source that has them.\n")
    write(root, "docs/config.md", "# Configure the project\n\n## Indexes\n\n### Respect the order of the sources\n\n"
                                  "By default every source is equal. To prefer the first, set:\n\n```toml\n"
                                  "[tool.pdm.resolution]\nrespect-source-order = true\n```\n\n### Other settings\n\n"
                                  "Sources are read from the project file and the global configuration.\n")
    index = open_index(index_location(root, load_config()), root)
    sync(index, NotesPolicy.load(root), FakeEmbedder())
    yield root, index
    index.close()


def _first(root: Path, index, query: str) -> tuple[str, str]:
    hits = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(query, k=3, mode="keyword")).hits
    return hits[0].path, hits[0].heading


def test_a_dotted_key_answers_from_the_example_that_sets_it_under_its_table(project) -> None:
    root, index = project
    assert _first(root, index, "resolution.respect-source-order") == (
        "docs/config.md", "Configure the project > Indexes > Respect the order of the sources")


def test_without_the_rule_the_changelog_that_spells_it_came_first(project, monkeypatch) -> None:
    root, index = project
    monkeypatch.setattr(names, "TABLE_KEYS", False)
    assert _first(root, index, "resolution.respect-source-order")[0] == "CHANGELOG.md"
