"""A request's one owner between the relay and its engines: never lost, never sent twice to one engine.

The relay runs in this process; the engine is a small scripted one on a real Unix socket that speaks the
relay's channel (hello, the replayed handshake, then MCP lines). The shapes are the ones a real engine
leaves for idle or dies in: the connection closed before a call reached it, or after.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path
from typing import Any, Dict, List

from scree.relay import channel
from scree.relay.relay import INIT_ID, Link, Relay

REPO = Path(__file__).resolve().parent.parent
WAIT = 30.0


class Out:
    """The relay's stdout: the lines it wrote, and an event per line."""

    def __init__(self) -> None:
        self.lines: List[Dict[str, Any]] = []
        self.cond = threading.Condition()

    def write(self, data: bytes) -> int:
        with self.cond:
            self.lines.extend(json.loads(line) for line in data.splitlines() if line.strip())
            self.cond.notify_all()
        return len(data)

    def flush(self) -> None:
        pass

    def wait_for(self, count: int) -> List[Dict[str, Any]]:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.lines) >= count, WAIT), self.lines
            return list(self.lines)


class ScriptedEngine:
    """Listens where the relay looks; each connection does what `script` says for its number (0, 1, ...):
    "answer" replies to every call, "drop" closes after reading the first call."""

    def __init__(self, path: str, script: List[str]) -> None:
        self.script = script
        self.calls: List[List[Any]] = []  # per connection, the request ids it read
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(8)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            number = len(self.calls)
            self.calls.append([])
            threading.Thread(target=self._serve, args=(conn, number), daemon=True).start()

    def _serve(self, conn: socket.socket, number: int) -> None:
        mode = self.script[min(number, len(self.script) - 1)]
        with conn, conn.makefile("rb") as rfile:
            assert channel.decode(rfile.readline())["scree"] == "hello"
            conn.sendall(channel.encode({"scree": "ready", "pid": os.getpid(), "version": "test"}))
            for raw in iter(rfile.readline, b""):
                message = json.loads(raw)
                if message.get("id") == INIT_ID:
                    conn.sendall(_line({"jsonrpc": "2.0", "id": INIT_ID, "result": {}}))
                    continue
                if "id" not in message:
                    continue
                self.calls[number].append(message["id"])
                if mode == "drop":
                    return
                conn.sendall(_line({"jsonrpc": "2.0", "id": message["id"],
                                    "result": {"content": [{"type": "text", "text": "found"}], "isError": False}}))

    def close(self) -> None:
        self.listener.close()


def _line(message: Dict[str, Any]) -> bytes:
    return (json.dumps(message) + "\n").encode()


def relay_for(tmp_path: Path) -> tuple[Relay, Out]:
    env = dict(os.environ)  # SCREE_RUNTIME_DIR: the test's own short folder (conftest)
    out = Out()
    relay = Relay(str(REPO), str(tmp_path / "data"), [], env, out, open(os.devnull, "w"))  # type: ignore[arg-type]
    assert not relay.unsafe
    return relay, out


def call(request_id: int) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": "search_docs", "arguments": {"query": "tokens"}}}


def test_a_call_sent_as_the_engine_left_for_idle_reaches_the_next_engine(tmp_path: Path) -> None:
    relay, out = relay_for(tmp_path)
    engine = ScriptedEngine(relay.sock_path, ["answer"])
    # The link the relay holds leads to an engine that has just exited: its end is closed, and the
    # relay's reader has not noticed yet.
    mine, gone = socket.socketpair()
    gone.close()
    relay.link = Link(mine, mine.makefile("rb"))
    try:
        relay.forward(call(7))
        lines = out.wait_for(1)
        assert lines[0]["id"] == 7 and lines[0]["result"]["isError"] is False, lines
        assert engine.calls == [[7]]
        assert not relay.pending and not relay.carried
    finally:
        engine.close()


def test_a_call_two_engines_drop_is_answered_once_with_the_log_to_read(tmp_path: Path) -> None:
    relay, out = relay_for(tmp_path)
    engine = ScriptedEngine(relay.sock_path, ["drop", "drop", "answer"])
    try:
        relay.forward(call(3))
        lines = out.wait_for(1)
        assert len(lines) == 1 and lines[0]["id"] == 3
        assert lines[0]["result"]["isError"] is True
        assert "stopped twice" in lines[0]["result"]["content"][0]["text"]
        # Each engine read it once, and no third one was asked.
        assert engine.calls == [[3], [3]]
        assert not relay.pending and not relay.carried and not relay.sent
    finally:
        engine.close()


def test_a_call_lost_in_flight_is_answered_by_the_next_engine_exactly_once(tmp_path: Path) -> None:
    relay, out = relay_for(tmp_path)
    engine = ScriptedEngine(relay.sock_path, ["drop", "answer"])
    try:
        relay.forward(call(5))
        relay.forward(call(6))  # sent to the second engine: the first is gone by the time it is answered
        lines = out.wait_for(2)
        assert sorted(line["id"] for line in lines) == [5, 6]
        assert all(line["result"]["isError"] is False for line in lines)
        assert [ids.count(5) for ids in engine.calls] == [1, 1]
        assert not relay.pending and not relay.carried
    finally:
        engine.close()
