"""The writer lock with real processes: one writer at a time, and a killed writer frees the lock."""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from scree.errors import IndexError_, LockHeld
from scree.live.lock import LockWaiter, WriterLock, read_holder

HOLDER = Path(__file__).parent / "helpers" / "lock_holder.py"


def _read_line(proc: subprocess.Popen[str], timeout: float = 15.0) -> str:
    """The child's next stdout line, failing the test instead of hanging when it never comes."""
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout):
            raise AssertionError(f"child {proc.pid} printed nothing within {timeout} s")
    return proc.stdout.readline().strip()


@pytest.fixture
def spawn():
    procs: list[subprocess.Popen[str]] = []

    def _spawn(lock_path: Path, *args: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [sys.executable, str(HOLDER), str(lock_path), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        return proc

    yield _spawn
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        for stream in (proc.stdin, proc.stdout):
            stream.close()


@pytest.fixture
def held(spawn, tmp_path):
    """A child process holding the lock at tmp_path/writer.lock."""
    path = tmp_path / "writer.lock"
    proc = spawn(path)
    assert _read_line(proc) == "locked"
    return path, proc


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)


def test_second_acquire_fails_while_another_process_holds(held, spawn):
    path, _ = held
    assert WriterLock(path).try_acquire() is False
    other = spawn(path)
    assert _read_line(other) == "busy"
    assert other.wait(timeout=10) == 1


def test_read_holder_names_the_holding_child(held):
    path, proc = held
    holder = read_holder(path)
    assert holder is not None
    assert holder.pid == proc.pid
    assert holder.host == socket.gethostname()
    assert abs(time.time() - holder.since) < 60


def test_sigkilled_holder_releases_the_lock(held):
    path, proc = held
    _kill(proc)
    # The dead pid is still written in the file, but nobody is named as holder.
    assert json.loads(path.read_text())["pid"] == proc.pid
    assert read_holder(path) is None
    lock = WriterLock(path)
    assert lock.try_acquire() is True
    assert read_holder(path).pid == os.getpid()
    lock.release()


def test_lock_waiter_takes_over_once_the_holder_is_killed(held):
    path, proc = held
    interval = 0.2
    got = threading.Event()
    waiter = LockWaiter(WriterLock(path), got.set, interval=interval)
    waiter.start()
    try:
        assert not got.wait(interval * 2), "took the lock while another process held it"
        _kill(proc)
        assert got.wait(15.0), "did not take over after the holder died"  # how soon: benchmarks/live_timings.py
        assert waiter.acquired and waiter.lock.held
        assert waiter.stop(timeout=2.0)
    finally:
        waiter.stop()
        waiter.lock.release()


def test_lock_waiter_stop_ends_a_long_wait_promptly(tmp_path):
    path = tmp_path / "writer.lock"
    owner = WriterLock(path)
    assert owner.try_acquire()
    called = threading.Event()
    waiter = LockWaiter(WriterLock(path), called.set, interval=5.0)
    waiter.start()
    assert waiter.running
    assert waiter.stop(timeout=2.0)  # well inside the 5 s interval: stop does not wait it out
    assert not waiter.running and not called.is_set() and not waiter.lock.held
    owner.release()


def test_threads_racing_for_the_lock_exactly_one_wins(tmp_path):
    path = tmp_path / "writer.lock"
    n = 8
    barrier = threading.Barrier(n)
    locks = [WriterLock(path) for _ in range(n)]
    results: list[bool] = []

    def race(lock: WriterLock) -> None:
        barrier.wait(timeout=10)
        results.append(lock.try_acquire())

    threads = [threading.Thread(target=race, args=(lock,)) for lock in locks]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert sorted(results) == [False] * (n - 1) + [True]
    for lock in locks:
        lock.release()


def test_processes_racing_for_the_lock_exactly_one_wins(tmp_path, spawn):
    path = tmp_path / "writer.lock"
    procs = [spawn(path, "--race") for _ in range(3)]
    for proc in procs:
        assert _read_line(proc) == "ready"
    for proc in procs:  # release them together
        proc.stdin.write("go\n")
        proc.stdin.flush()
    answers = {proc.pid: _read_line(proc) for proc in procs}
    assert sorted(answers.values()) == ["busy", "busy", "locked"]
    winner = next(pid for pid, answer in answers.items() if answer == "locked")
    assert read_holder(path).pid == winner


def test_lock_file_is_private_and_release_clears_the_holder(tmp_path):
    path = tmp_path / "index" / "writer.lock"  # the folder is created on demand
    with WriterLock(path) as lock:
        assert lock.held
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert read_holder(path).pid == os.getpid()
    assert not lock.held
    assert path.read_bytes() == b""
    assert read_holder(path) is None
    assert WriterLock(path).try_acquire()


def test_context_manager_names_the_holder_when_busy(held):
    path, proc = held
    with pytest.raises(LockHeld) as info:
        with WriterLock(path):
            pass
    assert info.value.pid == proc.pid
    assert str(proc.pid) in str(info.value)


@pytest.mark.parametrize("content", [None, b"", b"{not json", b'{"pid": "x"}', b'{"pid": 1}'])
def test_read_holder_is_none_without_a_credible_record(tmp_path, content):
    path = tmp_path / "writer.lock"
    if content is not None:
        path.write_bytes(content)
    assert read_holder(path) is None


def test_read_holder_ignores_a_dead_pid_on_this_host(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(timeout=10)
    path = tmp_path / "writer.lock"
    record = {"pid": proc.pid, "since": time.time(), "host": socket.gethostname()}
    path.write_text(json.dumps(record))
    assert read_holder(path) is None
    # On another host liveness cannot be checked, so the record is trusted.
    path.write_text(json.dumps({**record, "host": "elsewhere.invalid"}))
    assert read_holder(path).pid == proc.pid


def test_unopenable_lock_file_is_a_clear_error(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    with pytest.raises(IndexError_, match="cannot open the writer lock"):
        WriterLock(blocker / "writer.lock").try_acquire()
