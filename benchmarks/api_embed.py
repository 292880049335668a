"""The API embedder's own overhead: indexing throughput and query latency against the local
OpenAI-compatible test server (tests/helpers/fake_openai.py) with a fixed delay added per request.

    uv run --frozen python benchmarks/api_embed.py [--delay 0.05] [--corpus DIR] [--queries 60]

The server runs in its own process (so it does not share this one's GIL) and answers with hashed
vectors at once, after `--delay` seconds: what is measured is scree's side (windows, JSON, HTTP,
4 requests in flight, SQLite writes) plus that delay, not a real model. Target from the issue: the
bench corpus indexed in <= 15 s at 50 ms per request.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
BENCH = REPO.parent / "shared" / "bench"


def start_server(delay: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "helpers" / "fake_openai.py"), "--delay", str(delay)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--delay", type=float, default=0.05, help="seconds the server adds to every request")
    ap.add_argument("--corpus", type=Path, default=BENCH / "corpus")
    ap.add_argument("--queries", type=int, default=60)
    args = ap.parse_args()

    from scree.config import Config
    from scree.embed.api import ApiEmbedder, ApiSettings
    from scree.search.search import Query, search
    from scree.index.sync import sync
    from scree.workspace import Workspace

    proc, base = start_server(args.delay)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "corpus"
            shutil.copytree(args.corpus, folder)
            ws = Workspace.from_config(Config(notes=folder, db=Path(tmp) / "index.db"))
            embedder = ApiEmbedder(ApiSettings(base_url=base, key="sk-bench-not-a-real-key"))
            index = ws.open_index()
            began = time.perf_counter()
            report = sync(index, ws.policy(), embedder)
            wall = time.perf_counter() - began
            print(f"index: {len(report.added)} files, {report.chunks} chunks in {wall:.2f} s "
                  f"({report.chunks / wall:.0f} chunks/s; embedding calls {report.embed_seconds:.2f} s) "
                  f"with {args.delay * 1000:.0f} ms per request, {embedder.settings.in_flight} in flight, "
                  f"{embedder.settings.batch_inputs} inputs per request")

            dev = json.loads((BENCH / "queries_dev.json").read_text())["dev"]
            texts = [q["query"] for stratum in dev.values() for q in stratum]
            texts = (texts * (1 + args.queries // max(1, len(texts))))[: args.queries]
            policy = ws.policy()
            embedder.embed_query("warm up the connection")
            for mode in ("semantic", "hybrid"):
                times = []
                for text in texts:
                    t = time.perf_counter()
                    result = search(index, policy, embedder, Query(text, k=5, mode=mode))
                    times.append(time.perf_counter() - t)
                    assert result.mode == mode, result.notes
                times.sort()
                p95 = times[max(0, round(0.95 * len(times)) - 1)]
                print(f"query ({mode}): p50 {statistics.median(times) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms "
                      f"over {len(times)} queries (of which {args.delay * 1000:.0f} ms is the server's delay)")
            embedder.close()
            index.close()
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
