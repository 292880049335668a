"""An embedder that never embeds the same text twice: vectors are cached by (embedder id, exact text).

The sync already keeps the vectors of a chunk whose file path, heading and text are unchanged. This cache
reaches further: a paragraph piece untouched by an edit elsewhere in its chunk, a note deleted and brought
back (a branch switch, an undo), a chunk whose boundaries moved but whose text did not, an index re-embedded
after a switch to another embedder and back. A renamed note is not among them: its path is part of every
window it embeds (`chunker.embed_header`), so its texts, and rightly its vectors, differ.

The key is sha256 over the passage's header and body as the model reads them; the value is what the inner
embedder returned for it, stored as float32 bytes, so a hit is bit-identical to that fresh result. Entries
belong to one embedder id: another model (or the same model with other settings) never reads them. The
table is pruned to the entries used most recently once it outgrows the index (`prune`).
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any, Callable, Sequence

import numpy as np

from scree.db import embedcache

from .base import Embedder, Passage

log = logging.getLogger(__name__)

# Room for entries no chunk uses any more, beyond one per live window: half the index again.
SPARE_FRACTION = 0.5
MIN_KEEP = 256


def passage_key(passage: Passage) -> bytes:
    """sha256 of the exact text the embedder reads; NUL between header and body, which neither holds."""
    return hashlib.sha256(f"{passage.header}\x00{passage.body}".encode("utf-8", "surrogatepass")).digest()


class CachingEmbedder:
    """Wraps an :class:`Embedder`; passages found in the index's cache are not sent to it."""

    def __init__(self, inner: Embedder, conn: Any) -> None:
        self.inner = inner
        self.conn = conn
        self.id: str = inner.id
        self.dimensions: int = inner.dimensions
        self.max_windows: int = inner.max_windows
        self.languages = getattr(inner, "languages", None)
        self.hits = 0
        self.misses = 0
        per_call = getattr(inner, "batch_passages", None)
        if per_call is not None:  # the sync sizes its embed calls by it (API embedders)
            self.batch_passages = per_call

    def embed_passages(self, passages: Sequence[Passage], should_stop: Callable[[], bool] | None = None,
                       ) -> list[np.ndarray]:
        keys = [passage_key(p) for p in passages]
        found = embedcache.cached_vectors(self.conn, self.id, keys, self.dimensions)
        todo: dict[bytes, Passage] = {}
        for key, passage in zip(keys, passages):
            if key not in found:
                todo.setdefault(key, passage)  # the same text twice in one call is embedded once
        fresh: dict[bytes, np.ndarray] = {}
        if todo:
            stoppable = {} if should_stop is None else {"should_stop": should_stop}
            fresh = dict(zip(todo, self.inner.embed_passages(list(todo.values()), **stoppable)))
        embedcache.store_vectors(self.conn, self.id, fresh, list(found))
        self.hits += len(passages) - len(todo)
        self.misses += len(todo)
        return [found[k] if k in found else fresh[k] for k in keys]

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def close(self) -> None:
        self.inner.close()

    def trim(self) -> None:
        trim = getattr(self.inner, "trim", None)  # optional for wrappers the sync is handed (tests, benchmarks)
        if trim is not None:
            trim()

    def prune(self) -> int:
        """Keep the most recently used entries, one per window of the index plus `SPARE_FRACTION` of that."""
        live = embedcache.live_windows(self.conn)
        dropped = embedcache.prune_cache(self.conn, max(MIN_KEEP, int(live * (1 + SPARE_FRACTION))))
        if dropped:
            log.debug("embedding cache: %d unused entries dropped", dropped)
        return dropped
