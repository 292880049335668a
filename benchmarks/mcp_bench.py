"""How fast `scree serve` is through MCP: handshake-to-ready, and search_docs latency on the bench corpus.

    .venv/bin/python benchmarks/mcp_bench.py [--corpus DIR] [--queries FILE] [--runs 5] [--server CMD]

Handshake: spawn the server over stdio and time process start -> `initialize` result (what Claude
Code waits for), median of `--runs` fresh processes. The target is <= 0.5 s; the index (numpy,
SQLite, the model) starts only after the handshake, so the floor is the SDK's own import. For
scale, the same is timed for a bare `MCPServer` with one tool (interleaved, same machine state).

Search: one session; first waits until the index is complete (a fresh index is built on the first
call; that wait is reported, not counted), then calls search_docs once per labelled query (k=5)
and prints p50/p95 wall ms per call, stdio round trip included (what an agent waits for).

The index lives where scree puts it ($XDG_DATA_HOME/scree or SCREE_DATA_DIR), so a second run reuses
it; the corpus itself is only read. `--server` is a command with `{corpus}` substituted (default:
this checkout's `python -m scree.cli serve --notes {corpus}`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "bench" / "corpus"
DEFAULT_QUERIES = Path(__file__).resolve().parents[2] / "shared" / "bench" / "queries_dev.json"


def load_queries(path: Path) -> list[str]:
    """Every query string of a bench query file ({"dev": {stratum: [{"query": ...}]}} or a plain list)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("query"), str):
                out.append(node["query"])
                return
            for key, value in node.items():
                if not key.startswith("_"):
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(data)
    return out


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (as the scorer reports p95)."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))
    return ordered[int(rank) - 1]


async def handshake_once(argv: list[str], env: dict[str, str]) -> float:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    started = time.perf_counter()
    async with Client(params):
        return time.perf_counter() - started


async def search_session(argv: list[str], env: dict[str, str], queries: list[str], k: int,
                         ready_timeout: float) -> tuple[float, list[float], str]:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    async with Client(params, read_timeout_seconds=ready_timeout) as client:
        t0 = time.perf_counter()
        deadline = t0 + ready_timeout
        while True:
            r = await client.call_tool("search_docs", {"query": queries[0], "k": k})
            index = (r.structured_content or {}).get("index", "")
            if index.startswith("complete") or time.perf_counter() > deadline:
                break
        ready = time.perf_counter() - t0
        times = []
        for q in queries:
            started = time.perf_counter()
            r = await client.call_tool("search_docs", {"query": q, "k": k})
            times.append((time.perf_counter() - started) * 1000)
            if r.is_error:
                raise SystemExit(f"search_docs failed on {q!r}: {r.content}")
        return ready, times, index


BARE_SERVER = ("from mcp.server import MCPServer\n"
               "m = MCPServer('bare')\n"
               "@m.tool()\n"
               "def echo(text: str) -> str:\n"
               "    return text\n"
               "m.run()\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--queries", type=Path, default=DEFAULT_QUERIES)
    ap.add_argument("--runs", type=int, default=5, help="handshakes to time (median reported)")
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("--server", default=f"{sys.executable} -m scree.cli serve --notes {{corpus}}")
    ap.add_argument("--ready-timeout", type=float, default=1800.0, help="seconds to wait for a complete index")
    args = ap.parse_args()

    argv = shlex.split(args.server.replace("{corpus}", str(args.corpus.resolve())))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "server"), env.get("PYTHONPATH", "")) if p)
    queries = load_queries(args.queries)

    ready, times, index = asyncio.run(search_session(argv, env, queries, args.k, args.ready_timeout))
    handshakes: list[float] = []
    bare: list[float] = []
    for _ in range(args.runs):  # interleaved, so both see the same background load
        handshakes.append(asyncio.run(handshake_once(argv, env)))
        bare.append(asyncio.run(handshake_once([sys.executable, "-c", BARE_SERVER], env)))

    print(f"server: {' '.join(argv)}")
    print(f"index: {index} (ready after {ready:.1f} s in the search session)")
    print(f"handshake (process start -> initialize result): median {statistics.median(handshakes) * 1000:.0f} ms "
          f"over {len(handshakes)} runs (min {min(handshakes) * 1000:.0f}, max {max(handshakes) * 1000:.0f})")
    print(f"  bare MCPServer with one tool, same measure: median {statistics.median(bare) * 1000:.0f} ms "
          f"(min {min(bare) * 1000:.0f})")
    print(f"search_docs over MCP, {len(times)} queries, k={args.k}: p50 {percentile(times, 50):.1f} ms, "
          f"p95 {percentile(times, 95):.1f} ms, max {max(times):.1f} ms")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} cpus, load average {load:.1f} (other load inflates every number)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
