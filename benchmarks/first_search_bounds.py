"""The first `scree search` of a repository stays within its budget, and a folder that is no project is refused
(issue 36, item 2).

    uv run --frozen python benchmarks/first_search_bounds.py [--py-files 2000] [--notes 60]

1. A generated repository of `--py-files` Python modules (classes, functions, constants: names the
   vocabulary reads with `ast`) and `--notes` Markdown notes: the wall time of a cold `scree search` (a real
   process, the configured embedder, a fresh data folder), best of 3, and what it left to the background
   (the detached `scree reindex` it starts is killed once it is measured). Before the fix, reading the
   vocabulary ran after stage one and outside the budget: 14.9 s on a repository of 1,790 Python files.
2. `CLAUDE_PROJECT_DIR=/`: the time and the message of a `scree search` started in `/` (it walked and
   indexed the whole machine, `/proc` included, for 59 s).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODULE = '''"""Module {n}: helpers for the {topic} subsystem."""

import os
from dataclasses import dataclass

LIMIT_{n} = {n}


@dataclass
class {cls}:
    """A {topic} record."""

    name: str
    size: int = 0

    def grow_{n}(self, by: int) -> int:
        """Grow the record."""
        self.size += by
        return self.size


def handle_{topic}_{n}(value: str) -> str:
    """Handle a {topic} value."""
    return value.strip() + os.sep
'''
TOPICS = ("billing", "ingest", "routing", "storage", "metrics", "auth", "cache", "export")


def make_repo(root: Path, py_files: int, notes: int) -> None:
    (root / ".git").mkdir(parents=True)
    for n in range(py_files):
        topic = TOPICS[n % len(TOPICS)]
        path = root / "src" / "app" / topic / f"mod_{n:04}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(MODULE.format(n=n, topic=topic, cls=f"{topic.title()}Record{n}") * 10, encoding="utf-8")
    for n in range(notes):
        path = root / "docs" / f"note_{n:03}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {n}\n\nHow the {TOPICS[n % len(TOPICS)]} subsystem handles retries, number {n}.\n",
                        encoding="utf-8")


def search(folder: Path | None, data: Path, env_extra: dict[str, str]) -> tuple[float, int, str]:
    env = {**os.environ, "XDG_DATA_HOME": str(data), **env_extra}
    cmd = [sys.executable, "-m", "scree.cli", "search", "--json", "how are retries handled"]
    if folder is not None:
        cmd[4:4] = ["--notes", str(folder)]
    t = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(folder or "/"), timeout=600)
    took = time.perf_counter() - t
    for pid in re.findall(r"\(pid (\d+),", done.stderr):  # the detached background sync: not measured here
        try:
            os.kill(int(pid), signal.SIGTERM)
        except ProcessLookupError:
            pass
    return took, done.returncode, done.stderr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--py-files", type=int, default=2000)
    ap.add_argument("--notes", type=int, default=60)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        make_repo(repo, args.py_files, args.notes)
        runs = []
        for i in range(3):
            took, code, err = search(repo, Path(tmp) / f"data{i}", {})
            runs.append(took)
            left = [line for line in err.splitlines() if "background" in line]
        print(f"cold `scree search` on {args.py_files:,} .py files and {args.notes} notes: best {min(runs):.1f} s, "
              f"runs {', '.join(f'{r:.1f}' for r in runs)} s (exit {code}); left to the background: "
              f"{left[0].removeprefix('scree: ')[:160] if left else 'nothing'}")
        took, code, err = search(None, Path(tmp) / "data-root", {"CLAUDE_PROJECT_DIR": "/"})
        print(f"`scree search` with CLAUDE_PROJECT_DIR=/: {took:.2f} s, exit {code}: {err.strip()[:300]}")


if __name__ == "__main__":
    main()
