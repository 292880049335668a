"""The writer's work queue: jobs asked for while work is pending merge into one, losing no caller."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future

from scree.live.jobqueue import Job, JobQueue, drop_stale_repair, merge_jobs, repair_job


def test_path_jobs_merge_their_paths():
    merged = merge_jobs(Job("paths", {"a.md"}), Job("paths", {"b.md"}))
    assert merged.kind == "paths" and merged.paths == {"a.md", "b.md"}


def test_a_full_sync_swallows_pending_paths_and_keeps_every_future():
    f1, f2 = Future(), Future()
    merged = merge_jobs(Job("paths", {"a.md"}, futures=[f1]), Job("full", futures=[f2]))
    assert merged.kind == "full" and merged.paths == set() and merged.futures == [f1, f2]


def test_reindex_beats_full_and_repair_beats_reindex_and_rebuild_sticks():
    assert merge_jobs(Job("full"), Job("reindex", rebuild=True)).kind == "reindex"
    merged = merge_jobs(Job("reindex", rebuild=True), Job("repair"))
    assert merged.kind == "repair" and merged.rebuild


def test_take_returns_the_merged_job_once_then_waits_until_stopped():
    q = JobQueue()
    q.put(Job("paths", {"a.md"}))
    q.put(Job("paths", {"b.md"}))
    stop = threading.Event()
    job = q.take(stop)
    assert job is not None and job.paths == {"a.md", "b.md"}
    stop.set()
    q.wake()
    assert q.take(stop) is None


def test_a_queued_reindex_ends_a_pause_early():
    q = JobQueue()
    stop = threading.Event()
    done = threading.Event()

    def pause() -> None:
        q.wait_for_reindex(stop, 60.0)
        done.set()

    t = threading.Thread(target=pause)
    t.start()
    q.put(Job("reindex"))
    assert done.wait(10.0)
    t.join()


def test_a_repair_of_damage_seen_before_the_last_repair_began_becomes_a_full_sync():
    seen_by_search = repair_job()
    began = time.monotonic()  # the worker takes that repair: deletes the file, builds a new one
    seen_by_health_check = Job("repair", seen_at=seen_by_search.seen_at)  # the same damage, reported again
    assert drop_stale_repair(seen_by_health_check, began).kind == "full"
    f = Future()
    later = repair_job([f], rebuild=True)  # damage seen after the repair began: the new file is damaged too
    assert drop_stale_repair(later, began) is later
    stale = drop_stale_repair(Job("repair", rebuild=True, futures=[f], seen_at=began - 1), began)
    assert stale.futures == [f] and stale.rebuild, "its callers still get their answer"
    assert drop_stale_repair(Job("reopen"), began).kind == "reopen"


def test_merging_keeps_the_latest_sighting_of_damage():
    old = Job("repair", seen_at=1.0)
    new = Job("repair", seen_at=5.0)
    assert merge_jobs(old, new).seen_at == 5.0
    assert merge_jobs(new, Job("paths", {"a.md"})).seen_at == 5.0
