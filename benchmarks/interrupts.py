"""Signals at random points of stage two, with the real model: no abort, exit 130/143, how fast (issue 26).

    uv run --frozen python benchmarks/interrupts.py [-n 20] [--targets reindex,search,watch,serve,serve-http]
                                                    [--files 300] [--via-uv]

One synthetic folder (benchmarks/synth.py) is indexed once up to the end of stage one, without the model;
each run starts a fresh copy of that index, so stage two (the model embedding every chunk) is what the
command does. A run waits until the command has stored its first vectors, waits a random 0-`--spread`
seconds more, then signals it as a terminal or a supervisor would: SIGINT, SIGTERM, or SIGINT twice
50 ms apart (a terminal's Ctrl-C also reaches `uv run`, which forwards it), in turn. It records the
exit status, the time from the signal to the exit, whether the process aborted (rc 134 / -6, or
onnxruntime's "terminate called" on stderr) or printed a traceback, and whether the index is
consistent afterwards (`db.invariants.problems`) with the writer lock free.

`search` is measured in whatever form it has: when it embeds in the foreground it is signalled during
that stage two; when a calibration run shows it answers without storing vectors itself, it is
signalled at a random point of its own lifetime (query embedding, sync, answer).
`serve` is the stdio server, started with a client's handshake (its index starts on it) and its stdin
kept open; `serve-http` listens on a free port. `--via-uv` runs each command under `uv run` and
signals the process group, as a terminal does. `--server DIR` runs another checkout's package (its
`server/`), for a before/after.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from synth import write_corpus  # noqa: E402

KINDS = ("SIGINT", "SIGTERM", "SIGINT twice")
TARGETS = ("reindex", "search", "watch", "serve", "serve-http")
QUERY = "how is the retention of the backup cluster configured"
HANDSHAKE = "".join(json.dumps(m) + "\n" for m in (
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"}))


@dataclass
class Run:
    kind: str
    code: int | None
    seconds: float  # from the (first) signal to the exit
    aborted: bool
    traceback: bool
    consistent: bool
    ended_first: bool = False  # the command ended before the signal was sent


@dataclass
class Results:
    runs: list[Run] = field(default_factory=list)


SERVER = [ROOT / "server"]  # the package the commands run (`--server`)


def argv_for(target: str, folder: Path, via_uv: bool) -> list[str]:
    cmd = {"reindex": ["reindex"], "search": ["search", QUERY], "watch": ["watch"], "serve": ["serve"],
           "serve-http": ["serve", "--http", "--port", "0"]}[target]
    args = [cmd[0], "--notes", str(folder), *cmd[1:]]
    if via_uv:
        return ["uv", "run", "--frozen", "--project", str(ROOT), "scree", *args]
    return [sys.executable, "-m", "scree.cli", *args]


def vectors(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return conn.execute("select count(*) from chunks where windows > 0").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def prepare(tmp: Path, files: int) -> tuple[Path, Path]:
    """The notes folder and a data dir whose index holds stage one only (no model loaded)."""
    from scree.config import load_config
    from scree.index.sync import sync
    from scree.workspace import Workspace

    folder = tmp / "notes"
    write_corpus(folder, files)
    (folder / ".git").mkdir(exist_ok=True)
    template = tmp / "template"
    os.environ["SCREE_DATA_DIR"] = str(template)
    ws = Workspace.from_config(load_config().with_overrides(notes=folder))
    index = ws.open_index()
    try:
        sync(index, ws.policy(), ws.embedder(), embed=False)
    finally:
        index.close()
    del os.environ["SCREE_DATA_DIR"]
    return folder, template


def check(folder: Path, data: Path) -> bool:
    from scree.config import load_config
    from scree.db import invariants
    from scree.index.store import open_index
    from scree.live.lock import WriterLock
    from scree.locate import index_location

    os.environ["SCREE_DATA_DIR"] = str(data)
    try:
        loc = index_location(folder, load_config())
        lock = WriterLock(loc.lock)
        if not lock.try_acquire():
            return False
        try:
            index = open_index(loc, folder)
            try:
                return invariants.problems(index.conn) == []
            finally:
                index.close()
        finally:
            lock.release()
    finally:
        del os.environ["SCREE_DATA_DIR"]


def end_background_writer(folder: Path, data: Path) -> None:
    """Kill the detached `scree reindex` a search starts for stage two (issue 29) and wait for it to go:
    it is not the command measured, and it holds the lock `check` takes."""
    from scree.config import load_config
    from scree.live.lock import read_holder
    from scree.locate import index_location

    os.environ["SCREE_DATA_DIR"] = str(data)
    try:
        holder = read_holder(index_location(folder, load_config()).lock)
    finally:
        del os.environ["SCREE_DATA_DIR"]
    if holder is None:
        return
    try:
        os.kill(holder.pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 30
    while Path(f"/proc/{holder.pid}").exists() and time.monotonic() < deadline:
        try:
            if Path(f"/proc/{holder.pid}/stat").read_text().split(")")[-1].split()[0] == "Z":
                break
        except OSError:
            break
        time.sleep(0.05)


def db_of(folder: Path, data: Path) -> Path:
    from scree.config import load_config
    from scree.locate import index_location

    os.environ["SCREE_DATA_DIR"] = str(data)
    try:
        return index_location(folder, load_config()).db
    finally:
        del os.environ["SCREE_DATA_DIR"]


def start(target: str, folder: Path, data: Path, via_uv: bool) -> tuple[subprocess.Popen, Path]:
    env = {**os.environ, "SCREE_DATA_DIR": str(data), "PYTHONPATH": str(SERVER[0])}
    for var in ("SCREE_TEST_EMBEDDER", "SCREE_EMBEDDER"):
        env.pop(var, None)
    err = data.parent / f"{data.name}.stderr"
    proc = subprocess.Popen(argv_for(target, folder, via_uv), env=env, start_new_session=True,
                            stdin=subprocess.PIPE if target == "serve" else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=err.open("wb"))
    if target == "serve":
        assert proc.stdin is not None
        proc.stdin.write(HANDSHAKE.encode())
        proc.stdin.flush()  # kept open: a stdio server ends when its stdin closes
    return proc, err


def calibrate_search(folder: Path, template: Path, tmp: Path, via_uv: bool) -> tuple[bool, float]:
    """(whether `scree search` embeds in the foreground, how long an uninterrupted one takes). Since
    issue 29 a search leaves a folder's vectors to a background `scree reindex` it starts, and says so."""
    data = tmp / "calibrate"
    shutil.copytree(template, data)
    t0 = time.monotonic()
    proc, err = start("search", folder, data, via_uv)
    try:
        proc.wait(timeout=600)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    took = time.monotonic() - t0
    embedded = "being indexed in the background" not in err.read_text(errors="replace")
    end_background_writer(folder, data)
    shutil.rmtree(data)
    err.unlink()
    return embedded, took


def one_run(target: str, kind: str, folder: Path, template: Path, tmp: Path, n: int, *, via_uv: bool,
            spread: float, lifetime: float | None) -> Run:
    data = tmp / f"run-{target}-{n}"
    shutil.copytree(template, data)
    db = db_of(folder, data)
    proc, err = start(target, folder, data, via_uv)
    started = time.monotonic()
    if lifetime is None:  # wait for stage two, then a random moment of it
        while proc.poll() is None and vectors(db) == 0 and time.monotonic() - started < 300:
            time.sleep(0.05)
        time.sleep(random.uniform(0, spread))
    else:
        time.sleep(random.uniform(0.05, 0.95) * lifetime)
    ended_first = proc.poll() is not None
    sig = signal.SIGTERM if kind == "SIGTERM" else signal.SIGINT
    t = time.monotonic()
    if not ended_first:
        os.killpg(proc.pid, sig)
        if kind == "SIGINT twice":
            time.sleep(0.05)
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass
    try:
        code = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        code = proc.wait()
    seconds = time.monotonic() - t
    if target == "search":
        end_background_writer(folder, data)
    text = err.read_text(errors="replace")
    aborted = code in (134, -6) or "terminate called" in text or "GetElementType" in text or "Fatal Python" in text
    run = Run(kind, code, seconds, aborted, "Traceback" in text, check(folder, data), ended_first)
    if aborted or run.traceback:
        print(f"    {target} {kind}: rc {code}\n" + "\n".join("      " + line for line in text.splitlines()[-12:]),
              flush=True)
    shutil.rmtree(data)
    err.unlink()
    return run


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=20, help="signals per command")
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--files", type=int, default=300, help="synthetic notes (4 sections each)")
    ap.add_argument("--spread", type=float, default=5.0, help="seconds of stage two over which signals land")
    ap.add_argument("--via-uv", action="store_true", help="run each command under `uv run`, signal its process group")
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--server", type=Path, help="the scree package's parent folder to run (default: this checkout's)")
    args = ap.parse_args()
    if args.server is not None:
        SERVER[0] = args.server.resolve()
    random.seed(args.seed)
    total = Counter()
    with tempfile.TemporaryDirectory(prefix="scree-interrupts-") as tmp_name:
        tmp = Path(tmp_name)
        folder, template = prepare(tmp, args.files)
        print(f"{args.files} notes, stage one indexed; {args.n} signals per command "
              f"({', '.join(KINDS)} in turn), {'under uv run' if args.via_uv else 'python -m scree.cli'}"
              f"{f' from {SERVER[0]}' if args.server else ''}")
        for target in args.targets.split(","):
            lifetime = None
            if target == "search":
                embeds, took = calibrate_search(folder, template, tmp, args.via_uv)
                if not embeds:
                    lifetime = took
                    print(f"  search does not embed in the foreground ({took:.1f} s uninterrupted): "
                          "signalled at random points of its lifetime")
            runs = [one_run(target, KINDS[i % len(KINDS)], folder, template, tmp, i, via_uv=args.via_uv,
                            spread=args.spread, lifetime=lifetime) for i in range(args.n)]
            signalled = [r for r in runs if not r.ended_first]
            times = [r.seconds for r in signalled]
            codes = Counter(r.code for r in signalled)
            aborts = sum(r.aborted for r in runs)
            total.update(runs=len(runs), aborts=aborts, tracebacks=sum(r.traceback for r in runs),
                         inconsistent=sum(not r.consistent for r in runs))
            print(f"{target:10} {len(signalled):2} signalled ({len(runs) - len(signalled)} ended first), "
                  f"exit codes {dict(sorted(codes.items(), key=str))}, aborts {aborts}, "
                  f"tracebacks {sum(r.traceback for r in runs)}, index consistent and lock free "
                  f"{sum(r.consistent for r in runs)}/{len(runs)}; signal to exit: median "
                  f"{statistics.median(times) if times else float('nan'):.2f} s, max "
                  f"{max(times) if times else float('nan'):.2f} s, over 1 s: {sum(t > 1.0 for t in times)}",
                  flush=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"total: {total['runs']} runs, {total['aborts']} aborts, {total['tracebacks']} tracebacks, "
          f"{total['inconsistent']} inconsistent; machine: {os.cpu_count()} cpus, load average {load:.1f}")
    return 1 if total["aborts"] or total["tracebacks"] or total["inconsistent"] else 0


if __name__ == "__main__":
    sys.exit(main())
