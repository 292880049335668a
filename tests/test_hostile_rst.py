"""Hostile reStructuredText is indexed in bounded time and nothing is lost (issue 34): a 5 MB grid table, 10,000
nested directives, a page of adornment lines only, a 100 KB title, invalid UTF-8, two pages that include each
other, an autodoc `:members:` list of 200,000 lines. One real `scree reindex` process over all of them; every page ends up searchable. The bound is generous:
the reader is linear (each of these takes well under a second in process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import write

NESTED = 10_000


def scree(*args: str, env: dict[str, str] | None = None, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scree.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)


def hostile_pages() -> dict[str, str | bytes]:
    rule = "+" + "-" * 60 + "+" + "-" * 60 + "+\n"
    row = "| " + "cell words " * 5 + " " * 3 + "| " + "more words " * 5 + " " * 3 + "|\n"
    table = "Grid table\n==========\n\nThe tablemarker page.\n\n" + rule + (row + rule) * 20_000
    # One space deeper per level: the 10,000th directive sits 10,000 columns in (50 MB of indentation).
    nested = "Nested\n======\n\nThe nestmarker page.\n\n" + "".join(" " * i + ".. note::\n\n" for i in range(NESTED))
    nested += " " * NESTED + "deepmarker at the bottom\n"
    return {
        "table.rst": table,
        "nested.rst": nested,
        "adorn.rst": "adornmarker\n\n" + "=====\n-----\n" * 100_000,
        # The trail keeps the title's first 200 bytes, as for a Markdown heading.
        "title.rst": "titlemarker " + "word " * 20_000 + "\n" + "=" * 100_020 + "\n\nBody.\n",
        "bad.rst": b"Broken\n======\n\nThe badmarker \xff\xfe page.\n",
        "loop_a.rst": "Loop A\n======\n\n.. include:: loop_b.rst\n\nloopamarker\n",
        "loop_b.rst": "Loop B\n======\n\n.. include:: loop_a.rst\n\nloopbmarker\n",
        # A `:members:` list of 200,000 continuation lines: its value is joined once, not copied once per line.
        "members.rst": "Members\n=======\n\n.. autoclass:: pkg.Engine\n   :members: a,\n" + "      b,\n" * 200_000
                       + "\nmembersmarker after the list\n",
    }


def test_hostile_rst_pages_are_indexed_in_bounded_time_and_all_are_found(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    for name, text in hostile_pages().items():
        if isinstance(text, bytes):
            (notes / name).parent.mkdir(parents=True, exist_ok=True)
            (notes / name).write_bytes(text)
        else:
            write(notes, name, text)
    env = {"SCREE_MAX_FILE_MB": "64"}  # the nested page is 50 MB of indentation
    done = scree("reindex", "--notes", str(notes), env=env)
    assert done.returncode == 0, done.stderr
    assert "invalid UTF-8" in done.stdout + done.stderr or "bad.rst" in done.stdout + done.stderr
    status = json.loads(scree("status", "--json", "--notes", str(notes), env=env).stdout)
    assert status["files"] == 8 and status["incomplete_files"] == 0, status
    assert status["kinds"] == {"reStructuredText": 8}
    for word, path in (("tablemarker", "table.rst"), ("nestmarker", "nested.rst"), ("deepmarker", "nested.rst"),
                       ("adornmarker", "adorn.rst"), ("titlemarker", "title.rst"), ("badmarker", "bad.rst"),
                       ("loopamarker", "loop_a.rst"), ("loopbmarker", "loop_b.rst"),
                       ("membersmarker", "members.rst")):
        out = scree("search", "--json", "--no-sync", "--mode", "keyword", "-k", "3", "--notes", str(notes), word,
                    env=env)
        hits = json.loads(out.stdout)["results"]
        assert hits and hits[0]["path"] == path, (word, hits)
