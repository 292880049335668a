"""Time from the start of a first build to the first keyword answer, and to full vectors.

    uv run --frozen python benchmarks/first_answer.py                     # bench corpus
    uv run --frozen python benchmarks/first_answer.py --scale 10 --embed-limit 120
    uv run --frozen python benchmarks/first_answer.py --scale 110 --embed-limit 60   # ~200 MB

A fresh child process builds a new index of a copy of the corpus (`--scale N`: N copies, each in its
own folder) with the configured embedder (the local model by default), as `scree index` does:
stage one (chunks and keyword rows), then stage two (vectors). A second thread of the child, on its
own read connection, searches by keyword every 50 ms for a rare word of the last note of the walk
(so the answer needs the whole of stage one) and records when that note first answers.

With `--embed-limit S`, stage two stops after S seconds and the time to full vectors is extrapolated
from its measured rate (the printout says so). Peak RSS is the child's ru_maxrss.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Beside the checkout (/work/main -> /work/shared), or from a worktree one level deeper.
CORPUS = next((p for p in (HERE.parent.parent / "shared" / "bench" / "corpus",
                           HERE.parent.parent.parent / "shared" / "bench" / "corpus") if p.exists()),
              HERE.parent.parent / "shared" / "bench" / "corpus")

CHILD = r"""
import json, re, resource, sys, threading, time
from collections import Counter
from pathlib import Path
from scree.config import load_config
from scree.workspace import Workspace
from scree.index.sync import sync
from scree.notes.walk import walk_notes
from scree.search.search import Query, search

folder, limit = Path(sys.argv[1]), float(sys.argv[2])
ws = Workspace.from_config(load_config().with_overrides(notes=folder))
policy = ws.policy()
paths = [p for p in walk_notes(policy) if isinstance(p, str)]
last = paths[-1]
# A word of the last note that few other notes hold (counted in the last copy only: copies repeat).
top = last.split("/")[0]
df = Counter()
for p in paths:
    if p.startswith(top + "/"):
        df.update(set(re.findall(r"[a-z]{6,}", (folder / p).read_text(errors="replace").lower())))
own = sorted(set(re.findall(r"[a-z]{6,}", (folder / last).read_text(errors="replace").lower())), key=lambda w: (df[w], w))
word = own[0]
index = ws.open_index()
embedder = ws.embedder()
t0 = time.perf_counter()
first = {}

def poll():
    reader = ws.open_index()
    while "t" not in first and not done.is_set():
        try:
            # Filtered to the last note: with --scale N its copies in the other folders hold the word too.
            hits = search(reader, policy, embedder, Query(word, k=5, mode="keyword", paths=(last,))).hits
        except Exception:
            hits = []
        if any(h.path == last for h in hits):
            first["t"] = time.perf_counter() - t0
            return
        time.sleep(0.05)

done = threading.Event()
poller = threading.Thread(target=poll, daemon=True)
poller.start()
stop_at = [None]
def should_stop():
    return stop_at[0] is not None and time.perf_counter() > stop_at[0]

class Marks:
    def start(self, n): pass
    def advance(self, c): pass
    def finish(self):
        marks["keyword"] = time.perf_counter() - t0
        if limit > 0:
            stop_at[0] = time.perf_counter() + limit
    def embedding(self, done_, total):
        marks["embedded"], marks["total"] = done_, total

marks = {}
report = sync(index, policy, embedder, progress=Marks(), should_stop=should_stop)
wall = time.perf_counter() - t0
poller.join(30)
done.set()
from scree.db import queries
v = queries.vector_progress(index.conn)
mb = sum(f.stat().st_size for f in folder.rglob("*.md")) / 1e6
print(json.dumps({"files": len(report.added), "chunks": v.total, "embedded": v.embedded, "mb": mb,
                  "query": word, "first_answer": first.get("t"), "stage_one": marks.get("keyword"),
                  "seconds": wall, "stage_two_seconds": wall - report.keyword_seconds,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def copy_corpus(src: Path, dst: Path, scale: int) -> None:
    if scale == 1:
        shutil.copytree(src, dst)
        return
    for i in range(scale):
        shutil.copytree(src, dst / f"copy{i:03}")


def run(corpus: Path, scale: int, limit: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "corpus"
        copy_corpus(corpus, folder, scale)
        env = {**os.environ, "XDG_DATA_HOME": str(Path(tmp) / "data")}
        out = subprocess.run([sys.executable, "-c", CHILD, str(folder), str(limit)], capture_output=True,
                             text=True, env=env)
        if out.returncode != 0:
            raise SystemExit(f"the build failed:\n{out.stderr[-2000:]}")
        return json.loads(out.stdout.strip().splitlines()[-1])


def describe(name: str, r: dict) -> str:
    rate = r["embedded"] / r["stage_two_seconds"] if r["stage_two_seconds"] > 0 else 0.0
    full = r["embedded"] >= r["chunks"]
    total = r["seconds"] if full else r["stage_one"] + r["chunks"] / rate if rate else float("nan")
    first = r["first_answer"]
    share = f"{100 * first / total:.1f}%" if first else "n/a"
    shown = f"{first:.1f} s" if first else "not seen by the poller"
    return (f"{name}: {r['files']} files, {r['mb']:.1f} MB, {r['chunks']} chunks | first keyword answer "
            f"{shown} (stage one {r['stage_one']:.1f} s) | full vectors "
            f"{total:.0f} s{'' if full else ' (extrapolated: stage two stopped after ' + str(r['embedded']) + ' chunks)'}"
            f" | stage two {rate:.1f} chunks/s | first answer = {share} of the full build | peak RSS "
            f"{r['peak_rss_mb']:.0f} MB")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--scale", type=int, default=1, help="copies of the corpus (10: the 10x synthetic corpus)")
    ap.add_argument("--embed-limit", type=float, default=0.0,
                    help="stop stage two after this many seconds and extrapolate (0: embed everything)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    r = run(args.corpus, args.scale, args.embed_limit)
    print(json.dumps(r) if args.json else describe("bench corpus" if args.scale == 1 else f"{args.scale}x corpus", r))


if __name__ == "__main__":
    main()
