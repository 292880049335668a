"""The one connection factory: which SQLite to use, and how every connection is set up.

The bundled SQLite of `sqlean.py` (a drop-in DB-API module, wheels for Linux glibc and macOS on x86-64
and arm64) is used wherever it is installed: every user then runs the SQLite (3.50) the tests ran, and
older SQLites' quirks (3.40's false "NULL value" on WITHOUT ROWID tables) never meet an index.
This Python's `sqlite3` serves where sqlean.py has no wheel (Windows, musl, other CPUs) and it can
load extensions, or when SCREE_SQLITE=stdlib forces it. Both load sqlite-vec the same way, and
both run the whole test suite in CI. The choice is made once per process and cached.
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import sqlite3
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import sqlite_vec

from ..errors import DiskFull, IndexDamaged, IndexError_, NotAnIndex, ReadOnlyIndex, ScreeError, SqliteUnavailableError
from ..settings_table import SQLITE

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000

# `PRAGMA application_id` of every index scree makes ("Scre"): the file says it is ours, so scree
# never writes to or deletes a file that is someone else's (a note, another program's database).
APPLICATION_ID = 0x53637265
_SQLITE_MAGIC = b"SQLite format 3\x00"
_HEADER_BYTES = 100
_SNIFF_BYTES = 4096


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


def _works(module: ModuleType, what: str, probe: Callable[[Any], object]) -> bool:
    """True when `probe` runs on a fresh in-memory connection of `module`; why not is logged (debug)."""
    try:
        conn = module.connect(":memory:")
    except Exception:  # pragma: no cover - a broken module
        return False
    try:
        probe(conn)
        return True
    except Exception as exc:
        log.debug("%s %s: %s", getattr(module, "__name__", module), what, exc)
        return False
    finally:
        conn.close()


def _load_vec(conn: Any) -> None:
    if not hasattr(conn, "enable_load_extension"):
        raise RuntimeError("this sqlite3 has no enable_load_extension")
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)
    conn.execute("select vec_version()").fetchone()
    conn.execute("create virtual table t using fts5(a)")


def _can_load_vec(module: ModuleType) -> bool:
    return _works(module, "cannot load sqlite-vec", _load_vec)


# FTS5's trigram tokenizer (the literal index, `chunks_literal`: schema migration 8) came with SQLite 3.34.
TRIGRAM_SINCE = "3.34"


def _has_trigram(module: ModuleType) -> bool:
    return _works(module, "has no trigram tokenizer",
                  lambda conn: conn.execute("create virtual table t using fts5(a, tokenize='trigram')"))


def choose_driver(prefer: str | None = None) -> Driver:
    """Pick the SQLite module: sqlean if it is installed and loads sqlite-vec, else stdlib.

    `prefer` ("stdlib" / "sqlean", default from SCREE_SQLITE) forces one; it fails clearly if that one cannot work.
    """
    prefer = prefer or os.environ.get(SQLITE.env, "").strip() or None
    return _choose_driver_cached(prefer)


@functools.lru_cache(maxsize=4)
def _choose_driver_cached(prefer: str | None) -> Driver:
    candidates: list[tuple[str, ModuleType | None]] = []
    try:
        import sqlean

        candidates.append(("sqlean", sqlean))
    except ImportError:
        candidates.append(("sqlean", None))
    candidates.append(("stdlib", sqlite3))
    if prefer is not None:
        if prefer not in ("stdlib", "sqlean"):
            raise SqliteUnavailableError(f"{SQLITE.env}={prefer!r}: use 'stdlib' or 'sqlean'")
        candidates = [c for c in candidates if c[0] == prefer]
    too_old: list[str] = []
    for name, module in candidates:
        if module is not None and _can_load_vec(module):
            if _has_trigram(module):
                return Driver(name, module)
            too_old.append(f"{'this Python' if name == 'stdlib' else 'the bundled'} SQLite {module.sqlite_version}")
    if too_old:
        remedy = (f"unset {SQLITE.env} to use the bundled SQLite of sqlean.py, or use a Python whose sqlite3 is newer"
                  if prefer == "stdlib" else "reinstall scree's dependencies (`uv sync --reinstall` or "
                  "`pip install --force-reinstall sqlean.py`), or use a Python whose sqlite3 is newer")
        raise SqliteUnavailableError(
            f"{' and '.join(too_old)} has no FTS5 trigram tokenizer (the literal index needs SQLite "
            f"{TRIGRAM_SINCE} or newer); {remedy}")
    if prefer == "stdlib":
        raise SqliteUnavailableError(
            f"{SQLITE.env}=stdlib, but this Python's sqlite3 cannot load extensions (sqlite-vec); unset "
            f"{SQLITE.env} to use the bundled SQLite of sqlean.py, or use a Python whose sqlite3 can")
    raise SqliteUnavailableError(
        "no SQLite that can load sqlite-vec was found: the bundled one (package sqlean.py) is missing or broken "
        "and this Python's sqlite3 cannot load extensions; reinstall scree's dependencies "
        "(`uv sync --reinstall` or `pip install --force-reinstall sqlean.py sqlite-vec`)"
    )


def _immutable(db: Path) -> str:
    """`&immutable=1` when nobody can write beside the file (a read-only disk or folder) and no
    `-shm` exists: a WAL database then cannot be opened read-only the usual way (SQLite must create
    the -shm), and since nothing can change it, reading it as immutable is exact."""
    if os.access(db.parent, os.W_OK) or Path(f"{db}-shm").exists():
        return ""
    return "&immutable=1"


def connect(path: Path | str, *, driver: Driver | None = None, readonly: bool = False):  # -> Connection
    """Open `path` with sqlite-vec loaded, WAL mode, a busy timeout, foreign keys on.

    Raises IndexError_ with a clear remedy when the file is not a database or is locked.
    """
    driver = driver or choose_driver()
    mod = driver.module
    try:
        if readonly:
            conn = mod.connect(f"file:{path}?mode=ro{_immutable(Path(path))}", uri=True,
                               timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False, isolation_level=None)
        else:
            conn = mod.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False,
                               isolation_level=None)
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        conn.execute(f"pragma busy_timeout = {BUSY_TIMEOUT_MS}")
        if not readonly:
            mode = _switch_to_wal(conn, driver)
            if str(mode).lower() != "wal":
                log.warning("index %s is not in WAL mode (%s): readers may wait on the writer", path, mode)
        conn.execute("pragma synchronous = normal")
        conn.execute("pragma foreign_keys = on")
        # Touch the schema now so a non-database file fails here, with the message below.
        conn.execute("select count(*) from sqlite_master").fetchone()
        return conn
    except driver.Error as exc:
        explained = explain(exc, path)
        if explained is not None:
            raise explained from None
        if _is_busy(exc):
            raise IndexError_(f"the index {path} is locked by another process ({exc}): try again shortly") from None
        raise IndexError_(f"cannot open the index {path}: {exc}") from None


def _is_busy(exc: Exception) -> bool:
    """True for SQLite's "database is locked" / "database is busy": another connection holds the file."""
    msg = str(exc).lower()
    return "locked" in msg or "busy" in msg


# How often a connection retries the switch to WAL while another one holds the file (for BUSY_TIMEOUT_MS).
_WAL_SWITCH_POLL = 0.01


def _switch_to_wal(conn: Any, driver: Driver) -> str:
    """`pragma journal_mode = wal`, retried while another connection holds the file. SQLite answers a
    journal-mode switch that meets another connection's lock with "database is locked" at once, without
    its busy handler: eight processes opening a new index together failed one in twenty rounds. Once one
    of them has switched, the mode is in the file and the others' switch is a no-op."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            return str(conn.execute("pragma journal_mode = wal").fetchone()[0])
        except driver.Error as exc:
            if not _is_busy(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(_WAL_SWITCH_POLL)


@dataclass(frozen=True)
class FileKind:
    """What a file at an index path is, before scree touches it."""

    kind: str  # "missing" | "empty" | "scree" | "scree-unmarked" | "sqlite" | "other"
    description: str  # for messages: "Markdown text", "another SQLite database (tables: a, b)"...

    @property
    def is_ours(self) -> bool:
        """True when scree may write to (and, if damaged, delete) this file."""
        return self.kind in ("missing", "empty", "scree", "scree-unmarked")


def inspect_file(path: Path, driver: Driver | None = None) -> FileKind:
    """Tell whether `path` is a scree index (marked, or an older unmarked one), nothing yet, or
    something else, and say what it seems to be. Reads at most a few KB; never writes."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return FileKind("missing", "no file yet")
    except OSError as exc:
        return FileKind("other", f"a file scree cannot inspect ({exc.strerror})")
    if not stat.S_ISREG(st.st_mode):
        what = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        return FileKind("other", what)
    if st.st_size == 0:
        return FileKind("empty", "an empty file")
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError as exc:
        return FileKind("other", f"a file scree cannot read ({exc.strerror})")
    if not head.startswith(_SQLITE_MAGIC):
        return FileKind("other", _sniff(head, path))
    app_id = int.from_bytes(head[68:72], "big") if len(head) >= _HEADER_BYTES else 0
    if app_id == APPLICATION_ID:
        return FileKind("scree", "a scree index")
    if app_id != 0:
        return FileKind("sqlite", f"the SQLite database of another application (application_id {app_id:#x})")
    return _classify_unmarked(path, driver)


def _classify_unmarked(path: Path, driver: Driver | None) -> FileKind:
    """An SQLite file without an application_id: an index of an older scree (its stamp may also
    still sit in the WAL) has `meta` with its folder and schema version, `files` and `chunks`."""
    mod = (driver or choose_driver()).module
    try:
        conn = mod.connect(f"file:{path}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
    except Exception:  # noqa: BLE001 - unreadable: say so below
        return FileKind("sqlite", "an SQLite database scree cannot read")
    try:
        tables = sorted(r[0] for r in conn.execute("select name from sqlite_master where type = 'table'"))
        if {"meta", "files", "chunks"} <= set(tables):
            keys = {r[0] for r in conn.execute("select key from meta where key in ('folder', 'schema_version')")}
            if keys == {"folder", "schema_version"}:
                return FileKind("scree-unmarked", "a scree index")
        if not tables:
            return FileKind("sqlite", "an SQLite database without tables, not made by scree")
        shown = ", ".join(tables[:6]) + (", ..." if len(tables) > 6 else "")
        return FileKind("sqlite", f"another SQLite database (tables: {shown})")
    except Exception as exc:  # noqa: BLE001 - a damaged or locked file: it still is not provably ours
        return FileKind("sqlite", f"an SQLite database scree cannot read ({exc})")
    finally:
        conn.close()


def _sniff(head: bytes, path: Path) -> str:
    """A short guess at what a non-SQLite file is, for the refusal message."""
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not just a character cut at the end of the sample
            return "binary data, not an SQLite database"
        text = head[: exc.start].decode("utf-8")
    if "\x00" in text:
        return "binary data, not an SQLite database"
    lines = text.lstrip().splitlines()
    first = lines[0] if lines else ""
    if (path.suffix.lower() in (".md", ".markdown") or first.startswith(("#", "---"))
            or any(line.startswith("#") for line in lines)):
        return "Markdown text"
    if path.suffix.lower() in (".rst", ".adoc", ".asciidoc", ".txt"):
        return "a document"
    return "a text file"


def refuse_unless_ours(path: Path, driver: Driver | None = None) -> FileKind:
    """Raise NotAnIndex unless `path` is missing, empty or a scree index; return what it is."""
    kind = inspect_file(path, driver)
    if not kind.is_ours:
        raise NotAnIndex(
            f"{path} is not a scree index: it seems to be {kind.description}. scree will not write to or "
            "delete it; point --db / SCREE_DB at a new file (e.g. a path ending in .scree.db), or unset it"
        )
    return kind


def stamp(conn: Any) -> None:
    """Mark the database as scree's (outside the migrations: the header field is not schema)."""
    if int(conn.execute("pragma application_id").fetchone()[0]) != APPLICATION_ID:
        conn.execute(f"pragma application_id = {APPLICATION_ID}")
        # Into the file itself now, not only the WAL: the mark is what the file says to any reader.
        conn.execute("pragma wal_checkpoint(passive)")


# "vtable constructor failed: chunks_fts" is how SQLite 3.40 reports an FTS5 table whose own
# pages are garbled (newer ones say "malformed"): scree's virtual tables failing to open is damage.
# FTS5 names its own damage: a config row gone ("invalid fts5 file format ... run 'rebuild'"), a keyword row
# whose chunk is gone ("fts5: missing row 7 from content table").
_DAMAGE = ("malformed", "not a database", "file is encrypted", "database corrupt", "vtable constructor failed",
           "invalid fts5 file format", "fts5: missing row")
_FULL = ("database or disk is full", "disk i/o error", "no space left")
_READONLY = ("readonly database", "read-only file system", "attempt to write a readonly")


def is_damage(exc: BaseException) -> bool:
    """True when `exc` says the index file is damaged (SQLite's "malformed" / "not a database", or
    one of its virtual tables cannot be opened)."""
    msg = str(exc).lower()
    return any(m in msg for m in _DAMAGE)


def damaged_index(db: Path | str, detail: str) -> IndexDamaged:
    """The one message for a damaged index, whatever found it: what is wrong, and that it is rebuilt."""
    return IndexDamaged(f"the index {db} is damaged ({detail}); it is a cache of your notes: a running "
                        "`scree serve`/`scree watch` rebuilds it by itself, or run `scree index --rebuild` "
                        "(your notes are not touched)", detail)


def explain(exc: BaseException, db: Path | str) -> ScreeError | None:
    """The clear message for a database or disk error met at any point, or None when it is not one.

    Covers a damaged file, a full disk (SQLITE_FULL, ENOSPC, EFBIG from a file size limit, EDQUOT)
    and a read-only disk; the remedy is named, never a traceback.
    """
    err = getattr(exc, "errno", None)
    msg = str(exc).lower()
    if is_damage(exc):
        return damaged_index(db, str(exc))
    if err in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT) or any(m in msg for m in _FULL):
        return DiskFull(f"cannot write the index {db}: the disk is full, a file size limit was reached or the "
                           f"disk failed ({exc}); free some space and run the command again (a running scree retries "
                           "by itself)")
    if err == errno.EROFS or any(m in msg for m in _READONLY):
        return ReadOnlyIndex(f"cannot write the index {db}: its disk or folder is read-only ({exc}); searching "
                           "what is indexed still works (`scree search --no-sync`), or set SCREE_DATA_DIR / "
                           "--db to a writable place")
    return None


def is_db_error(exc: BaseException, driver: Driver | None = None) -> bool:
    """True when `exc` is an error raised by the SQLite driver in use."""
    driver = driver or choose_driver()
    return isinstance(exc, driver.Error)


def checkpoint(conn: Any) -> None:
    """Write every committed WAL frame back into the database file and empty the WAL."""
    conn.execute("pragma wal_checkpoint(truncate)")
