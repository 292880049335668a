"""Sync progress when stderr is not a terminal: a plain line every few seconds, nothing for short syncs."""

from __future__ import annotations

import io

from scree.progress import PlainProgress, progress_for_stderr


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_plain_line_every_few_seconds_with_files_done_and_rate() -> None:
    out, clock = io.StringIO(), Clock()
    progress = PlainProgress(out, every=5.0, clock=clock)
    progress.start(900)
    for _ in range(3):  # three files in the first 3 s: too soon for a line
        clock.now += 1.0
        progress.advance(10)
    assert out.getvalue() == ""
    clock.now += 2.0
    progress.advance(20)  # 5 s in: one line
    clock.now += 1.0
    progress.advance(10)
    clock.now += 4.0
    progress.advance(10)  # 5 s after the last line: another
    progress.finish()
    assert out.getvalue().splitlines() == [
        "scree: indexing 4/900 files, 50 chunks (10 chunks/s)",
        "scree: indexing 6/900 files, 70 chunks (7.0 chunks/s)",
    ]


def test_a_short_sync_prints_nothing() -> None:
    out, clock = io.StringIO(), Clock()
    progress = PlainProgress(out, clock=clock)
    progress.start(2)
    progress.advance(3)
    progress.advance(3)
    progress.finish()
    assert out.getvalue() == ""


def test_stderr_that_is_not_a_terminal_gets_plain_lines() -> None:
    assert isinstance(progress_for_stderr(), PlainProgress)  # pytest captures stderr: not a terminal
