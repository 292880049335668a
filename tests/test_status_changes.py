"""The signal a caller of LiveIndex.wait_until sleeps on: woken by a bump, not by polling."""

from __future__ import annotations

import threading

from scree.index.indexstatus import StatusChanges


def test_a_waiter_wakes_on_the_bump_that_makes_its_condition_true():
    changes, state = StatusChanges(), {"done": False}

    def finish() -> None:
        state["done"] = True
        changes.bump()

    threading.Timer(0.05, finish).start()
    assert changes.wait_until(lambda: state["done"], 10.0)


def test_a_condition_that_never_holds_times_out():
    assert not StatusChanges().wait_until(lambda: False, 0.05)
