"""The connection factory: both SQLite paths really load sqlite-vec and FTS5."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scree.db.connect import choose_driver, connect
from scree.errors import IndexError_, SqliteUnavailableError

REPO = Path(__file__).resolve().parent.parent


def _stdlib_can_load() -> bool:
    return hasattr(sqlite3.connect(":memory:"), "enable_load_extension")


def test_bundled_sqlite_loads_vec_and_fts5(tmp_path):
    driver = choose_driver("sqlean")
    conn = connect(tmp_path / "a.db", driver=driver)
    assert conn.execute("select vec_version()").fetchone()[0].startswith("v")
    conn.execute("create virtual table f using fts5(x)")
    conn.execute("create virtual table v using vec0(e float[2] distance_metric=cosine)")
    conn.execute("insert into v(rowid, e) values (1, '[1, 0]')")
    assert conn.execute("select rowid from v where e match '[1, 0]' and k = 1").fetchone()[0] == 1
    assert conn.execute("pragma journal_mode").fetchone()[0] == "wal"


def test_the_bundled_sqlite_is_the_default_wherever_it_is_installed(monkeypatch):
    """Every user runs the SQLite the tests ran, whatever this Python's sqlite3 can do."""
    monkeypatch.delenv("SCREE_SQLITE", raising=False)
    driver = choose_driver()
    assert driver.name == "sqlean" and driver.sqlite_version == __import__("sqlean").sqlite_version


def test_each_forced_driver_is_the_one_used_or_says_why_not(monkeypatch):
    monkeypatch.setenv("SCREE_SQLITE", "sqlean")
    assert choose_driver().name == "sqlean"
    monkeypatch.setenv("SCREE_SQLITE", "stdlib")
    if _stdlib_can_load():
        assert choose_driver().name == "stdlib"
    else:
        with pytest.raises(SqliteUnavailableError, match="SCREE_SQLITE=stdlib, but this Python's sqlite3 cannot "
                                                        "load extensions"):
            choose_driver()
    monkeypatch.setenv("SCREE_SQLITE", "pysqlite")
    with pytest.raises(SqliteUnavailableError, match="use 'stdlib' or 'sqlean'"):
        choose_driver()


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
