"""Where a live index stands (its role and state, as the MCP tools, `scree watch` and search notes
report it), and the signal a caller waits on for the next change instead of polling."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable, Literal

# The one process that holds the writer lock syncs and watches; every other process reads.
Role = Literal["writer", "reader"]
# "embedding": stage one is done (keyword search covers every note), stage two is making vectors.
State = Literal["complete", "embedding", "syncing", "not_updating", "empty", "needs_reindex", "paused"]


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
    vectors_rate: float = 0.0  # stage two's chunks/s so far (0: unknown)

    def stage_two(self) -> str | None:
        """Stage two's progress while vectors are missing, e.g. "vectors for 412 of 1,718 chunks;
        keyword covers all (about 2 min to go)"; None when every chunk has its vectors."""
        return stage_two_note(self.vectors_done, self.vectors_total, self.vectors_rate)

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
        return "empty: no Markdown notes are indexed in this folder yet"


def stage_two_note(done: int, total: int, rate: float = 0.0) -> str | None:
    """"vectors for 412 of 1,718 chunks; keyword covers all", with the time left when the rate is known."""
    if total <= 0 or done >= total:
        return None
    note = f"vectors for {done:,} of {total:,} chunks; keyword covers all"
    if rate > 0:
        note += f" (about {format_duration((total - done) / rate)} to go)"
    return note


# Stage two's rate before one was measured on this index: the local model on 2 cores embeds about
# 13 chunks/s (benchmarks/first_answer.py); each run of stage two records its own in meta `embed_rate`.
ASSUMED_RATE = 13.0


def recorded_rate(meta: dict[str, str]) -> float:
    """Stage two's last measured chunks/s on this index, else ASSUMED_RATE."""
    try:
        rate = float(meta.get("embed_rate", ""))
    except ValueError:
        rate = 0.0
    return rate if rate > 0 else ASSUMED_RATE


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
