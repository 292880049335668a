"""Opening an index: private files, and refusing what it must not touch."""

from __future__ import annotations

import os
import stat

import pytest

from scree.config import load_config
from scree.db import schema
from scree.errors import IndexDamaged, IndexError_
from scree.locate import index_location
from scree.index.store import open_index


def test_index_directory_and_files_are_private_including_wal_and_shm(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    loc = index_location(folder, load_config())
    index = open_index(loc, folder)
    index.conn.execute("create table t(x)")  # a write, so the -wal and -shm files exist
    assert stat.S_IMODE(os.stat(loc.dir).st_mode) == 0o700
    for name in ("index.db", "index.db-wal", "index.db-shm", "root"):
        assert stat.S_IMODE(os.stat(loc.dir / name).st_mode) == 0o600, name
    assert (loc.dir / "root").read_text() == f"{folder.resolve()}\n"
    index.close()


def test_index_from_a_newer_scree_is_refused_not_rewritten(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    loc = index_location(folder, load_config())
    index = open_index(loc, folder)
    index.conn.execute(f"pragma user_version = {schema.SCHEMA_VERSION + 1}")
    index.close()
    with pytest.raises(IndexError_, match="newer"):
        open_index(loc, folder)


def test_a_migration_sqlite_rolled_back_itself_reports_its_own_error_and_the_next_open_finishes_it(tmp_path):
    """Some errors (an interrupt, a busy cache spill, an I/O error) end the transaction inside SQLite: the
    error that says so must surface, not "cannot rollback - no transaction is active" from undoing it again,
    and nothing of the failed migration may stay behind."""
    from scree.db import connect as dbconnect

    conn = dbconnect.connect(tmp_path / "index.db")
    steps = {"n": 0}

    def interrupt_mid_migration() -> bool:  # an interrupted write rolls its whole transaction back
        steps["n"] += 1
        return conn.in_transaction and steps["n"] > 40

    conn.set_progress_handler(interrupt_mid_migration, 10)
    with pytest.raises(Exception, match="interrupted"):
        schema.migrate(conn)
    assert not conn.in_transaction
    conn.set_progress_handler(None, 0)
    assert schema.untrusted_parts(conn, dbconnect.choose_driver().module) == []
    assert schema.migrate(conn) == schema.SCHEMA_VERSION
    assert schema.untrusted_parts(conn, dbconnect.choose_driver().module) == []
    conn.close()


def test_a_file_claiming_a_schema_it_does_not_hold_is_damaged_not_half_used(tmp_path):
    """Made by hand (or a test fixture): migration 1's tables under the newest version number. A sync
    would fail mid-way on the missing columns; opening it says damaged, so its owner rebuilds it."""
    import sqlite3

    folder = tmp_path / "notes"
    folder.mkdir()
    loc = index_location(folder, load_config())
    fresh = open_index(loc, folder)
    assert schema.untrusted_parts(fresh.conn, fresh.driver.module) == []  # what migrate() makes is whole
    fresh.close()
    for suffix in ("", "-wal", "-shm"):
        (loc.dir / f"index.db{suffix}").unlink(missing_ok=True)
    conn = sqlite3.connect(loc.db)
    for stmt in schema.MIGRATIONS[1]:
        conn.execute(stmt)
    conn.execute(f"pragma user_version = {schema.SCHEMA_VERSION}")
    conn.commit()
    conn.close()
    with pytest.raises(IndexDamaged, match=r"without column files\.names, column files\.lang, column files\.lang_by"):
        open_index(loc, folder)


# ----- the vector rowid stride ------------------------------------------------------------------

def _with_vectors(tmp_path, stride: int):
    """An index holding 3 one-window chunks of one file, stored under `stride`."""
    import numpy as np

    from scree.db import queries, writes
    from scree.records import Chunk
    from scree.index.store import ensure_embedder

    folder = tmp_path / "notes"
    folder.mkdir()
    index = open_index(index_location(folder, load_config()), folder)
    ensure_embedder(index, "test:unit", 4, stride)
    vecs = np.eye(4, dtype=np.float32)[:3]
    writes.replace_file(index.conn, writes.FileVersion("a.md", "ab", 0, 0, None),
                        [Chunk(f"H{i}", f"text {i}", i + 1, i + 1) for i in range(3)], [v[None, :] for v in vecs],
                        stride)
    assert len(queries.stored_chunk_vectors(index.conn, "a.md", stride)) == 3
    return index


def test_the_rowid_stride_is_recorded_and_another_stride_re_embeds_everything(tmp_path):
    from scree.db import queries
    from scree.index.store import ensure_embedder, vectors_usable

    index = _with_vectors(tmp_path, 64)
    assert index.meta()["max_windows"] == "64"
    assert ensure_embedder(index, "test:unit", 4, 64) is None  # same stride: vectors kept
    assert vectors_usable(index, "test:unit", 4, 64) and not vectors_usable(index, "test:unit", 4, 16)

    message = ensure_embedder(index, "test:unit", 4, 16)
    assert message and "64" in message and "16" in message and "re-embedding" in message
    assert index.meta()["max_windows"] == "16"
    assert queries.counts(index.conn).chunks == 0  # nothing left to be read under the wrong stride
    assert index.conn.execute("select sha256 from files where path = 'a.md'").fetchone()[0] is None  # re-embedded next sync
    index.close()


def test_an_index_from_before_the_stride_was_recorded_keeps_its_vectors_under_the_old_stride(tmp_path):
    from scree.db import queries
    from scree.index.store import ensure_embedder

    index = _with_vectors(tmp_path, 64)
    index.conn.execute("delete from meta where key = 'max_windows'")
    assert ensure_embedder(index, "test:unit", 4, 64) is None
    assert index.meta()["max_windows"] == "64" and queries.counts(index.conn).chunks == 3
    index.close()
