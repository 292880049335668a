"""A stdio server ends on SIGINT (how Claude Code stops it) and on SIGTERM, releasing its writer lock,
instead of waiting on the SDK's blocked stdin reader until it is killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import REPO_ROOT, eventually, write
from scree.config import Config
from scree.locate import index_location
from scree.live.lock import WriterLock

pytestmark = pytest.mark.timeout(90)


def _send(proc: subprocess.Popen, message: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def _serving_writer(tmp_path: Path) -> tuple[subprocess.Popen, Path]:
    """A stdio server past its handshake, holding the writer lock."""
    folder = tmp_path / "notes"
    write(folder, "a.md", "# A\n\ntext\n")
    lock = index_location(folder.resolve(), Config()).lock
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "server")}
    proc = subprocess.Popen([sys.executable, "-m", "scree.cli", "serve", "--notes", str(folder), "--no-watch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                            "clientInfo": {"name": "raw", "version": "0"}}})
    assert proc.stdout is not None and json.loads(proc.stdout.readline())["id"] == 1
    _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})  # starts the index and its writer
    assert eventually(lambda: lock.exists() and lock.read_bytes().strip() != b"", timeout=30)
    return proc, lock


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_stdio_server_exits_on_a_signal_and_releases_the_writer_lock(tmp_path: Path, signum: int) -> None:
    proc, lock = _serving_writer(tmp_path)
    try:
        proc.send_signal(signum)
        code = proc.wait(timeout=30)  # before the fix it never returned: the lock holder stayed alive
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 128 + signum
    assert lock.read_bytes() == b""  # the lock was released, not left to a dead pid
    assert proc.stderr is not None and b"Traceback" not in proc.stderr.read()


def test_signals_in_quick_succession_still_end_the_server(tmp_path: Path) -> None:
    """Claude Code escalates SIGINT to SIGTERM; a second signal landing while the first handler held a
    lock once deadlocked the server, which then kept the writer lock (and its index) for good."""
    proc, lock = _serving_writer(tmp_path)
    try:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGINT, signal.SIGTERM):
            if proc.poll() is not None:
                break
            proc.send_signal(signum)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code in (128 + signal.SIGINT, 128 + signal.SIGTERM)
    assert proc.stderr is not None and b"Traceback" not in proc.stderr.read()
    # Whichever signal ended it, the lock is free for the next server (an flock dies with its process).
    taker = WriterLock(lock)
    try:
        assert taker.try_acquire()
    finally:
        taker.release()


def _run_script(tmp_path: Path, text: str) -> subprocess.CompletedProcess[bytes]:
    """`text` run as a Python script with scree importable; it must end within 20 s."""
    script = tmp_path / "script.py"
    script.write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "server")}
    return subprocess.run([sys.executable, str(script)], env=env, capture_output=True, timeout=20)


def test_a_signal_arriving_while_the_main_thread_holds_a_lock_the_stop_needs_still_ends_the_process(tmp_path):
    """The handler runs on the main thread, between two bytecodes, wherever it was: here inside a lock
    that stopping the index needs. Stopping in the handler itself would wait on that lock forever."""
    proc = _run_script(tmp_path,
        "import os, signal, threading\n"
        "from scree.cli.serve import _exit_on_signal\n"
        "held = threading.Lock()\n"
        "class Handle:\n"
        "    def stop(self, timeout=5.0):\n"
        "        with held:\n"
        "            return True\n"
        "_exit_on_signal(Handle())\n"
        "with held:\n"
        "    os.kill(os.getpid(), signal.SIGINT)  # the handler runs before the next bytecode, lock held\n"
        "    for _ in range(1000):\n"
        "        pass\n"
        "threading.Event().wait(30)  # the stop thread ends the process once the lock is free\n",
    )
    assert proc.returncode == 128 + signal.SIGINT, proc.stderr


def test_a_signal_another_thread_takes_ends_the_process_while_the_main_thread_sleeps(tmp_path):
    """The kernel may hand a process's signal to any thread (under load: one whose turn came first).
    The main thread, asleep in a call that signal did not interrupt, then never runs a Python handler:
    in CI a server outlived four signals so. Here the main thread sleeps in read() on a pipe nobody
    writes, and another thread sends SIGTERM to itself once it sees the main thread there."""
    try:
        Path(f"/proc/self/task/{threading.get_native_id()}/syscall").read_text()
    except OSError as exc:
        pytest.skip(f"cannot see where a thread is blocked here ({exc})")
    proc = _run_script(tmp_path,
        "import os, signal, threading\n"
        "from scree.cli.serve import _exit_on_signal\n"
        "class Handle:\n"
        "    def stop(self, timeout=5.0):\n"
        "        return True\n"
        "_exit_on_signal(Handle())\n"
        "r, w = os.pipe()\n"
        "main = threading.get_native_id()\n"
        "def other():\n"
        "    with open(f'/proc/self/task/{main}/syscall') as f:\n"
        "        while f.read().split()[1:2] != [hex(r)]:  # until the main thread sits in read(r)\n"
        "            f.seek(0)\n"
        "            threading.Event().wait(0.005)\n"
        "    signal.pthread_kill(threading.get_ident(), signal.SIGTERM)\n"
        "    threading.Event().wait(60)\n"
        "threading.Thread(target=other, daemon=True).start()\n"
        "os.read(r, 1)  # never returns: nothing writes, and the signal goes to the other thread\n",
    )
    assert proc.returncode == 128 + signal.SIGTERM, proc.stderr
