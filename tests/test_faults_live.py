"""Fault edges of the live index (`scree serve` / `scree watch`): a damaged index, a full disk, a
deleted WAL, a sync that cannot finish. Real files, real SQLite, real threads; a fake embedder.

The full disk is a real tmpfs mount filled to the last byte (ENOSPC from the kernel); the tests
that need it skip where mounting is not permitted (not root).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import eventually as _eventually
from faultkit import FakeEmbedder, SmallDisk, notes_folder
from scree.config import Config
from scree.db import invariants
from scree.db.connect import connect
from scree.errors import DiskFull
from scree.live.live import LiveIndex
from scree.search.search import Query
from scree.workspace import Workspace

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="needs Linux")

WAIT = 15.0


def eventually(predicate: Callable[[], bool], timeout: float = WAIT) -> bool:
    return _eventually(predicate, timeout)


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    return notes_folder(tmp_path / "notes", n=6)


@pytest.fixture
def make_live():
    made: list[LiveIndex] = []

    def _make(folder: Path, *, db: Path | None = None, **kw) -> LiveIndex:  # noqa: ANN003
        ws = Workspace.from_config(Config().with_overrides(notes=folder, db=db))
        kw.setdefault("embedder", FakeEmbedder())
        kw.setdefault("debounce", 0.1)
        kw.setdefault("lock_retry", 0.2)
        live = LiveIndex(ws, **kw)
        made.append(live)
        return live

    yield _make
    for live in made:
        live.stop(timeout=5.0)


def hits(live: LiveIndex, words: str) -> set[str]:
    return {h.path for h in live.search(Query(words, k=20, mode="keyword")).hits}


def complete(live: LiveIndex) -> bool:
    return live.status().state == "complete"


def garble_table(db: Path, table: str) -> None:
    """Overwrite the root page of `table` with garbage, as a bad sector or a stray write would."""
    conn = sqlite3.connect(db)
    page_size = conn.execute("pragma page_size").fetchone()[0]
    root = conn.execute("select rootpage from sqlite_master where name = ?", (table,)).fetchone()[0]
    conn.execute("pragma wal_checkpoint(truncate)")
    conn.close()
    with open(db, "r+b") as fh:
        fh.seek((root - 1) * page_size)
        fh.write(b"\xa5" * page_size)


def fresh_view(db: Path) -> set[str]:
    """What another process sees: the fully indexed paths through a new read-only connection.

    A separate process on purpose: POSIX locks belong to the process, so a second SQLite library
    closing the file here would drop the writer's own locks."""
    code = ("import sqlite3, sys\n"
            "try:\n"
            f"    c = sqlite3.connect('file:{db}?mode=ro', uri=True)\n"
            "    print('\\n'.join(r[0] for r in c.execute('select path from files where sha256 is not null')))\n"
            "except sqlite3.Error:\n"
            "    pass\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    return set(out.stdout.split())


def test_a_damaged_index_is_rebuilt_by_the_writer_and_searches_say_so_meanwhile(notes, make_live):
    first = make_live(notes)
    first.start()
    assert eventually(lambda: complete(first))
    db = first.workspace.location.db
    assert first.stop()
    garble_table(db, "chunks_fts_data")  # keyword search now fails with "malformed"
    live = make_live(notes)
    live.start()  # the writer's quick_check finds it and rebuilds before its first sync
    assert eventually(lambda: hits(live, "retention") == {f"n{i}.md" for i in range(6)})
    assert invariants.problems(connect(db, readonly=True), FakeEmbedder.max_windows) == []
    assert invariants.quick_check(connect(db, readonly=True)) is None


def test_damage_met_by_a_search_gets_one_clear_note_and_a_rebuild(notes, make_live):
    live = make_live(notes)
    live.start()
    assert eventually(lambda: complete(live))
    db = live.workspace.location.db
    garble_table(db, "chunks_fts_data")
    result = live.search(Query("retention", k=5, mode="keyword"))
    assert any("the index is damaged" in n and "rebuilding it" in n for n in result.notes), result.notes
    assert eventually(lambda: hits(live, "retention") == {f"n{i}.md" for i in range(6)})
    # The search and the writer's own health check may both have asked for the rebuild: read the file
    # once the writer is done, not while a second repair replaces it.
    assert eventually(lambda: complete(live))
    assert invariants.problems(connect(db, readonly=True), FakeEmbedder.max_windows) == []


def test_a_deleted_wal_under_a_running_writer_is_noticed_and_nothing_is_lost(notes, make_live):
    live = make_live(notes, health_interval=0.1)
    live.start()
    assert eventually(lambda: complete(live))
    db = live.workspace.location.db
    (notes / "late.md").write_text("# Late\n\nThe marmoset arrived after the sync.\n", encoding="utf-8")
    assert eventually(lambda: hits(live, "marmoset") == {"late.md"})
    os.unlink(f"{db}-wal")
    (notes / "later.md").write_text("# Later\n\nThe quokka came even later.\n", encoding="utf-8")
    expected = {f"n{i}.md" for i in range(6)} | {"late.md", "later.md"}
    assert eventually(lambda: fresh_view(db) == expected), fresh_view(db)
    assert live.status().state == "complete"


@pytest.fixture
def disk(tmp_path: Path):
    d = SmallDisk(tmp_path / "disk")
    yield d
    d.close()


def test_the_writer_survives_a_full_disk_and_catches_up_once_space_returns(notes, make_live, disk):
    live = make_live(notes, db=disk.path / "index.db")
    live.start()
    assert eventually(lambda: complete(live))
    disk.fill()
    for i in range(5):
        (notes / f"new{i}.md").write_text("# New\n\n" + "quokka words " * 3000, encoding="utf-8")
    with pytest.raises(DiskFull) as caught:
        live.reindex()
    assert "disk is full" in str(caught.value) and "free some space" in str(caught.value)
    assert live.role == "writer" and live.status().state != "not_updating"
    disk.free()
    assert eventually(lambda: hits(live, "quokka") == {f"new{i}.md" for i in range(5)})
    report = live.reindex()  # answers, does not hang
    assert not report.changed


class GatedFake(FakeEmbedder):
    """The fake embedder, holding its first embed call until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.entered, self.gate = threading.Event(), threading.Event()

    def embed_passages(self, passages, should_stop=None):  # noqa: ANN001, ANN201
        self.entered.set()
        assert self.gate.wait(WAIT)
        return super().embed_passages(passages, should_stop)


def test_a_full_disk_in_stage_two_is_told_to_every_client_and_cleared_once_space_returns(notes, make_live, disk):
    # Only stderr said so; search answers showed a frozen "about 12 s to go" and reindex "nothing
    # changed" (issue 26, item 9).
    from scree.cli import main
    from scree.mcpserver import reindex_output, search_output

    gated = GatedFake()
    live = make_live(notes, db=disk.path / "index.db", embedder=gated)
    live.start()
    assert gated.entered.wait(WAIT) and live.wait_until(lambda st: st.state == "embedding", WAIT)
    disk.fill()
    gated.gate.set()  # the vectors are made; storing them fails
    assert live.wait_until(lambda st: st.stage_two_problem is not None, WAIT)
    said = live.status().describe()
    assert "stage two cannot store vectors" in said and "disk is full" in said and "free some space" in said
    result = live.search(Query("retention policy", mode="keyword"))
    answer = search_output(result.hits, result.mode, result.notes, live.status())
    assert "disk is full" in answer.index and "to go" not in answer.index
    try:  # the tool's answer: an error when stage one cannot write either, else a note
        told = reindex_output(live.reindex(), live.status()).note or ""
    except DiskFull as exc:
        told = str(exc)
    assert "disk is full" in told and "free some space" in told and "nothing changed" not in told
    # Another process (`scree status`, doctor) sees the full disk under the index too.
    code = main(["status", "--notes", str(notes), "--db", str(disk.path / "index.db")])
    assert code == 0
    disk.free()
    assert live.wait_until(lambda st: st.state == "complete" and st.stage_two_problem is None, WAIT)
    assert "cannot store" not in live.status().describe()


def test_a_reindex_whose_vectors_cannot_be_stored_says_why_instead_of_nothing_changed() -> None:
    from scree.index.indexstatus import IndexStatus
    from scree.index.sync import SyncReport
    from scree.mcpserver import reindex_output

    why = "cannot write the index x.db: the disk is full (database or disk is full); free some space"
    report = SyncReport(unchanged=3, vectors_missing=12,
                        warnings=[f"the notes' text is indexed, but their vectors cannot be stored: {why}"])
    status = IndexStatus("embedding", "writer", 0, 0, 3, 20, None, vectors_done=8, vectors_total=20,
                         stage_two_problem=why)
    out = reindex_output(report, status)
    assert out.note is not None and why in out.note and "12 chunks still lack vectors" in out.note
    assert "nothing changed" not in out.note
    assert out.index.endswith(f"vectors for 8 of 20 chunks; keyword covers all; stage two cannot store vectors: {why}")


def test_status_and_doctor_name_a_full_disk_under_an_index_in_stage_two_which_resumes_once_there_is_room(notes, make_live, disk, capsys):
    from scree.cli import main
    from scree.doctor import doctor

    gated = GatedFake()
    live = make_live(notes, db=disk.path / "index.db", embedder=gated)
    live.start()
    assert gated.entered.wait(WAIT) and live.wait_until(lambda st: st.state == "embedding", WAIT)
    disk.fill()
    capsys.readouterr()
    assert main(["status", "--notes", str(notes), "--db", str(disk.path / "index.db")]) == 0
    out = capsys.readouterr().out
    assert "stage two cannot store vectors: the disk holding the index" in out and "free some space" in out
    check = doctor.check_index(live.workspace)
    assert check.status == doctor.FAIL and "is full" in check.fix and "free some space" in check.fix
    gated.gate.set()
    assert live.wait_until(lambda st: st.stage_two_problem is not None, WAIT)
    disk.free()  # no edit, no reindex: stage two sees the room and resumes by itself
    assert live.wait_until(lambda st: st.state == "complete", WAIT), live.status()


def test_a_read_only_data_dir_is_searched_and_the_status_says_why_it_is_not_updated(notes, make_live, disk):
    first = make_live(notes, db=disk.path / "index.db")
    first.start()
    assert eventually(lambda: complete(first))
    assert first.stop()
    disk.read_only()
    try:
        live = make_live(notes, db=disk.path / "index.db")
        live.start()
        assert hits(live, "retention") == {f"n{i}.md" for i in range(6)}
        st = live.status()
        assert st.state == "not_updating" and "read-only" in (st.reason or "")
    finally:
        live.stop()
        disk.writable()


def test_garbage_over_the_whole_index_file_is_rebuilt_and_the_health_check_does_not_take_it_for_a_stranger(
        notes, make_live):
    first = make_live(notes)
    first.start()
    assert eventually(lambda: complete(first))
    db = first.workspace.location.db
    assert first.stop()
    db.write_bytes(b"\x00garbage" * 4096)  # in scree's own folder: a damaged index, not someone's file
    live = make_live(notes, health_interval=0.05)
    live.start()
    assert eventually(lambda: hits(live, "retention") == {f"n{i}.md" for i in range(6)})
    # An absence needs a window: ten health checks pass, and none takes the rebuilt file for a stranger.
    threading.Event().wait(0.5)
    assert live.status().state == "complete", live.status()


def created(db: Path) -> str | None:
    """When the index file was made (its meta), None while it cannot be read."""
    from scree.db import queries

    try:
        conn = connect(db, readonly=True)
    except Exception:  # noqa: BLE001 - between the rebuild's delete and create
        return None
    try:
        return queries.get_meta(conn).get("created")
    finally:
        conn.close()


def test_a_writer_rechecks_its_file_now_and_then_and_rebuilds_damage_nobody_searched_into(notes, make_live):
    live = make_live(notes, health_interval=0.05, damage_check=0.2)
    live.start()
    assert eventually(lambda: complete(live))
    db = live.workspace.location.db
    before = created(db)
    garble_table(db, "chunks_fts_data")  # as a reader in another process would meet it
    assert eventually(lambda: created(db) not in (None, before))  # rebuilt as a new file
    assert eventually(lambda: invariants.quick_check(connect(db, readonly=True)) is None
                      and hits(live, "retention") == {f"n{i}.md" for i in range(6)})


def test_a_reindex_whose_writer_died_says_so_instead_of_waiting_forever():
    from concurrent.futures import Future

    from scree.errors import IndexError_
    from scree.live.writeindex import await_report

    pending: Future = Future()
    with pytest.raises(IndexError_, match="stopped before this reindex ran .no space left"):
        await_report(pending, lambda: False, lambda: "no space left", timeout=60)
    with pytest.raises(IndexError_, match="still running after 0 s"):
        await_report(pending, lambda: True, lambda: None, timeout=0.1)
    pending.set_result("report")
    assert await_report(pending, lambda: False, lambda: None, timeout=60) == "report"
