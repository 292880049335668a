"""Where a live index stands (its role and state, as the MCP tools, `scree watch` and search notes
report it), and the signal a caller waits on for the next change instead of polling."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from typing import Callable, Literal

# The one process that holds the writer lock syncs and watches; every other process reads.
Role = Literal["writer", "reader"]
# "embedding": stage one is done (keyword search covers every note), stage two is making vectors.
State = Literal["complete", "embedding", "syncing", "not_updating", "empty", "needs_reindex", "paused"]


@dataclass(frozen=True)
class StageTwoClock:
    """How the stage two in progress goes, as its writer records it after every stored batch (meta
    `stage_two`, so any process can read it): the rate is this run's own, never an assumed one."""

    began: float  # wall-clock time its first batch was stored
    at: float  # wall-clock time its latest batch was stored
    first: int  # chunks the first batch stored
    stored: int  # chunks all its batches stored
    batches: int

    @property
    def rate(self) -> float:
        """Chunks/s from the first stored batch to the latest; 0 before MIN_BATCHES (estimating)."""
        if self.batches < MIN_BATCHES or self.at <= self.began or self.stored <= self.first:
            return 0.0
        return (self.stored - self.first) / (self.at - self.began)

    def stalled_after(self) -> float:
        """Seconds without a stored batch after which the run counts as stalled: a few of its batches'
        time, and never under STALL_MIN_S (a run's first batch includes loading the model)."""
        per_batch = (self.at - self.began) / (self.batches - 1) if self.batches > 1 else 0.0
        return max(STALL_MIN_S, STALL_BATCHES * per_batch)

    def after_batch(self, now: float, chunks: int) -> StageTwoClock:
        """This clock once another batch stored `chunks` chunks' vectors at `now` (the first batch of a
        run restarts it: the time before it went to loading the model)."""
        if self.batches == 0:
            return first_batch(now, chunks)
        return replace(self, at=now, stored=self.stored + chunks, batches=self.batches + 1)

    def encode(self) -> str:
        return f"{self.began:.3f} {self.at:.3f} {self.first} {self.stored} {self.batches}"


def run_started(now: float) -> StageTwoClock:
    """The clock of a run that has begun and stored nothing yet: "estimating", or stalled once that
    lasts STALL_MIN_S."""
    return StageTwoClock(began=now, at=now, first=0, stored=0, batches=0)


def first_batch(now: float, chunks: int) -> StageTwoClock:
    """The clock of a run whose first batch just stored `chunks` chunks' vectors."""
    return StageTwoClock(began=now, at=now, first=chunks, stored=chunks, batches=1)


def decode_clock(meta: dict[str, str]) -> StageTwoClock | None:
    """The clock a writer recorded in meta `stage_two`; None when there is none or it is unreadable."""
    try:
        began, at, first, stored, batches = meta["stage_two"].split()
        return StageTwoClock(float(began), float(at), int(first), int(stored), int(batches))
    except (KeyError, ValueError):
        return None


# Stage two's time left is estimated from the run's own rate once this many batches were stored
# ("estimating" before: the first one includes loading the model, and one interval says little).
MIN_BATCHES = 3
# A run that stored nothing for STALL_BATCHES of its batches' time (at least STALL_MIN_S) is stalled:
# its estimate is withdrawn instead of being shown frozen.
STALL_BATCHES = 5
STALL_MIN_S = 60.0


@dataclass(frozen=True)
class IndexStatus:
    """Where the live index stands, for the MCP `status` tool and search notes."""

    state: State
    role: Role
    files_done: int  # during a sync: files processed so far in this sync's pass two
    files_total: int  # during a sync: files that need embedding in this sync
    indexed_files: int  # files with committed rows
    chunks: int
    reason: str | None  # for not_updating / needs_reindex: why, in words an agent can act on
    vectors_done: int = 0  # stage two: chunks with their vectors, of `vectors_total`
    vectors_total: int = 0
    stage_two_clock: StageTwoClock | None = None  # the run in progress, as its writer records it
    stage_two_problem: str | None = None  # why stage two cannot store vectors now (a full disk), with the fix
    observed: float = 0.0  # wall-clock time of this status (the clock's "now")

    def stage_two(self) -> str | None:
        """Stage two's progress while vectors are missing, e.g. "vectors for 412 of 1,718 chunks;
        keyword covers all (about 2 min to go)"; None when every chunk has its vectors."""
        return stage_two_note(self.vectors_done, self.vectors_total, self.stage_two_clock,
                              self.observed or time.time(), self.stage_two_problem)

    def describe(self) -> str:
        """One short sentence, e.g. "complete (97 files, 1619 chunks)"."""
        size = f"{self.indexed_files} files, {self.chunks} chunks"
        if self.state == "embedding":
            return f"keyword-ready ({size}); embedding in the background: {self.stage_two()}" + (
                f"; {self.reason}" if self.reason else "")
        if self.state == "complete":
            return f"complete ({size})" + (f"; {self.reason}" if self.reason else "")
        if self.state == "syncing":
            if self.files_total:
                inside = f" (now {self.reason})" if self.reason else ""
                return (f"still syncing: {self.files_done}/{self.files_total} files indexed{inside}; "
                        "results may be incomplete")
            if self.role == "writer":
                return f"still syncing: scanning the folder ({size} so far); results may be incomplete"
            return (f"still syncing: another process is building the index ({size} so far); "
                    "results may be incomplete")
        if self.state == "not_updating":
            again = "" if "restart" in (self.reason or "") else "; restart scree to index again"
            return f"index not updating: {self.reason}; serving what is indexed ({size}){again}"
        if self.state == "paused":  # the embeddings API is unavailable: indexing resumes by itself
            return f"indexing paused: {self.reason}; searching what is indexed ({size})"
        if self.state == "needs_reindex":
            return f"needs reindex: {self.reason}"
        return "empty: no notes are indexed in this folder yet"


def stage_two_note(done: int, total: int, clock: StageTwoClock | None = None, now: float | None = None,
                   problem: str | None = None) -> str | None:
    """"vectors for 412 of 1,718 chunks; keyword covers all", then what stage two is doing: stuck (and
    why, with the fix), the time left at this run's rate, "estimating" before a rate is measured, or
    how long nothing was stored (never an estimate that stays put while nothing moves). Without a
    clock (no run is known) nothing more is said."""
    if total <= 0 or done >= total:
        return None
    note = f"vectors for {done:,} of {total:,} chunks; keyword covers all"
    if problem:
        return f"{note}; stage two cannot store vectors: {problem}"
    if clock is None:
        return note
    now = time.time() if now is None else now
    idle = now - clock.at
    if idle > clock.stalled_after():
        return f"{note} (no vectors stored for {format_duration(idle)})"
    if clock.rate <= 0:
        return f"{note} (estimating the time left)"
    return f"{note} (about {format_duration((total - done) / clock.rate)} to go)"


# For planning only (does a stage two of a few chunks fit a budget?), never shown as a time left: the
# local model on 2 cores embeds about this many chunks/s when no run on this index measured a rate.
ASSUMED_RATE = 13.0


def recorded_rate(meta: dict[str, str]) -> float:
    """The chunks/s the index's last stage two measured (its clock), else ASSUMED_RATE: for planning."""
    clock = decode_clock(meta)
    rate = clock.rate if clock is not None else 0.0
    if rate <= 0:
        try:
            rate = float(meta.get("embed_rate", ""))  # the last rate a run measured (embedstage)
        except ValueError:
            rate = 0.0
    return rate if rate > 0 else ASSUMED_RATE


# Below this much free space on the index's disk, stage two cannot store a batch of vectors (each is a
# few hundred KB, plus the WAL): `scree status` and doctor say so, whoever the writer is.
LOW_SPACE_BYTES = 8 * 1024 * 1024


def space_problem(free_bytes: int, where: object) -> str | None:
    """What to say when the disk holding the index at `where` is (nearly) full; None when it is not."""
    if free_bytes >= LOW_SPACE_BYTES:
        return None
    return (f"the disk holding the index {where} is full ({free_bytes / 1e6:.1f} MB free); free some space "
            "(a running scree resumes by itself; otherwise run `scree reindex`)")


def format_duration(seconds: float) -> str:
    """"40 s", "12 min", "3.5 h": an estimate, said roughly."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


class StatusChanges:
    """A change counter with a condition: the live index bumps it at every transition, and a caller
    waits for the status it needs without polling. `bump()` takes no other lock, so it may be
    called while holding any."""

    RECHECK = 0.5  # another process's progress (a reader's view of its writer) sends no signal here

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._generation = 0

    def bump(self) -> None:
        with self._cond:
            self._generation += 1
            self._cond.notify_all()

    def wait_until(self, check: Callable[[], bool], timeout: float) -> bool:
        """Wait until `check()` is true (evaluated outside the lock, after each bump); False after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            with self._cond:
                seen = self._generation
            if check():
                return True
            with self._cond:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                if self._generation == seen:
                    self._cond.wait(min(left, self.RECHECK))
