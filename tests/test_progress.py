"""Sync progress when stderr is not a terminal: a plain line every few seconds, nothing for short syncs."""

from __future__ import annotations

import io

from scree.index.progress import PlainProgress, progress_for_stderr


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
        "scree: stage one: 4/900 files chunked",
        "scree: stage one: 6/900 files chunked",
    ]


def test_stage_two_says_when_keyword_search_was_ready_and_how_far_the_vectors_are() -> None:
    out, clock = io.StringIO(), Clock()
    progress = PlainProgress(out, every=5.0, clock=clock)
    progress.start(3)
    for _ in range(3):
        clock.now += 0.5
        progress.advance(0)
    progress.finish()  # stage one: 1.5 s
    progress.embedding(64, 1000)  # the first batch: the rate is measured from here
    clock.now += 2.0
    progress.embedding(128, 1000)  # too soon for a line
    clock.now += 3.0
    progress.embedding(192, 1000)
    clock.now += 5.0
    progress.embedding(320, 1000)
    assert out.getvalue().splitlines() == [
        "scree: stage one done in 1.5 s (3 files keyword-searchable); stage two: vectors for 192 of 1,000 chunks "
        "(25.6 chunks/s)",
        "scree: stage two: vectors for 320 of 1,000 chunks (25.6 chunks/s)",
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
