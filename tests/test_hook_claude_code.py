"""End to end with Claude Code itself: the PreToolUse hook, started through hooks/launch.sh by a real
`claude -p` session, sees the Bash grep the model asks for, and its hint reaches the model's next request.

A loopback stand-in of the Messages API answers the first request with one Bash tool call (a grep the
project's README answers) and the next with "ok"; the test reads that next request. Needs Claude Code
and uv like tests/test_plugin_smoke.py (whose installed-plugin helper it reuses); skipped without.

The last test runs the real SessionStart sync on a fresh project (no index built beforehand) and greps
until the hint arrives (issue 18): `GrepUntilHintAPI`, `last_note_word`, `grep_until_hint` and
`stop_session` are shared with benchmarks/first_hint.py, which times the same on the bench corpus.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "hooks"))

import test_plugin_smoke as smoke  # noqa: E402
from notes_index import build_index  # noqa: E402

LOCK_HOLDER = Path(__file__).resolve().parent / "helpers" / "lock_holder.py"

from scree.config import load_config  # noqa: E402
from scree.hookkit.bgsync import writer_active  # noqa: E402
from scree.locate import index_location, resolve_folder  # noqa: E402

pytestmark = [*smoke.pytestmark[:2], pytest.mark.timeout(300)]
GREP = "grep -rn 'retried three times' ."
HINT_MARK = "PreToolUse:Bash hook additional context: "
SEARCH_TOOL = "mcp__plugin_scree_scree__search_docs"


def hint_in(messages: list[dict]) -> str | None:
    """The PreToolUse hint the messages carry (decoded), or None."""
    sent = json.dumps(messages)
    at = sent.find(HINT_MARK)
    if at < 0:
        return None
    # The context runs to the end of its JSON string (2.1.332) or to its </system-reminder> (2.1.197).
    escaped = re.match(r'(?:[^"\\]|\\.)*', sent[at:]).group(0).split("</system-reminder>")[0]  # type: ignore[union-attr]
    return str(json.loads('"' + escaped + '"'))  # the JSON-escaped text, decoded


class ToolCallingAPI(smoke.FakeMessagesAPI):
    """Answers the first turn with a Bash tool call, every later one (after the tool result) with "ok"."""

    def reply(self, body: dict) -> tuple[dict, dict, str]:
        answered = any(isinstance(m.get("content"), list) and any(b.get("type") == "tool_result" for b in m["content"])
                       for m in body.get("messages", []))
        if answered:
            return super().reply(body)
        block = {"type": "tool_use", "id": "toolu_hook", "name": "Bash", "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps({"command": GREP, "description": "grep"})}
        return block, delta, "tool_use"


@contextmanager
def writer_lock_held(lock: Path) -> Iterator[None]:
    """The index's writer lock, held by another process (tests/helpers/lock_holder.py) meanwhile."""
    holder = subprocess.Popen([sys.executable, str(LOCK_HOLDER), str(lock)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([holder.stdout], [], [], 30.0)
        assert ready and holder.stdout.readline().strip() == "locked", "the lock holder did not take the lock"
        yield
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
        holder.stdout.close()


@pytest.fixture()
def api() -> Iterator[ToolCallingAPI]:
    fake = ToolCallingAPI()
    fake.thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


@pytest.mark.parametrize("claude_bin", smoke.CLAUDE_BINS, ids=[smoke._version_id(p) for p in smoke.CLAUDE_BINS])
def test_the_grep_hint_reaches_the_model_through_the_launcher(tmp_path: Path, api: ToolCallingAPI,
                                                              claude_bin: str) -> None:
    installed = smoke.Installed(tmp_path, claude_bin)
    installed.install()
    env = {**installed.env, "ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "x", "SCREE_HOOKS_DEBUG": "1"}
    cfg = load_config(env)
    folder = resolve_folder(cfg, installed.project)
    where = index_location(folder, cfg, env)
    build_index(where.db, {"README.md": (installed.project / "README.md").read_text()})
    # The fixture has no vectors: a writing server would reset it and re-index the README, and a grep
    # in that window finds no notes. Holding the lock keeps the session's server a reader of this file.
    with writer_lock_held(where.lock):
        proc = subprocess.run([claude_bin, "-p", "where are retries described?", "--output-format", "stream-json",
                               "--verbose", "--allowedTools", "Bash(grep *)"], cwd=installed.project, env=env,
                              capture_output=True, text=True, timeout=240, start_new_session=True)
    assert len(api.requests) >= 2, proc.stdout[-2000:]
    hint = hint_in(api.requests[-1]["messages"])
    log = installed.data / "logs" / "hooks.log"
    assert hint is not None, (log.read_text()[-3000:] if log.exists() else "no hooks.log",
                              json.dumps(api.requests[-1]["messages"])[-1500:])
    assert 'the indexed notes mention "retried three times"' in hint
    assert f"{folder}/README.md:3-5" in hint and "mcp__plugin_scree_scree__search_docs" in hint
    # The launcher ran the hook with the plugin's own venv interpreter: nothing to resolve or cache.
    assert (installed.data / "venv" / "bin" / "python3").exists()
    assert not (installed.data / "hooks-python").exists()
    decisions = [line for line in (installed.data / "logs" / "hooks.log").read_text().splitlines() if "decision:" in line]
    assert any('"reason": "mention"' in line and "README.md:3-5" in line for line in decisions)


def _index_state(db: Path) -> tuple[str | None, int]:
    """The index's creation stamp (a rebuild changes it) and how many code names it holds."""
    import sqlite3

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        created = conn.execute("select value from meta where key = 'created'").fetchone()
        return (created[0] if created else None), conn.execute("select count(*) from names").fetchone()[0]
    finally:
        conn.close()


def test_the_grep_hint_reaches_the_model_in_a_second_session_on_an_index_kept_whole(tmp_path: Path,
                                                                                     api: ToolCallingAPI) -> None:
    """Once, with the newest build, on the Python (and forced driver) of this run: .ci/run's second run
    builds the plugin's venv on Debian's /usr/bin/python3 with its stdlib SQLite 3.40.1, whose false
    "NULL value in names.source" used to make every session's server delete the index."""
    claude_bin = smoke.CLAUDE_BINS[-1]
    installed = smoke.Installed(tmp_path, claude_bin)
    (installed.project / "uploader.py").write_text("class UploadRetrier:\n    def retry_upload(self):\n        pass\n")
    (installed.project / "pyproject.toml").write_text('[project]\nname = "uploader"\ndependencies = ["httpx"]\n')
    installed.install()
    plain = smoke.FakeMessagesAPI()
    plain.thread.start()
    try:  # the first session: /scree-reindex, in the plugin's own venv (or its MCP server, holding the lock)
        smoke.run_session(installed, "/scree-reindex", plain.url, until="result")
    finally:
        plain.server.shutdown()
        plain.server.server_close()
    # Whatever the first session left unfinished, the plugin's own CLI completes; an intact index is kept.
    scree = [str(installed.src / "bin" / "scree"), "reindex"]
    done = subprocess.run(scree, cwd=installed.project, env=installed.env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0 and "damaged" not in done.stdout + done.stderr, done.stdout + done.stderr
    env = {**installed.env, "ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "x", "SCREE_HOOKS_DEBUG": "1"}
    cfg = load_config(env)
    folder = resolve_folder(cfg, installed.project)
    db = index_location(folder, cfg, env).db
    created, names = _index_state(db)
    assert created is not None and names > 0
    subprocess.run([claude_bin, "-p", "where are retries described?", "--output-format", "stream-json",
                    "--verbose", "--allowedTools", "Bash(grep *)"], cwd=installed.project, env=env,
                   capture_output=True, text=True, timeout=240, start_new_session=True)
    assert len(api.requests) >= 2
    sent = json.dumps(api.requests[-1]["messages"])
    assert "PreToolUse:Bash hook additional context: " in sent and "the indexed notes mention" in sent, sent[-3000:]
    assert _index_state(db)[0] == created  # the second session's server kept the index: nothing rebuilt


# ----- a fresh project: the real SessionStart sync, greps until the hint arrives (issue 18) ----------

# The few notes of the test's fresh project; the last of the walk holds the word the model greps for.
TINY_NOTES = {
    "README.md": "# Project\n\n## Retries\n\nUploads are retried three times.\n",
    "docs/deploys.md": "# Deploys\n\nEvery deploy runs the smoke checks first, then switches traffic.\n",
    "docs/storage.md": "# Storage\n\n## Quotas\n\nEach bucket holds at most 500 GB; the janitor compacts "
                       "snapshots nightly.\n",
}


def last_note_word(folder: Path, env: dict[str, str], same_top: bool = False) -> tuple[str, str]:
    """The last note of the walk (stage one indexes in walk order) and a word of it no other note holds,
    not even as a longer word's start (so neither a verbatim match nor a stem can answer it earlier).
    With `same_top`, only the notes under the last note's top folder count (copies of a corpus)."""
    from scree.notes.walk import walk_notes
    from scree.workspace import Workspace

    policy = Workspace.from_config(load_config(env).with_overrides(notes=folder)).policy()
    paths = [p for p in walk_notes(policy) if isinstance(p, str)]
    last = paths[-1]
    if same_top:
        paths = [p for p in paths if p.split("/")[0] == last.split("/")[0]]
    texts = {p: (folder / p).read_text(errors="replace").lower() for p in paths}
    own = set(re.findall(r"[a-z]{6,}", texts[last]))
    spread = Counter({w: sum(w[:6] in t for p, t in texts.items() if p != last) for w in own})
    return last, min(own, key=lambda w: (spread[w], -len(w), w))


class GrepUntilHintAPI(smoke.FakeMessagesAPI):
    """Answers every turn of the session with one more Bash grep until a request carries the PreToolUse
    hint (or `max_greps` were asked), then, with `search`, one keyword `search_docs` call, then "ok".
    Times are time.monotonic() at each request's arrival; `done` is set with the last answer."""

    def __init__(self, grep: str, max_greps: int, search: str | None = None) -> None:
        super().__init__()
        self.grep, self.max_greps, self.search = grep, max_greps, search
        self.greps = 0
        self.first_request_at: float | None = None
        self.hint: str | None = None
        self.hint_at: float | None = None
        self.search_asked = False
        self.search_result: str | None = None
        self.search_at: float | None = None
        self.done = threading.Event()
        self._lock = threading.Lock()

    @staticmethod
    def _tool(name: str, args: dict, n: int) -> tuple[dict, dict, str]:
        block = {"type": "tool_use", "id": f"toolu_{name[:4]}_{n}", "name": name, "input": {}}
        return block, {"type": "input_json_delta", "partial_json": json.dumps(args)}, "tool_use"

    def reply(self, body: dict) -> tuple[dict, dict, str]:
        now = time.monotonic()
        if not any(t.get("name") == "Bash" for t in body.get("tools") or []):
            return super().reply(body)  # a side request of Claude Code's, not a turn of the session
        with self._lock:
            self.first_request_at = self.first_request_at or now
            messages = body.get("messages", [])
            if self.hint is None:
                self.hint = hint_in(messages)
                self.hint_at = now if self.hint is not None else None
            if self.hint is None and self.greps < self.max_greps:
                self.greps += 1
                return self._tool("Bash", {"command": self.grep, "description": "grep"}, self.greps)
            if self.hint is not None and self.search is not None:
                if not self.search_asked:
                    self.search_asked = True
                    return self._tool(SEARCH_TOOL, {"query": self.search, "mode": "keyword"}, 0)
                if self.search_result is None:
                    self.search_result, self.search_at = json.dumps(messages[-1]), now
            self.done.set()
        return super().reply(body)


def _session_pids(installed: smoke.Installed) -> list[int]:
    """This machine's processes started for `installed`: its scratch HOME in their environment (the
    session's MCP server, the SessionStart hook's detached sync and whatever they started)."""
    mark = f"HOME={installed.home}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if mark in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _wait_gone(pid: int, timeout: float) -> bool:
    """Wait for `pid` (any process, not only a child) to end: on its pidfd, else by polling."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    except (AttributeError, OSError):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            time.sleep(0.05)
        return False
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def stop_session(proc: subprocess.Popen, installed: smoke.Installed, lock: Path) -> None:
    """End the session (its process group: Claude Code and its MCP server), then every other process of
    it (the detached background sync, in its own session), and wait for the index's writer lock to be free."""
    smoke.end_process_group(proc)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        left = _session_pids(installed)
        for pid in left:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        if all([_wait_gone(pid, 10.0) for pid in left]):
            break
    assert not _session_pids(installed), "a process of the session outlived it"
    assert not writer_active(str(lock)), f"{lock} is still held"


def grep_until_hint(installed: smoke.Installed, api: GrepUntilHintAPI, timeout: float,
                    out: Path) -> dict[str, Any]:
    """One `claude -p` session in the project with the real SessionStart sync (no SCREE_SYNC_COMMAND), run
    until `api` is done or `timeout`; stopped and cleaned up after. Seconds are from the session's start."""
    env = {**installed.env, "ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "x", "SCREE_HOOKS_DEBUG": "1"}
    env.pop("SCREE_SYNC_COMMAND", None)
    cfg = load_config(env)
    folder = resolve_folder(cfg, installed.project)
    where = index_location(folder, cfg, env)
    with out.open("wb") as log:
        started, started_wall = time.monotonic(), time.time()
        proc = subprocess.Popen([installed.claude, "-p", "where is this described?", "--output-format", "stream-json",
                                 "--verbose", "--allowedTools", "Bash(grep *)", SEARCH_TOOL], cwd=installed.project,
                                env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)

        def ended() -> None:
            proc.wait()
            api.done.set()

        threading.Thread(target=ended, daemon=True).start()
        try:
            api.done.wait(timeout)
            # After "ok" the session ends by itself: give it the moment to write its result line.
            if api.hint is not None:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            stop_session(proc, installed, where.lock)

    def since(t: float | None) -> float | None:
        return None if t is None else round(t - started, 2)

    return {"folder": folder, "db": where.db, "started_wall": started_wall, "first_request": since(api.first_request_at),
            "hint": since(api.hint_at), "greps": api.greps, "search": since(api.search_at)}


def test_a_fresh_project_gets_the_grep_hint_within_the_first_session(tmp_path: Path) -> None:
    """No index beforehand: the SessionStart hook's own background sync (or the session's MCP server,
    whichever takes the writer lock) indexes the notes while the model greps; the hint arrives within
    the session, naming the last note of the walk, and the session's keyword search answers from it."""
    installed = smoke.Installed(tmp_path, smoke.CLAUDE_BINS[-1])
    for rel, text in TINY_NOTES.items():
        (installed.project / rel).parent.mkdir(parents=True, exist_ok=True)
        (installed.project / rel).write_text(text)
    installed.install()
    last, word = last_note_word(installed.project, installed.env)
    assert last == "docs/storage.md"
    api = GrepUntilHintAPI(f"grep -rn '{word}' .", max_greps=20, search=word)
    api.thread.start()
    try:
        got = grep_until_hint(installed, api, 120.0, tmp_path / "session.jsonl")
    finally:
        api.server.shutdown()
        api.server.server_close()
    assert got["first_request"] is not None, got
    assert api.hint is not None, f"no hint after {api.greps} greps: {got}"
    assert f'the indexed notes mention "{word}"' in api.hint and f"{got['folder']}/{last}:" in api.hint, api.hint
    assert api.search_result is not None and last in api.search_result, api.search_result
    log = (installed.data / "logs" / "sync.log").read_text()
    assert "starting in" in log or "skipped" in log, log  # the hook's background sync ran (or yielded)
