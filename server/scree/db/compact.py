"""Giving space back (issue 27): what an index file could lose, and the steps that shrink it.

Deleting rows does not shrink an SQLite file: the pages go to its freelist. Two of scree's tables keep
more than their rows even then. sqlite-vec's vec0 stores vectors in fixed chunks of slots (1,024 a chunk)
and frees a chunk only once every slot in it is deleted, so a folder that lost 90% of its notes keeps
nearly every chunk, and an edited note's new vectors go to new slots. FTS5 marks deleted rows in new
segments until a merge. So shrinking is: rebuild the vector table (its rows copied out and back in order),
merge the keyword index (`optimize`), then hand the free pages back (`incremental_vacuum`, in steps).

New indexes are made with `auto_vacuum = INCREMENTAL` (`enable_incremental_vacuum`), so that last step
moves pages in short transactions. An index from before that has it switched on by one `VACUUM`, the
first time it shrinks. Every step is a write transaction of the one writer; readers keep reading the
last commit (WAL) throughout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from .embedcache import live_windows
from .schema import vec_table_sql
from .snapshot import transaction

# Free pages handed back per transaction: 4,096 pages of 4 KB is 16 MB a step.
VACUUM_STEP_PAGES = 4096


def enable_incremental_vacuum(conn: Any) -> None:
    """Make the file hand free pages back on request (`release_pages`). Switching an existing file over
    rewrites it (`VACUUM`): cheap for a new, empty index, a full copy for a big one."""
    if auto_vacuum(conn) != 2:
        conn.execute("pragma auto_vacuum = incremental")
        conn.execute("vacuum")


def auto_vacuum(conn: Any) -> int:
    return int(conn.execute("pragma auto_vacuum").fetchone()[0])


@dataclass(frozen=True)
class Space:
    """Where an index's bytes are, and how many a shrink could give back."""

    file_bytes: int  # pages in use or free, as the database counts them
    free_bytes: int  # pages on the freelist
    vector_rows: int
    vector_chunks: int  # vec0 chunks allocated
    chunk_slots: int  # slots per vec0 chunk
    slot_bytes: int  # bytes of one vector slot
    cache_bytes: int  # the embedding cache's vectors
    live_vector_bytes: int  # the vectors the index's chunks use

    @property
    def vector_slack_bytes(self) -> int:
        """What rebuilding the vector table frees: its chunks beyond those its rows fill."""
        if not self.chunk_slots:
            return 0
        needed = -(-self.vector_rows // self.chunk_slots)
        return max(0, self.vector_chunks - needed) * self.chunk_slots * self.slot_bytes


def space(conn: Any, dimensions: int) -> Space:
    """The index's space (a few cheap queries; the vector table is not scanned)."""
    page_size = int(conn.execute("pragma page_size").fetchone()[0])
    pages = int(conn.execute("pragma page_count").fetchone()[0])
    free = int(conn.execute("pragma freelist_count").fetchone()[0])
    rows = chunks = slots = 0
    if conn.execute("select 1 from sqlite_master where name = 'chunks_vec_chunks'").fetchone() is not None:
        chunks, slots = conn.execute("select count(*), coalesce(max(size), 0) from chunks_vec_chunks").fetchone()
        (rows,) = conn.execute("select count(*) from chunks_vec_rowids").fetchone()
    (cache,) = conn.execute("select coalesce(sum(length(vectors)), 0) from embed_cache").fetchone()
    return Space(pages * page_size, free * page_size, int(rows), int(chunks), int(slots), 4 * dimensions,
                 int(cache), live_windows(conn) * 4 * dimensions)


def rebuild_vectors(conn: Any, dimensions: int) -> None:
    """The vector table written again with only its rows, in rowid order (one transaction): every vec0
    chunk full but the last."""
    with transaction(conn):
        conn.execute("drop table if exists temp.vec_copy")
        conn.execute("create temp table vec_copy as select rowid as r, embedding as e, file_id as f from chunks_vec")
        conn.execute("drop table chunks_vec")
        conn.execute(vec_table_sql(dimensions))
        conn.execute("insert into chunks_vec(rowid, embedding, file_id) select r, e, f from temp.vec_copy order by r")
        conn.execute("drop table temp.vec_copy")


def optimize_keywords(conn: Any) -> None:
    """Merge the keyword indexes' segments into one each, dropping the deleted rows' entries."""
    with transaction(conn):
        conn.execute("insert into chunks_fts(chunks_fts) values('optimize')")
        conn.execute("insert into chunks_cjk(chunks_cjk) values('optimize')")
        conn.execute("insert into chunks_literal(chunks_literal) values('optimize')")


def drop_cache_entries(conn: Any, model: str, live: Iterable[bytes], spare: int) -> int:
    """Keep the embedding cache's entries of `model` that `live` names, and of the others only the `spare`
    most recently used; entries of other models go. One transaction; returns how many went."""
    with transaction(conn):
        conn.execute("drop table if exists temp.live_keys")
        conn.execute("create temp table live_keys (key blob primary key) without rowid")
        conn.executemany("insert or ignore into temp.live_keys values (?)", [(k,) for k in live])
        before = int(conn.execute("select count(*) from embed_cache").fetchone()[0])
        conn.execute("delete from embed_cache where model != ?", (model,))
        conn.execute("delete from embed_cache where model = ? and key not in (select key from temp.live_keys) and key "
                     "not in (select key from embed_cache where model = ? and key not in "
                     "(select key from temp.live_keys) order by used desc limit ?)", (model, model, max(0, spare)))
        conn.execute("drop table temp.live_keys")
        return before - int(conn.execute("select count(*) from embed_cache").fetchone()[0])


def release_pages(conn: Any, step: int = VACUUM_STEP_PAGES) -> None:
    """Hand the free pages back to the file system: step by step with incremental vacuum (each step a short
    write), or by one VACUUM that also switches an older file to incremental vacuum; then the WAL is
    written back and truncated (skipped while a reader still needs it: the next checkpoint does it)."""
    if auto_vacuum(conn) != 2:
        enable_incremental_vacuum(conn)
    else:
        while int(conn.execute("pragma freelist_count").fetchone()[0]) > 0:
            conn.execute(f"pragma incremental_vacuum({int(step)})").fetchall()  # runs only when stepped through
    conn.execute("pragma wal_checkpoint(truncate)").fetchall()
