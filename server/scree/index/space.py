"""When an index gives space back, and how much it holds (issue 27; the SQL is `db/compact.py`).

A sync that drops many notes (a `.screeignore` line, SCREE_LANGUAGES, a branch switch) or their vectors
(an embedder that stops reading a language) leaves the file as big as before: free pages, vector chunks
of mostly deleted slots, keyword segments full of deleted entries, and embedding-cache entries for text
no note has. After stage two has nothing left to embed, `give_space_back` measures that (a few cheap
queries) and, when at least a quarter of the file and 1 MiB would go, shrinks it: the embedding cache
keeps the entries the index's chunks use plus half as many others (most recently used first), the vector
table is rebuilt, the keyword index merged, the free pages handed back. Each step is one write
transaction of the writer; readers go on reading the last commit.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Iterator

from ..db import compact, queries
from ..embed.cache import SPARE_FRACTION, passage_key
from ..embed.pieces import with_pieces
from .embedstage import passage_of, split_names
from .store import Index

log = logging.getLogger(__name__)

RECLAIM_SHARE = 0.25  # of the file
RECLAIM_MIN_BYTES = 1 << 20


@dataclass(frozen=True)
class Shrink:
    """What one shrink did."""

    before: int  # file bytes
    after: int
    seconds: float

    def describe(self) -> str:
        return (f"the index gave {(self.before - self.after) / 1e6:.1f} MB back ({self.before / 1e6:.1f} -> "
                f"{self.after / 1e6:.1f} MB) in {self.seconds:.1f} s")


def reclaimable(sp: compact.Space) -> int:
    """Bytes a shrink would give back: free pages, vector chunks beyond the rows, and the embedding cache
    beyond the index's own vectors and the spare it keeps."""
    cache_excess = max(0, sp.cache_bytes - int(sp.live_vector_bytes * (1 + SPARE_FRACTION)))
    return sp.free_bytes + sp.vector_slack_bytes + cache_excess


def worth_shrinking(sp: compact.Space) -> bool:
    gain = reclaimable(sp)
    return gain >= RECLAIM_MIN_BYTES and gain >= RECLAIM_SHARE * sp.file_bytes


def live_cache_keys(index: Index) -> Iterator[bytes]:
    """The embedding-cache key of every passage the index's embedded chunks were made from (each chunk
    and its paragraph pieces, as stage two reads them)."""
    for path, heading, text, names in queries.embedded_chunks(index.conn):
        for part in with_pieces(passage_of(path, heading, text, split_names(names))):
            yield passage_key(part)


def give_space_back(index: Index, model: str, dimensions: int, *, force: bool = False) -> Shrink | None:
    """Shrink the index file when enough would go (`force`: whatever would), else None."""
    sp = compact.space(index.conn, dimensions)
    if not (force or worth_shrinking(sp)):
        return None
    t0 = time.perf_counter()
    before = index.location.db.stat().st_size
    live = set(live_cache_keys(index))
    compact.drop_cache_entries(index.conn, model, live, int(len(live) * SPARE_FRACTION))
    if sp.vector_chunks and (sp.vector_slack_bytes or force):
        compact.rebuild_vectors(index.conn, dimensions)
    compact.optimize_keywords(index.conn)
    compact.release_pages(index.conn)
    shrink = Shrink(before, index.location.db.stat().st_size, time.perf_counter() - t0)
    log.info("%s", shrink.describe())
    return shrink
