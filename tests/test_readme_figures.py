"""The README's sizes are measured here, so they stay true (issue 35, item 5): each figure is parsed from
the sentence that states it and compared with what this checkout and its environment measure now."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
TOLERANCE = 0.25  # a figure is "about": it fails when the thing it measures drifts past a quarter


def stated_mb(pattern: str) -> float:
    found = re.search(pattern, README)
    assert found, f"the README no longer states this figure: {pattern}"
    return float(found.group(1))


def on_disk(paths: list[Path]) -> int:
    """Bytes as `du` counts them: whole 4 KB blocks per file."""
    return sum(-(-p.stat().st_size // 4096) * 4096 for p in paths if p.is_file() and not p.is_symlink())


def test_the_plugin_copy_size_is_what_the_readme_says() -> None:
    """Claude Code copies a clean clone's tracked files into its plugin cache."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    size_mb = on_disk([REPO / p for p in listed.decode().split("\0") if p]) / 1e6
    stated = stated_mb(r"its clean clone:\s+([\d.]+) MB")
    assert abs(size_mb - stated) <= TOLERANCE * stated, f"the plugin's files take {size_mb:.1f} MB, the README says {stated}"


def test_the_environment_size_is_what_the_readme_says() -> None:
    """The plugin's venv is built from the same uv.lock as the one running these tests."""
    size_mb = on_disk([Path(d) / f for d, _, files in os.walk(sys.prefix) for f in files]) / 1e6
    stated = stated_mb(r"the environment\s+is about (\d+) MB")
    assert abs(size_mb - stated) <= TOLERANCE * stated, f"the environment takes {size_mb:.0f} MB, the README says {stated}"
