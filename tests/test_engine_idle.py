"""When the engine counts itself idle (engine/engine.py `Activity`): the logic directly; the processes are in
test_relay.py."""

from __future__ import annotations

import json
import socket
import time

from scree.engine.engine import Activity, SocketLines


def test_a_connection_saying_hello_keeps_the_engine_from_idling() -> None:
    # Under load a hello (which opens the session's index) outlasted a 1 s idle time: the engine exited under the
    # session, and the relay found every engine it started gone before "ready".
    activity = Activity(last=time.monotonic() - 10)
    assert (activity.idle_for() or 0) >= 10
    activity.hello_started()
    assert activity.idle_for() is None
    activity.hello_ended()
    idle = activity.idle_for()
    assert idle is not None and idle < 5  # the hello's end is the last word heard


def test_an_unanswered_request_keeps_the_engine_and_its_answer_frees_it() -> None:
    activity = Activity(last=time.monotonic() - 10)
    activity.heard(1, {"jsonrpc": "2.0", "id": 7, "method": "tools/call"})
    assert activity.idle_for() is None
    activity.answered(1, {"jsonrpc": "2.0", "id": 7, "result": {}})
    assert activity.idle_for() is not None


def test_a_request_is_kept_from_an_engine_that_decided_to_leave() -> None:
    activity = Activity(last=time.monotonic() - 10)
    activity.heard(1, {"jsonrpc": "2.0", "id": 1, "method": "tools/call"})
    assert activity.leave_if_idle(5) is None  # a request is unanswered
    activity.answered(1, {"jsonrpc": "2.0", "id": 1, "result": {}})
    assert activity.leave_if_idle(5) is None  # the answer was just now
    activity.last -= 10
    assert (activity.leave_if_idle(5) or 0) >= 10
    # Decided: a request read from now on is not taken (its relay sends it to the next engine), and it keeps
    # nothing pending that would hold the leaving engine.
    assert activity.heard(2, {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}) is False
    assert activity.pending.get(2) is None


def test_a_line_read_as_the_engine_leaves_ends_the_session_instead_of_being_answered() -> None:
    relay_end, engine_end = socket.socketpair()
    activity = Activity(last=time.monotonic() - 10)
    with relay_end, engine_end, engine_end.makefile("rb") as rfile:
        lines = SocketLines(engine_end, rfile, 1, activity)
        relay_end.sendall(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
        assert json.loads(lines.readline())["id"] == 1
        lines.write('{"jsonrpc":"2.0","id":1,"result":{}}\n')
        lines.flush()
        activity.last -= 10
        assert activity.leave_if_idle(5) is not None
        relay_end.sendall(b'{"jsonrpc":"2.0","id":2,"method":"tools/call"}\n')
        assert lines.readline() == ""  # end of input for the MCP session: it is not answered here
