"""The live writer's stage two: embedding what stage one stored without vectors, in the background.

The worker thread runs it whenever no sync is waiting, and it yields between batches as soon as one
is (an edit is re-chunked at once; its new chunks join the queue, its old ones are never embedded).
Files the session's searches just hit go first: they are what the agent is asking about.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from typing import AbstractSet, Callable, Iterable

from ..embed import Embedder
from ..index.embedstage import EmbedReport, embed_pending
from ..index.space import give_space_back
from ..index.store import Index

log = logging.getLogger(__name__)

# The paths of recent search hits remembered for stage two's order (the newest count most).
HIT_MEMORY = 50
# Seconds between two "N of M chunks have vectors" log lines (the first batch of a run always logs).
PROGRESS_LOG_SECONDS = 10.0


class LoggedProgress:
    """Stage two's progress in the log (`scree watch`, `serve --http`): once per run's first batch, then
    at most every PROGRESS_LOG_SECONDS, so a long build shows it is moving without flooding the log."""

    def __init__(self, label: str, clock: Callable[[], float] = time.monotonic) -> None:
        self._label = label
        self._clock = clock
        self._last: float | None = None

    def embedding(self, done: int, total: int) -> None:
        now = self._clock()
        if self._last is None or now - self._last >= PROGRESS_LOG_SECONDS:
            self._last = now
            log.info("%s: %d of %d chunks have vectors", self._label, done, total)


class StageTwo:
    """Stage two's state in a live index: the recent hits, and the measured rate (chunks/s)."""

    def __init__(self, embedder: Embedder, label: str = "") -> None:
        self._embedder = embedder
        self._label = label or "stage two"
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
        report = embed_pending(index, self._embedder, should_stop=should_yield, first=self.first,
                               progress=LoggedProgress(self._label))
        if report.remaining == 0 and not should_yield():  # after a sync that dropped many notes or vectors
            give_space_back(index, self._embedder.id, self._embedder.dimensions)
        with self._mu:
            if report.chunks:
                self._chunks += report.chunks
                self._seconds += time.perf_counter() - t0
        return report
