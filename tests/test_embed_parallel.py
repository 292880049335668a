"""The local embedder runs its batches on several threads at once (`in_parallel`), and the vectors stay the same."""

from __future__ import annotations

import signal
import sys
import threading
import time
from typing import Iterator

import numpy as np
import pytest

from scree.embed import Passage
from scree.embed.local import LocalMiniLM, in_parallel
from scree.errors import EmbedStopped


def test_every_item_is_done_once_and_two_workers_really_overlap() -> None:
    both_inside = threading.Barrier(2, timeout=30)  # broken (an error below) unless two items run at once
    done: list[int] = []
    threads: set[int] = set()

    def work(item: int) -> None:
        if item < 2:
            both_inside.wait()
        threads.add(threading.get_ident())
        done.append(item)

    in_parallel(list(range(50)), work, workers=2)
    assert sorted(done) == list(range(50))
    assert len(threads) == 2 and threading.get_ident() not in threads  # the caller only waits


def test_one_worker_runs_everything_on_one_helper_while_the_caller_waits() -> None:
    threads: set[int] = set()
    in_parallel(list(range(5)), lambda _: threads.add(threading.get_ident()), workers=1)
    assert len(threads) == 1 and threading.get_ident() not in threads


def test_a_failure_stops_the_others_is_raised_and_leaves_no_thread_behind() -> None:
    started: list[int] = []
    before = set(threading.enumerate())

    def work(item: int) -> None:
        started.append(item)
        if item == 3:
            raise ValueError("batch 3 is broken")

    with pytest.raises(ValueError, match="batch 3 is broken"):
        in_parallel(list(range(1000)), work, workers=2)
    assert len(started) < 1000  # the rest were never started
    assert set(threading.enumerate()) == before


@pytest.fixture
def sigint_raises() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in the main thread, as in the CLI, whatever pytest's worker set."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def test_an_interrupt_while_waiting_raises_only_once_every_helper_is_past_its_work(sigint_raises: None) -> None:
    # Ctrl-C while the CLI embedded aborted the process 4 times in 9 (issue 26, item 6): the interrupt
    # cut the caller's join short, which on CPython 3.11 marks the thread ended while it still runs
    # the model, and the interpreter shut down around it ("terminate called without an active exception").
    holding, released, finished = threading.Event(), threading.Event(), []

    def work(item: int) -> None:
        if item == 0:  # the model's run in flight when the signal lands
            holding.set()
            assert released.wait(30)
            finished.append(item)

    def interrupt_the_caller() -> None:
        holding.wait(30)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        time.sleep(0.3)  # the run goes on a while after the signal (it is not abandoned here)
        released.set()

    assert threading.current_thread() is threading.main_thread()
    before = set(threading.enumerate())
    threading.Thread(target=interrupt_the_caller, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        in_parallel(list(range(100)), work, workers=2)
    assert finished == [0]  # the run in flight had ended before the interrupt went on
    assert set(threading.enumerate()) - before <= {t for t in threading.enumerate() if t.daemon}


def test_a_stop_request_abandons_the_runs_in_flight_and_raises_embed_stopped() -> None:
    stop, abandoned, finished = threading.Event(), threading.Event(), []

    def work(item: int) -> None:
        stop.set()  # the request comes while the model runs this item
        assert abandoned.wait(30)  # a run ends early only when abandoned
        finished.append(item)

    with pytest.raises(EmbedStopped):
        in_parallel(list(range(100)), work, workers=2, should_stop=stop.is_set, on_stop=abandoned.set)
    assert 1 <= len(finished) <= 2  # the runs in flight ended; no new one began


def test_a_join_cut_short_by_an_interrupt_marks_a_running_thread_ended(sigint_raises: None) -> None:
    """Why in_parallel waits on events, never `Thread.join` (CPython 3.11.7's `_wait_for_tstate_lock`
    releases the running thread's own lock when the interrupted acquire finds it locked, bpo-45274)."""
    if sys.version_info[:2] != (3, 11) or not hasattr(threading.Thread, "_wait_for_tstate_lock"):
        pytest.skip("pins the behaviour of CPython 3.11's threading")
    blocked, release = threading.Event(), threading.Event()

    def hold() -> None:
        blocked.set()
        release.wait(30)

    worker = threading.Thread(target=hold, daemon=True)
    worker.start()
    blocked.wait(30)
    threading.Timer(0.2, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT)).start()
    try:
        with pytest.raises(KeyboardInterrupt):
            worker.join()
        assert not worker.is_alive()  # while it is still blocked in hold()
    finally:
        release.set()


@pytest.mark.real_model
def test_parallel_batches_give_the_vectors_of_one_thread() -> None:
    passages = [Passage(f"notes/n{i}.md\nTitle {i}", f"Paragraph {i} about topic {i % 7}. " * (5 + 9 * i))
                for i in range(12)]
    one, two = LocalMiniLM(threads=1), LocalMiniLM(threads=2)
    try:
        alone, together = one.embed_passages(passages), two.embed_passages(passages)
    finally:
        one.close()
        two.close()
    assert [a.shape for a in alone] == [b.shape for b in together]
    assert sum(a.shape[0] for a in alone) > 2 * 4  # more batches than workers
    for a, b in zip(alone, together):
        assert np.allclose(a, b, atol=1e-5)


def test_helpers_of_a_daemon_caller_are_daemons_so_they_never_hold_the_process_open() -> None:
    both_inside = threading.Barrier(2, timeout=30)
    flags: dict[str, bool] = {}

    def work(item: int) -> None:
        if item < 2:
            both_inside.wait()
        flags[threading.current_thread().name] = threading.current_thread().daemon

    caller = threading.Thread(target=in_parallel, args=(list(range(10)), work), kwargs={"workers": 2}, daemon=True)
    caller.start()
    caller.join(30)
    assert not caller.is_alive()
    assert len(flags) == 2 and all(flags.values())
