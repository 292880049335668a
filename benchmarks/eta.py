"""How right stage two's "about N to go" is: the estimate against the time that really remained (issue 26, item 10).

    uv run --frozen python benchmarks/eta.py [--files 150] [--every 2]

Indexes a synthetic folder (benchmarks/synth.py) up to the end of stage one, then runs `scree reindex`
(stage two with the real model; `--server DIR`: another checkout's package) and, every `--every` seconds, reads what `scree status` would: the
chunks with vectors and the run's clock its writer committed (`indexstatus.StageTwoClock`). Once the
run ends, each sample's estimate is set against the time that really remained, and so is the estimate
the old rule gave (a rate recorded by an earlier finished run, else an assumed 13 chunks/s). Prints
the ratio estimate / real at a few points of the run ("estimating" before three batches).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from interrupts import SERVER, db_of, prepare  # noqa: E402

OLD_ASSUMED_RATE = 13.0  # what the status assumed before a stage two had finished once on the index


def sample(db: Path) -> tuple[int, int, dict[str, str]] | None:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            done, total = conn.execute("select coalesce(sum(windows > 0), 0), count(*) from chunks").fetchone()
            meta = dict(conn.execute("select key, value from meta").fetchall())
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return done, total, meta


def main() -> int:
    from scree.index.indexstatus import decode_clock

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=150)
    ap.add_argument("--every", type=float, default=2.0)
    ap.add_argument("--server", type=Path, help="the scree package's parent folder to run (default: this checkout's)")
    args = ap.parse_args()
    if args.server is not None:
        SERVER[0] = args.server.resolve()
    with tempfile.TemporaryDirectory(prefix="scree-eta-") as tmp_name:
        tmp = Path(tmp_name)
        folder, template = prepare(tmp, args.files)
        data = tmp / "run"
        shutil.copytree(template, data)
        db = db_of(folder, data)
        env = {**os.environ, "SCREE_DATA_DIR": str(data), "PYTHONPATH": str(SERVER[0])}
        for var in ("SCREE_TEST_EMBEDDER", "SCREE_EMBEDDER"):
            env.pop(var, None)
        began = time.time()
        proc = subprocess.Popen([sys.executable, "-m", "scree.cli", "reindex", "--notes", str(folder)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples: list[tuple[float, int, int, float | None]] = []  # (time, done, total, estimate in s or None)
        while proc.poll() is None:
            got = sample(db)
            if got is not None:
                done, total, meta = got
                clock = decode_clock(meta)
                rate = clock.rate if clock is not None else 0.0
                samples.append((time.time(), done, total, (total - done) / rate if rate > 0 else None))
            time.sleep(args.every)
        ended = time.time()
        if proc.returncode != 0:
            print(f"scree reindex failed: {proc.returncode}")
            return 1
    samples = [s for s in samples if s[1] < s[2]]
    total = samples[-1][2] if samples else 0
    print(f"{args.files} notes, {total} chunks; stage two took {ended - began:.0f} s "
          f"({total / max(ended - began, 1e-9):.1f} chunks/s overall), {len(samples)} samples every {args.every:g} s")
    print("  at   | vectors | real left | estimate (ratio)       | old rule at 13 chunks/s (ratio)")
    for fraction in (0.0, 0.1, 0.25, 0.5, 0.75, 0.9):
        t, done, total, estimate = samples[min(len(samples) - 1, int(fraction * len(samples)))]
        real = ended - t
        old = (total - done) / OLD_ASSUMED_RATE
        shown = "estimating" if estimate is None else f"{estimate:6.0f} s ({estimate / real:4.2f})"
        print(f"  {fraction:4.0%} | {done:5d}   | {real:6.0f} s  | {shown:22} | {old:6.0f} s ({old / real:4.2f})")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} cpus, load average {load:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
