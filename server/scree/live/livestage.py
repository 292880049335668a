"""The live writer's stage two: embedding what stage one stored without vectors, in the background.

The worker thread runs it whenever no sync is waiting, and it yields between batches as soon as one
is (an edit is re-chunked at once; its new chunks join the queue, its old ones are never embedded).
Files the session's searches just hit go first: they are what the agent is asking about.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import AbstractSet, Callable, Iterable

from ..embed import Embedder
from ..errors import DiskFull
from ..index.embedstage import EmbedReport, embed_pending
from ..index.indexstatus import StageTwoClock
from ..index.sync import SyncReport
from ..index.space import give_space_back
from ..index.store import Index

log = logging.getLogger(__name__)

# The paths of recent search hits remembered for stage two's order (the newest count most).
HIT_MEMORY = 50
# Seconds between two "N of M chunks have vectors" log lines (the first batch of a run always logs).
PROGRESS_LOG_SECONDS = 10.0
# After a full disk, stage two embeds again once this much more space is free under the index, or
# after SPACE_RECHECK seconds whatever the space (a quota, a file size limit).
SPACE_MARGIN = 1 << 20
SPACE_RECHECK = 60.0


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
    """Stage two's state in a live index: the recent hits, the run's clock (its rate and when it last
    stored a batch: `indexstatus.StageTwoClock`), and why it cannot store vectors, while it cannot."""

    def __init__(self, embedder: Embedder, label: str = "", db: Path | None = None) -> None:
        self._embedder = embedder
        self._label = label or "stage two"
        self._db = db  # the index file: the free space under it says when a full disk has room again
        self._mu = threading.Lock()
        self._hits: OrderedDict[str, None] = OrderedDict()
        self._clock: StageTwoClock | None = None
        self._problem: str | None = None
        self._full: tuple[int, float] | None = None  # after a full disk: (free bytes, when)
        self._dropped = False  # a sync removed or replaced rows since the last check for space to give back

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
    def problem(self) -> str | None:
        """Why the last run could not store vectors (a full disk, a read-only file), with the fix;
        None once a batch is stored again."""
        with self._mu:
            return self._problem

    def failed(self, why: BaseException, retry: float) -> None:
        """A run could not store its vectors (a full disk: `why` names the fix); said until a batch is
        stored again, so no client sees a stage two frozen at its last estimate instead."""
        log.warning("%s: embedding failed (%s); retrying in %g s", self._label, why, retry)
        full = (self._free(), time.monotonic()) if isinstance(why, DiskFull) else None
        with self._mu:
            self._problem = f"{why}; stage two retries every {retry:g} s"
            self._full = full

    def waiting_for_space(self) -> bool:
        """After a full disk, True until the free space under the index grows (or SPACE_RECHECK passes):
        embedding again before would only throw the model's work away."""
        with self._mu:
            full = self._full
        return full is not None and self._free() <= full[0] + SPACE_MARGIN and \
            time.monotonic() - full[1] < SPACE_RECHECK

    def _free(self) -> int:
        try:
            return shutil.disk_usage(self._db.parent).free if self._db is not None else 0
        except OSError:
            return 0

    def tell(self, report: SyncReport, done: int, total: int) -> None:
        """Add to a reindex's report what stage two left undone (`done` of `total` chunks have vectors)."""
        problem = self.problem
        if problem is not None:
            report.warnings.append(f"the notes' text is indexed, but their vectors cannot be stored: {problem}")
        report.vectors_missing = max(0, total - done)

    def run(self, index: Index, should_yield: Callable[[], bool],
            should_stop: Callable[[], bool] | None = None) -> EmbedReport:
        """Embed until nothing is missing or `should_yield()` (checked between batches: a sync is waiting)
        or `should_stop()` (checked between the model's own batches too: the writer is stopping, the
        batch in hand is dropped); raises the embedder's errors (an outage). A run yielding to a sync
        goes on afterwards under the same clock; one that ended (nothing missing) or failed does not."""
        with self._mu:
            clock = self._clock
        try:
            report = embed_pending(index, self._embedder, should_stop=should_yield, first=self.first,
                                   progress=LoggedProgress(self._label), abandon=should_stop, clock=clock)
        except BaseException:
            with self._mu:
                self._clock = None
            raise
        yielding = should_yield()  # asked outside the lock: it reads the live index's job queue
        with self._mu:
            self._clock = report.clock if report.remaining else None
            if report.chunks:
                self._problem = self._full = None
            shrink, self._dropped = self._dropped and report.remaining == 0 and not yielding, False
        if shrink:
            self._give_space_back(index)
        return report

    def dropped_rows(self) -> None:
        """A sync removed or replaced notes (or vectors): once nothing is missing, the file may give
        space back. Measuring that reads every chunk, so it waits for a sync that dropped something."""
        with self._mu:
            self._dropped = True

    def _give_space_back(self, index: Index) -> None:
        # The shrink is housekeeping: a failure (a full disk cannot VACUUM) is logged, never a stage-two
        # failure that every answer would report until a batch is stored (none is left to store).
        try:
            give_space_back(index, self._embedder.id, self._embedder.dimensions)
        except Exception as exc:  # noqa: BLE001 - the index stays as it was: a shrink is one transaction a step
            log.warning("%s: could not give space back (%s); the index keeps its size until the next removal",
                        self._label, exc)
