"""The live writer's pause while the embeddings API is unavailable: 30 s, doubling up to 5 minutes.

An API that cannot be reached, times out, is rate-limited past its attempts or answers with garbage
raises `EmbedderUnavailable`. That is weather, not a broken index: the writer keeps its lock and its
role, waits, then runs a full sync (hashes only, except for what changed), so notes edited during the
outage are indexed without another edit. Meanwhile the status says "paused" and why, and searches
answer from the keyword index (search.py). A sync that succeeds ends the outage and resets the pause.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

log = logging.getLogger(__name__)

PAUSES = (30.0, 300.0)  # first pause and cap, in seconds


class OutagePause:
    """Thread-safe: the writer's worker records and waits; status() reads `reason` from any thread."""

    def __init__(self, pauses: tuple[float, float] = PAUSES) -> None:
        self._first, self._cap = pauses
        self._mu = threading.Lock()
        self._next = self._first
        self._reason: str | None = None

    @property
    def reason(self) -> str | None:
        """Why indexing is paused, with when it tries again; None while the API answers."""
        with self._mu:
            return self._reason

    def clear(self) -> None:
        """A sync went through: the outage is over."""
        with self._mu:
            self._reason, self._next = None, self._first

    def wait(self, folder: object, problem: str, jobs: threading.Condition,
             interrupted: Callable[[], bool]) -> None:
        """Record the outage, then wait out this pause on `jobs` (whose holder notifies on new work)
        unless `interrupted()` turns true: a stop, or an explicit reindex whose caller wants an answer now."""
        with self._mu:
            pause = self._next
            self._next = min(pause * 2, self._cap)
            self._reason = f"{problem}; next try in {pause:g} s"
        log.warning("indexing %s paused for %g s: %s", folder, pause, problem)
        deadline = time.monotonic() + pause
        with jobs:
            while not interrupted():
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                jobs.wait(left)
