"""A reindex whose notes folder is deleted stops within a second or two (issue 36, item 5): a detached
reindex kept embedding for ~55 s after its folder was gone. A real `scree reindex` process in stage two (the
fake embedder paced so stage two lasts a minute), the folder deleted under it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from conftest import write

PACE = "0.2"  # seconds a passage: 300 chunks make a stage two of a minute


def status(notes: Path, db: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "scree.cli", "status", "--json", "--notes", str(notes), "--db",
                          str(db)], capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout) if out.returncode in (0, 1) and out.stdout.strip() else {}


def test_a_reindex_stops_soon_after_its_folder_is_deleted(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    for n in range(300):
        write(notes, f"n{n:03}.md", f"# Note {n}\n\nText {n}.\n")
    db = tmp_path / "index.db"
    env = {**os.environ, "SCREE_FAKE_EMBEDDER_SECONDS_PER_PASSAGE": PACE}
    proc = subprocess.Popen([sys.executable, "-m", "scree.cli", "reindex", "--notes", str(notes), "--db", str(db)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while not status(notes, db).get("vectors"):  # stage two has stored its first batch
            assert proc.poll() is None and time.monotonic() < deadline, "stage two never started"
            time.sleep(0.2)
        shutil.rmtree(notes)
        gone_at = time.monotonic()
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - gone_at
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1 and "was deleted or replaced" in err, err
    assert took < 15, f"took {took:.1f} s after the folder was deleted (a full stage two is ~60 s)"
