"""Progress of long syncs on stderr: a bar on a terminal, a plain line every few seconds elsewhere
(a pipe, a log file, CI), so nobody stares at minutes of silence."""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, Callable, TextIO

from .sync import SyncProgress

PLAIN_EVERY = 5.0  # seconds between plain progress lines


class RichProgress:
    """files done / total and chunks/s, drawn with rich on stderr."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._label = TextColumn("stage one: indexing")  # "stage two: embedding" once it starts
        self._progress = Progress(
            self._label, BarColumn(), MofNCompleteColumn(), TextColumn("files"),
            TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
            console=Console(stderr=True), transient=True,
        )
        self._task: Any = None
        self._embed_from = 0
        self._chunks = 0
        self._t0 = 0.0

    def start(self, total_files: int) -> None:
        if total_files == 0:
            return
        self._t0 = time.perf_counter()
        self._progress.start()
        self._task = self._progress.add_task("index", total=total_files, rate="")

    def advance(self, chunks: int) -> None:
        if self._task is None:
            return
        self._chunks += chunks
        elapsed = max(time.perf_counter() - self._t0, 1e-6)
        self._progress.update(self._task, advance=1, rate=f"{self._chunks / elapsed:.0f} chunks/s")

    def within(self, path: str, chunks_done: int, chunks_total: int) -> None:
        """A big file is written in parts: show how far into it the sync is."""
        if self._task is not None:
            self._progress.update(self._task, rate=f"{path}: {chunks_done}/{chunks_total} chunks")

    def finish(self) -> None:
        if self._task is not None:
            self._progress.stop()
            self._task = None

    def embedding(self, done: int, total: int) -> None:
        """Stage two: chunks with vectors of all (keyword search already covers every note)."""
        if self._task is None:
            self._t0 = time.perf_counter()
            self._label.text_format = "stage two: embedding"
            self._progress.start()
            self._task = self._progress.add_task("embed", total=total, completed=done, rate="chunks")
            self._embed_from = done
            return
        elapsed = max(time.perf_counter() - self._t0, 1e-6)
        self._progress.update(self._task, completed=done,
                              rate=f"chunks, {(done - self._embed_from) / elapsed:.0f}/s")
        if done >= total:
            self.finish()


class PlainProgress:
    """`scree: indexing 120/900 files, 3400 chunks (85 chunks/s)`, every `every` seconds while a sync runs."""

    def __init__(self, stream: TextIO | None = None, every: float = PLAIN_EVERY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._stream = stream
        self._every = every
        self._clock = clock
        self._total = self._done = self._chunks = self._embed_from = 0
        self._t0 = self._last = self._embed_t0 = 0.0
        self._stage_one: float | None = None

    def _say(self, line: str) -> None:
        stream = self._stream or sys.stderr
        print(f"scree: {line}", file=stream, flush=True)

    def start(self, total_files: int) -> None:
        self._total, self._done, self._chunks = total_files, 0, 0
        self._t0 = self._last = self._clock()  # the first line comes after `every` s: short syncs stay quiet

    def advance(self, chunks: int) -> None:
        self._done += 1
        self._chunks += chunks
        now = self._clock()
        if now - self._last >= self._every:
            self._last = now
            self._say(f"stage one: {self._done}/{self._total} files chunked")

    def within(self, path: str, chunks_done: int, chunks_total: int) -> None:
        """A big file is written in parts: say how far into it the sync is, at the same pace."""
        now = self._clock()
        if now - self._last >= self._every:
            self._last = now
            self._say(f"indexing {path}: {chunks_done}/{chunks_total} chunks")

    def finish(self) -> None:
        self._stage_one = self._clock() - self._t0  # said with stage two's first line, if it is long

    def _stage_one_line(self) -> str:
        said, self._stage_one = self._stage_one, None
        if said is None or not self._total:
            return ""
        return f"stage one done in {said:.1f} s ({self._done} files keyword-searchable); "

    def embedding(self, done: int, total: int) -> None:
        """Stage two: `embedding: vectors for 412 of 1,718 chunks (13 chunks/s)`, at the same pace."""
        now = self._clock()
        if not self._embed_t0:
            self._embed_t0, self._embed_from, self._last = now, done, now
            return
        if now - self._embed_t0 >= self._every and (now - self._last >= self._every or done >= total):
            self._last = now
            rate = (done - self._embed_from) / max(now - self._embed_t0, 1e-6)
            self._say(f"{self._stage_one_line()}stage two: vectors for {done:,} of {total:,} chunks "
                      f"({rate:.1f} chunks/s)")


class CountingProgress:
    """Pass-two counters of the running sync, read by the live index's status() from other threads."""

    def __init__(self) -> None:
        self._mu = threading.Lock()
        self.done = 0
        self.total = 0
        self.current: str | None = None  # a big file's progress: "big.md: 640/4000 chunks"

    def start(self, total_files: int) -> None:
        with self._mu:
            self.done, self.total, self.current = 0, total_files, None

    def advance(self, chunks: int) -> None:
        with self._mu:
            self.done += 1
            self.current = None

    def within(self, path: str, chunks_done: int, chunks_total: int) -> None:
        with self._mu:
            self.current = f"{path}: {chunks_done}/{chunks_total} chunks"

    def finish(self) -> None:
        pass

    def reset(self) -> None:
        self.start(0)

    def snapshot(self) -> tuple[int, int]:
        with self._mu:
            return self.done, self.total

    def current_file(self) -> str | None:
        with self._mu:
            return self.current


def progress_for_stderr() -> SyncProgress:
    """A bar when a person is watching stderr; plain lines every few seconds when it is a pipe or a file."""
    return RichProgress() if sys.stderr.isatty() else PlainProgress()
