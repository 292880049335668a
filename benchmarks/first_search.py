"""A cold `scree search` on a fresh folder: time to results, then stage two in the background (issue 29).

    uv run --frozen python benchmarks/first_search.py                       # 11 copies of the bench corpus: 1,067 notes
    uv run --frozen python benchmarks/first_search.py --scale 1 --follow 900  # 97 notes, followed to the end

Copies the shared bench corpus `--scale` times into a new folder (each copy in its own subfolder) and,
with a new data dir (no index, no recorded rate), runs the real CLI as a user would, with the
configured embedder (the local model by default): `scree search "QUESTION"`. It prints the wall time
until that process exited with its results, the mode it answered in, and its notes (the vectors note
and the background writer's pid). Then it follows stage two for `--follow` seconds with `scree status
--json` (vectors made, the writer), and when every chunk has its vectors runs the same search again
(its mode and time). A writer still running at the end is stopped (SIGTERM; it is this run's child's).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = next((p for p in (HERE.parent.parent / "shared" / "bench" / "corpus",
                           HERE.parent.parent.parent / "shared" / "bench" / "corpus") if p.exists()),
              HERE.parent.parent / "shared" / "bench" / "corpus")
QUESTION = "how do I make a service wait until its database is healthy"


def scree(env: dict[str, str], *args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "scree.cli", *args], env=env, capture_output=True, text=True,
                          timeout=1800)
    return time.perf_counter() - t, proc


def status(env: dict[str, str], folder: Path) -> dict:
    _, proc = scree(env, "status", "--json", "--notes", str(folder))
    return json.loads(proc.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--scale", type=int, default=11, help="copies of the bench corpus (97 notes each)")
    ap.add_argument("--follow", type=float, default=60.0, help="seconds to follow stage two after the search")
    ap.add_argument("--every", type=float, default=15.0, help="seconds between status samples")
    ap.add_argument("--query", default=QUESTION)
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="scree-first-search-"))
    folder = work / "notes"
    for i in range(args.scale):
        shutil.copytree(CORPUS, folder / f"copy{i:02}")
    notes = sum(1 for p in folder.rglob("*.md"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCREE_")}
    env.update(SCREE_DATA_DIR=str(work / "data"))
    print(f"folder: {notes} notes ({args.scale} copies of the bench corpus), new index, embedder "
          f"{os.environ.get('SCREE_EMBEDDER', 'local')}; load average {os.getloadavg()[0]:.2f}")
    writer: int | None = None
    try:
        took, proc = scree(env, "search", "--json", "--notes", str(folder), args.query)
        if proc.returncode != 0:
            print(proc.stderr)
            return 1
        answer = json.loads(proc.stdout)
        print(f"cold `scree search`: results after {took:.1f} s (wall, process start to exit), mode "
              f"{answer['mode']}, first hit {answer['results'][0]['path'] if answer['results'] else None}")
        for note in answer.get("notes", []):
            print(f"  note: {note}")
            if "(pid " in note:
                writer = int(note.split("(pid ")[1].split(",")[0])
        t0 = time.monotonic()
        while True:
            s = status(env, folder)
            print(f"  +{time.monotonic() - t0:5.0f} s  vectors {s['vectors']:,} of {s['chunks']:,}  "
                  f"writer: {s['writer'] or 'none'}")
            if s["stage_two"].startswith("done") and s["writer"] is None:
                took, again = scree(env, "search", "--json", "--notes", str(folder), args.query)
                later = json.loads(again.stdout)
                print(f"later `scree search`: {took:.1f} s, mode {later['mode']}, first hit "
                      f"{later['results'][0]['path'] if later['results'] else None}, notes {later.get('notes', [])}")
                writer = None
                break
            if time.monotonic() - t0 > args.follow:
                print(f"  stage two still running after {args.follow:g} s: stopped here (raise --follow to wait)")
                break
            time.sleep(args.every)
    finally:
        if writer is not None:
            try:
                os.kill(writer, signal.SIGTERM)
                for _ in range(100):
                    os.kill(writer, 0)
                    time.sleep(0.1)
            except ProcessLookupError:
                pass
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
