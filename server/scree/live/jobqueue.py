"""The live writer's work queue: one pending job, coalesced, for the worker thread to take.

The watcher's threads, `reindex()` callers and the health monitor all ask the worker for work; the
worker runs one sync at a time. Asking again while work is pending merges into it (`merge_jobs`, pure),
so a burst of edits costs one sync, and a bigger job (a full sync, a reindex, a repair) swallows smaller
ones while keeping every caller's future.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Literal

JobKind = Literal["none", "paths", "full", "reindex", "reopen", "repair"]

# A reindex beats a full sync, which beats paths; reopening a lost WAL and repairing a damaged file
# come before anything that would use the connection.
_RANK: dict[str, int] = {"none": 0, "paths": 1, "full": 2, "reindex": 3, "reopen": 4, "repair": 5}


@dataclass
class Job:
    """Work for the writer's worker: "paths" (just these notes), "full" (walk everything), "reindex"
    (asked for; `rebuild` re-embeds all), "reopen" (the WAL vanished), "repair" (the file is damaged)."""

    kind: JobKind
    paths: set[str] = field(default_factory=set)
    rebuild: bool = False
    futures: list[Future] = field(default_factory=list)
    seen_at: float = 0.0  # a repair's: when the damage was seen (time.monotonic()); see `drop_stale_repair`


def repair_job(futures: list[Future] | None = None, rebuild: bool = False) -> Job:
    """A repair of damage seen now."""
    return Job("repair", rebuild=rebuild, futures=list(futures or []), seen_at=time.monotonic())


def merge_jobs(pending: Job, new: Job) -> Job:
    """The one job that does both: the higher kind, paths united only while both are path jobs, and
    every caller's future kept (and the latest sighting of damage)."""
    kind = max(pending.kind, new.kind, key=_RANK.__getitem__)
    paths = pending.paths | new.paths if kind == "paths" else set()
    return Job(kind, paths, pending.rebuild or new.rebuild, pending.futures + new.futures,
               max(pending.seen_at, new.seen_at))


def drop_stale_repair(job: Job, last_repair_began: float) -> Job:
    """A repair of damage seen before the last repair began is done already (the damaged file is gone):
    it becomes a full sync, so a search and the health check both reporting one damage never delete the
    index rebuilt for the first of them."""
    if job.kind == "repair" and job.seen_at < last_repair_began:
        return Job("full", rebuild=job.rebuild, futures=job.futures)
    return job


class JobQueue:
    """Thread-safe holder of the pending job."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._pending = Job("none")

    def put(self, job: Job) -> None:
        """Merge `job` into the pending work and wake the worker."""
        with self._cond:
            self._pending = merge_jobs(self._pending, job)
            self._cond.notify_all()

    def replace(self, job: Job) -> Job:
        """Set the pending work to `job` (a new writer's first job); returns what was pending."""
        with self._cond:
            old, self._pending = self._pending, job
            self._cond.notify_all()
            return old

    def take(self, stop: threading.Event) -> Job | None:
        """Block until there is work (returned, and the queue emptied) or `stop` is set (None)."""
        with self._cond:
            while self._pending.kind == "none" and not stop.is_set():
                self._cond.wait(1.0)  # woken by put and wake; the timeout only bounds a missed wake-up
            if stop.is_set():
                return None
            job, self._pending = self._pending, Job("none")
            return job

    def has_work(self) -> bool:
        """True when a job waits (stage two yields to it between batches)."""
        with self._cond:
            return self._pending.kind != "none"

    def wake(self) -> None:
        """Wake a waiting worker (after `stop` was set)."""
        with self._cond:
            self._cond.notify_all()

    def wait_for_reindex(self, stop: threading.Event, seconds: float) -> None:
        """Wait up to `seconds`, ending early when stopped or when a reindex is queued (its caller is
        waiting for an answer, so it ends a pause)."""
        deadline = time.monotonic() + seconds
        with self._cond:
            while not stop.is_set() and self._pending.kind != "reindex":
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._cond.wait(left)
