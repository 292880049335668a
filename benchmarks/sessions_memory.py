"""Memory of scree's plugin server across Claude Code sessions: at the handshake, after a search, at rest
(issue 37).

    uv run --frozen python benchmarks/sessions_memory.py [--corpus ../shared/bench/corpus] [--idle 150]
        [--engine on|off|both]

Each session is what Claude Code runs: `sh bin/scree serve`, spoken to by the real `mcp` client over stdio,
with the real local model. One writer session builds the index of the corpus, then three reader sessions
open and search. Printed, per design (`on`: a stdlib relay per session in front of one engine per user;
`off`: the whole server in each session's process, as before):

- RSS of scree's whole process tree (every session's processes and the engine) after the handshake, after
  each session's first search, and after `--idle` seconds without a call (by default past the engine's
  idle exit, SCREE_ENGINE_IDLE=120 s, and the model's, 60 s);
- the marginal RSS of one more session (the fourth session's processes at rest);
- the engine's (or writer's) peak RSS while it built the index (VmHWM);
- the wall time of the first search in the second session, and of a search after the rest.

RSS is what /proc/<pid>/status says (VmRSS), summed over processes; shared pages count in each process.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "server"))
from scree.relay import channel  # noqa: E402

QUERIES = ["how do I configure a custom build target", "what does the compose file say about volumes",
           "how are alerting rules evaluated", "how do I search hidden files", "how do I log in with a token"]


def proc_status(pid: int) -> dict[str, int]:
    fields: dict[str, int] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) // 1024
    except OSError:
        pass
    return fields


def children(pid: int) -> list[int]:
    out = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            out += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        pass
    return out


def tree(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        if Path(f"/proc/{p}").exists():
            found.append(p)
            todo += children(p)
    return found


def rss(pids: list[int]) -> int:
    return sum(proc_status(p).get("VmRSS", 0) for p in pids)


class Sessions:
    def __init__(self, root: Path, data: Path, notes: Path, env: dict[str, str]) -> None:
        self.root, self.data, self.notes, self.env = root, data, notes, env
        self.stack = AsyncExitStack()
        self.clients: list[ClientSession] = []

    async def open(self) -> ClientSession:
        params = StdioServerParameters(command="sh", args=[str(self.root / "bin" / "scree"), "serve"],
                                       env=self.env, cwd=str(self.notes))
        read, write = await self.stack.enter_async_context(stdio_client(params))
        client = await self.stack.enter_async_context(ClientSession(read, write))
        await client.initialize()
        self.clients.append(client)
        return client

    def session_pids(self) -> list[int]:
        """Processes started by the sessions (the client's children: `sh` exec'd into the relay or server)."""
        return [p for c in children(os.getpid()) for p in tree(c)]

    def engine_pid(self) -> int | None:
        status = channel.engine_status(channel.socket_path(self.env["SCREE_RUNTIME_DIR"], channel.engine_key(
            str(self.root), str(self.data), channel.code_stamp(str(self.root)))))
        return int(status["pid"]) if status and "pid" in status else None

    def all_pids(self) -> list[int]:
        pids = self.session_pids()
        engine = self.engine_pid()
        if engine is not None and engine not in pids:
            pids += tree(engine)
        return pids


async def timed_search(client: ClientSession, query: str) -> float:
    start = time.monotonic()
    result = await client.call_tool("search_docs", {"query": query})
    took = time.monotonic() - start
    if result.is_error or not (result.structured_content or {}).get("results"):
        raise SystemExit(f"search failed: {result.content[0].text if result.content else result}")
    return took


async def index_state(client: ClientSession) -> str:
    result = await client.call_tool("search_docs", {"query": "index state probe", "k": 1, "mode": "keyword"})
    return str((result.structured_content or {}).get("index", ""))


async def measure(engine: str, corpus: Path, idle: float) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="scree-mem-"))
    runtime = Path(tempfile.mkdtemp(prefix="sm-", dir="/tmp"))
    notes = work / "notes"
    shutil.copytree(corpus, notes)
    data = work / "plugin-data"
    data.mkdir()
    (data / "venv").symlink_to(sys.prefix)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCREE_")}
    env.update(CLAUDE_PLUGIN_DATA=str(data), SCREE_RUNTIME_DIR=str(runtime), XDG_DATA_HOME=str(work / "xdg"),
               SCREE_ENGINE=engine)
    sessions = Sessions(REPO, data, notes, env)
    out: dict[str, Any] = {"engine": engine}
    try:
        async with sessions.stack:
            writer = await sessions.open()
            await anyio.sleep(2)  # the engine (or the server's index) starts after the handshake
            out["handshake_one_mb"] = rss(sessions.all_pids())
            out["first_answer_s"] = round(await timed_search(writer, QUERIES[0]), 1)
            started = time.monotonic()
            while "embedding" in await index_state(writer):  # stage two: every chunk's vector
                await anyio.sleep(1)
            out["index_build_s"] = round(time.monotonic() - started + out["first_answer_s"], 1)
            engine_pid = sessions.engine_pid() if engine == "on" else None
            watched = [engine_pid] if engine_pid else sessions.session_pids()
            out["peak_indexing_mb"] = max(proc_status(p).get("VmHWM", 0) for p in watched)
            out["after_build_mb"] = rss(sessions.all_pids())
            readers = []
            for n in range(3):
                readers.append(await sessions.open())
            await anyio.sleep(2)
            out["handshake_four_mb"] = rss(sessions.all_pids())
            out["second_session_first_search_s"] = round(await timed_search(readers[0], QUERIES[1]), 2)
            for n, reader in enumerate(readers[1:], 2):
                await timed_search(reader, QUERIES[n])
            out["after_searches_four_mb"] = rss(sessions.all_pids())
            await anyio.sleep(idle)
            pids = sessions.all_pids()
            out["at_rest_four_mb"] = rss(pids)
            relays = children(os.getpid())
            out["marginal_session_mb"] = rss(tree(relays[-1])) if relays else None
            out["engine_alive_at_rest"] = sessions.engine_pid() is not None if engine == "on" else None
            out["search_after_rest_s"] = round(await timed_search(readers[1], QUERIES[4]), 2)
            out["after_rest_search_mb"] = rss(sessions.all_pids())
    finally:
        for pid_dir in Path("/proc").iterdir():  # no engine of this run outlives it
            if pid_dir.name.isdigit():
                try:
                    if str(runtime).encode() in (pid_dir / "cmdline").read_bytes():
                        os.kill(int(pid_dir.name), 9)
                except OSError:
                    pass
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "bench" / "corpus")
    parser.add_argument("--idle", type=float, default=150.0, help="seconds without a call before 'at rest'")
    parser.add_argument("--engine", choices=("on", "off", "both"), default="both")
    args = parser.parse_args()
    designs = ["on", "off"] if args.engine == "both" else [args.engine]
    for design in designs:
        result = anyio.run(measure, design, args.corpus, args.idle)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
