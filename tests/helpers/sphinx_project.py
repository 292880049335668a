"""A small Sphinx project on disk, synced into its own index with the fake embedder, and its first hit for a query:
for the tests of what autodoc-like directives add to a page (autosummary lists, automodapi lines)."""

from __future__ import annotations

from pathlib import Path

from fake_embedder import FakeEmbedder
from scree.config import load_config
from scree.index.store import Index, open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names


def synced_project(root: Path, files: dict[str, str]) -> Index:
    """`root` holding a `pkg` project with a Sphinx `docs/conf.py` and `files` (path -> text), synced."""
    files = {"pyproject.toml": '[project]\nname = "pkg"\nversion = "1.0"\n', "docs/conf.py": "project = 'pkg'\n",
             **files}
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    index = open_index(index_location(root, load_config()), root)
    sync(index, NotesPolicy.load(root), FakeEmbedder())
    return index


def first_hit(root: Path, index: Index, query: str) -> tuple[str, str] | None:
    """The (path, heading) of the first hit `query` gets in auto mode, None when nothing answers."""
    hits = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(query, k=5)).hits
    return (hits[0].path, hits[0].heading) if hits else None
