"""The live writer's job queue: work arriving while a sync runs is merged into one next job."""

from __future__ import annotations

import threading
from concurrent.futures import Future

from scree.indexstatus import StatusChanges
from scree.jobqueue import Job, JobQueue, merge


def test_paths_accumulate_until_a_full_sync_covers_them():
    assert merge(Job("paths", {"a.md"}), Job("paths", {"b.md"})).paths == {"a.md", "b.md"}
    full = merge(Job("paths", {"a.md"}), Job("full"))
    assert (full.kind, full.paths) == ("full", set())


def test_a_merged_job_keeps_every_caller_and_any_rebuild():
    one, two = Future(), Future()
    job = merge(Job("reindex", rebuild=True, futures=[one]), Job("full", futures=[two]))
    assert (job.kind, job.rebuild, job.futures) == ("reindex", True, [one, two])
    assert merge(Job("repair"), Job("reindex")).kind == "repair"


def test_take_waits_for_work_and_returns_none_once_stopped():
    queue, stop = JobQueue(), threading.Event()
    got: list[Job | None] = []
    taker = threading.Thread(target=lambda: got.append(queue.take(stop)))
    taker.start()
    queue.put(Job("paths", {"a.md"}))
    taker.join(10)
    assert got[0] is not None and got[0].paths == {"a.md"}
    stop.set()
    queue.wake()
    assert queue.take(stop) is None


def test_wait_for_ends_when_the_kind_arrives_and_reset_returns_what_was_pending():
    queue, stop = JobQueue(), threading.Event()
    assert queue.wait_for("reindex", stop, 0.01) is False
    threading.Timer(0.05, lambda: queue.put(Job("reindex"))).start()
    assert queue.wait_for("reindex", stop, 10.0) is True
    assert queue.reset().kind == "reindex" and queue.reset().kind == "none"


def test_status_changes_wake_a_waiter_on_a_bump():
    changes, state = StatusChanges(), {"done": False}

    def finish() -> None:
        state["done"] = True
        changes.bump()

    threading.Timer(0.05, finish).start()
    assert changes.wait_until(lambda: state["done"], 10.0)
    assert not changes.wait_until(lambda: False, 0.05)
