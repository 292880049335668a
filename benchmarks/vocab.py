"""Collecting the vocabulary (names from code and manifests): time and peak memory, and no-op re-syncs.

    uv run --frozen python benchmarks/vocab.py              # httpx corpus, this repo, 1,000 code files
    uv run --frozen python benchmarks/vocab.py --full-noop  # also a full no-op sync: 1,000 notes + 1,000 code files
    uv run --frozen python benchmarks/vocab.py --full-noop --fake-embedder   # the same, index built in seconds

Each measurement runs in a fresh child process with its own data dir, so peak RSS (ru_maxrss) is that
run's own; CPU time is printed beside wall time because on a shared machine only the former is stable; `base_rss_mb` is the child's peak before collecting (Python, numpy, SQLite loaded).
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
from scree.index.vocabsync import collect_vocabulary
ws = Workspace.from_config(load_config().with_overrides(notes=Path(sys.argv[1])))
index = ws.open_index()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
runs = []
for _ in range(int(sys.argv[2])):
    t, c = time.perf_counter(), time.process_time()
    r = collect_vocabulary(index, ws.policy())
    runs.append({"seconds": time.perf_counter() - t, "cpu": time.process_time() - c, "files": r.files, "read": r.read,
                 "skipped_big": r.skipped_big, "skipped_cap": r.skipped_cap})
from scree.search.vocabsearch import load_vocabulary
q = "How do I size the connection pool with Limits, httpcore and PageFetcher.fetch_page_batch?"
t = time.perf_counter()
for _ in range(200):
    load_vocabulary(index, q)
lookup_ms = (time.perf_counter() - t) / 200 * 1000
c = queries.name_counts(index.conn)
print(json.dumps({"runs": runs, "lookup_ms": lookup_ms, "names": c.total, "manifest": c.manifest, "code": c.code, "base_rss_mb": base,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

SYNC = r"""
import json, sys, time
from pathlib import Path
from scree.config import load_config
from scree.workspace import Workspace
from scree.index.sync import sync
ws = Workspace.from_config(load_config().with_overrides(notes=Path(sys.argv[1])))
index = ws.open_index()
t, c = time.perf_counter(), time.process_time()
report = sync(index, ws.policy(), ws.embedder())
print(json.dumps({"seconds": time.perf_counter() - t, "cpu": time.process_time() - c, "unchanged": report.unchanged, "chunks": report.chunks,
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
    noop = min(rest, key=lambda x: x["seconds"]) if rest else {"seconds": float("nan"), "cpu": float("nan")}
    print(f"{label}: {first['files']} code files and manifests, {r['names']} names "
          f"({r['manifest']} from manifests, {r['code']} from code); first collection {first['seconds'] * 1000:.0f} ms "
          f"(CPU {first['cpu'] * 1000:.0f} ms), no-op {noop['seconds'] * 1000:.0f} ms (CPU {noop['cpu'] * 1000:.0f} ms, "
          f"files read: {rest[-1]['read'] if rest else '-'}); "
          f"peak RSS {r['peak_rss_mb']:.0f} MB (before collecting {r['base_rss_mb']:.0f} MB); "
          f"skipped: {first['skipped_big']} over 1 MB, {first['skipped_cap']} past the cap; "
          f"per-query name lookup {r['lookup_ms']:.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--full-noop", action="store_true", help="also a full no-op sync of 1,000 notes + 1,000 code files")
    ap.add_argument("--fake-embedder", action="store_true",
                    help="build the notes' index for --full-noop with the tests' hashing embedder (seconds, not "
                         "minutes): a no-op sync never calls the embedder, so its timing is the same")
    args = ap.parse_args()
    if args.fake_embedder:
        os.environ.update(SCREE_TEST_EMBEDDER=str(REPO / "tests" / "helpers" / "fake_embedder.py"), SCREE_EMBEDDER="fake")
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

            for label, notes, code_files in (("1,000 notes", 1000, 0), ("500 notes + 500 code files", 500, 500),
                                             ("1,000 notes + 1,000 code files", 1000, 1000)):
                folder = write_corpus(t / f"f{notes}-{code_files}", notes, sections=1)
                if code_files:
                    write_code(folder / "src", code_files - 1)  # + pyproject.toml
                data = t / f"data{notes}-{code_files}"
                first = child(SYNC, data, str(folder))
                runs = [child(SYNC, data, str(folder)) for _ in range(5)]
                secs = sorted(r["seconds"] for r in runs)
                cpu = min(r["cpu"] for r in runs)
                print(f"{label}: first sync {first['seconds']:.1f}s; no-op re-sync best {secs[0] * 1000:.0f} ms, "
                      f"median {secs[2] * 1000:.0f} ms, least CPU {cpu * 1000:.0f} ms, "
                      f"model loaded: {any(r['model_loaded'] for r in runs)}")


if __name__ == "__main__":
    main()
