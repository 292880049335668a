"""A stdio server ends on SIGINT (how Claude Code stops it) and on SIGTERM, releasing its writer lock,
instead of waiting on the SDK's blocked stdin reader until it is killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT, eventually, write
from scree.config import Config
from scree.locate import index_location

pytestmark = pytest.mark.timeout(90)


def _send(proc: subprocess.Popen, message: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_stdio_server_exits_on_a_signal_and_releases_the_writer_lock(tmp_path: Path, signum: int) -> None:
    folder = tmp_path / "notes"
    write(folder, "a.md", "# A\n\ntext\n")
    lock = index_location(folder.resolve(), Config()).lock
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "server")}
    proc = subprocess.Popen([sys.executable, "-m", "scree.cli_serve", "--notes", str(folder), "--no-watch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                "clientInfo": {"name": "raw", "version": "0"}}})
        assert proc.stdout is not None and json.loads(proc.stdout.readline())["id"] == 1
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})  # starts the index and its writer
        assert eventually(lambda: lock.exists() and lock.read_bytes().strip() != b"", timeout=30)
        proc.send_signal(signum)
        code = proc.wait(timeout=30)  # before the fix it never returned: the lock holder stayed alive
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 128 + signum
    assert lock.read_bytes() == b""  # the lock was released, not left to a dead pid
    assert proc.stderr is not None and b"Traceback" not in proc.stderr.read()
