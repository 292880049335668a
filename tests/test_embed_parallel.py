"""The local embedder runs its batches on several threads at once (`in_parallel`), and the vectors stay the same."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from scree.embed import Passage
from scree.embed.local import LocalMiniLM, in_parallel


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
    assert len(threads) == 2 and threading.get_ident() in threads  # the caller is one of the workers


def test_one_worker_runs_everything_on_the_callers_thread() -> None:
    threads: set[int] = set()
    in_parallel(list(range(5)), lambda _: threads.add(threading.get_ident()), workers=1)
    assert threads == {threading.get_ident()}


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


def test_an_interrupt_of_the_caller_joins_the_helpers_before_it_propagates() -> None:
    caller_in = threading.Event()
    helper_items: list[int] = []

    def work(item: int) -> None:
        if threading.current_thread() is threading.main_thread():
            caller_in.set()
            raise KeyboardInterrupt
        caller_in.wait(30)  # the helper holds its first item until the caller is interrupted
        helper_items.append(item)

    before = set(threading.enumerate())
    with pytest.raises(KeyboardInterrupt):
        in_parallel(list(range(100)), work, workers=2)
    assert set(threading.enumerate()) == before
    assert len(helper_items) == 1  # it finished the item it held, then stopped


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
