"""Indexing throughput, the model's share of the time, peak RSS, and a no-op re-sync of 1,000 files.

    uv run --frozen python benchmarks/indexing.py            # bench corpus + 1,000-file no-op re-sync
    uv run --frozen python benchmarks/indexing.py --skip-noop
    uv run --frozen python benchmarks/indexing.py --skip-noop --pieces-only-chars 0   # every chunk whole too

Each measurement runs in a fresh child process, so peak RSS (ru_maxrss) is that run's own.
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
CORPUS = HERE.parent.parent / "shared" / "bench" / "corpus"

CHILD = r"""
import json, os, resource, sys, time
from pathlib import Path
import scree.embed.pieces as pieces
if os.environ.get("BENCH_PIECES_ONLY_CHARS"):  # --pieces-only-chars: measure the rule against another value
    pieces.PIECES_ONLY_CHARS = int(os.environ["BENCH_PIECES_ONLY_CHARS"])
from scree.config import load_config
from scree.workspace import Workspace
from scree.index.sync import sync
ws = Workspace.from_config(load_config().with_overrides(notes=Path(sys.argv[1])))
index = ws.open_index()
t = time.perf_counter()
report = sync(index, ws.policy(), ws.embedder())
wall = time.perf_counter() - t
print(json.dumps({"files": len(report.added) + len(report.updated), "unchanged": report.unchanged,
                  "chunks": report.chunks, "seconds": wall, "embed_seconds": report.embed_seconds,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "cpu_seconds": time.process_time(),
                  "windows": index.conn.execute("select coalesce(sum(windows), 0) from chunks").fetchone()[0],
                  "model_loaded": "onnxruntime" in sys.modules}))
"""


def run_child(folder: Path, data: Path, pieces_only_chars: int | None = None) -> dict:
    env = {**os.environ, "XDG_DATA_HOME": str(data)}
    if pieces_only_chars is not None:
        env["BENCH_PIECES_ONLY_CHARS"] = str(pieces_only_chars)
    out = subprocess.run([sys.executable, "-c", CHILD, str(folder)], capture_output=True, text=True, env=env,
                         check=True)
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--skip-noop", action="store_true")
    ap.add_argument("--pieces-only-chars", type=int, help="override embed.pieces.PIECES_ONLY_CHARS (0: whole text too)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        folder = Path(tmp) / "corpus"
        shutil.copytree(args.corpus, folder)
        r = run_child(folder, data, args.pieces_only_chars)
        print(f"bench corpus: {r['files']} files, {r['chunks']} chunks in {r['seconds']:.1f}s "
              f"= {r['chunks'] / r['seconds']:.1f} chunks/s; model time {r['embed_seconds']:.1f}s "
              f"({100 * r['embed_seconds'] / r['seconds']:.1f}% of the sync); peak RSS {r['peak_rss_mb']:.0f} MB; "
              f"{r['windows']} windows; CPU {r['cpu_seconds']:.1f}s")
        r = run_child(folder, data)
        print(f"bench corpus no-op re-sync: {r['unchanged']} files in {r['seconds'] * 1000:.0f} ms, "
              f"model loaded: {r['model_loaded']}")
        if not args.skip_noop:
            sys.path.insert(0, str(HERE))
            from synth import write_corpus

            many = write_corpus(Path(tmp) / "many", 1000, sections=1)
            r = run_child(many, data)
            print(f"1,000-file folder first sync: {r['chunks']} chunks in {r['seconds']:.1f}s")
            runs = [run_child(many, data)["seconds"] for _ in range(3)]
            print(f"1,000-file no-op re-sync: best {min(runs) * 1000:.0f} ms, median {sorted(runs)[1] * 1000:.0f} ms "
                  f"(model loaded: False expected)")


if __name__ == "__main__":
    main()
