"""The live writer's to-do list: jobs for its one worker thread, coalesced so that a burst of edits,
a rescan and a reindex asked for meanwhile cost one sync, not one each."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass, field

# A job of a higher rank covers one of a lower rank: a full sync covers any paths, a reindex a full
# sync, reopening the file (the WAL vanished) a reindex, and repairing a damaged file all of them.
RANK = {"none": 0, "paths": 1, "full": 2, "reindex": 3, "reopen": 4, "repair": 5}


@dataclass
class Job:
    """Work for the writer's worker, coalesced: a reindex or full sync covers any queued paths."""

    kind: str  # "none" | "paths" | "full" | "reindex" | "reopen" (the WAL vanished) | "repair" (damaged file)
    paths: set[str] = field(default_factory=set)
    rebuild: bool = False
    futures: list[Future] = field(default_factory=list)


def merge(pending: Job, job: Job) -> Job:
    """One job doing the work of both: the higher kind, the paths only while both are paths, every
    waiting caller's future, and a rebuild if either asked for one."""
    kind = max(pending.kind, job.kind, key=RANK.__getitem__)
    paths = pending.paths | job.paths if kind == "paths" else set()
    return Job(kind, paths, pending.rebuild or job.rebuild, pending.futures + job.futures)


class JobQueue:
    """At most one pending job, merged into as work arrives; thread-safe."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._pending = Job("none")

    def put(self, job: Job) -> None:
        with self._cond:
            self._pending = merge(self._pending, job)
            self._cond.notify_all()

    def reset(self, job: Job | None = None) -> Job:
        """Replace the pending job (with nothing by default) and return what was pending."""
        with self._cond:
            old, self._pending = self._pending, job if job is not None else Job("none")
            self._cond.notify_all()
            return old

    def wake(self) -> None:
        """Wake every waiter so it looks at its stop event."""
        with self._cond:
            self._cond.notify_all()

    def take(self, stop: threading.Event) -> Job | None:
        """Wait for a job and hand it over; None once `stop` is set (call `wake()` after setting it)."""
        with self._cond:
            while self._pending.kind == "none" and not stop.is_set():
                self._cond.wait(1.0)  # woken by put and wake; the timeout only bounds a missed wake-up
            if stop.is_set():
                return None
            job, self._pending = self._pending, Job("none")
            return job

    def wait_for(self, kind: str, stop: threading.Event, timeout: float) -> bool:
        """Wait up to `timeout` s until a job of `kind` is pending or `stop` is set; True if it is pending."""
        with self._cond:
            return self._cond.wait_for(lambda: stop.is_set() or self._pending.kind == kind, timeout) \
                and self._pending.kind == kind
