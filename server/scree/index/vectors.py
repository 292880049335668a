"""Cosine KNN by matrix products over an in-memory copy of the vector table.

sqlite-vec's vec0 scan reads every vector out of SQLite pages on every query (about 10 ms per 10k
windows here). A copy in memory answers with BLAS matrix-vector products instead. The copy is loaded
on the first semantic query, reloaded when the index changed (SQLite's data_version for other
connections' commits, total_changes for this one's), and skipped above a memory budget, where the
vec0 scan answers instead.

A chunk has several windows (its text in 256-token windows, then its paragraph pieces: about 2.6 per
chunk on real notes), and a product over every window is bound by memory bandwidth (46 MB per query
at 10k chunks, 460 MB at 100k). Given the rowid stride, `knn` searches coarse to fine: a float32 copy
of every chunk's first window picks the CANDIDATE_CHUNKS most similar chunks; then the later windows
of those chunks are scored too, read from the matrix of every window (float16 when float32 would pass
the memory budget: half the memory, and only a few thousand rows are converted per query). The table
is read in batches into preallocated arrays, so loading never holds a second copy of it. With no more chunks than CANDIDATE_CHUNKS
(most notes folders) every chunk is a candidate. Without a stride every row is its own chunk and the
answer is sqlite-vec's exactly.
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

import numpy as np

from ..db import queries
from ..records import FileScope, FilesExcept

log = logging.getLogger(__name__)

# Chunks kept by the coarse pass (their first windows); all windows of these are then scored. On both
# dev sets (1,718 and 372 chunks) 200 lost a semantic-mode answer, 500 and 1,000 answered exactly as
# scoring every window did; at 10k chunks 500 is 0.8 ms faster per query than 1,000.
CANDIDATE_CHUNKS = 500


class VectorCache:
    """Vectors of one connection's index, in memory; `None` answers mean "use sqlite-vec"."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._key: tuple[Any, int] | None = None  # (data_version, stride) the arrays below were built for
        self._loaded = False
        self._ids = self._first_ids = self._first_files = self._rest_from = self._rest_to = _EMPTY_IDS
        self._firsts = self._matrix = np.zeros((0, 0), np.float32)

    def _refresh(self, conn: Any, stride: int) -> bool:
        key = (queries.data_version(conn), stride)
        if key == self._key:
            return self._loaded
        self.clear()
        self._key = key
        rows, dims = queries.vector_table_size(conn)
        chunks = min(rows, queries.counts(conn).chunks) if stride > 1 else rows
        # Every window in one matrix, float32 when it fits with the first windows' float32 copy, else
        # float16 (numpy converts it at ~2.5 ns a number: only the few thousand rows a query reads).
        dtype = next((t for t in (np.float32, np.float16)
                      if (rows * np.dtype(t).itemsize + chunks * 4) * dims <= self.max_bytes), None)
        if rows == 0 or dtype is None:
            return False
        loaded = self._load(conn, rows, dims, dtype)
        if loaded is None:  # the table changed while it was read: the next query tries again
            self._key = None
            return False
        rowids, file_ids, matrix = loaded
        if len(rowids) > 1 and not bool(np.all(rowids[1:] > rowids[:-1])):  # vec0 usually reads in rowid order
            order = np.argsort(rowids, kind="stable")  # a chunk's windows become one run of rows
            rowids, file_ids, matrix = rowids[order], file_ids[order], matrix[order]
        cids = rowids // stride
        starts = np.flatnonzero(np.r_[True, cids[1:] != cids[:-1]])
        self._ids, self._matrix = rowids, matrix
        self._first_ids, self._first_files = rowids[starts], file_ids[starts]
        # float32 for BLAS's speed (with a float16 matrix its values keep float16's precision, ~1e-3).
        self._firsts = np.ascontiguousarray(matrix[starts], dtype=np.float32)
        # Chunk i's later windows are matrix rows [starts[i] + 1, ends[i]).
        self._rest_from, self._rest_to = starts + 1, np.r_[starts[1:], len(rowids)]
        self._loaded = True
        log.debug("vector cache loaded: %d windows of %d chunks, %.1f MB", rows, len(starts),
                  (self._firsts.nbytes + self._matrix.nbytes) / 1e6)
        return True

    @staticmethod
    def _load(conn: Any, rows: int, dims: int, dtype: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The table into preallocated arrays, batch by batch; None when it holds other than `rows` rows."""
        rowids = np.empty(rows, dtype=np.int64)
        file_ids = np.empty(rows, dtype=np.int64)
        matrix = np.empty((rows, dims), dtype=dtype)
        at = 0
        for batch in queries.vector_rows(conn):
            n = len(batch)
            if at + n > rows:
                return None
            rowids[at:at + n] = [r[0] for r in batch]
            file_ids[at:at + n] = [r[1] for r in batch]
            matrix[at:at + n] = np.frombuffer(b"".join(r[2] for r in batch), dtype="<f4").reshape(n, dims)
            at += n
        return (rowids, file_ids, matrix) if at == rows else None

    def knn(self, conn: Any, query: np.ndarray, limit: int, file_ids: FileScope | None = None,
            stride: int = 1) -> list[tuple[int, float]] | None:
        """(window rowid, cosine distance) nearest first, like `queries.vector_search`; None when not cached.

        `stride` is the index's rowid stride (`chunk_id * stride + window`): with it, the windows of the
        CANDIDATE_CHUNKS chunks whose first windows rank best are scored (see the module docstring)."""
        if self.max_bytes <= 0 or not self._refresh(conn, stride):
            return None
        q = query.astype(np.float32)
        coarse = self._firsts @ q
        if isinstance(file_ids, FilesExcept):
            left_out = np.fromiter(file_ids.ids, dtype=np.int64, count=len(file_ids.ids))
            coarse = np.where(np.isin(self._first_files, left_out, invert=True), coarse, -np.inf)
        elif file_ids is not None:
            coarse = np.where(np.isin(self._first_files, np.asarray(file_ids, dtype=np.int64)), coarse, -np.inf)
        live = int(np.isfinite(coarse).sum())
        if live == 0 or limit <= 0:
            return []
        picked = np.argpartition(-coarse, CANDIDATE_CHUNKS - 1)[:CANDIDATE_CHUNKS] if live > CANDIDATE_CHUNKS \
            else np.flatnonzero(np.isfinite(coarse))
        lo, hi = self._rest_from[picked], self._rest_to[picked]
        lens = hi - lo
        # The later rows of every picked chunk in one vectorised step (no Python loop over chunks).
        rows = np.repeat(lo - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum()))
        ids = np.concatenate([self._first_ids[picked], self._ids[rows]])
        sims = np.concatenate([coarse[picked], self._matrix[rows].astype(np.float32, copy=False) @ q])
        n = min(limit, len(sims))
        top = np.argpartition(-sims, n - 1)[:n]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(int(ids[i]), float(1.0 - sims[i])) for i in top]

    def clear(self) -> None:
        self._key, self._loaded = None, False
        self._ids = self._first_ids = self._first_files = self._rest_from = self._rest_to = _EMPTY_IDS
        self._firsts = self._matrix = np.zeros((0, 0), np.float32)


_EMPTY_IDS = np.zeros(0, dtype=np.int64)
