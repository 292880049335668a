"""One huge query among small ones: does it stall the server? (issue 21, item 1)

    .venv/bin/python benchmarks/huge_query.py [--corpus DIR] [--rounds 5] [--clients 8]

The campaign's shape over a real `scree serve` (stdio, the real SDK client): one client sends huge
queries while `--clients` others each send small queries in a loop, all at once on one server.
Huge queries, in turn: the worst case within search.MAX_QUERY_CHARS (every word distinct: `w<i>`
names, then words the notes hold), and a 1 MB query of 150,000 words (cut to the cap, with a note).
Prints how long each huge query took, and the small queries' latency while huge ones ran (p50,
p99, max), beside the same small load without them. Target: the worst case within the cap well
under a second; no small query delayed by more than a second (before: a 129 KB query took 7.0 s and
held others 6.5 s; a 1 MB one never answered).

The index lives where scree puts it ($XDG_DATA_HOME/scree or SCREE_DATA_DIR), so a second run reuses it.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import sys
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))
DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "bench" / "repos" / "httpx"
SMALL = ["how do I set a timeout", "proxy configuration", "AsyncClient", "retry on connection errors",
         "what does raise_for_status do", "HTTP/2 support", "cookies persistence", "streaming responses"]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))
    return ordered[int(rank) - 1]


def at_cap(words: list[str], cap: int) -> str:
    """The longest query of these words (in order, repeated with a counter if need be) within `cap`."""
    out: list[str] = []
    size, i = 0, 0
    while True:
        w = words[i % len(words)] + ("" if i < len(words) else str(i))
        if size + len(w) + 1 > cap:
            return " ".join(out)
        out.append(w)
        size += len(w) + 1
        i += 1


def huge_queries(corpus: Path) -> dict[str, str]:
    from scree.search.search import MAX_QUERY_CHARS

    text = " ".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(corpus.rglob("*.md")))
    held = list(dict.fromkeys(w.lower() for w in re.findall(r"[A-Za-z]{4,}", text)))
    return {
        f"{MAX_QUERY_CHARS} chars of distinct names (w<i>)": at_cap([f"w{i}" for i in range(100_000)], MAX_QUERY_CHARS),
        f"{MAX_QUERY_CHARS} chars of words the notes hold": at_cap(held, MAX_QUERY_CHARS),
        f"{MAX_QUERY_CHARS} chars, names the notes hold (x_y)": at_cap([f"{w}_x" for w in held], MAX_QUERY_CHARS),
        "1 MB, 150,000 distinct words (cut)": " ".join(f"w{i}" for i in range(150_000)),
    }


async def session(argv: list[str], env: dict[str, str], corpus: Path, rounds: int, clients: int) -> None:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    async with Client(params, read_timeout_seconds=600) as client:
        while True:  # wait for a complete index (built on first use)
            r = await client.call_tool("search_docs", {"query": SMALL[0]})
            if (r.structured_content or {}).get("index", "").startswith("complete"):
                break
            await anyio.sleep(1)

        async def small_load(stop: anyio.Event, times: list[float], n: int) -> None:
            i = n
            while not stop.is_set():
                started = time.perf_counter()
                r = await client.call_tool("search_docs", {"query": SMALL[i % len(SMALL)]})
                times.append(time.perf_counter() - started)
                assert not r.is_error, r.content
                i += 1

        async def under_load(work) -> list[float]:  # noqa: ANN001
            times: list[float] = []
            stop = anyio.Event()
            async with anyio.create_task_group() as tg:
                for n in range(clients):
                    tg.start_soon(small_load, stop, times, n)
                await work()
                stop.set()
            return times

        async def idle() -> None:
            await anyio.sleep(3)

        baseline = await under_load(idle)
        queries = huge_queries(corpus)
        took: dict[str, list[float]] = {name: [] for name in queries}
        notes: dict[str, str] = {}

        async def huge() -> None:
            for _ in range(rounds):
                for name, text in queries.items():
                    started = time.perf_counter()
                    r = await client.call_tool("search_docs", {"query": text})
                    took[name].append(time.perf_counter() - started)
                    assert not r.is_error, r.content
                    notes[name] = (r.structured_content or {}).get("note", "")

        loaded = await under_load(huge)

    print(f"server: {' '.join(argv)}; {clients} small clients, {rounds} rounds of the huge queries")
    for name, ts in took.items():
        cut = " (cut, with a note)" if "cut to its first" in notes.get(name, "") else ""
        print(f"huge query, {name}: median {statistics.median(ts) * 1000:.0f} ms, max {max(ts) * 1000:.0f} ms{cut}")
    for label, ts in (("small queries alone", baseline), ("small queries beside the huge ones", loaded)):
        ms = [t * 1000 for t in ts]
        print(f"{label}: {len(ms)} calls, p50 {percentile(ms, 50):.0f} ms, p99 {percentile(ms, 99):.0f} ms, "
              f"max {max(ms):.0f} ms")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} cpus, load average {load:.1f} (other load inflates every number)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--server", default=f"{sys.executable} -m scree.cli serve --no-watch --notes {{corpus}}")
    args = ap.parse_args()
    argv = shlex.split(args.server.replace("{corpus}", str(args.corpus.resolve())))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "server"), env.get("PYTHONPATH", "")) if p)
    anyio.run(session, argv, env, args.corpus, args.rounds, args.clients)
    return 0


if __name__ == "__main__":
    sys.exit(main())
