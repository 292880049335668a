"""SIGINT/SIGTERM while the real local model embeds: `scree serve --http` and `scree watch` exit
130/143 with the writer lock released and no abort (onnxruntime aborted with "GetElementType is not
implemented", rc 134, when the interpreter shut down around a running model: issue 21, item 2).
Real processes, the real model; each test waits for the log line of a committed part, so the model
is mid-note when the signal lands."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import REPO_ROOT, write
from scree.config import Config
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


def _run_until_embedding(argv: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], list[str]]:
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env=env)
    seen: list[str] = []
    started = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            seen.append(line)
            if "chunks have vectors" in line:  # one batch committed: the model is on the next one
                started.set()
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
    text = "".join(seen)
    assert code == 128 + signum, text[-2000:]
    assert "GetElementType" not in text and "terminate called" not in text and "Traceback" not in text
    lock = WriterLock(index_location(folder, Config()).lock)
    try:
        assert lock.try_acquire()  # released: the next writer can take it
    finally:
        lock.release()
