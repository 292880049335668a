"""The connection factory: both SQLite paths really load sqlite-vec and FTS5."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from scree.db.connect import choose_driver, connect
from scree.errors import IndexError_, SqliteUnavailableError

REPO = Path(__file__).resolve().parent.parent


def _stdlib_can_load() -> bool:
    return hasattr(sqlite3.connect(":memory:"), "enable_load_extension")


def alone(script: str, **env: str) -> str:
    """`script`'s output, run in a Python process of its own with `env` (SCREE_SQLITE unset unless
    given). A test that picks another driver than the run's must not do it here: sqlite-vec keeps one
    global API table, so loading it into a second SQLite library makes the first one's connections
    call the wrong library (a crash, reproduced by `test_vec_in_two_sqlite_libraries_...` below)."""
    base = {k: v for k, v in os.environ.items() if k != "SCREE_SQLITE"}
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                         env={**base, **env}, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_bundled_sqlite_loads_vec_and_fts5(tmp_path):
    assert alone(f"""
        from scree.db.connect import choose_driver, connect
        conn = connect({str(tmp_path / "a.db")!r}, driver=choose_driver("sqlean"))
        assert conn.execute("select vec_version()").fetchone()[0].startswith("v")
        conn.execute("create virtual table f using fts5(x)")
        conn.execute("create virtual table v using vec0(e float[2] distance_metric=cosine)")
        conn.execute("insert into v(rowid, e) values (1, '[1, 0]')")
        print(conn.execute("select rowid from v where e match '[1, 0]' and k = 1").fetchone()[0],
              conn.execute("pragma journal_mode").fetchone()[0])
    """) == "1 wal"


def test_the_bundled_sqlite_is_the_default_wherever_it_is_installed():
    """Every user runs the SQLite the tests ran, whatever this Python's sqlite3 can do."""
    import sqlean

    assert alone("""
        from scree.db.connect import choose_driver
        d = choose_driver()
        print(d.name, d.sqlite_version)
    """) == f"sqlean {sqlean.sqlite_version}"


def test_each_forced_driver_is_the_one_used_or_says_why_not():
    script = """
        from scree.db.connect import choose_driver
        from scree.errors import SqliteUnavailableError
        try:
            print(choose_driver().name)
        except SqliteUnavailableError as exc:
            print(exc)
    """
    assert alone(script, SCREE_SQLITE="sqlean") == "sqlean"
    if _stdlib_can_load():
        assert alone(script, SCREE_SQLITE="stdlib") == "stdlib"
    else:
        assert alone(script, SCREE_SQLITE="stdlib").startswith(
            "SCREE_SQLITE=stdlib, but this Python's sqlite3 cannot load extensions")
    assert "use 'stdlib' or 'sqlean'" in alone(script, SCREE_SQLITE="pysqlite")


def test_vec_in_two_sqlite_libraries_of_one_process_breaks_the_first(tmp_path):
    """Why `alone` exists: if this ever passes, sqlite-vec stopped sharing one API table and the
    tests could pick drivers in-process again."""
    if not _stdlib_can_load():
        pytest.skip("this Python's sqlite3 cannot load extensions: one library only")
    script = textwrap.dedent("""
        import sqlite3, sqlean, sqlite_vec
        a = sqlite3.connect(":memory:"); a.enable_load_extension(True); sqlite_vec.load(a)
        a.execute("create virtual table v using vec0(e float[4])")
        for i in range(200):
            a.execute("insert into v(rowid, e) values (?, ?)", (i + 1, f"[{i},1,2,3]"))
        b = sqlean.connect(":memory:"); b.enable_load_extension(True); sqlite_vec.load(b)
        for _ in range(50):
            a.execute("select rowid from v where e match '[1,1,2,3]' and k = 3").fetchall()
        a.close()
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode < 0, "the first library's vec0 still works after loading it into a second"


def _python_with_loadable_sqlite() -> str | None:
    """A Python 3.11 on this machine whose stdlib sqlite3 can load extensions (Debian's, Homebrew's)."""
    for cand in (sys.executable, "/usr/bin/python3.11", "/usr/bin/python3", shutil.which("python3.11")):
        if not cand:
            continue
        probe = "import sqlite3,sys; c=sqlite3.connect(':memory:'); c.enable_load_extension(True); " \
                "assert sys.version_info[:2]==(3,11)"
        if subprocess.run([cand, "-c", probe], capture_output=True).returncode == 0:
            return cand
    return None


def test_stdlib_path_with_a_python_that_can_load_extensions(tmp_path):
    python = _python_with_loadable_sqlite()
    if python is None:
        pytest.skip("no Python 3.11 with extension-loading sqlite3 on this machine")
    site = next(p for p in sys.path if p.endswith("site-packages"))
    script = textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(REPO / 'server')!r}, {site!r}]
        from scree.db.connect import choose_driver, connect
        d = choose_driver("stdlib")
        assert d.name == "stdlib", d.name
        c = connect({str(tmp_path / 's.db')!r}, driver=d)
        c.execute("create virtual table v using vec0(e float[2] distance_metric=cosine)")
        c.execute("insert into v(rowid, e) values (7, '[0, 1]')")
        print(c.execute("select rowid from v where e match '[0, 1]' and k = 1").fetchone()[0])
    """)
    out = subprocess.run([python, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "7"


def test_garbage_file_is_reported_as_damaged_with_the_remedy(tmp_path):
    bad = tmp_path / "index.db"
    bad.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(IndexError_, match="scree index --rebuild"):
        connect(bad)
    assert bad.read_bytes().startswith(b"this is not sqlite")  # nothing lost


def test_opening_a_new_index_while_another_connection_writes_it_waits_instead_of_failing(tmp_path):
    # SQLite answers a switch to WAL that meets another connection's write lock with "database is locked"
    # at once, without the busy handler: eight `scree search`es started together on a new folder failed so.
    db = tmp_path / "index.db"
    driver = choose_driver()
    other = driver.module.connect(str(db), isolation_level=None, check_same_thread=False)
    other.execute("create table t(x)")  # a rollback-journal file, as a new one is before the first switch
    other.execute("begin immediate")
    outcome: dict[str, object] = {}

    def open_it() -> None:
        try:
            outcome["mode"] = connect(db, driver=driver).execute("pragma journal_mode").fetchone()[0]
        except Exception as exc:  # noqa: BLE001 - the test reports it
            outcome["error"] = exc

    opener = threading.Thread(target=open_it)
    opener.start()
    opener.join(timeout=0.5)  # it keeps waiting while the lock is held (and fails at once without the retry)
    assert "error" not in outcome, outcome["error"]
    other.execute("commit")
    other.close()
    opener.join(timeout=30)
    assert outcome == {"mode": "wal"}
