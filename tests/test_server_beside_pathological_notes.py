"""While a session's writer indexes notes made of one huge line of markup, every server keeps answering
(issue 36, item 1): before the language filters were linear, one 100 KB line of `<` held the writing server
for 27.5 s, and another session's searches waited on it. Two real `scree serve` processes on one folder (the
first writes, the second reads), driven by the real MCP client; the notes arrive through the watcher."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from conftest import write
from test_mcp_server import McpSession, _eventually, _git_repo

pytestmark = pytest.mark.timeout(120)

FRAGMENTS = {"tags": "<", "includes": "{*", "links": "](", "backticks": "`", "ids": "{ #"}
LINE_BYTES = 200 * 1024
READER_BOUND = 1.0  # seconds: issue 36 asks another session's server to answer within 1 s
WRITER_BOUND = 3.0  # the writing server shares its process with the sync: looser, still far from 27.5 s


def test_both_servers_answer_while_the_writer_indexes_huge_lines_of_markup(tmp_path: Path) -> None:
    folder = _git_repo(tmp_path / "notes")
    write(folder, "guide.md", "# Guide\n\nThe deploy window opens at nine.\n")
    data = tmp_path / "data"
    with McpSession(folder, data_dir=data) as writer, McpSession(folder, data_dir=data) as reader:
        assert writer.ok("search_docs", {"query": "deploy window", "mode": "keyword"})["results"]
        assert _eventually(lambda: reader.ok("search_docs", {"query": "deploy window", "mode": "keyword"})["results"])
        for name, fragment in FRAGMENTS.items():
            line = (fragment * (LINE_BYTES // len(fragment) + 1))[:LINE_BYTES]
            write(folder, f"{name}.md", f"# {name.title()}\n\nThe {name} page explains rotation.\n\n{line}\n")
        slowest = {"reader": 0.0, "writer": 0.0}
        deadline = time.monotonic() + 60
        while True:
            for role, session in (("reader", reader), ("writer", writer)):
                started = time.monotonic()
                session.ok("search_docs", {"query": "deploy window", "mode": "keyword"})
                slowest[role] = max(slowest[role], time.monotonic() - started)
            found = reader.ok("search_docs", {"query": "rotation", "mode": "keyword", "k": 10})["results"]
            if len({h["path"] for h in found}) == len(FRAGMENTS) or time.monotonic() > deadline:
                break
        assert {h["path"] for h in found} == {f"{n}.md" for n in FRAGMENTS}  # all indexed, none lost
        assert slowest["reader"] < READER_BOUND and slowest["writer"] < WRITER_BOUND, slowest
