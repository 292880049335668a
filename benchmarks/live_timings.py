"""How fast the live index's moving parts react: the figures the tests used to assert as deadlines.

    uv run --frozen python benchmarks/live_timings.py [--repeat 3]

The tests check that each thing happens (and, for the debounce, not too early); how long it takes
depends on the machine's load, so it is measured here and printed, one line per figure:

  * `LiveIndex.start()`: how long the call takes (it must not wait for the first sync);
  * watcher: from a note's write to its delivery under the production 1.5 s debounce; `stop()` with
    a change still pending;
  * lock: `LockWaiter.stop()` during a 5 s retry interval; a waiter (0.2 s interval) taking the lock
    after its holder is SIGKILLed;
  * takeover: a reader process becoming the writer after the writer process is SIGKILLed, under the
    production 5 s lock retry (the issue's bound: 6 s);
  * edit, create, rename, delete: from the change on disk to the first keyword search that shows it,
    production debounce (the issue's bound: 2.5 s);
  * `scree watch`: from SIGTERM to exit.

Each figure is the median of `--repeat` runs (every run listed). Everything runs on a scratch folder
with scree's configured embedder (the local model by default).
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))
HELPERS = ROOT / "tests" / "helpers"  # lock_holder.py and live_runner.py: small child processes

NOTES = {
    "ops/retention.md": "# Retention\n\nAudit logs are kept for ninety days, then purged.\n",
    "ops/deploy.md": "# Deploy\n\nWe deploy with a blue green switch on Tuesdays.\n",
    "team/oncall.md": "# On call\n\nThe pager rotates weekly between four engineers.\n",
}
WAIT = 120.0


def make_notes(root: Path) -> Path:
    for rel, text in NOTES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def until(predicate: Callable[[], bool], timeout: float = WAIT) -> float:
    """Seconds until `predicate()` holds, checked every 10 ms (a benchmark may poll; tests wait on events)."""
    began = time.monotonic()
    pause = threading.Event()
    while not predicate():
        if time.monotonic() - began > timeout:
            raise TimeoutError(f"not within {timeout} s")
        pause.wait(0.01)
    return time.monotonic() - began


def read_line(proc: subprocess.Popen[str], stream: object, timeout: float = WAIT) -> str:
    with selectors.DefaultSelector() as sel:
        sel.register(stream, selectors.EVENT_READ)  # type: ignore[arg-type]
        if not sel.select(timeout):
            raise TimeoutError(f"pid {proc.pid} printed nothing within {timeout} s")
    return stream.readline()  # type: ignore[attr-defined]


# ----- the figures --------------------------------------------------------------------------------

def live_start(tmp: Path) -> float:
    from scree.config import Config
    from scree.live.live import LiveIndex
    from scree.workspace import Workspace

    live = LiveIndex(Workspace.from_config(Config(notes=make_notes(tmp / "notes"))))
    began = time.monotonic()
    live.start()
    took = time.monotonic() - began
    live.wait_until(lambda st: st.state == "complete", WAIT)
    live.stop()
    return took


def watcher_delivery(tmp: Path) -> float:
    from scree.notes.policy import NotesPolicy
    from scree.live.watcher import NotesWatcher

    notes = make_notes(tmp / "notes")
    delivered = threading.Event()
    watcher = NotesWatcher(notes, lambda: NotesPolicy.load(notes), lambda paths: delivered.set(), lambda: None)
    watcher.start()
    try:
        written = time.monotonic()
        (notes / "c.md").write_text("hello\n")
        if not delivered.wait(WAIT):
            raise TimeoutError("nothing delivered")
        return time.monotonic() - written
    finally:
        watcher.stop()


def watcher_stop(tmp: Path) -> float:
    from scree.notes.policy import NotesPolicy
    from scree.live.watcher import NotesWatcher

    notes = make_notes(tmp / "notes")
    watcher = NotesWatcher(notes, lambda: NotesPolicy.load(notes), lambda paths: None, lambda: None)
    watcher.start()
    (notes / "pending.md").write_text("x")  # still pending (1.5 s debounce) when we stop
    began = time.monotonic()
    watcher.stop(timeout=10.0)
    return time.monotonic() - began


def _holder(lock: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, str(HELPERS / "lock_holder.py"), str(lock)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert read_line(proc, proc.stdout).strip() == "locked"
    return proc


def waiter_stop(tmp: Path) -> float:
    from scree.live.lock import LockWaiter, WriterLock

    lock = tmp / "writer.lock"
    owner = WriterLock(lock)
    owner.try_acquire()
    waiter = LockWaiter(WriterLock(lock), lambda: None, interval=5.0)
    waiter.start()
    began = time.monotonic()
    waiter.stop(timeout=10.0)
    took = time.monotonic() - began
    owner.release()
    return took


def waiter_takeover(tmp: Path) -> float:
    from scree.live.lock import LockWaiter, WriterLock

    lock = tmp / "writer.lock"
    holder = _holder(lock)
    got = threading.Event()
    waiter = LockWaiter(WriterLock(lock), got.set, interval=0.2)
    waiter.start()
    try:
        holder.kill()
        holder.wait()
        killed = time.monotonic()
        if not got.wait(WAIT):
            raise TimeoutError("never took the lock")
        return time.monotonic() - killed
    finally:
        waiter.stop()
        waiter.lock.release()


class Runner:
    """tests/helpers/live_runner.py: one LiveIndex in its own process, driven by JSON lines."""

    def __init__(self, notes: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, str(HELPERS / "live_runner.py"), str(notes)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert json.loads(read_line(self.proc, self.proc.stdout))["ready"]

    def ask(self, op: str, **kw: object) -> dict:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"op": op, **kw}) + "\n")
        self.proc.stdin.flush()
        return json.loads(read_line(self.proc, self.proc.stdout))

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def process_takeover(tmp: Path) -> float:
    notes = make_notes(tmp / "notes")
    first = Runner(notes)
    second = None
    try:
        assert first.ask("wait", state="complete", timeout=WAIT)["ok"]
        second = Runner(notes)
        assert second.ask("status")["role"] == "reader"
        first.proc.send_signal(signal.SIGKILL)
        first.proc.wait()
        killed = time.monotonic()
        assert second.ask("wait", role="writer", timeout=WAIT)["ok"]
        return time.monotonic() - killed
    finally:
        first.close()
        if second is not None:
            second.close()


def change_to_searchable(tmp: Path) -> dict[str, float]:
    from scree.config import Config
    from scree.live.live import LiveIndex
    from scree.search.search import Query
    from scree.workspace import Workspace

    notes = make_notes(tmp / "notes")
    live = LiveIndex(Workspace.from_config(Config(notes=notes)))
    live.start()
    live.wait_until(lambda st: st.state == "complete", WAIT)

    def paths(words: str) -> set[str]:
        return {h.path for h in live.search(Query(words, k=20, mode="keyword")).hits}

    def indexed() -> int:
        return live.status().indexed_files

    # Delete is checked on the index, not on search: search re-checks every hit against the disk and
    # drops a deleted note at once, so it would measure nothing.
    changes: dict[str, tuple[Callable[[], None], Callable[[int], bool]]] = {
        "edit": (lambda: (notes / "ops/deploy.md").write_text("# Deploy\n\nA canary marmoset on Fridays.\n"),
                 lambda n: paths("marmoset") == {"ops/deploy.md"}),
        "create": (lambda: (notes / "team/new.md").write_text("# New\n\nThe quokka handbook lives here.\n"),
                   lambda n: paths("quokka") == {"team/new.md"}),
        "rename": (lambda: os.rename(notes / "team/oncall.md", notes / "team/pager.md"),
                   lambda n: paths("pager rotates") == {"team/pager.md"}),
        "delete": (lambda: (notes / "ops/retention.md").unlink(), lambda n: indexed() == n - 1),
    }
    took = {}
    try:
        for name, (change, seen) in changes.items():  # one at a time, each from a quiet index
            threading.Event().wait(2.0)  # the follow-up sync after the first one (or the last change) is over
            before = indexed()
            began = time.monotonic()
            change()
            until(lambda: seen(before))
            took[name] = time.monotonic() - began
    finally:
        live.stop()
    return took


def watch_sigterm(tmp: Path) -> float:
    notes = make_notes(tmp / "notes")
    proc = subprocess.Popen([sys.executable, "-m", "scree.cli", "watch", "--notes", str(notes)],
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "server")})
    try:
        while not read_line(proc, proc.stderr).startswith("scree: writer: complete"):
            pass
        began = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=WAIT)
        return time.monotonic() - began
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# ----- main ---------------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    os.environ.setdefault("XDG_DATA_HOME", tempfile.mkdtemp(prefix="scree-timings-data-"))

    def run(label: str, fn: Callable[[Path], float], unit: str = "s") -> None:
        values = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="scree-timings-") as tmp:
                values.append(fn(Path(tmp)))
        scale, fmt = (1000.0, "{:.0f}") if unit == "ms" else (1.0, "{:.2f}")
        shown = ", ".join(fmt.format(v * scale) for v in values)
        print(f"{label:58} median {fmt.format(statistics.median(values) * scale)} {unit}  ({shown})", flush=True)

    run("LiveIndex.start() returns", live_start, "ms")
    run("watcher: write -> delivery (debounce 1.5 s)", watcher_delivery)
    run("watcher: stop() with a change pending", watcher_stop, "ms")
    run("lock: LockWaiter.stop() in a 5 s interval", waiter_stop, "ms")
    run("lock: holder SIGKILLed -> waiter has it (interval 0.2 s)", waiter_takeover)
    run("takeover: writer SIGKILLed -> reader writes (retry 5 s)", process_takeover)
    per_kind: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="scree-timings-") as tmp:
            for name, value in change_to_searchable(Path(tmp)).items():
                per_kind.setdefault(name, []).append(value)
    for name, values in per_kind.items():
        shown = ", ".join(f"{v:.2f}" for v in values)
        print(f"{'searchable after ' + name + ' (debounce 1.5 s)':58} median {statistics.median(values):.2f} s  "
              f"({shown})", flush=True)
    run("scree watch: SIGTERM -> exit", watch_sigterm)
    return 0


if __name__ == "__main__":
    sys.exit(main())
