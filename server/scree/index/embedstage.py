"""Stage two of a sync: embed the chunks stage one stored without vectors, a batch at a time.

Stage one (sync.py) commits every changed file's text and keyword rows with its hash, its new chunks
marked as having no vectors (windows = 0): keyword search, lookups and read_doc answer from there.
This stage then adds the vectors, most likely asked-about files first (the files a search just hit,
then the most recently modified), each batch in one transaction (`writes.store_vectors`), which
stores a chunk's vectors only if the chunk still holds the text they were made from. A file edited
while it waited was re-chunked by stage one meanwhile: its new chunks are picked up, never its old
ones, so nothing is embedded twice or stored stale. A kill at any point loses at most one batch.

The embed call is made in one place (`embed_batch`), so a wrapper (a vector cache) slots in there.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import AbstractSet, Callable, Protocol, Sequence

import numpy as np

from ..notes.chunker import embed_header
from ..db import queries, writes
from ..embed import Embedder, Passage
from ..embed.cache import CachingEmbedder
from ..embed.pieces import embed_with_pieces
from ..errors import EmbedStopped
from ..notes.embedview import embed_body
from .indexstatus import StageTwoClock, run_started
from .store import Index

log = logging.getLogger(__name__)

# Passages gathered (across small files) before one embed call: the model's length-sorted batches pad
# less and keep both threads busy, while memory stays bounded. An API embedder asks for more per call.
EMBED_BATCH_PASSAGES = 64


class EmbedProgress(Protocol):
    def embedding(self, done: int, total: int) -> None: ...


@dataclass
class EmbedReport:
    """What one run of stage two did."""

    chunks: int = 0  # chunks whose vectors were stored
    seconds: float = 0.0
    embed_seconds: float = 0.0
    remaining: int = 0  # chunks still without vectors when it returned
    clock: StageTwoClock | None = None  # the run's clock after its last stored batch (None: none stored)

    @property
    def rate(self) -> float:
        return self.chunks / self.seconds if self.seconds > 0 else 0.0


def split_names(stored: str) -> tuple[str, ...]:
    """A note's other names as the index stores them (newline-joined, `files.names`)."""
    return tuple(stored.split("\n")) if stored else ()


def passage_of(path: str, heading: str, text: str, aliases: tuple[str, ...] = ()) -> Passage:
    """What the embedder reads of one chunk: its path (and the note's other names: `chunker.note_names`)
    and heading trail, then its markup-free view."""
    return Passage(embed_header(path, heading, aliases), embed_body(text))


def embed_batch(embedder: Embedder, passages: Sequence[Passage],
                should_stop: Callable[[], bool] | None = None) -> list[np.ndarray]:
    """The one embed call of a sync (windows and paragraph pieces per passage); `should_stop` abandons it
    between two of the model's batches (EmbedStopped)."""
    return embed_with_pieces(embedder, passages, should_stop) if passages else []


def order_files(pending: Sequence[tuple[int, str, int]], first: AbstractSet[str]) -> list[tuple[int, str, int]]:
    """Files to embed in order: those in `first` (a search hit them), then the rest as given (most
    recently modified first). Pure."""
    return sorted(pending, key=lambda f: f[1] not in first)


def next_batch(index: Index, first: AbstractSet[str], size: int) -> list[queries.PendingChunk]:
    """Up to `size` chunks without vectors, from the files first in line."""
    out: list[queries.PendingChunk] = []
    for file_id, _path, _mtime in order_files(queries.pending_files(index.conn), first):
        out.extend(queries.pending_chunks(index.conn, file_id)[:size - len(out)])
        if len(out) >= size:
            break
    return out


def embed_pending(index: Index, embedder: Embedder, *, should_stop: Callable[[], bool] = lambda: False,
                  first: Callable[[], AbstractSet[str]] = frozenset, progress: EmbedProgress | None = None,
                  max_batches: int | None = None, abandon: Callable[[], bool] | None = None,
                  clock: StageTwoClock | None = None) -> EmbedReport:
    """Embed chunks stored without vectors until none is left, `should_stop()` says so (checked between
    batches) or `max_batches` batches are done. `abandon()` (a stop request: the process is ending) is
    checked inside a batch too, between the model's own small batches: the batch in hand is dropped,
    not stored, so a stop never waits for a whole batch (64 passages: several seconds). Raises what the
    embedder raises (an API outage): what was stored stays, and the rest is still known to be missing.

    After every stored batch the run's clock (`indexstatus.StageTwoClock`, continuing `clock` when the
    caller's run goes on across calls) is recorded in meta `stage_two`, so any process can tell the
    time left at this run's own rate, or that nothing is moving."""
    t0 = time.perf_counter()
    report = EmbedReport()
    # A text embedded before (a restored note, an edited chunk's untouched pieces) comes from the cache.
    cache = embedder if isinstance(embedder, CachingEmbedder) else CachingEmbedder(embedder, index.conn)
    embedder = cache
    size = getattr(embedder, "batch_passages", EMBED_BATCH_PASSAGES)
    start = queries.vector_progress(index.conn)
    batches = 0
    try:
        while not should_stop() and (max_batches is None or batches < max_batches):
            batch = next_batch(index, first(), size)
            if not batch:
                break
            if clock is None:  # a new run: "estimating" from now on, in any process
                clock = run_started(time.time())
                writes.set_meta(index.conn, {"stage_two": clock.encode()})
            t = time.perf_counter()
            try:
                vectors = embed_batch(embedder, [passage_of(c.path, c.heading, c.text, split_names(c.names))
                                                 for c in batch], abandon)
            except EmbedStopped:
                break  # nothing of this batch was stored; its chunks are still known to lack vectors
            report.embed_seconds += time.perf_counter() - t
            stored = writes.store_vectors(
                index.conn, [writes.EmbeddedChunk(c.id, c.file_id, c.heading, c.text, v, c.names)
                             for c, v in zip(batch, vectors)], embedder.max_windows)
            report.chunks += stored
            batches += 1
            now = time.time()
            clock = clock.after_batch(now, stored)
            report.clock = clock
            meta = {"stage_two": clock.encode()}
            if clock.rate > 0:  # a measured rate outlives this run's clock (the next run restarts it) for planning
                meta["embed_rate"] = f"{clock.rate:.3f}"
            writes.set_meta(index.conn, meta)
            if progress is not None:
                progress.embedding(start.embedded + report.chunks, start.total)
    finally:
        report.seconds = time.perf_counter() - t0
        end = queries.vector_progress(index.conn)
        report.remaining = end.total - end.embedded
    if report.remaining == 0:  # every chunk has its vectors: entries no chunk uses can go
        cache.prune()
        if report.chunks and "last_sync" in queries.get_meta(index.conn):
            # The index is whole again only now: `last sync` in status and doctor is this moment, not the end
            # of stage one (issue 35, item 4). A first sync still in stage one has no last_sync to move.
            writes.set_meta(index.conn, {"last_sync": str(time.time())})
    return report
