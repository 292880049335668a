"""A small project written, indexed and searched for real: the files, a real index beside the isolated data dir, a
sync with the fake embedder, and a keyword search as the CLI and the MCP server make it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from pathlib import Path

from conftest import write
from fake_embedder import FakeEmbedder
from scree.config import load_config
from scree.index.store import Index, open_index
from scree.index.sync import SyncReport, sync
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.records import Hit
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names


@contextmanager
def synced_index(root: Path, files: Mapping[str, str]) -> Iterator[Index]:
    """`files` (path to text) written under `root`, its index opened and synced once; closed after."""
    for rel, text in files.items():
        write(root, rel, text)
    with closing(open_index(index_location(root, load_config()), root)) as index:
        full_sync(index, root)
        yield index


def full_sync(index: Index, root: Path) -> SyncReport:
    return sync(index, NotesPolicy.load(root), FakeEmbedder())


def keyword_hits(index: Index, root: Path, query: str, k: int = 5) -> list[Hit]:
    return search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(query, k=k, mode="keyword")).hits
