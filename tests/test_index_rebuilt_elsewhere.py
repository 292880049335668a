"""A server whose index file was removed and rebuilt by another process reads the new file, and says
on every answer that a restart is needed to index again (issue 21, item 9). Real SQLite files, real
threads, two live indexes over one folder; a fake embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import eventually
from faultkit import FakeEmbedder, notes_folder
from scree.config import Config
from scree.live.live import LiveIndex
from scree.search.search import Query
from scree.workspace import Workspace

WAIT = 20.0


@pytest.fixture
def make_live():
    made: list[LiveIndex] = []

    def _make(folder: Path, **kw) -> LiveIndex:  # noqa: ANN003
        live = LiveIndex(Workspace.from_config(Config().with_overrides(notes=folder)), embedder=FakeEmbedder(),
                         debounce=0.1, lock_retry=0.2, **kw)
        made.append(live)
        return live

    yield _make
    for live in made:
        live.stop(timeout=5.0)


def test_a_writer_whose_index_was_removed_and_rebuilt_elsewhere_serves_the_new_file(tmp_path: Path, make_live) -> None:
    notes = notes_folder(tmp_path / "notes", n=3)
    first = make_live(notes, health_interval=0.05)
    first.start()
    assert eventually(lambda: first.status().state == "complete", WAIT)
    db = first.workspace.location.db
    for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        path.unlink(missing_ok=True)
    assert eventually(lambda: first.status().state == "not_updating", WAIT)  # it stops and lets go of the lock

    (notes / "zeppelin.md").write_text("# Zeppelin\n\nThe zeppelin hangar opens at dawn.\n", encoding="utf-8")
    second = make_live(notes)  # another process, in effect: it takes the lock and builds a new file
    second.start()
    assert eventually(lambda: second.status().state == "complete" and second.status().indexed_files == 4, WAIT)
    second.stop(timeout=5.0)

    result = first.search(Query("zeppelin hangar", k=3, mode="keyword"))
    assert [h.path for h in result.hits][:1] == ["zeppelin.md"]  # before: the deleted copy, which has no such note
    assert any("restart scree" in note for note in result.notes), result.notes
