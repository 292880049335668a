"""What `scree` prints for people and pipes: a closed pipe ends it quietly, times read as times."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import write


def test_search_into_a_closed_pipe_ends_quietly_without_a_traceback(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    for i in range(5):
        write(notes, f"n{i}.md", f"# Deploy {i}\n\nThe deploy runs on Tuesdays, step {i}.\n")
    read_end, write_end = os.pipe()
    os.close(read_end)  # like `| head` that already exited: every write to stdout fails with EPIPE
    try:
        proc = subprocess.run([sys.executable, "-m", "scree.cli", "search", "--notes", str(notes), "--mode", "keyword",
                               "deploy"], stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr, proc.stderr
    assert proc.returncode == 141


def test_status_shows_the_last_sync_as_a_time_and_an_age(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write(notes, "a.md", "# A\n\ntext\n")
    scree = [sys.executable, "-m", "scree.cli"]
    assert subprocess.run([*scree, "index", "--notes", str(notes)], capture_output=True, timeout=120).returncode == 0
    out = subprocess.run([*scree, "status", "--notes", str(notes)], capture_output=True, text=True, timeout=60).stdout
    line = next(x for x in out.splitlines() if x.startswith("last_sync"))
    assert re.fullmatch(r"last_sync\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(\d+ s ago\)", line), line
