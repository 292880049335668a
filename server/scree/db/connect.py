"""The one connection factory: which SQLite to use, and how every connection is set up.

The stdlib `sqlite3` is used when it can load extensions (Linux distributions' Pythons, Homebrew).
Many Pythons (python.org and pyenv builds, macOS's system Python) compile it without
`enable_load_extension`; then the bundled SQLite of `sqlean.py` (a drop-in DB-API module) is used.
Both load sqlite-vec the same way. The choice is made once per process and cached.
"""

from __future__ import annotations

import functools
import logging
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import sqlite_vec

from ..errors import IndexError_, SqliteUnavailableError
from ..settings_table import SQLITE

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000


@dataclass(frozen=True)
class Driver:
    """A DB-API module able to load sqlite-vec, with the exception classes callers must catch."""

    name: str  # "stdlib" or "sqlean"
    module: ModuleType

    @property
    def Error(self) -> type[Exception]:  # noqa: N802 - mirrors DB-API naming
        return self.module.Error

    @property
    def sqlite_version(self) -> str:
        return str(self.module.sqlite_version)


def _can_load_vec(module: ModuleType) -> bool:
    try:
        conn = module.connect(":memory:")
    except Exception:  # pragma: no cover - a broken module
        return False
    try:
        if not hasattr(conn, "enable_load_extension"):
            return False
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        conn.execute("select vec_version()").fetchone()
        conn.execute("create virtual table t using fts5(a)")
        return True
    except Exception as exc:
        log.debug("%s cannot load sqlite-vec: %s", getattr(module, "__name__", module), exc)
        return False
    finally:
        conn.close()


def choose_driver(prefer: str | None = None) -> Driver:
    """Pick the SQLite module: stdlib if it can load sqlite-vec, else sqlean.

    `prefer` ("stdlib" / "sqlean", default from SCREE_SQLITE) forces one; it fails clearly if that one cannot work.
    """
    prefer = prefer or os.environ.get(SQLITE.env, "").strip() or None
    return _choose_driver_cached(prefer)


@functools.lru_cache(maxsize=4)
def _choose_driver_cached(prefer: str | None) -> Driver:
    candidates: list[tuple[str, ModuleType | None]] = [("stdlib", sqlite3)]
    try:
        import sqlean

        candidates.append(("sqlean", sqlean))
    except ImportError:
        candidates.append(("sqlean", None))
    if prefer is not None:
        if prefer not in ("stdlib", "sqlean"):
            raise SqliteUnavailableError(f"{SQLITE.env}={prefer!r}: use 'stdlib' or 'sqlean'")
        candidates = [c for c in candidates if c[0] == prefer]
    for name, module in candidates:
        if module is not None and _can_load_vec(module):
            return Driver(name, module)
    raise SqliteUnavailableError(
        "no SQLite that can load sqlite-vec was found: this Python's sqlite3 cannot load extensions and the "
        "bundled one (package sqlean.py) is missing or broken; reinstall scree's dependencies "
        "(`uv sync --reinstall` or `pip install --force-reinstall sqlean.py sqlite-vec`)"
    )


def connect(path: Path | str, *, driver: Driver | None = None, readonly: bool = False):  # -> Connection
    """Open `path` with sqlite-vec loaded, WAL mode, a busy timeout, foreign keys on.

    Raises IndexError_ with a clear remedy when the file is not a database or is locked.
    """
    driver = driver or choose_driver()
    mod = driver.module
    try:
        if readonly:
            conn = mod.connect(f"file:{path}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                               check_same_thread=False, isolation_level=None)
        else:
            conn = mod.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False,
                               isolation_level=None)
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        conn.execute(f"pragma busy_timeout = {BUSY_TIMEOUT_MS}")
        if not readonly:
            mode = conn.execute("pragma journal_mode = wal").fetchone()[0]
            if str(mode).lower() != "wal":
                log.warning("index %s is not in WAL mode (%s): readers may wait on the writer", path, mode)
        conn.execute("pragma synchronous = normal")
        conn.execute("pragma foreign_keys = on")
        # Touch the schema now so a non-database file fails here, with the message below.
        conn.execute("select count(*) from sqlite_master").fetchone()
        return conn
    except driver.Error as exc:
        msg = str(exc).lower()
        if "not a database" in msg or "malformed" in msg or "file is encrypted" in msg:
            raise IndexError_(
                f"the index {path} is damaged ({exc}): run `scree index --rebuild` to rebuild it "
                "(your notes are not touched)"
            ) from None
        if "locked" in msg or "busy" in msg:
            raise IndexError_(f"the index {path} is locked by another process ({exc}): try again shortly") from None
        raise IndexError_(f"cannot open the index {path}: {exc}") from None


def is_db_error(exc: BaseException, driver: Driver | None = None) -> bool:
    """True when `exc` is an error raised by the SQLite driver in use."""
    driver = driver or choose_driver()
    return isinstance(exc, driver.Error)
