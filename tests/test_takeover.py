"""One writer per index across real processes: readers hold no watches and no model, and a SIGKILLed
writer is replaced by a reader that catches up (how soon: benchmarks/live_timings.py)."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import write
from conftest import eventually as _eventually
from scree.config import load_config
from scree.live.lock import read_holder
from scree.locate import index_location
from scree.live.watcher import inotify_watch_count

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="needs Linux inotify")

RUNNER = Path(__file__).parent / "helpers" / "live_runner.py"
WAIT = 30.0  # process start-up plus a first sync on a loaded 2-core machine


def assert_invariant(db: Path) -> None:
    """The crash-safety invariant holds (read-only: the other processes keep writing)."""
    from scree.db import invariants
    from scree.db.connect import connect

    conn = connect(db, readonly=True)
    try:
        assert invariants.problems(conn) == []  # under the stride the index recorded
    finally:
        conn.close()


class Runner:
    """A live_runner.py child: one LiveIndex in its own process, driven by JSON lines."""

    def __init__(self, notes: Path, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, str(RUNNER), str(notes), *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.pid = self.proc.pid
        assert self._read()["ready"]

    def ask(self, op: str, **kw: object) -> dict:
        self.proc.stdin.write(json.dumps({"op": op, **kw}) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def _read(self, timeout: float = WAIT) -> dict:
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            if not sel.select(timeout):
                raise AssertionError(f"runner {self.pid} answered nothing within {timeout} s")
        line = self.proc.stdout.readline()
        assert line, f"runner {self.pid} exited (code {self.proc.poll()})"
        return json.loads(line)

    def status(self) -> dict:
        return self.ask("status")

    def paths(self, text: str, mode: str = "keyword") -> list[str]:
        return self.ask("search", text=text, mode=mode)["paths"]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        self.proc.stdin.close()
        self.proc.stdout.close()


def eventually(predicate: Callable[[], bool], timeout: float = WAIT) -> bool:
    return _eventually(predicate, timeout)


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    write(root, "ops/retention.md", "# Retention\n\nAudit logs are kept for ninety days, then purged.\n")
    write(root, "team/oncall.md", "# On call\n\nThe pager rotates weekly between four engineers.\n")
    return root


@pytest.fixture
def runners():
    started: list[Runner] = []

    def _start(notes: Path, *args: str) -> Runner:
        r = Runner(notes, *args)
        started.append(r)
        return r

    yield _start
    for r in started:
        r.close()


def test_an_idle_reader_holds_no_watches_and_loads_the_model_only_for_a_semantic_query(notes, runners):
    writer = runners(notes)
    assert writer.ask("wait", state="complete", timeout=WAIT)["ok"]
    reader = runners(notes)
    st = reader.status()
    assert (st["role"], st["state"], st["indexed_files"]) == ("reader", "complete", 2)
    assert inotify_watch_count(writer.pid) > 0
    assert inotify_watch_count(reader.pid) == 0
    assert reader.paths("ninety days") == ["ops/retention.md"]
    assert reader.ask("probe") == {"onnxruntime": False, "model_loaded": False, "watches": 0}
    hits = reader.paths("how long are audit logs kept", mode="semantic")
    assert hits[0] == "ops/retention.md"
    assert reader.ask("probe")["model_loaded"] is True
    assert inotify_watch_count(reader.pid) == 0


def test_a_sigkilled_writer_is_replaced_by_a_reader_that_indexes_the_missed_edit(notes, runners):
    # How soon, under the production 5 s retry, is measured by benchmarks/live_timings.py.
    first = runners(notes)
    assert first.ask("wait", state="complete", timeout=WAIT)["ok"]
    second = runners(notes, "--lock-retry", "0.2")
    assert (first.status()["role"], second.status()["role"]) == ("writer", "reader")
    lock = index_location(notes.resolve(), load_config()).lock
    assert read_holder(lock).pid == first.pid

    first.proc.send_signal(signal.SIGKILL)
    first.proc.wait(timeout=10)
    assert_invariant(lock.parent / "index.db")
    write(notes, "ops/retention.md", "# Retention\n\nAudit logs are kept for a fortnight.\n")  # nobody writes

    assert second.ask("wait", role="writer", timeout=WAIT)["ok"]
    assert eventually(lambda: second.paths("fortnight") == ["ops/retention.md"], timeout=10.0)
    assert second.paths("ninety") == []
    assert read_holder(lock).pid == second.pid
    assert_invariant(lock.parent / "index.db")
    assert eventually(lambda: inotify_watch_count(second.pid) > 0, timeout=10.0)
    assert second.ask("stop") == {"stopped": True}
