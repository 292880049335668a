"""End to end with Claude Code itself: the PreToolUse hook, started through hooks/launch.sh by a real
`claude -p` session, sees the Bash grep the model asks for, and its hint reaches the model's next request.

A loopback stand-in of the Messages API answers the first request with one Bash tool call (a grep the
project's README answers) and the next with "ok"; the test reads that next request. Needs Claude Code
and uv like tests/test_plugin_smoke.py (whose installed-plugin helper it reuses); skipped without.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "hooks"))

import test_plugin_smoke as smoke  # noqa: E402
from notes_index import build_index  # noqa: E402

from scree.config import load_config  # noqa: E402
from scree.locate import index_location, resolve_folder  # noqa: E402

pytestmark = [*smoke.pytestmark[:2], pytest.mark.timeout(300)]
GREP = "grep -rn 'retried three times' ."


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
    build_index(index_location(folder, cfg, env).db, {"README.md": (installed.project / "README.md").read_text()})
    proc = subprocess.run([claude_bin, "-p", "where are retries described?", "--output-format", "stream-json",
                           "--verbose", "--allowedTools", "Bash(grep *)"], cwd=installed.project, env=env,
                          capture_output=True, text=True, timeout=240, start_new_session=True)
    assert len(api.requests) >= 2, proc.stdout[-2000:]
    sent = json.dumps(api.requests[-1]["messages"])
    at = sent.find("PreToolUse:Bash hook additional context: ")
    assert at >= 0, sent[-3000:]
    # The context runs to the end of its JSON string (2.1.332) or to its </system-reminder> (2.1.197).
    escaped = re.match(r'(?:[^"\\]|\\.)*', sent[at:]).group(0).split("</system-reminder>")[0]  # type: ignore[union-attr]
    hint = json.loads('"' + escaped + '"')  # the JSON-escaped text, decoded
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
