"""`scree serve` over stdio, driven by the real MCP SDK client against real server processes.

Each session is one `python -m scree.cli serve` process on a throwaway notes folder; the SDK client
runs on a blocking portal so tests stay plain functions. Sessions are shared per scenario (module
fixtures) because each costs a process start and a first sync.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from conftest import REPO_ROOT, embedder_env, write

pytestmark = pytest.mark.timeout(90)

AUTH = """\
# Authentication

How to log in.

## Tokens

Use a personal access token. Rotate it every 90 days.

## OAuth

Browser flow with device codes.

# Deployment

## Tokens

Deploy tokens are scoped to one environment.
"""


def _git_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / ".git").mkdir()
    return root.resolve()


class McpSession:
    """One real server process and an SDK client connected to it over stdio."""

    def __init__(self, folder: Path, *flags: str, data_dir: Path, cwd: Path | None = None) -> None:
        env = {
            "XDG_DATA_HOME": str(data_dir),
            "PYTHONPATH": str(REPO_ROOT / "server"),
            "SCREE_LOG_LEVEL": "WARNING",
            **embedder_env(),
        }
        self.params = StdioServerParameters(command=sys.executable,
                                            args=["-m", "scree.cli", "serve", "--notes", str(folder), *flags],
                                            env=env, cwd=str(cwd or folder))
        self._stack = ExitStack()

    def __enter__(self) -> McpSession:
        portal = self._stack.enter_context(start_blocking_portal())
        self.portal = portal
        self.client = self._stack.enter_context(
            portal.wrap_async_context_manager(Client(self.params, read_timeout_seconds=60)))
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def call(self, tool: str, args: dict[str, Any]) -> Any:
        return self.portal.call(self.client.call_tool, tool, args)

    def ok(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        r = self.call(tool, args)
        assert not r.is_error, r.content
        assert r.structured_content is not None
        return r.structured_content

    def error(self, tool: str, args: dict[str, Any]) -> str:
        r = self.call(tool, args)
        assert r.is_error, r.structured_content
        return " ".join(getattr(c, "text", "") for c in r.content)


def _eventually(check: Any, timeout: float = 20.0) -> Any:
    """Poll `check` (a tool call each time) until it returns truthy or the deadline passes."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(0.2)


# ----- a complete index ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _git_repo(tmp_path_factory.mktemp("mcp") / "repo")
    write(root, "docs/auth.md", AUTH)
    write(root, "docs/runbook.md", "# Runbook\n\n## Restart\n\nRestart the queue worker with `svc restart`.\n")
    write(root, "notes/old.md", "# Old\n\nThis note will be deleted before a reindex.\n")
    write(root, "secret.md", "# Secret\n\nignored\n")
    write(root, ".gitignore", "secret.md\n")
    write(root, "tool.py", "print('not a note')\n")
    outside = root.parent / "outside.md"
    outside.write_text("# Outside\n\nnot in the folder\n")
    (root / "docs" / "link.md").symlink_to(outside)
    return root


@pytest.fixture(scope="module")
def session(notes: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpSession]:
    # --no-watch: the reindex test changes files and must be the one that sees the change.
    with McpSession(notes, "--no-watch", data_dir=tmp_path_factory.mktemp("data")) as s:
        yield s


def test_first_search_on_a_new_index_waits_for_the_first_sync(session: McpSession) -> None:
    out = session.ok("search_docs", {"query": "rotate personal access token", "mode": "keyword"})
    # It answers from the end of stage one: keyword search covers every note, vectors may follow.
    assert out["index"].startswith(("complete (3 files", "keyword-ready (3 files")), out
    top = out["results"][0]
    assert (top["path"], top["heading"], top["start_line"], top["end_line"]) == (
        "docs/auth.md", "Authentication > Tokens", 5, 7)
    assert set(top) == {"path", "heading", "start_line", "end_line", "score", "text"}
    # Nothing worth saying (and no null field), unless the search ran before stage two's vectors:
    # then only how far they are.
    assert "note" not in out or re.fullmatch(r"vectors for \d of 6 chunks; keyword covers all", out["note"]), out


def test_tools_are_listed_with_hints_and_instructions_say_to_search_first(session: McpSession) -> None:
    tools = {t.name: t for t in session.portal.call(session.client.list_tools).tools}
    assert set(tools) == {"search_docs", "read_doc", "reindex"}
    assert tools["search_docs"].annotations.read_only_hint is True
    assert tools["read_doc"].annotations.read_only_hint is True
    assert tools["reindex"].annotations.read_only_hint is False
    assert all(len(t.description or "") < 300 for t in tools.values())
    params = tools["search_docs"].input_schema["properties"]
    assert params["k"]["maximum"] == 50 and params["mode"]["enum"] == ["auto", "semantic", "keyword", "hybrid"]
    # The agent's guess at the answer: optional, and its description says when to fill it and when not.
    assert "expected_answer" in tools["search_docs"].description
    assert "expected_answer" not in tools["search_docs"].input_schema.get("required", [])
    guess = params["expected_answer"]["description"]
    assert "question in plain language" in guess and "Leave it out for a bare name" in guess and "e.g." in guess
    instructions = session.client.instructions or ""
    assert len(instructions) < 500 and "search_docs first, before grep" in instructions


def test_path_filter_takes_one_glob_or_a_list(session: McpSession) -> None:
    one = session.ok("search_docs", {"query": "restart", "mode": "keyword", "path": "docs/runbook.md"})
    assert {h["path"] for h in one["results"]} == {"docs/runbook.md"}
    many = session.ok("search_docs", {"query": "tokens restart", "mode": "keyword",
                                      "path": ["docs/runbook.md", "docs/auth.md"]})
    assert {h["path"] for h in many["results"]} == {"docs/runbook.md", "docs/auth.md"}


def test_search_takes_the_agents_guess_at_the_answer(session: McpSession) -> None:
    plain = session.ok("search_docs", {"query": "how often must the credential be replaced", "mode": "keyword", "k": 1})
    guessed = session.ok("search_docs", {"query": "how often must the credential be replaced", "mode": "keyword",
                                         "k": 1, "expected_answer": "Rotate the personal access token every 90 days."})
    assert plain["results"] == [] or plain["results"][0]["heading"] != "Authentication > Tokens"
    assert guessed["results"][0]["heading"] == "Authentication > Tokens"
    bare = session.ok("search_docs", {"query": "svc", "mode": "keyword", "expected_answer": "Tokens rotate."})
    assert bare["results"][0]["path"] == "docs/runbook.md" and "expected answer was not used" in bare["note"]


def test_filter_that_selects_nothing_is_told_apart_from_no_match(session: McpSession) -> None:
    nothing = session.ok("search_docs", {"query": "tokens", "path": "adr/**"})
    assert nothing["results"] == [] and "path filter" in nothing["note"] and "matches no indexed note" in nothing["note"]
    no_match = session.ok("search_docs", {"query": "zyxwvut", "mode": "keyword"})
    assert no_match["results"] == [] and "no note matches this query" in no_match["note"]


def test_a_query_of_common_words_only_gets_a_note(session: McpSession) -> None:
    answer = session.ok("search_docs", {"query": "how do I do it?"})
    assert "only common words (how, do, i, it)" in answer["note"], answer


@pytest.mark.parametrize("args, expected", [
    ({"query": "x", "k": 0}, "greater than or equal to 1"),
    ({"query": "x", "k": 51}, "less than or equal to 50"),
    ({"query": "x", "mode": "fuzzy"}, "'auto', 'semantic', 'keyword' or 'hybrid'"),
    ({"query": "x", "path": [""]}, "empty glob"),
])
def test_bad_search_arguments_are_errors_naming_the_limit(session: McpSession, args: dict, expected: str) -> None:
    assert expected in session.error("search_docs", args)


def test_read_doc_returns_a_section_by_trailing_heading_fragment(session: McpSession) -> None:
    out = session.ok("read_doc", {"path": "docs/auth.md", "heading": "authentication > tokens"})
    assert out == {"path": "docs/auth.md", "heading": "Authentication > Tokens", "start_line": 5, "end_line": 8,
                   "text": "## Tokens\n\nUse a personal access token. Rotate it every 90 days.\n"}


def test_read_doc_lists_candidates_when_a_heading_is_ambiguous(session: McpSession) -> None:
    msg = session.error("read_doc", {"path": "docs/auth.md", "heading": "Tokens"})
    assert "matches 2 sections" in msg
    assert "'Authentication > Tokens' (lines 5-8)" in msg and "'Deployment > Tokens' (lines 15-17)" in msg
    chosen = session.ok("read_doc", {"path": "docs/auth.md", "heading": "Tokens", "start_line": 16})
    assert chosen["heading"] == "Deployment > Tokens"


def test_read_doc_reads_whole_files_and_line_ranges_verbatim(session: McpSession, notes: Path) -> None:
    whole = session.ok("read_doc", {"path": str(notes / "docs" / "auth.md")})  # absolute inside is fine
    assert whole["text"] == AUTH.rstrip("\n") and (whole["start_line"], whole["end_line"]) == (1, 17)
    part = session.ok("read_doc", {"path": "./docs/auth.md", "start_line": 9, "end_line": 11})
    assert part["text"] == "## OAuth\n\nBrowser flow with device codes." and "heading" not in part
    assert "no heading matches 'Billing'" in session.error("read_doc", {"path": "docs/auth.md", "heading": "Billing"})
    assert "past the end" in session.error("read_doc", {"path": "docs/auth.md", "start_line": 99})


@pytest.mark.parametrize("path, reason", [
    ("../outside.md", "outside the notes folder"),
    ("/etc/passwd", "outside the notes folder"),
    ("docs/link.md", "outside"),  # a symlink whose target is outside the folder
    ("tool.py", "not a document scree reads"),
    ("secret.md", "gitignored"),
    ("docs/missing.md", ""),
])
def test_read_doc_refuses_what_the_policy_does_not_admit(session: McpSession, path: str, reason: str) -> None:
    msg = session.error("read_doc", {"path": path})
    assert f"cannot read {path!r}" in msg and reason in msg


def test_read_doc_caps_a_huge_note_and_says_how_to_read_on(session: McpSession, notes: Path) -> None:
    line = "word " * 40  # 200 bytes
    write(notes, "big.md", "# Big\n\n" + "\n".join(f"{i} {line}" for i in range(1000)) + "\n")
    out = session.ok("read_doc", {"path": "big.md"})
    assert len(out["text"].encode()) <= 100_000 and out["start_line"] == 1 and out["end_line"] < 1002
    assert f"start_line={out['end_line'] + 1}" in out["note"]
    (notes / "big.md").unlink()


def test_reindex_reports_what_changed(session: McpSession, notes: Path) -> None:
    session.ok("reindex", {})  # the first build done (run alone, no earlier test has made it)
    write(notes, "docs/new.md", "# New\n\nA brand new note about caching.\n")
    (notes / "notes" / "old.md").unlink()
    out = session.ok("reindex", {})
    assert (out["added"], out["removed"]) == (1, 1)
    assert out["changed"] == ["added docs/new.md", "removed notes/old.md"]
    assert out["index"].startswith("complete (3 files")
    again = session.ok("reindex", {})
    assert again["changed"] == [] and "nothing changed" in again["note"]


# ----- index states: empty, not updating, someone else building ------------------------------------

def test_empty_folder_says_the_index_is_empty_then_not_updating_once_removed(tmp_path: Path) -> None:
    folder = _git_repo(tmp_path / "empty")
    write(folder, "data.txt", "not markdown\n")  # a text file no convention names a doc
    with McpSession(folder, "--health-interval", "0.2", data_dir=tmp_path / "data") as s:
        out = s.ok("search_docs", {"query": "anything"})
        assert out["results"] == [] and out["index"].startswith("empty")
        assert "the index is empty" in out["note"]
        for p in sorted(folder.rglob("*"), reverse=True):
            p.rmdir() if p.is_dir() else p.unlink()
        folder.rmdir()
        gone = _eventually(lambda: (o := s.ok("search_docs", {"query": "anything"}))["index"].startswith(
            "index not updating") and o)
        assert gone, "the index never said it stopped updating"
        assert "folder" in gone["index"]


def test_reader_waits_boundedly_reports_syncing_and_reindex_names_the_writer_pid(tmp_path: Path) -> None:
    from scree.config import load_config
    from scree.locate import index_location

    folder = _git_repo(tmp_path / "busy")
    write(folder, "a.md", "# A\n\nsome text\n")
    data = tmp_path / "data"
    env = {**os.environ, "XDG_DATA_HOME": str(data), "PYTHONPATH": str(REPO_ROOT / "server")}
    lock = index_location(folder, load_config(env), env).lock
    lock.parent.mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, str(REPO_ROOT / "tests" / "helpers" / "lock_holder.py"), str(lock)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with McpSession(folder, "--first-sync-wait", "1", data_dir=data) as s:
            started = time.monotonic()
            out = s.ok("search_docs", {"query": "some text"})
            assert time.monotonic() - started >= 1.0  # waited for the first sync, but only so long
            assert out["results"] == [] and out["index"].startswith("still syncing: another process")
            assert out["note"]  # never silently empty
            msg = s.error("reindex", {"all": True})
            assert f"pid {holder.pid}" in msg
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(10)


# ----- the protocol stream and the folder choice ------------------------------------------------------

def test_stdout_carries_only_protocol_logs_go_to_stderr_and_the_handshake_loads_no_numpy(tmp_path: Path) -> None:
    folder = _git_repo(tmp_path / "raw")
    write(folder, "a.md", "# A\n\ntext\n")
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "SCREE_LOG_LEVEL": "INFO",
           "PYTHONPATH": str(REPO_ROOT / "server")}
    proc = subprocess.Popen([sys.executable, "-m", "scree.cli", "serve", "--notes", str(folder)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "0"}}}
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write((json.dumps(init) + "\n").encode())
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())
    assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "scree"
    if Path(f"/proc/{proc.pid}/maps").exists():  # the index (numpy, the model) starts after the handshake
        maps = Path(f"/proc/{proc.pid}/maps").read_text()
        assert "numpy" not in maps and "onnxruntime" not in maps
    proc.stdin.close()  # EOF ends the server
    rest = proc.stdout.read()
    err = proc.stderr.read()  # a few log lines: cannot fill the pipe while stdout is read first
    assert proc.wait(30) == 0 and rest == b""
    assert b"scree: INFO:" in err  # the logs exist, on stderr
