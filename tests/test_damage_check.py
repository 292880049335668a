"""Damage is confirmed before anything is deleted: a check message alone does not condemn a healthy
index (SQLite 3.40, Debian 12's, says "NULL value in names.source" for every row of a healthy WITHOUT
ROWID table), while real damage is still found, on every SQLite scree runs on."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from faultkit import notes_folder
from scree.config import load_config
from scree.db import invariants, schema
from scree.workspace import Workspace

try:
    import sqlean
except ImportError:  # pragma: no cover - sqlean.py has no wheel here; the stdlib path still runs
    sqlean = None

# Each DB-API module scree can open an index with; the checks need no extension, so both run on any
# Python (the stdlib one here is the SQLite of the Python running the suite: 3.40.1 on Debian 12).
MODULES = [pytest.param(sqlite3, id=f"stdlib-{sqlite3.sqlite_version}")]
if sqlean is not None:
    MODULES.append(pytest.param(sqlean, id=f"sqlean-{sqlean.sqlite_version}"))


def _vocabulary_index(module, db: Path, rows: int = 5):
    """A file with scree's real schema and a healthy vocabulary (the WITHOUT ROWID `names` table)."""
    conn = module.connect(str(db), isolation_level=None)
    schema.migrate(conn)
    conn.execute("insert into code_files(id, path, kind, sha256) values (1, 'app.py', 'code', 'x')")
    conn.executemany("insert into names(name, source, common, file_id) values (?, ?, 0, 1)",
                     [(f"Name{i}", "code" if i % 2 else "manifest") for i in range(rows)])
    return conn


@pytest.mark.parametrize("module", MODULES)
def test_a_healthy_vocabulary_is_not_damage_on_any_sqlite(module, tmp_path):
    conn = _vocabulary_index(module, tmp_path / "index.db")
    assert invariants.quick_check(conn) is None


@pytest.mark.parametrize("module", MODULES)
def test_a_real_null_in_a_not_null_column_is_damage_named_once(module, tmp_path):
    db = tmp_path / "index.db"
    conn = _vocabulary_index(module, db)
    # Make the damage a stray write would: a NULL where the schema says NOT NULL, in two rows.
    original = conn.execute("select sql from sqlite_master where name = 'names'").fetchone()[0]
    loose = original.replace("source text not null", "source text")
    assert loose != original
    conn.execute("pragma writable_schema = on")
    conn.execute("update sqlite_master set sql = ? where name = 'names'", (loose,))
    conn.close()
    conn = module.connect(str(db), isolation_level=None)
    conn.execute("insert into names(name, source, common, file_id) values ('Bad1', null, 0, 1), ('Bad2', null, 0, 1)")
    conn.execute("pragma writable_schema = on")
    conn.execute("update sqlite_master set sql = ? where name = 'names'", (original,))
    conn.close()
    conn = module.connect(str(db), isolation_level=None)
    damage = invariants.quick_check(conn)
    assert damage == "NULL value in names.source"  # two rows, one message


@pytest.mark.parametrize("module", MODULES)
def test_a_garbled_page_is_still_damage(module, tmp_path):
    db = tmp_path / "index.db"
    conn = _vocabulary_index(module, db, rows=2000)
    page = conn.execute("pragma page_size").fetchone()[0]
    root = conn.execute("select rootpage from sqlite_master where name = 'names'").fetchone()[0]
    conn.close()
    with open(db, "r+b") as fh:
        fh.seek((root - 1) * page)
        fh.write(b"\xa5" * page)
    conn = module.connect(str(db), isolation_level=None)
    assert invariants.quick_check(conn) is not None


@pytest.mark.parametrize("module", MODULES)
def test_a_page_garbled_after_a_check_read_it_is_found_by_the_next_check_on_the_same_connection(module, tmp_path):
    # A live reader keeps one connection for hours, and SQLite keeps its cached pages while nothing
    # commits: the check must read the file, not the copy it made before the damage.
    db = tmp_path / "index.db"
    conn = _vocabulary_index(module, db, rows=2000)
    assert invariants.quick_check(conn) is None  # every page is now in this connection's cache
    page = conn.execute("pragma page_size").fetchone()[0]
    root = conn.execute("select rootpage from sqlite_master where name = 'names'").fetchone()[0]
    with open(db, "r+b") as fh:
        fh.seek((root - 1) * page)
        fh.write(b"\xa5" * page)
    assert invariants.quick_check(conn) is not None


def _scree(driver: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a process of its own with `driver`: one process must never load sqlite-vec into two
    SQLite libraries (the extension keeps one global API table, so the first library's connections
    would call into the second's allocator and crash at garbage collection)."""
    return subprocess.run([sys.executable, "-m", "scree.cli", *args], capture_output=True, text=True,
                          env={**os.environ, "SCREE_SQLITE": driver}, timeout=120)


@pytest.mark.parametrize("driver", ["sqlean", "stdlib"])
def test_a_repo_with_notes_and_code_reindexes_twice_with_nothing_rebuilt(driver, tmp_path):
    probe = subprocess.run([sys.executable, "-c", f"from scree.db.connect import choose_driver; choose_driver({driver!r})"],
                           capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip(f"this Python cannot use the {driver} driver: {probe.stderr.strip().splitlines()[-1]}")
    notes = notes_folder(tmp_path)
    (notes / "pyproject.toml").write_text('[project]\nname = "retainer"\ndependencies = ["httpx"]\n')
    (notes / "app.py").write_text("class RetentionPolicy:\n    def prune_old_entries(self):\n        pass\n")
    first = _scree(driver, "reindex", "--notes", str(notes), "--json")
    assert first.returncode == 0, first.stderr
    again = _scree(driver, "reindex", "--notes", str(notes), "--json")
    assert again.returncode == 0, again.stderr
    assert "damaged" not in again.stdout + again.stderr and "rebuild" not in again.stdout + again.stderr
    report = json.loads(again.stdout)
    assert report["added"] == [] and report["updated"] == [] and report["unchanged"] == 3, report
    db = Workspace.from_config(load_config().with_overrides(notes=notes)).location.db
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:  # no extension: any SQLite reads it
        # The vocabulary holds the code's names: the table older SQLites misjudge is not empty.
        assert conn.execute("select count(*) from names").fetchone()[0] > 0


def _migrated_to(module, db: Path, version: int):
    """A file as scree left it at `version`: migrations 1..version, each committed with its number."""
    conn = module.connect(str(db), isolation_level=None)
    for v in range(1, version + 1):
        for stmt in schema.MIGRATIONS[v]:
            conn.execute(stmt)
        conn.execute(f"pragma user_version = {v}")
    return conn


@pytest.mark.parametrize("module", MODULES)
def test_each_schema_version_is_trusted_as_made_and_untrusted_once_its_number_is_lowered(module, tmp_path):
    """An index of an older scree (any version the migrations made) is read and upgraded; the same file
    claiming a lower version (edited by hand: migrating it would fail on "already exists" for ever)
    is damage, and so is one lacking a column or index its version makes."""
    for version in range(schema.SCHEMA_VERSION + 1):
        conn = _migrated_to(module, tmp_path / f"v{version}.db", version)
        assert schema.untrusted_parts(conn, module) == [], version
        for lower in range(version):
            conn.execute(f"pragma user_version = {lower}")
            found = schema.untrusted_parts(conn, module)
            assert found and f"schema version {lower} but with" in found[0], (version, lower, found)
        conn.close()
    conn = _migrated_to(module, tmp_path / "dropped.db", schema.SCHEMA_VERSION)
    conn.execute("drop index chunks_unembedded")
    conn.execute("alter table files drop column title")
    assert schema.untrusted_parts(conn, module) == [
        f"schema version {schema.SCHEMA_VERSION} without column files.title, index chunks_unembedded"]
    conn.execute("create table mine(x)")  # a table no migration makes is nobody's business here
    conn.execute("drop table names")
    assert "table names" in schema.untrusted_parts(conn, module)[0]


def test_the_row_counts_are_taken_from_one_snapshot_while_a_writer_commits(tmp_path):
    """`status` and doctor count while `scree serve` may commit a file: a commit landing between two counts
    must not read as damage (it would rebuild a healthy index)."""
    from scree.db import writes
    from scree.db.connect import connect
    from scree.records import Chunk

    db = tmp_path / "index.db"
    writer = connect(db)
    schema.migrate(writer)
    chunk = [Chunk("H", "text", 1, 1)]
    writes.replace_file(writer, writes.FileVersion("a.md", "a" * 64, 0, 0, None), chunk, [None], 4)
    reader = connect(db, readonly=True)
    n = [0]

    class Racing:
        """The reader's connection, letting the writer commit another file right after the first count."""

        in_transaction = property(lambda self: reader.in_transaction)

        def execute(self, *args):
            cur = reader.execute(*args)
            n[0] += 1
            if n[0] == 2:  # "begin", then the first count: now the writer commits
                writes.replace_file(writer, writes.FileVersion(f"b{n[0]}.md", "b" * 64, 0, 0, None), chunk, [None], 4)
            return cur

    assert invariants.out_of_step(Racing()) is None
    assert invariants.out_of_step(reader) is None  # and the next look sees both files, in step
    assert reader.execute("select count(*) from chunks").fetchone()[0] == 2


def test_the_deep_check_reads_one_snapshot_while_a_writer_commits(tmp_path):
    """`doctor --deep` and the tests' invariant check read a live index: a file committed between its reads
    of the chunks and of the files must not read as a file lacking its chunks (a race of this kind, with
    vectors, was seen under load)."""
    from scree.db import writes
    from scree.db.connect import connect
    from scree.records import Chunk

    db = tmp_path / "index.db"
    writer = connect(db)
    schema.migrate(writer)
    chunk = [Chunk("H", "text", 1, 1)]
    for name in ("a.md", "b.md"):
        writes.replace_file(writer, writes.FileVersion(name, "a" * 64, 0, 0, None), chunk, [None], 4)
    reader = connect(db, readonly=True)

    class Racing:
        """The reader's connection, letting the writer commit a file right after the chunks were read."""

        in_transaction = property(lambda self: reader.in_transaction)

        def execute(self, *args):
            cur = reader.execute(*args)
            if "from chunks" in str(args[0]) and not writes_done:
                writes.replace_file(writer, writes.FileVersion("c.md", "c" * 64, 0, 0, None), chunk, [None], 4)
                writes_done.append(True)
            return cur

    writes_done: list = []
    assert invariants.problems(Racing()) == [] and writes_done == [True]
    assert invariants.problems(reader) == []  # and the next look sees the third file, in step


@pytest.mark.parametrize("module", MODULES)
def test_a_file_migrated_by_another_process_while_it_is_compared_is_not_a_mismatch(module, tmp_path):
    """Two first opens of one new file (a CLI search beside a starting server): the one comparing must
    not read the version before the other's migration and the tables after it, and call it damage."""
    db = tmp_path / "index.db"
    comparing = module.connect(str(db), isolation_level=None)
    comparing.execute("pragma journal_mode = wal")
    other = module.connect(str(db), isolation_level=None)
    n = [0]

    class Racing:
        in_transaction = property(lambda self: comparing.in_transaction)

        def execute(self, *args):
            cur = comparing.execute(*args)
            if "user_version" in args[0] and not n[0]:  # the version read (0): now the other process migrates
                n[0] += 1
                schema.migrate(other)
            return cur

    assert schema.untrusted_parts(Racing(), module) == []
    assert schema.untrusted_parts(comparing, module) == []  # and afterwards: version 5, its whole schema
    assert schema.current_version(comparing) == schema.SCHEMA_VERSION
