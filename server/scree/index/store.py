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

from ..db import connect as dbconnect
from ..db import compact, queries, schema, writes
from ..notes.embedview import vector_space_id
from ..errors import IndexDamaged, IndexError_, IndexMismatchError
from ..locate import IndexLocation, prepare_index_dir
from .vectors import VectorCache

DEFAULT_VECTOR_CACHE_BYTES = 400 * 1024 * 1024

log = logging.getLogger(__name__)


@dataclass
class Index:
    """An open index: its connection, where it lives, and the folder it serves."""

    conn: Any
    driver: dbconnect.Driver
    location: IndexLocation
    folder: Path
    vectors: VectorCache = field(default_factory=lambda: VectorCache(DEFAULT_VECTOR_CACHE_BYTES))
    # Small answers read from the index, kept with the `queries.data_version` they were read at: a search reads
    # them again only once the index has changed (`search.search`'s versioned copies).
    memo: dict[str, tuple[Any, Any]] = field(default_factory=dict)

    def meta(self) -> dict[str, str]:
        return queries.get_meta(self.conn)

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:  # pragma: no cover - closing twice is harmless
            pass


def open_index(location: IndexLocation, folder: Path, *, create: bool = True,
               vector_cache_bytes: int = DEFAULT_VECTOR_CACHE_BYTES) -> Index:
    """Open the index at `location` for `folder`: to write (creating and migrating it), or with
    `create=False` read-only (no file, folder, mode or schema change: a read-only disk still reads).

    Raises NotAnIndex when the path holds a file scree did not make (it is never written to),
    IndexMismatchError when the index records another folder (a sync would delete that folder's
    rows), and IndexError_ when the file is damaged or from a newer scree.
    """
    driver = dbconnect.choose_driver()
    kind = _check_ours(location, driver)
    if not create:
        return _open_readonly(location, folder, driver, vector_cache_bytes)
    prepare_index_dir(location, folder)
    _private_files(location.db)
    conn = dbconnect.connect(location.db, driver=driver)
    try:
        try:
            # Before migrating: a file whose version claims a schema it does not hold (edited by hand)
            # would fail mid-sync on a missing column, or fail every migration on "already exists".
            untrusted = schema.untrusted_parts(conn, driver.module)
            if not untrusted:
                if kind.kind in ("missing", "empty"):  # free pages can be handed back in steps (db/compact.py)
                    compact.enable_incremental_vacuum(conn)
                if kind.kind != "scree":
                    dbconnect.stamp(conn)  # a new file, or an index of an older scree: mark it ours
                schema.migrate(conn)
        except ValueError as exc:
            raise IndexError_(f"{location.db}: {exc}; upgrade scree or rebuild with `scree index --rebuild`") from None
        except driver.Error as exc:
            raise dbconnect.explain(exc, location.db) or IndexError_(
                f"cannot prepare the index {location.db} ({exc}): run `scree index --rebuild`") from None
        if untrusted:
            raise dbconnect.damaged_index(location.db, "; ".join(untrusted))
        meta = queries.get_meta(conn)
        recorded = meta.get("folder")
        if recorded is None:
            writes.set_meta(conn, {"folder": str(folder), "schema_version": str(schema.SCHEMA_VERSION),
                                   "created": str(time.time())})
        _check_folder(location, folder, recorded)
    except BaseException:
        conn.close()
        raise
    return Index(conn=conn, driver=driver, location=location, folder=folder,
                 vectors=VectorCache(vector_cache_bytes))


def _check_ours(location: IndexLocation, driver: dbconnect.Driver) -> dbconnect.FileKind:
    """Refuse a file scree did not make. In scree's own index folder an unrecognisable file is a
    damaged index (nobody else writes there); at a --db path it may be anyone's."""
    kind = dbconnect.inspect_file(location.db, driver)
    if kind.is_ours or (location.managed and kind.kind == "sqlite"):
        return kind  # nobody but scree writes in its own index folder
    if location.managed and kind.kind == "other":
        raise IndexDamaged(f"the index {location.db} is damaged ({kind.description}); it is a cache of your "
                          "notes: run `scree index --rebuild` (your notes are not touched)", kind.description)
    return dbconnect.refuse_unless_ours(location.db, driver)


def may_delete(location: IndexLocation) -> bool:
    """True when the file at the index path may be deleted for a rebuild: it is a scree index (even
    a damaged one whose header still says so), or it lies in scree's own index folder."""
    kind = dbconnect.inspect_file(location.db)
    return kind.is_ours or location.managed


def remove_index_files(location: IndexLocation) -> None:
    """Delete the index file and its -wal and -shm, for a rebuild; raises NotAnIndex (deleting
    nothing) when the file is not scree's. The caller holds the writer lock."""
    if not may_delete(location):
        dbconnect.refuse_unless_ours(location.db)
    for suffix in ("", "-wal", "-shm"):
        try:
            Path(f"{location.db}{suffix}").unlink()
        except FileNotFoundError:
            pass


def _open_readonly(location: IndexLocation, folder: Path, driver: dbconnect.Driver,
                   vector_cache_bytes: int) -> Index:
    if not location.db.exists():
        raise IndexError_(f"no index at {location.db} yet: run `scree index`")
    conn = dbconnect.connect(location.db, driver=driver, readonly=True)
    try:
        try:
            version = schema.current_version(conn)
            if version > schema.SCHEMA_VERSION:
                raise IndexError_(f"{location.db}: index schema version {version} is newer than this scree "
                                  f"({schema.SCHEMA_VERSION}); upgrade scree")
            untrusted = schema.untrusted_parts(conn, driver.module)
            if untrusted:  # a reader cannot repair it, and must not fail on it mid-query (`no such column`)
                raise dbconnect.damaged_index(location.db, "; ".join(untrusted))
            if version == 0:
                raise IndexError_(f"the index {location.db} has no tables yet: run `scree index`")
            # An older schema is read as it is (a reader never migrates); the writer upgrades it.
            recorded = queries.get_meta(conn).get("folder")
        except driver.Error as exc:
            raise dbconnect.explain(exc, location.db) or IndexError_(
                f"cannot read the index {location.db} ({exc})") from None
        _check_folder(location, folder, recorded)
    except BaseException:
        conn.close()
        raise
    return Index(conn=conn, driver=driver, location=location, folder=folder,
                 vectors=VectorCache(vector_cache_bytes))


def _check_folder(location: IndexLocation, folder: Path, recorded: str | None) -> None:
    if recorded is not None and recorded != str(folder):
        raise IndexMismatchError(
            f"the index {location.db} belongs to {recorded}, not {folder}: syncing it would delete that "
            "folder's entries; use another --db, or unset SCREE_DB"
        )


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


def ensure_chunker(index: Index, version: str, *, reembedding: bool = False) -> str | None:
    """A message when the index holds notes chunked by another chunker `version` (indexes from before
    versions were recorded count as version 1): the sync then re-chunks every file, only chunks whose
    text changed are re-embedded (unless `reembedding`: the vectors were reset anyway, and the message
    does not promise otherwise), and it records `version` once every file is done. An index with no
    files records `version` at once, so a first sync killed midway is not mistaken for an old index."""
    recorded = index.meta().get("chunker")
    if recorded == version:
        return None
    if queries.counts(index.conn).files == 0:
        writes.set_meta(index.conn, {"chunker": version})
        return None
    return (f"the index was chunked by chunker version {recorded or '1'}; re-chunking every file with "
            f"version {version}" + ("" if reembedding else " (only chunks whose text changed are re-embedded)"))


def vectors_usable(index: Index, embedder_id: str, dimensions: int, max_windows: int) -> bool:
    """True when the stored vectors were made by this embedder under its stride (a reader checks before a
    semantic search)."""
    return (queries.has_vec_table(index.conn)
            and _recorded_identity(index.meta()) == _vector_identity(embedder_id, dimensions, max_windows))


def rebuild_in_place(index: Index, embedder_id: str, dimensions: int, max_windows: int) -> None:
    """Forget every chunk and vector so the next sync re-embeds every note.

    The file itself stays (same inode), so readers and health checks keep seeing the same index.
    """
    writes.reset_vectors(index.conn, dimensions, _vector_identity(embedder_id, dimensions, max_windows))


def has_indexed_files(db: Path) -> bool:
    """True when the index file exists, a sync of it once completed, and it holds at least one
    completely indexed note (a first sync cut short still counts as a first build).

    Read-only and before the LiveIndex starts: its own status reads 0 files until its writer has
    opened the file, which would make every restart look like a first build.
    """
    if not db.exists():
        return False
    try:
        conn = dbconnect.connect(db, readonly=True)
    except Exception as exc:  # noqa: BLE001 - unreadable here means the LiveIndex will say why
        log.debug("cannot peek into %s: %s", db, exc)
        return False
    try:
        c = queries.counts(conn)
        return c.files - c.incomplete_files > 0 and "last_sync" in queries.get_meta(conn)
    except Exception as exc:  # noqa: BLE001 - a file without tables yet is an empty index
        log.debug("cannot count the rows of %s: %s", db, exc)
        return False
    finally:
        conn.close()
