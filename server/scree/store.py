"""Opening the index of one notes folder: connect, migrate, and refuse an index that belongs elsewhere.

This is the only door to the SQLite file for the rest of scree (sync, search, serve); the SQL itself
lives in `scree.db`.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .db import connect as dbconnect
from .db import queries, schema, writes
from .embedview import vector_space_id
from .errors import IndexError_, IndexMismatchError
from .locate import IndexLocation, prepare_index_dir
from .vectors import VectorCache

DEFAULT_VECTOR_CACHE_BYTES = 200 * 1024 * 1024

log = logging.getLogger(__name__)


@dataclass
class Index:
    """An open index: its connection, where it lives, and the folder it serves."""

    conn: Any
    driver: dbconnect.Driver
    location: IndexLocation
    folder: Path
    vectors: VectorCache = field(default_factory=lambda: VectorCache(DEFAULT_VECTOR_CACHE_BYTES))

    def meta(self) -> dict[str, str]:
        return queries.get_meta(self.conn)

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:  # pragma: no cover - closing twice is harmless
            pass


def open_index(location: IndexLocation, folder: Path, *, create: bool = True,
               vector_cache_bytes: int = DEFAULT_VECTOR_CACHE_BYTES) -> Index:
    """Open (creating if allowed) the index at `location` for `folder`.

    Raises IndexMismatchError when the file records another folder: a sync would delete that
    folder's rows. Raises IndexError_ when the file is damaged or from a newer scree.
    """
    if not location.db.exists() and not create:
        raise IndexError_(f"no index at {location.db} yet: run `scree index`")
    prepare_index_dir(location, folder)
    _private_files(location.db)
    driver = dbconnect.choose_driver()
    conn = dbconnect.connect(location.db, driver=driver)
    try:
        try:
            schema.migrate(conn)
        except ValueError as exc:
            raise IndexError_(f"{location.db}: {exc}; upgrade scree or rebuild with `scree index --rebuild`") from None
        except driver.Error as exc:
            raise IndexError_(f"cannot prepare the index {location.db} ({exc}): run `scree index --rebuild`") from None
        recorded = queries.get_meta(conn).get("folder")
        if recorded is None:
            writes.set_meta(conn, {"folder": str(folder), "schema_version": str(schema.SCHEMA_VERSION),
                                   "created": str(time.time())})
        elif recorded != str(folder):
            raise IndexMismatchError(
                f"the index {location.db} belongs to {recorded}, not {folder}: syncing it would delete that "
                "folder's entries; use another --db, or unset SCREE_DB"
            )
    except BaseException:
        conn.close()
        raise
    return Index(conn=conn, driver=driver, location=location, folder=folder,
                 vectors=VectorCache(vector_cache_bytes))


def _private_files(db: Path) -> None:
    """Create the index file 0600 before SQLite does: its -wal and -shm files take the same mode,
    so notes' text never sits world-readable beside it."""
    try:
        os.close(os.open(db, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    except OSError:
        return  # an unwritable location: connect() reports it with a clear message
    for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        try:
            if path.stat().st_mode & 0o077:
                path.chmod(0o600)
        except OSError:
            pass


# Indexes written before the stride was recorded all used the local embedder's 64 windows per chunk.
LEGACY_MAX_WINDOWS = "64"


def _vector_identity(embedder_id: str, dimensions: int, max_windows: int) -> dict[str, str]:
    """What the stored vectors depend on besides the notes: the vector space, its width, and the rowid
    stride (a window's rowid is `chunk_id * max_windows + window`, so another stride mis-maps them all)."""
    return {"embedder": vector_space_id(embedder_id), "dimensions": str(dimensions), "max_windows": str(max_windows)}


def _recorded_identity(meta: dict[str, str]) -> dict[str, str | None]:
    return {"embedder": meta.get("embedder"), "dimensions": meta.get("dimensions"),
            "max_windows": meta.get("max_windows", LEGACY_MAX_WINDOWS if "embedder" in meta else None)}


def ensure_embedder(index: Index, embedder_id: str, dimensions: int, max_windows: int) -> str | None:
    """Make the vector table match the embedder. Returns a message when everything must be re-embedded.

    Vectors from two models (or two widths, or two views of the text) are not comparable, so they are
    never mixed; vectors stored under another rowid stride cannot even be found, so they are redone too.
    """
    wanted = _vector_identity(embedder_id, dimensions, max_windows)
    meta = index.meta()
    recorded = _recorded_identity(meta)
    has_table = queries.has_vec_table(index.conn)
    if has_table and recorded == wanted:
        if "max_windows" not in meta:  # an index from before the stride was recorded: record it now
            writes.set_meta(index.conn, {"max_windows": wanted["max_windows"]})
        return None
    had_vectors = has_table and queries.counts(index.conn).chunks > 0
    writes.reset_vectors(index.conn, dimensions, wanted)
    if had_vectors:
        if recorded["embedder"] == wanted["embedder"] and recorded["dimensions"] == wanted["dimensions"]:
            msg = (f"the index stored up to {recorded['max_windows']} vectors per chunk, {embedder_id} makes up to "
                   f"{max_windows}; re-embedding every file")
        else:
            msg = (f"the index was built with embedder {meta.get('embedder')} ({meta.get('dimensions')} dims); "
                   f"re-embedding every file with {wanted['embedder']} ({dimensions} dims)")
        log.warning(msg)
        return msg
    return None


def vectors_usable(index: Index, embedder_id: str, dimensions: int, max_windows: int) -> bool:
    """True when the stored vectors were made by this embedder under its stride (a reader checks before a
    semantic search)."""
    return (queries.has_vec_table(index.conn)
            and _recorded_identity(index.meta()) == _vector_identity(embedder_id, dimensions, max_windows))
