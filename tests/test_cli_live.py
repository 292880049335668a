"""`scree reindex` and `scree watch` as real processes: the lock decides who writes, the exit codes
tell a supervisor what happened."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path

import pytest

from conftest import write
from scree.config import load_config
from scree.locate import index_location

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="needs Linux inotify")

HELPERS = Path(__file__).parent / "helpers"
SCREE = [sys.executable, "-m", "scree.cli"]
WAIT = 30.0


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    write(root, "ops/retention.md", "# Retention\n\nAudit logs are kept for ninety days, then purged.\n")
    write(root, "team/oncall.md", "# On call\n\nThe pager rotates weekly between four engineers.\n")
    return root


@pytest.fixture
def procs():
    started: list[subprocess.Popen[str]] = []

    def _start(args: list[str], **kw: object) -> subprocess.Popen[str]:
        p = subprocess.Popen(args, text=True, **kw)  # type: ignore[call-overload]
        started.append(p)
        return p

    yield _start
    for p in started:
        if p.poll() is None:
            p.kill()
        p.wait(timeout=10)
        for stream in (p.stdin, p.stdout, p.stderr):
            if stream is not None:
                stream.close()


_LINES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # stream -> queue of its lines, fed by a thread


def read_until(stream, predicate, timeout: float = WAIT) -> list[str]:  # noqa: ANN001
    """Lines of `stream` up to and including the first one matching `predicate` (fails at the deadline).

    A thread reads the stream line by line into a queue: select() on a text stream would miss lines
    its buffer already holds when two arrive together."""
    lines_of = _lines_of(stream)
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while True:
        try:
            line = lines_of.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError(f"no matching line within {timeout} s; got {lines}") from None
        if not line:
            raise AssertionError(f"stream ended without a matching line; got {lines}")
        lines.append(line.rstrip("\n"))
        if predicate(line):
            return lines


def _lines_of(stream) -> queue.Queue[str]:  # noqa: ANN001
    lines_of = _LINES.get(stream)
    if lines_of is None:
        lines_of = _LINES[stream] = queue.Queue()
        feed = lines_of

        def pump() -> None:
            for line in stream:
                feed.put(line)
            feed.put("")  # end of stream

        threading.Thread(target=pump, daemon=True).start()
    return lines_of


def rest_of(stream, timeout: float = WAIT) -> str:  # noqa: ANN001
    """Everything `stream` still says, up to its end."""
    lines_of, out = _lines_of(stream), []
    while line := lines_of.get(timeout=timeout):
        out.append(line)
    return "".join(out)


def hold_lock(procs, notes: Path) -> subprocess.Popen[str]:  # noqa: ANN001
    lock = index_location(notes.resolve(), load_config()).lock
    holder = procs([sys.executable, str(HELPERS / "lock_holder.py"), str(lock)],
                   stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert read_until(holder.stdout, lambda line: True)[-1] == "locked"
    return holder


def test_reindex_builds_the_index_and_reports_what_it_did(notes):
    out = subprocess.run([*SCREE, "reindex", "--notes", str(notes), "--json"], capture_output=True,
                         text=True, timeout=WAIT)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert sorted(report["added"]) == ["ops/retention.md", "team/oncall.md"]
    again = subprocess.run([*SCREE, "reindex", "--notes", str(notes), "--rebuild", "--json"],
                           capture_output=True, text=True, timeout=WAIT)
    assert again.returncode == 0, again.stderr
    assert sorted(json.loads(again.stdout)["updated"]) == ["ops/retention.md", "team/oncall.md"]


def test_reindex_is_refused_naming_the_holder_pid_while_another_process_writes(notes, procs):
    holder = hold_lock(procs, notes)
    out = subprocess.run([*SCREE, "reindex", "--notes", str(notes)], capture_output=True, text=True,
                         timeout=WAIT)
    assert out.returncode == 1
    assert f"is being written by pid {holder.pid} " in out.stderr
    assert "--wait" in out.stderr and out.stdout == ""


def test_reindex_wait_runs_once_the_holder_exits(notes, procs):
    holder = hold_lock(procs, notes)
    waiting = procs([*SCREE, "reindex", "--notes", str(notes), "--wait"], stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE)
    read_until(waiting.stderr, lambda line: f"waiting for pid {holder.pid}" in line)
    assert waiting.poll() is None
    holder.stdin.close()  # releases the lock
    assert waiting.wait(timeout=WAIT) == 0
    assert "2 added" in waiting.stdout.read()


def test_two_watchers_one_writes_and_each_stops_cleanly_on_sigterm(notes, procs):
    args = [*SCREE, "watch", "--notes", str(notes)]
    first = procs(args, stderr=subprocess.PIPE)
    read_until(first.stderr, lambda line: line.startswith("scree: writer: complete"))
    second = procs(args, stderr=subprocess.PIPE)
    read_until(second.stderr, lambda line: line.startswith("scree: reader: complete"))
    for proc in (second, first):
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 128 + signal.SIGTERM  # 143, as a shell expects; how fast: benchmarks/live_timings.py


def test_watch_exits_non_zero_when_the_notes_folder_is_removed(notes, procs):
    watch = procs([*SCREE, "watch", "--notes", str(notes), "--health-interval", "0.2"], stderr=subprocess.PIPE)
    read_until(watch.stderr, lambda line: line.startswith("scree: writer: complete"))
    shutil.rmtree(notes)
    assert watch.wait(timeout=WAIT) == 1
    assert "scree: error: index not updating: the notes folder" in rest_of(watch.stderr)
