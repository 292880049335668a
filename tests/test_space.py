"""The index gives space back (issue 27): a sync that drops most notes leaves a file about the size of a
fresh build of what remains."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from conftest import write
from scree.config import load_config
from scree.db import compact, queries
from scree.index.space import give_space_back
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.notes.policy import NotesPolicy

WORDS = ("the request handler reads the body and writes a response while the client waits for the server to "
         "finish its work on the queue of jobs that the workers take from the database every minute and the "
         "cache keeps the answers for an hour so that a second request is fast").split()


def _note(rng: random.Random, i: int) -> str:
    sections = []
    for s in range(4):
        paragraphs = ["Note %d. " % i + " ".join(rng.choice(WORDS) for _ in range(70)) + "." for _ in range(3)]
        sections.append(f"## Part {s} of note {i}\n\n" + "\n\n".join(paragraphs))
    return f"# Note {i}\n\n" + "\n\n".join(sections) + "\n"


def _file_bytes(db: Path) -> int:
    return sum(Path(f"{db}{s}").stat().st_size for s in ("", "-wal") if Path(f"{db}{s}").exists())


def _fill(folder: Path, n: int) -> None:
    rng = random.Random(27)
    for i in range(n):
        write(folder, f"d{i % 7}/note{i:03d}.md", _note(rng, i))


def _build(folder: Path, embedder):
    index = open_index(index_location(folder, load_config()), folder)
    sync(index, NotesPolicy.load(folder), embedder)
    index.conn.execute("pragma wal_checkpoint(truncate)").fetchall()
    return index


def test_removing_most_notes_shrinks_the_file_to_near_a_fresh_build(tmp_path, embedder):
    folder = tmp_path / "notes"
    _fill(folder, 200)
    index = _build(folder, embedder)
    full = _file_bytes(index.location.db)
    assert queries.vector_progress(index.conn).complete
    notes = sorted(folder.rglob("*.md"))
    for p in notes[: len(notes) * 9 // 10]:
        p.unlink()
    report = sync(index, NotesPolicy.load(folder), embedder)
    assert len(report.removed) == 180 and report.shrunk is not None
    shrunk = _file_bytes(index.location.db)
    assert queries.counts(index.conn).files == 20
    index.close()

    copy = tmp_path / "copy"
    for p in folder.rglob("*.md"):
        write(copy, str(p.relative_to(folder)), p.read_text(encoding="utf-8"))
    fresh_index = _build(copy, embedder)
    fresh = _file_bytes(fresh_index.location.db)
    fresh_index.close()
    assert shrunk < full / 3
    assert shrunk <= 1.5 * fresh, (full, shrunk, fresh)


def test_a_shrunk_index_answers_as_before_and_an_older_file_is_switched_to_incremental_vacuum(tmp_path, embedder):
    folder = tmp_path / "notes"
    _fill(folder, 40)
    index = _build(folder, embedder)
    # An index made before incremental vacuum: its first shrink rewrites it once (VACUUM) and switches it over.
    index.conn.execute("pragma auto_vacuum = none")
    index.conn.execute("vacuum")
    assert compact.auto_vacuum(index.conn) == 0
    before = index.conn.execute("select c.id, c.windows from chunks c order by c.id").fetchall()
    vectors = index.conn.execute("select rowid, embedding from chunks_vec order by rowid").fetchall()
    shrink = give_space_back(index, embedder.id, embedder.dimensions, force=True)
    assert shrink is not None and compact.auto_vacuum(index.conn) == 2
    assert index.conn.execute("select c.id, c.windows from chunks c order by c.id").fetchall() == before
    assert index.conn.execute("select rowid, embedding from chunks_vec order by rowid").fetchall() == vectors
    from scree.db.invariants import problems

    assert problems(index.conn) == []
    index.close()


def test_status_shows_the_size_and_the_languages(tmp_path, embedder):
    folder = tmp_path / "notes"
    _fill(folder, 5)
    write(folder, "docs/ja/guide.md", "# ガイド\n\nこのガイドでは、サーバーを起動してリクエストを送る方法を説明します。"
                                      "設定ファイルを書き、ワーカーの数を選び、キャッシュの期限を決めます。\n")
    write(folder, "docs/en/guide.md", "# Guide\n\nThis guide shows how to start the server and send it requests.\n")
    _build(folder, embedder).close()
    out = subprocess.run([sys.executable, "-m", "scree.cli", "status", "--notes", str(folder), "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["languages"]["ja"] == {"notes": 1, "keyword_only": 1, "left_out": 0}
    assert data["vectors_cover"] == "English notes; 1 note in 1 other language is keyword-only"
    assert data["size"].endswith("MB") or "MB (" in data["size"]
    plain = subprocess.run([sys.executable, "-m", "scree.cli", "status", "--notes", str(folder)],
                           capture_output=True, text=True, timeout=60).stdout
    assert "vectors_cover     English notes; 1 note in 1 other language is keyword-only" in plain


def test_the_embedding_cache_holds_its_vectors_without_overflow_pages_of_their_own(tmp_path, embedder):
    """A WITHOUT ROWID row over about 1 KB spilled to an overflow page of its own: one window of vectors
    (1 KB with the fake embedder, 1.5 KB with the model) took a 4 KB page; a rowid table keeps it in the leaf."""
    folder = tmp_path / "notes"
    _fill(folder, 30)
    index = _build(folder, embedder)
    try:
        pages = index.conn.execute("select sum(pgsize) from dbstat where name = 'embed_cache'").fetchone()[0]
    except Exception as exc:  # noqa: BLE001 - an SQLite built without the dbstat table
        index.close()
        import pytest

        pytest.skip(f"no dbstat: {exc}")
    data = index.conn.execute("select sum(length(vectors) + length(key) + length(model)) from embed_cache").fetchone()[0]
    index.close()
    assert pages < 2 * data, (pages, data)  # 1.56 here; 2.67 as a WITHOUT ROWID table


@contextmanager
def _live_writer(folder: Path, embedder) -> Iterator:
    """A live writer (no watcher) on `folder`, its first sync complete; stopped afterwards."""
    from scree.live.live import LiveIndex
    from scree.workspace import Workspace

    live = LiveIndex(Workspace.from_config(load_config().with_overrides(notes=folder)), embedder=embedder,
                     watch=False)
    try:
        live.start()
        assert live.wait_until(lambda st: st.state == "complete", 120)
        yield live
    finally:
        assert live.stop(timeout=5.0)


def test_a_live_writer_gives_space_back_after_a_sync_that_removed_most_notes(tmp_path, embedder):
    """The live writer checks for space to give back only after a sync that dropped rows (measuring
    reads every chunk), and then shrinks as the CLI does."""
    folder = tmp_path / "notes"
    _fill(folder, 200)
    with _live_writer(folder, embedder) as live:
        db = live.workspace.location.db
        live.reindex()  # nothing dropped: no shrink, the file as it was
        full = _file_bytes(db)
        for p in sorted(folder.rglob("*.md"))[:180]:
            p.unlink()
        live.reindex()
        assert _file_bytes(db) < full / 3
        assert live.status().state == "complete"


def test_a_search_never_shrinks_in_the_foreground_and_the_reindex_after_it_does(tmp_path, embedder):
    """`scree search` answers at once: a branch switch that removed most notes leaves the shrink to the
    explicit (or session's background) `scree reindex`, which checks whatever it changed itself."""
    folder = tmp_path / "notes"
    _fill(folder, 200)
    env = {"SCREE_DATA_DIR": str(tmp_path / "data")}

    def scree(*args: str) -> subprocess.CompletedProcess:
        import os

        return subprocess.run([sys.executable, "-m", "scree.cli", *args, "--notes", str(folder)], text=True,
                              capture_output=True, env={**os.environ, **env}, timeout=120)

    assert scree("reindex").returncode == 0
    db = Path(json.loads(scree("status", "--json").stdout)["index"])
    full = _file_bytes(db)
    for p in sorted(folder.rglob("*.md"))[:180]:
        p.unlink()
    out = scree("search", "request handler")
    assert out.returncode == 0, out.stderr
    assert _file_bytes(db) > full / 2, "the search shrank the file in the foreground"
    out = scree("reindex")
    assert out.returncode == 0 and "the index gave" in out.stdout, out.stdout + out.stderr
    assert _file_bytes(db) < full / 3


def test_a_shrink_that_fails_is_a_warning_never_a_stage_two_failure(tmp_path, embedder, monkeypatch, caplog):
    """A full disk cannot copy the vector table: the shrink is housekeeping, so the writer logs it and
    every answer stays clean (a stage-two failure would be reported until a batch is stored: never)."""
    import logging

    from scree.live import livestage
    from scree.search.search import Query

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(livestage, "give_space_back", full_disk)
    folder = tmp_path / "notes"
    _fill(folder, 40)
    with _live_writer(folder, embedder) as live:
        for p in sorted(folder.rglob("*.md"))[:30]:
            p.unlink()
        with caplog.at_level(logging.WARNING, logger="scree"):
            report = live.reindex()
        assert not report.warnings and live.status().state == "complete"
        assert any("could not give space back" in r.getMessage() for r in caplog.records)
        assert not [n for n in live.search(Query("request handler")).notes if "vectors" in n]
