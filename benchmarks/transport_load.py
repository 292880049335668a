"""search_docs latency under load, stdio against streamable HTTP, one server process each.

    .uv/bin/uv run --frozen python benchmarks/transport_load.py [--notes DIR] [--clients 16] [--calls 40]

Each transport gets one `scree serve` process over the same notes (the index is built once, first,
and shared: both servers read it). Stdio: `--clients` concurrent callers on the one session a stdio
server has. HTTP: `--clients` clients, each with its own session. Every caller issues `--calls`
search_docs calls back to back (queries from the bench set, in turn); the script prints p50/p99 of
the wall time per call, as a client sees it. The two transports run back to back, in both orders,
so the machine's other load hits both alike; compare within one run only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

from mcp_bench import DEFAULT_QUERIES, ROOT, load_queries, percentile


async def _calls(client, queries: list[str], calls: int, offset: int, out: list[float]) -> None:  # noqa: ANN001
    for i in range(calls):
        q = queries[(offset + i) % len(queries)]
        started = time.perf_counter()
        r = await client.call_tool("search_docs", {"query": q, "k": 5})
        out.append((time.perf_counter() - started) * 1000)
        if r.is_error:
            raise SystemExit(f"search_docs failed on {q!r}: {r.content}")


async def _ready(client, query: str, timeout: float) -> str:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while True:
        r = await client.call_tool("search_docs", {"query": query, "k": 5})
        index = (r.structured_content or {}).get("index", "")
        if index.startswith("complete") or time.monotonic() > deadline:
            return index
        await asyncio.sleep(0.5)


async def stdio_load(argv: list[str], env: dict[str, str], queries: list[str], clients: int, calls: int) -> list[float]:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    times: list[float] = []
    async with Client(StdioServerParameters(command=argv[0], args=argv[1:], env=env), read_timeout_seconds=600) as c:
        await _ready(c, queries[0], 600)
        await asyncio.gather(*(_calls(c, queries, calls, n * 7, times) for n in range(clients)))
    return times


async def http_load(url: str, queries: list[str], clients: int, calls: int) -> list[float]:
    from contextlib import AsyncExitStack

    from mcp.client import Client

    times: list[float] = []
    async with AsyncExitStack() as stack:
        sessions = [await stack.enter_async_context(Client(url, read_timeout_seconds=600)) for _ in range(clients)]
        await _ready(sessions[0], queries[0], 600)
        await asyncio.gather(*(_calls(s, queries, calls, n * 7, times) for n, s in enumerate(sessions)))
    return times


def _start_http(argv: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([*argv, "--http", "--port", "0"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    for line in proc.stderr:
        if "serving MCP on " in line:
            return proc, line.split("serving MCP on ", 1)[1].split()[0]
    raise SystemExit(f"the HTTP server exited ({proc.wait()}) without listening")


def _summary(name: str, times: list[float]) -> str:
    return f"{name:>5}: {len(times)} calls, p50 {percentile(times, 50):.1f} ms, p99 {percentile(times, 99):.1f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--notes", type=Path, default=ROOT / "docs")
    ap.add_argument("--queries", type=Path, default=DEFAULT_QUERIES)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--calls", type=int, default=40, help="calls per client")
    ap.add_argument("--rounds", type=int, default=2, help="stdio-then-HTTP rounds (the order alternates)")
    args = ap.parse_args()

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "server"), env.get("PYTHONPATH", "")) if p)
    argv = [sys.executable, "-m", "scree.cli", "serve", "--notes", str(args.notes.resolve()), "--no-watch"]
    queries = load_queries(args.queries)
    results: dict[str, list[float]] = {"stdio": [], "http": []}
    for round_no in range(args.rounds):
        order = ["stdio", "http"] if round_no % 2 == 0 else ["http", "stdio"]
        for name in order:
            if name == "stdio":
                results[name] += asyncio.run(stdio_load(argv, env, queries, args.clients, args.calls))
                continue
            proc, url = _start_http(argv, env)
            try:
                results[name] += asyncio.run(http_load(url, queries, args.clients, args.calls))
            finally:
                proc.terminate()
                proc.wait(30)
    print(f"notes: {args.notes}; {args.clients} concurrent clients x {args.calls} calls x {args.rounds} rounds, "
          "search_docs k=5 mode auto, one server process per transport")
    for name, times in results.items():
        print(_summary(name, times))
    ratio = percentile(results["http"], 50) / percentile(results["stdio"], 50)
    print(f"HTTP p50 / stdio p50: {ratio:.2f}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} cpus, load average {load:.1f} (other load inflates every number)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
