"""Collecting the vocabulary (names from code and manifests): time and peak memory, and no-op re-syncs.

    uv run --frozen python benchmarks/vocab.py              # httpx corpus, this repo, 1,000 code files
    uv run --frozen python benchmarks/vocab.py --full-noop  # also a full no-op sync: 1,000 notes + 1,000 code files

Each measurement runs in a fresh child process with its own data dir, so peak RSS (ru_maxrss) is that
run's own; `base_rss_mb` is the child's peak before collecting (Python, numpy, SQLite loaded).
The full no-op first builds the notes' index with the configured embedder (the real model: minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
HTTPX = REPO.parent / "shared" / "bench" / "repos" / "httpx" / "corpus"

COLLECT = r"""
import json, resource, sys, time
from pathlib import Path
from scree.config import load_config
from scree.db import queries
from scree.workspace import Workspace
from scree.vocabsync import collect_vocabulary
ws = Workspace.from_config(load_config().with_overrides(notes=Path(sys.argv[1])))
index = ws.open_index()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
runs = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    r = collect_vocabulary(index, ws.policy())
    runs.append({"seconds": time.perf_counter() - t, "files": r.files, "read": r.read,
                 "skipped_big": r.skipped_big, "skipped_cap": r.skipped_cap})
c = queries.name_counts(index.conn)
print(json.dumps({"runs": runs, "names": c.total, "manifest": c.manifest, "code": c.code, "base_rss_mb": base,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

SYNC = r"""
import json, sys, time
from pathlib import Path
from scree.config import load_config
from scree.workspace import Workspace
from scree.sync import sync
ws = Workspace.from_config(load_config().with_overrides(notes=Path(sys.argv[1])))
index = ws.open_index()
t = time.perf_counter()
report = sync(index, ws.policy(), ws.embedder())
print(json.dumps({"seconds": time.perf_counter() - t, "unchanged": report.unchanged, "chunks": report.chunks,
                  "model_loaded": "onnxruntime" in sys.modules}))
"""


def child(script: str, data: Path, *args: str) -> dict:
    env = {**os.environ, "XDG_DATA_HOME": str(data)}
    out = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout)


def write_code(root: Path, files: int, seed: int = 11) -> Path:
    """`files` Python modules of a few classes, methods and constants each, in 20 packages."""
    rng = random.Random(seed)
    syll = ["ka", "lo", "mi", "ren", "tor", "vex", "zu", "pra", "sel", "dun", "fo", "gri"]

    def ident() -> str:
        return "".join(rng.choice(syll) for _ in range(rng.randint(2, 4)))

    for i in range(files):
        p = root / f"pkg{i % 20:02}" / f"mod{i:05}.py"
        p.parent.mkdir(parents=True, exist_ok=True)
        lines = [f'"""Module {i}."""', "import os", f"from pkg{(i + 1) % 20:02} import {ident()}", ""]
        lines.append(f"{ident().upper()}_LIMIT = {rng.randint(1, 99)}")
        for _ in range(3):
            lines += ["", f"class {ident().capitalize()}{ident().capitalize()}:"]
            for _ in range(4):
                lines += [f"    def {ident()}_{ident()}(self, value):", "        # a comment", "        return value", ""]
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "pyproject.toml").write_text('[project]\nname = "synthetic"\ndependencies = ["httpcore", "anyio"]\n')
    return root


def report_collect(label: str, r: dict) -> None:
    first, *rest = r["runs"]
    noop = min(x["seconds"] for x in rest) if rest else float("nan")
    print(f"{label}: {first['files']} code files and manifests, {r['names']} names "
          f"({r['manifest']} from manifests, {r['code']} from code); first collection {first['seconds'] * 1000:.0f} ms, "
          f"no-op {noop * 1000:.0f} ms (files read: {rest[-1]['read'] if rest else '-'}); "
          f"peak RSS {r['peak_rss_mb']:.0f} MB (before collecting {r['base_rss_mb']:.0f} MB); "
          f"skipped: {first['skipped_big']} over 1 MB, {first['skipped_cap']} past the cap")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--full-noop", action="store_true", help="also a full no-op sync of 1,000 notes + 1,000 code files")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        httpx = t / "httpx"
        shutil.copytree(HTTPX, httpx)
        report_collect("httpx corpus", child(COLLECT, t / "d1", str(httpx), "4"))
        report_collect("this repository", child(COLLECT, t / "d2", str(REPO), "4"))
        code = write_code(t / "code", 1000)
        report_collect("1,000 synthetic code files", child(COLLECT, t / "d3", str(code), "4"))
        if args.full_noop:
            sys.path.insert(0, str(HERE))
            from synth import write_corpus

            both = write_corpus(t / "both", 1000, sections=1)
            write_code(both / "src", 1000)
            first = child(SYNC, t / "d4", str(both))
            print(f"1,000 notes + 1,000 code files, first sync: {first['chunks']} chunks in {first['seconds']:.1f}s")
            runs = [child(SYNC, t / "d4", str(both)) for _ in range(3)]
            secs = sorted(r["seconds"] for r in runs)
            print(f"  no-op re-sync (notes and vocabulary): best {secs[0] * 1000:.0f} ms, median {secs[1] * 1000:.0f} ms, "
                  f"model loaded: {any(r['model_loaded'] for r in runs)}")


if __name__ == "__main__":
    main()
