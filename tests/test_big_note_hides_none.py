"""One huge note cannot hide the others (issue 36, item 3): the keyword candidates were the 40 best chunks, and
a 4.6 MB note of one section whose chunks all matched filled them, so four other matching notes were missing
from `-k 10`. Real `scree` processes, a real index, the fake embedder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import write


def scree(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scree.cli", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=180)


def test_every_matching_note_reaches_the_results_beside_a_huge_one(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    paragraph = "Log rotation keeps the rotation window short; rotation runs hourly.\n\n"
    write(notes, "huge.md", "# Rotation log\n\n" + paragraph * (4_600_000 // len(paragraph)))
    for n in range(4):
        write(notes, f"small{n}.md", f"# Note {n}\n\nThe rotation of shard {n} is manual.\n")
    write(notes, "other.md", "# Other\n\nNothing to see.\n")
    assert scree("reindex", "--notes", str(notes)).returncode == 0
    for mode in ("keyword", "hybrid"):
        out = scree("search", "--json", "--no-sync", "--mode", mode, "-k", "10", "--notes", str(notes), "rotation")
        paths = [h["path"] for h in json.loads(out.stdout)["results"]]
        assert sorted(paths) == ["huge.md", "small0.md", "small1.md", "small2.md", "small3.md"], (mode, paths)
