"""When the engine counts itself idle (engine/engine.py `Activity`): the logic directly; the processes are in
test_relay.py."""

from __future__ import annotations

import time

from scree.engine.engine import Activity


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
