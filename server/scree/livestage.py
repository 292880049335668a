"""The live writer's stage two: embedding what stage one stored without vectors, in the background.

The worker thread runs it whenever no sync is waiting, and it yields between batches as soon as one
is (an edit is re-chunked at once; its new chunks join the queue, its old ones are never embedded).
Files the session's searches just hit go first: they are what the agent is asking about.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import AbstractSet, Callable, Iterable

from .embed import Embedder
from .embedstage import EmbedReport, embed_pending
from .store import Index

# The paths of recent search hits remembered for stage two's order (the newest count most).
HIT_MEMORY = 50


class StageTwo:
    """Stage two's state in a live index: the recent hits, and the measured rate (chunks/s)."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._mu = threading.Lock()
        self._hits: OrderedDict[str, None] = OrderedDict()
        self._chunks = 0
        self._seconds = 0.0

    def note_hits(self, paths: Iterable[str]) -> None:
        with self._mu:
            for p in paths:
                self._hits[p] = None
                self._hits.move_to_end(p)
            while len(self._hits) > HIT_MEMORY:
                self._hits.popitem(last=False)

    def first(self) -> AbstractSet[str]:
        with self._mu:
            return frozenset(self._hits)

    @property
    def rate(self) -> float:
        """Chunks embedded per second by this process's stage two so far (0 before any)."""
        with self._mu:
            return self._chunks / self._seconds if self._seconds > 0 and self._chunks else 0.0

    def run(self, index: Index, should_yield: Callable[[], bool]) -> EmbedReport:
        """Embed until nothing is missing or `should_yield()`; raises the embedder's errors (an outage)."""
        t0 = time.perf_counter()
        report = embed_pending(index, self._embedder, should_stop=should_yield, first=self.first)
        with self._mu:
            if report.chunks:
                self._chunks += report.chunks
                self._seconds += time.perf_counter() - t0
        return report
