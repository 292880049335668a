"""The embedding cache's table (migration 3): look up, store and prune vectors by (embedder id, text key).

The cache sits beside the index's own vectors and never decides what a chunk's vectors are: it only spares
the model a text it has already read. An entry is the exact output of the embedder for that text, so a hit
returns the same bytes a fresh call once returned.
"""

from __future__ import annotations

import time
from typing import Any, Mapping, Sequence

import numpy as np

from .snapshot import transaction

# SQLite's default bound on host parameters is 32,766 nowadays but 999 before 3.32: stay under both.
_LOOKUP_BATCH = 900


def cached_vectors(conn: Any, model: str, keys: Sequence[bytes], dimensions: int) -> dict[bytes, np.ndarray]:
    """The stored `(windows, dimensions)` float32 arrays of those `keys` that are cached under `model`."""
    found: dict[bytes, np.ndarray] = {}
    unique = list(dict.fromkeys(keys))
    for start in range(0, len(unique), _LOOKUP_BATCH):
        part = unique[start : start + _LOOKUP_BATCH]
        marks = ",".join("?" * len(part))
        rows = conn.execute(
            f"select key, windows, vectors from embed_cache where model = ? and key in ({marks})", [model, *part]
        ).fetchall()
        for key, windows, blob in rows:
            array = np.frombuffer(blob, dtype=np.float32)
            if array.size != windows * dimensions:  # written under another width: never hand it out
                continue
            found[bytes(key)] = array.reshape(windows, dimensions).copy()
    return found


def store_vectors(conn: Any, model: str, fresh: Mapping[bytes, np.ndarray], hits: Sequence[bytes]) -> None:
    """Add `fresh` entries and mark `hits` as used now, in one transaction."""
    now = time.time()
    with transaction(conn):
        conn.executemany(
            "insert into embed_cache(model, key, windows, vectors, used) values (?, ?, ?, ?, ?) "
            "on conflict(model, key) do update set windows = excluded.windows, vectors = excluded.vectors, "
            "used = excluded.used",
            [(model, key, int(v.shape[0]), np.ascontiguousarray(v, dtype=np.float32).tobytes(), now)
             for key, v in fresh.items()],
        )
        conn.executemany("update embed_cache set used = ? where model = ? and key = ?",
                         [(now, model, key) for key in hits])


def cache_entries(conn: Any) -> int:
    return int(conn.execute("select count(*) from embed_cache").fetchone()[0])


def prune_cache(conn: Any, keep: int) -> int:
    """Drop all but the `keep` most recently used entries (any model). Returns how many went."""
    with transaction(conn):
        cur = conn.execute(
            "delete from embed_cache where (model, key) in "
            "(select model, key from embed_cache order by used desc limit -1 offset ?)",
            [max(0, keep)],
        )
        return int(cur.rowcount)


def live_windows(conn: Any) -> int:
    """Windows the index's chunks hold: an upper bound on the cache entries they use (a passage has >= 1)."""
    return int(conn.execute("select coalesce(sum(windows), 0) from chunks where windows > 0").fetchone()[0])
