"""SIGINT/SIGTERM while the real local model embeds: `scree serve --http` and `scree watch` exit
130/143 with the writer lock released and no abort (onnxruntime aborted with "GetElementType is not
implemented", rc 134, when the interpreter shut down around a running model: issue 21, item 2), and so
do `scree reindex` and `scree search` while they embed (issue 26, item 6: Ctrl-C aborted them 4 times
in 9), with the index consistent after. Real processes, the real model; each test waits for a committed
batch, so the model is mid-stage-two when the signal lands. How fast each exits is measured by
benchmarks/interrupts.py."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import REPO_ROOT, eventually, write
from scree.config import Config
from scree.db import invariants
from scree.index.store import open_index
from scree.locate import index_location
from scree.live.lock import WriterLock

pytestmark = [pytest.mark.timeout(240), pytest.mark.real_model]


def _big_notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    (folder / ".git").mkdir(parents=True)
    sections = "".join(f"## Part {i}\n\nThe retention policy {i} keeps the nightly logs for {i} days "
                       f"in the cold bucket, then moves them to tape number {i}.\n\n" for i in range(1500))
    write(folder, "big.md", "# Big\n\n" + sections)
    return folder.resolve()


class _Stderr(list):
    """A process's stderr lines, read as they come; `ended` is set at EOF."""

    def __init__(self) -> None:
        super().__init__()
        self.ended = threading.Event()

    def text(self) -> str:
        assert self.ended.wait(30), "stderr never closed"
        return "".join(self)


def _run_until_embedding(argv: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], _Stderr]:
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env=env)
    seen = _Stderr()
    started = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            seen.append(line)
            if "chunks have vectors" in line:  # one batch committed: the model is on the next one
                started.set()
        seen.ended.set()
        started.set()  # EOF: the process ended first

    threading.Thread(target=read, daemon=True).start()
    assert started.wait(180), "the model never started embedding"
    assert proc.poll() is None, "".join(seen)
    return proc, seen


@pytest.mark.parametrize("command", ["watch", "serve-http"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_mid_embedding_ends_cleanly_with_128_plus_the_signal(tmp_path: Path, command: str,
                                                                       signum: int) -> None:
    folder = _big_notes(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "server"), "SCREE_LOG_LEVEL": "INFO"}
    argv = [sys.executable, "-m", "scree.cli", *(["watch"] if command == "watch" else
                                                 ["serve", "--http", "--port", "0"]), "--notes", str(folder)]
    proc, seen = _run_until_embedding(argv, env)
    try:
        proc.send_signal(signum)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = seen.text()
    assert code == 128 + signum, text[-2000:]
    assert "GetElementType" not in text and "terminate called" not in text and "Traceback" not in text
    lock = WriterLock(index_location(folder, Config()).lock)
    try:
        assert lock.try_acquire()  # released: the next writer can take it
    finally:
        lock.release()


def _has_vectors(db: Path) -> bool:
    """Whether stage two committed a batch (read as any reader would, without scree)."""
    if not db.exists():
        return False
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return conn.execute("select count(*) from chunks where windows > 0").fetchone()[0] > 0
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def _assert_clean_end(folder: Path, code: int, expected: int, text: str) -> None:
    assert code == expected, text[-2000:]
    assert "GetElementType" not in text and "terminate called" not in text and "Traceback" not in text, text[-2000:]
    loc = index_location(folder, Config())
    lock = WriterLock(loc.lock)
    try:
        assert lock.try_acquire()  # released: the next writer can take it
    finally:
        lock.release()
    index = open_index(loc, folder)
    try:
        assert invariants.problems(index.conn) == []  # every hashed file whole; the dropped batch not stored
    finally:
        index.close()


# `scree search` no longer embeds a folder's worth in the foreground (issue 29: it leaves stage two to a
# background `scree reindex`, this very command); a signal during its own stage one is
# tests/test_cli_search_background.py's.
CLI = {"reindex": ["reindex"]}


@pytest.mark.parametrize("command,signals", [("reindex", (signal.SIGTERM,)), ("reindex", (signal.SIGINT, signal.SIGINT))],
                         ids=["reindex-SIGTERM", "reindex-SIGINT-twice"])
def test_a_signal_while_the_cli_embeds_ends_it_with_128_plus_the_signal(tmp_path: Path, command: str,
                                                                         signals: tuple[int, ...]) -> None:
    # Twice: a terminal's Ctrl-C reaches `uv run` too, which forwards it, so one key press is often two.
    folder = _big_notes(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "server")}
    proc = subprocess.Popen([sys.executable, "-m", "scree.cli", *CLI[command][:1], "--notes", str(folder),
                             *CLI[command][1:]], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert eventually(lambda: _has_vectors(index_location(folder, Config()).db) or proc.poll() is not None,
                          timeout=180)
        assert proc.poll() is None, "stage two ended before the signal"
        for n, signum in enumerate(signals):
            if n:
                time.sleep(0.05)  # the second while the first is being handled
            proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    _assert_clean_end(folder, proc.returncode, 128 + signals[0], out + err)
    assert "scree: interrupted" in err
