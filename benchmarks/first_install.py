"""The plugin's first-install timeline, as Claude Code runs it: build the environment, then connect.

    .uv/bin/uv run --frozen python benchmarks/first_install.py [--uv PATH] [--runs 3]

On a first install the plugin's environment ($CLAUDE_PLUGIN_DATA/venv) does not exist yet: the
SessionStart sync and the MCP server's own `uv run --frozen` build it from uv.lock, and the first
session has no scree tools. This script times, in a fresh venv directory each run:

1. build: `uv sync --frozen` into the new venv (what the first `uv run` does), from this machine's
   uv cache, so downloads are not counted (a real first install adds the ~250 MB download);
   with and without `UV_COMPILE_BYTECODE=1` (the SessionStart build sets it);
2. first connect: spawn the server exactly as `.mcp.json` does (`sh <root>/bin/scree serve`, which runs
   `uv run --quiet --frozen --project <root> scree serve` in $CLAUDE_PLUGIN_DATA/venv) and time process
   start -> `initialize` result (what the second session waits for), then the same again (a warm
   connect, .pyc files written by the first).

Each figure is the median of `--runs`. Prints one line per figure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


async def _handshake(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=str(cwd))
    started = time.perf_counter()
    async with Client(params):
        return time.perf_counter() - started


def one_run(uv: str, compile_bytecode: bool, work: Path) -> tuple[float, float, float]:
    """(build s, first connect s, warm connect s) for a fresh venv under `work`."""
    venv = work / "venv"
    notes = work / "repo"
    (notes / "docs").mkdir(parents=True)
    (notes / "docs" / "a.md").write_text("# A note\n\nThe cache is keyed by content hash.\n")
    # As a user's shell has it: Python writes .pyc files (a CI box's PYTHONDONTWRITEBYTECODE would make
    # every connect a cold one).
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT", "PYTHONDONTWRITEBYTECODE"))}
    env.update(UV_PROJECT_ENVIRONMENT=str(venv), SCREE_DATA_DIR=str(work / "data"), SCREE_NOTES=str(notes))
    if compile_bytecode:
        env["UV_COMPILE_BYTECODE"] = "1"
    started = time.perf_counter()
    subprocess.run([uv, "sync", "--quiet", "--frozen", "--no-dev", "--project", str(ROOT)], env=env, check=True,
                   cwd=notes, timeout=1800)
    build = time.perf_counter() - started
    env.pop("UV_COMPILE_BYTECODE", None)  # the server's own `uv run` as .mcp.json starts it
    # As .mcp.json starts it: the launcher finds uv (this one first on PATH) and the venv in the data dir.
    env.update(CLAUDE_PLUGIN_DATA=str(work), PATH=os.pathsep.join([str(Path(uv).parent), env.get("PATH", "")]))
    argv = ["sh", str(ROOT / "bin" / "scree"), "serve"]
    first = asyncio.run(_handshake(argv, env, notes))
    warm = asyncio.run(_handshake(argv, env, notes))
    return build, first, warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--uv", default=shutil.which("uv") or str(ROOT / ".uv" / "bin" / "uv"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for compile_bytecode in (False, True):
        results = []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory(prefix="scree-first-install-") as tmp:
                results.append(one_run(args.uv, compile_bytecode, Path(tmp)))
        build, first, warm = (statistics.median(r[i] for r in results) for i in range(3))
        label = "UV_COMPILE_BYTECODE=1" if compile_bytecode else "uv's default (no bytecode)"
        print(f"{label:27} build {build:6.1f} s   first connect {first:5.2f} s   warm connect {warm:5.2f} s"
              f"   (median of {args.runs})")


if __name__ == "__main__":
    main()
