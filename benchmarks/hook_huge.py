"""How long the grep hooks take on huge commands, run as Claude Code runs them (issue 21, item 7).

    python3 benchmarks/hook_huge.py [-n 5]

Runs `hooks/suggest.py` (PreToolUse) and `hooks/log_usage.py` (PostToolUse) with hooks.json's
command line (`sh hooks/launch.sh ...`) on the campaign's payloads: a 10 MB single-pattern Bash
command, 10 MB of pipes, 1.26 MB of `-e` options, a command just over grepparse.MAX_COMMAND_CHARS,
and a person-sized grep for scale; prints the median wall time of each and whether the hook
printed anything. Target: under 0.5 s on a 10 MB command, quiet (before: 18.5 s, 12.4 s, 4.7 s).

Then the usage hook with SCREE_USAGE_TEXT=1 on a 10 MB Grep-tool pattern and a 1 MB search_docs query
(issue 26, item 8): its median time, and the longest line and the largest file in the usage log
(capped at usagelog.MAX_LINE_BYTES and MAX_BYTES; before: a 10 MB line, a 10 MB `.jsonl.1`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "hooks"))

from hookrun import hook_command, make_project, payload  # noqa: E402

from scree.hookkit.grepparse import MAX_COMMAND_CHARS  # noqa: E402
from scree.hookkit.usagelog import MAX_BYTES, MAX_LINE_BYTES  # noqa: E402

CASES = {
    "person-sized grep (hinted)": "grep -rn retention_days .",
    "10 MB single pattern": "grep -rn '" + "retention_days " * 700_000 + "' .",
    "10 MB of pipes": " | ".join(["grep retention_days"] * 500_000),
    "1.26 MB of -e options": "grep -rn " + "-e retention_days " * 74_000 + ".",
    f"just over the {MAX_COMMAND_CHARS}-char cap": "grep -rn " + "-e retention_days " * (MAX_COMMAND_CHARS // 17 + 1) + ".",
}


def run(script: str, data: dict, env: dict[str, str], cwd: Path) -> tuple[float, bytes]:
    raw = json.dumps(data).encode()
    started = time.perf_counter()
    proc = subprocess.run(hook_command(script), input=raw, capture_output=True, env=env, cwd=str(cwd), timeout=120)
    return time.perf_counter() - started, proc.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=5, help="runs per case (median reported)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="scree-hook-huge-") as tmp:
        p = make_project(Path(tmp))
        print(f"payload sizes: {', '.join(f'{k}: {len(v):,} chars' for k, v in CASES.items())}")
        for name, command in CASES.items():
            for script, fixture in (("suggest.py", "pretool_bash"), ("log_usage.py", "posttool_bash")):
                times, printed = [], False
                for i in range(args.n):
                    data = payload(fixture, tool_input={"command": command, "description": "search"},
                                   session_id=f"huge-{i}-{len(command)}", cwd=str(p.folder))
                    took, out = run(script, data, p.env, p.folder)
                    times.append(took)
                    printed = printed or bool(out.strip())
                print(f"{script:13} {name:30} median {statistics.median(times) * 1000:7.0f} ms  "
                      f"max {max(times) * 1000:7.0f} ms  {'printed a hint' if printed else 'quiet'}")
        text_cases = {
            "Grep tool, 10 MB pattern": ("posttool_grep", "pattern", "retention_days " * 700_000),
            "search_docs, 1 MB query": ("posttool_mcp_structured", "query", "how long do we keep logs " * 42_000),
        }
        env = {**p.env, "SCREE_USAGE_TEXT": "1"}
        for name, (fixture, key, value) in text_cases.items():
            times = []
            for i in range(args.n):
                data = payload(fixture, session_id=f"text-{i}", cwd=str(p.folder))
                data["tool_input"] = {**data["tool_input"], key: value}
                took, _ = run("log_usage.py", data, env, p.folder)
                times.append(took)
            files = [f for f in (p.usage_file, Path(f"{p.usage_file}.1")) if f.exists()]
            longest = max(len(line) for f in files for line in f.read_bytes().splitlines())
            print(f"log_usage.py  {name:30} median {statistics.median(times) * 1000:7.0f} ms  "
                  f"max {max(times) * 1000:7.0f} ms  longest line {longest:,} B (cap {MAX_LINE_BYTES:,}), "
                  f"largest file {max(f.stat().st_size for f in files):,} B (cap {MAX_BYTES:,})")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} cpus, load average {load:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
