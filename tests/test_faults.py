"""Fault edges: every fault ends in a clear message and costs nothing the user owns.

Real files, real SQLite and the real CLI entry point (in-process, with a small fake embedder so
no model loads). Each test reproduces one fault from issue 11 and asserts the message, the untouched
user file, the repaired index or the surviving writer.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from faultkit import FakeEmbedder, notes_folder, run_cli
from scree.config import load_config
from scree.db import invariants
from scree.db.connect import APPLICATION_ID, inspect_file
from scree.locate import index_location
from scree.policy import NotesPolicy
from scree.store import open_index
from scree.sync import sync


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    return notes_folder(tmp_path / "notes")


def _index(folder: Path):
    return open_index(index_location(folder, load_config()), folder)


# ----- ignore lines and globs ----------------------------------------------------------------------

def test_an_ignore_line_git_accepts_but_python_cannot_compile_is_skipped_with_one_warning(notes, capsys,
                                                                                          monkeypatch, caplog):
    (notes / ".gitignore").write_text("[z-a]\nn1.md\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        code, out, err = run_cli(["index", "--notes", str(notes)], capsys, monkeypatch)
        NotesPolicy.load(notes)  # loading the rules again does not repeat the warning
    assert code == 0, err
    warnings = [r.getMessage() for r in caplog.records if "[z-a]" in r.getMessage()]
    assert len(warnings) == 1 and "ignoring invalid pattern" in warnings[0]
    index = _index(notes)
    # The other line still applies: n1.md is ignored, the rest indexed.
    assert sorted(p for _, p in index.conn.execute("select id, path from files")) == ["n0.md", "n2.md"]


@pytest.mark.parametrize("glob", ["[z-a]", "docs\\"])
def test_a_bad_path_glob_exits_2_naming_the_glob(notes, capsys, monkeypatch, glob):
    code, out, err = run_cli(["search", "--notes", str(notes), "--path", glob, "retention"], capsys, monkeypatch)
    assert code == 2
    assert repr(glob) in err and "not a valid glob" in err and "Traceback" not in err
    assert out == ""


# ----- --db / SCREE_DB safety ----------------------------------------------------------------------

def test_db_pointing_at_a_markdown_file_is_refused_and_the_file_is_untouched(notes, tmp_path, capsys, monkeypatch):
    victim = tmp_path / "todo.md"
    victim.write_text("# My todo\n\n- buy milk\n", encoding="utf-8")
    before = victim.read_bytes()
    for args in (["index"], ["index", "--rebuild"], ["reindex", "--rebuild"], ["search", "milk"], ["status"]):
        code, out, err = run_cli([*args, "--notes", str(notes), "--db", str(victim)], capsys, monkeypatch)
        assert code == 1, (args, err)
        assert "is not a scree index" in err and "Markdown text" in err, (args, err)
        assert "--rebuild" not in err.split("not a scree index")[1]  # never advises overwriting it
    assert victim.read_bytes() == before
    assert not Path(f"{victim}-wal").exists() and not Path(f"{victim}-shm").exists()


def test_db_pointing_at_another_sqlite_database_gets_no_scree_tables(notes, tmp_path, capsys, monkeypatch):
    other = tmp_path / "app.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("create table customers(id integer primary key, name text)")
    conn.execute("insert into customers(name) values ('Ada')")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    for args in (["index"], ["index", "--rebuild"]):
        code, out, err = run_cli([*args, "--notes", str(notes), "--db", str(other)], capsys, monkeypatch)
        assert code == 1 and "another SQLite database (tables: customers)" in err, err
    assert other.read_bytes() == before


def test_new_index_is_marked_and_an_unmarked_old_index_is_recognised_and_stamped(notes, tmp_path, capsys,
                                                                                   monkeypatch):
    db = tmp_path / "idx" / "notes.db"
    code, _, err = run_cli(["index", "--notes", str(notes), "--db", str(db)], capsys, monkeypatch)
    assert code == 0, err
    assert inspect_file(db).kind == "scree"
    conn = sqlite3.connect(db)
    assert conn.execute("pragma application_id").fetchone()[0] == APPLICATION_ID
    conn.execute("pragma application_id = 0")  # as an index made before the mark existed
    conn.commit()
    conn.close()
    assert inspect_file(db).kind == "scree-unmarked"
    code, _, err = run_cli(["index", "--notes", str(notes), "--db", str(db)], capsys, monkeypatch)
    assert code == 0, err
    assert sqlite3.connect(db).execute("pragma application_id").fetchone()[0] == APPLICATION_ID


def test_db_in_an_existing_shared_folder_leaves_its_mode_alone(notes, tmp_path, capsys, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    code, _, err = run_cli(["index", "--notes", str(notes), "--db", str(shared / "new" / "index.db")],
                           capsys, monkeypatch)
    assert code == 0, err
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777
    assert stat.S_IMODE((shared / "new").stat().st_mode) == 0o700  # the folder scree made


def test_default_index_folders_are_private(notes, capsys, monkeypatch):
    code, _, err = run_cli(["index", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 0, err
    loc = index_location(notes, load_config())
    assert stat.S_IMODE(loc.dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(loc.dir.parent.stat().st_mode) == 0o700  # indexes/: repo names are not listed


# ----- the crash-safety invariant ------------------------------------------------------------------

def test_invariant_check_finds_each_kind_of_broken_row(notes):
    index = _index(notes)
    fake = FakeEmbedder()
    sync(index, NotesPolicy.load(notes), fake)
    assert invariants.problems(index.conn, fake.max_windows) == []
    conn = index.conn
    cid = conn.execute("select id from chunks order by id limit 1").fetchone()[0]
    conn.execute("delete from chunks_vec where rowid = ?", (cid * fake.max_windows,))
    found = invariants.problems(conn, fake.max_windows)
    assert len(found) == 1 and "vectors of fully indexed files are missing" in found[0]
    conn.execute("pragma foreign_keys = off")  # as a buggy writer would leave it
    conn.execute("insert into chunks(file_id, seq, heading, text, start_line, end_line, windows) "
                 "values (999, 0, 'h', 't', 1, 1, 1)")
    found = invariants.problems(conn, fake.max_windows)
    assert any("belong to no file" in p for p in found) and any("keyword index is out of step" in p for p in found)


# ----- full disk, read-only disk, the lock's release -----------------------------------------------

@pytest.fixture
def disk(tmp_path: Path):
    from faultkit import SmallDisk

    d = SmallDisk(tmp_path / "disk")
    yield d
    d.close()


def test_releasing_the_lock_on_a_full_disk_raises_nothing_and_frees_it(disk):
    from scree.lock import WriterLock, read_holder

    path = disk.path / "writer.lock"
    path.touch()
    disk.fill()  # a real ENOSPC from the kernel
    lock = WriterLock(path)
    assert lock.try_acquire()  # the holder record cannot be written: a warning, the lock still holds
    lock.release()  # once re-flushed the unwritten record from close() and raised, masking the caller's error
    assert read_holder(path) is None
    other = WriterLock(path)
    assert other.try_acquire()
    other.release()


def test_index_on_a_full_disk_says_so_without_a_traceback_and_works_once_space_returns(notes, disk, capsys,
                                                                                        monkeypatch):
    db = disk.path / "idx" / "index.db"
    for i in range(10):
        (notes / f"big{i}.md").write_text("# Big\n\n" + f"word{i} filler text. " * 500, encoding="utf-8")
    disk.fill()
    code, out, err = run_cli(["index", "--notes", str(notes), "--db", str(db)], capsys, monkeypatch)
    assert code == 1
    assert "disk is full" in err and "free some space" in err and "Traceback" not in err, err
    disk.free()
    code, out, err = run_cli(["index", "--notes", str(notes), "--db", str(db)], capsys, monkeypatch)
    assert code == 0, err
    index = open_index(index_location(notes, load_config().with_overrides(db=db)), notes)
    assert invariants.problems(index.conn, FakeEmbedder.max_windows) == []
    assert index.conn.execute("select count(*) from files where sha256 is not null").fetchone()[0] == 13


def test_status_and_search_no_sync_work_on_a_read_only_data_dir(notes, disk, capsys, monkeypatch):
    monkeypatch.setenv("SCREE_DATA_DIR", str(disk.path / "data"))
    code, _, err = run_cli(["index", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 0, err
    disk.read_only()
    try:
        code, out, err = run_cli(["status", "--notes", str(notes)], capsys, monkeypatch)
        assert code == 0, err
        assert "files             3" in out
        code, out, err = run_cli(["search", "--no-sync", "--mode", "keyword", "--notes", str(notes), "retention"],
                                 capsys, monkeypatch)
        assert code == 0, err
        assert "n0.md" in out
        # A command that must write says why it cannot, without a traceback.
        (notes / "new.md").write_text("# New\n\nretention\n", encoding="utf-8")
        code, out, err = run_cli(["index", "--notes", str(notes)], capsys, monkeypatch)
        assert code == 1 and "read-only" in err and "Traceback" not in err, err
    finally:
        disk.writable()


# ----- cut-short syncs and big files ----------------------------------------------------------------

def test_last_sync_is_recorded_only_for_a_completed_sync(notes):
    index = _index(notes)
    fake = FakeEmbedder()
    sync(index, NotesPolicy.load(notes), fake, should_stop=lambda: True)
    assert "last_sync" not in index.meta()
    sync(index, NotesPolicy.load(notes), fake)
    assert "last_sync" in index.meta()


def test_a_big_single_line_note_is_committed_in_parts_and_a_rerun_continues_where_it_stopped(notes):
    from scree import sync as syncmod

    index = _index(notes)
    fake = FakeEmbedder()
    sync(index, NotesPolicy.load(notes), fake)  # the three small notes
    (notes / "big.md").write_text("# Big\n\n" + " ".join(f"token{i}" for i in range(150_000)), encoding="utf-8")

    class Crash(Exception):
        pass

    seen: list[tuple[str, int, int]] = []

    class Progress(syncmod.NoProgress):
        def within(self, path: str, done: int, total: int) -> None:
            seen.append((path, done, total))
            if len(seen) == 3:  # a crash after three committed parts
                fake.fail_with = Crash("killed")

    with pytest.raises(Crash):
        sync(index, NotesPolicy.load(notes), fake, progress=Progress())
    total = seen[0][2]
    assert total > syncmod.BIG_FILE_CHUNKS and [d for _, d, _ in seen] == [64, 128, 192]
    assert invariants.problems(index.conn, fake.max_windows) == []
    big = index.conn.execute("select id, sha256 from files where path = 'big.md'").fetchone()
    assert big[1] is None  # no hash: the index does not claim the file
    assert index.conn.execute("select count(*) from chunks where file_id = ?", (big[0],)).fetchone()[0] == 192
    fake.fail_with = None
    fake.passages = 0
    report = sync(index, NotesPolicy.load(notes), fake)
    assert report.added + report.updated == ["big.md"]
    assert fake.passages == total - 192  # the committed parts' vectors were reused
    assert invariants.problems(index.conn, fake.max_windows) == []
    assert index.conn.execute("select chunks from files where path = 'big.md' and sha256 is not null"
                              ).fetchone()[0] == total
