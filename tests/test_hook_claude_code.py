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
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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


class ToolCallingAPI:
    """Answers the first turn with a Bash tool call, every later one (after the tool result) with "ok"."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                    self._send("application/json", b'{"input_tokens": 1}')
                    return
                api.requests.append(body)
                answered = any(isinstance(m.get("content"), list) and any(b.get("type") == "tool_result"
                                                                          for b in m["content"])
                               for m in body.get("messages", []))
                if answered:
                    block, delta, stop = {"type": "text", "text": ""}, {"type": "text_delta", "text": "ok"}, "end_turn"
                else:
                    block = {"type": "tool_use", "id": "toolu_hook", "name": "Bash", "input": {}}
                    delta = {"type": "input_json_delta", "partial_json": json.dumps({"command": GREP,
                                                                                      "description": "grep"})}
                    stop = "tool_use"
                message = {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model", "m"),
                           "content": [], "stop_reason": None, "stop_sequence": None,
                           "usage": {"input_tokens": 1, "output_tokens": 1}}
                stream = [("message_start", {"type": "message_start", "message": message}),
                          ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
                          ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
                          ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                          ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 1},
                                             "delta": {"stop_reason": stop, "stop_sequence": None}}),
                          ("message_stop", {"type": "message_stop"})]
                self._send("text/event-stream",
                           b"".join(f"event: {k}\ndata: {json.dumps(v)}\n\n".encode() for k, v in stream))

            def _send(self, kind: str, data: bytes) -> None:
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture()
def api() -> Iterator[ToolCallingAPI]:
    fake = ToolCallingAPI()
    thread = threading.Thread(target=fake.server.serve_forever, daemon=True)
    thread.start()
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
