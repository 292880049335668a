"""A malformed JSON-RPC request that carries an id gets an error reply over stdio, so the client
waiting on that id does not hang (the SDK's transport drops it: python-sdk issue #2848)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO_ROOT, write
from scree.stdio.stdioguard import INVALID_REQUEST, PARSE_ERROR, deep_message_id, replies_for

pytestmark = pytest.mark.timeout(90)


class RawServer:
    """`scree serve` over stdio in its own process, spoken to line by line."""

    def __init__(self, folder: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "server")}
        self.proc = subprocess.Popen([sys.executable, "-m", "scree.cli", "serve", "--notes", str(folder), "--no-watch"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def send_raw(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def replies_until(self, request_id: int) -> list[dict[str, Any]]:
        """Every message written up to and including the reply to `request_id`."""
        seen = []
        while True:
            message = self.lines.get(timeout=30)
            seen.append(message)
            if message.get("id") == request_id and "method" not in message:
                return seen

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    """One server for the module: each test's requests carry their own ids."""
    folder = tmp_path_factory.mktemp("guard") / "notes"
    write(folder, "a.md", "# A\n\ntext\n")
    raw = RawServer(folder)
    raw.send_raw(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                             "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                        "clientInfo": {"name": "raw", "version": "0"}}}))
    assert raw.replies_until(1)[-1]["result"]["serverInfo"]["name"] == "scree"
    raw.send_raw(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    yield raw
    raw.close()


MALFORMED = {
    "params as a list": ({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": [1, 2]}, 7),
    "no method": ({"jsonrpc": "2.0", "id": "seven"}, "seven"),
    "no jsonrpc": ({"id": 8, "method": "tools/list"}, 8),
    "object id": ({"jsonrpc": "2.0", "id": {"n": 1}, "method": "ping"}, None),
}


@pytest.mark.parametrize("message,expected_id", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_request_with_an_id_is_answered_with_invalid_request(server: RawServer, message: dict,
                                                                          expected_id: Any) -> None:
    server.send_raw(json.dumps(message))
    server.send_raw(json.dumps({"jsonrpc": "2.0", "id": 100, "method": "ping"}))
    errors = [m for m in server.replies_until(100) if "error" in m]
    assert [(e["id"], e["error"]["code"]) for e in errors] == [(expected_id, INVALID_REQUEST)]


def test_a_batch_gets_one_error_per_request_in_it_and_the_server_keeps_serving(server: RawServer) -> None:
    server.send_raw(json.dumps([{"jsonrpc": "2.0", "id": 11, "method": "ping"},
                                {"jsonrpc": "2.0", "id": 12, "method": "ping"}]))
    server.send_raw(json.dumps({"jsonrpc": "2.0", "id": 100, "method": "tools/list"}))
    seen = server.replies_until(100)
    assert sorted(m["id"] for m in seen if "error" in m) == [11, 12]
    assert {t["name"] for t in seen[-1]["result"]["tools"]} >= {"search_docs", "read_doc", "reindex"}


def test_a_line_that_is_not_json_gets_a_parse_error(server: RawServer) -> None:
    server.send_raw('{"jsonrpc": "2.0", "id": 5, "method": ')
    server.send_raw(json.dumps({"jsonrpc": "2.0", "id": 100, "method": "ping"}))
    errors = [m for m in server.replies_until(100) if "error" in m]
    assert [(e["id"], e["error"]["code"]) for e in errors] == [(None, PARSE_ERROR)]


def test_valid_messages_and_malformed_notifications_pass_to_the_sdk_untouched() -> None:
    assert replies_for(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})) is None
    assert replies_for(json.dumps({"jsonrpc": "2.0", "method": "notifications/x", "params": [1]})) is None
    assert replies_for("   \n") is None
    assert replies_for(json.dumps({"jsonrpc": "2.0", "id": True, "method": 3}))[0].id is None  # a bool is no id


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_a_request_nested_deeper_than_json_can_recurse_is_answered_and_the_server_keeps_serving(
        server: RawServer, depth: int) -> None:
    # 2 KB of brackets raised RecursionError in the guard: the server exited and never answered again.
    nested = "[" * depth + "]" * depth
    server.send_raw(json.dumps({"jsonrpc": "2.0", "id": 41, "method": "tools/call"})[:-1] + f', "params": {nested}}}')
    server.send_raw(nested)  # a bare one: no id to echo
    server.send_raw(json.dumps({"jsonrpc": "2.0", "id": 100, "method": "tools/list"}))
    seen = server.replies_until(100)
    assert [(m["id"], m["error"]["code"]) for m in seen if "error" in m] == [(41, INVALID_REQUEST),
                                                                              (None, INVALID_REQUEST)]
    assert {t["name"] for t in seen[-1]["result"]["tools"]} >= {"search_docs", "read_doc", "reindex"}


def test_the_id_of_a_message_too_deep_to_parse_is_read_without_recursion() -> None:
    deep = "[" * 50_000 + "]" * 50_000
    assert deep_message_id('{"params": %s, "id": "a\\"b"}' % deep) == 'a"b'
    assert deep_message_id('{"x": "id", "list": ["id", {"id": 3}], "id": -2}') == -2  # the top level's own
    assert deep_message_id('{"id": {"n": 1}}') is None  # an object is no id
    assert deep_message_id('{"id": true}') is None
    assert deep_message_id('[{"id": 1}]') is None  # a batch
    assert deep_message_id('{"params": %s}' % deep) is None
