"""`last sync` (status, doctor) is when the index was last whole: the end of stage two when it embedded something,
not the end of stage one before it (issue 35, item 4). A real index, the fake embedder."""

from __future__ import annotations

from pathlib import Path

from conftest import write
from fake_embedder import FakeEmbedder
from scree.config import load_config
from scree.index.store import open_index
from scree.index.sync import SyncReport, embed_stage_two, sync
from scree.locate import index_location
from scree.notes.policy import NotesPolicy


def test_last_sync_moves_to_the_end_of_stage_two(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    for n in range(5):
        write(root, f"n{n}.md", f"# Note {n}\n\nText {n}.\n")
    index = open_index(index_location(root, load_config()), root)
    embedder = FakeEmbedder()
    try:
        sync(index, NotesPolicy.load(root), embedder, embed=False)
        after_stage_one = float(index.meta()["last_sync"])
        embed_stage_two(index, embedder, SyncReport(), should_stop=lambda: False, shrink=False)
        assert float(index.meta()["last_sync"]) > after_stage_one
        whole = float(index.meta()["last_sync"])
        sync(index, NotesPolicy.load(root), embedder)  # nothing changed, nothing embedded: it stays
        assert float(index.meta()["last_sync"]) >= whole
    finally:
        index.close()
