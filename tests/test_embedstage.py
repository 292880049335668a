"""Stage two of a sync (scree.index.embedstage): its order, and that a vector is never stored for text other
than the one it was made from, nor made twice for a file edited while it waited."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from conftest import write
from scree.config import load_config
from scree.db import invariants, queries, writes
from scree.index.embedstage import embed_pending, next_batch, order_files
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.index.store import open_index
from scree.index.sync import sync


def _open(folder: Path):
    return open_index(index_location(folder, load_config()), folder)


def test_files_a_search_hit_come_first_then_the_most_recently_modified() -> None:
    pending = [(1, "new.md", 300), (2, "mid.md", 200), (3, "old.md", 100)]  # as queried: newest first
    assert [p for _, p, _ in order_files(pending, frozenset())] == ["new.md", "mid.md", "old.md"]
    assert [p for _, p, _ in order_files(pending, frozenset({"old.md"}))] == ["old.md", "new.md", "mid.md"]


def test_stage_two_embeds_the_most_recently_modified_note_first(tmp_path: Path, embedder) -> None:
    root = tmp_path / "notes"
    for i, name in enumerate(["a.md", "b.md", "c.md"]):
        write(root, name, f"# {name}\n\nText of {name}.\n")
        os.utime(root / name, ns=(10**18 + i * 10**9, 10**18 + i * 10**9))  # c.md is the newest
    index = _open(root)
    sync(index, NotesPolicy.load(root), embedder, embed=False)
    assert [c.path for c in next_batch(index, frozenset(), 64)] == ["c.md", "b.md", "a.md"]
    assert [c.path for c in next_batch(index, frozenset({"a.md"}), 1)] == ["a.md"]


def test_a_note_edited_while_it_waited_is_re_chunked_and_embedded_once(tmp_path: Path, embedder) -> None:
    root = tmp_path / "notes"
    write(root, "n.md", "# N\n\n## One\n\nFirst words.\n\n## Two\n\nSecond words.\n")
    index = _open(root)
    policy = NotesPolicy.load(root)
    sync(index, policy, embedder, embed=False)
    write(root, "n.md", "# N\n\n## One\n\nFirst words.\n\n## Two\n\nRewritten words.\n")
    report = sync(index, policy, embedder, embed=False)
    assert report.updated == ["n.md"]
    embedder.passages = 0
    done = embed_pending(index, embedder)
    assert done.chunks == 2 and embedder.passages == 2  # the new version's chunks, once each
    assert queries.vector_progress(index.conn).complete
    assert invariants.problems(index.conn, embedder.max_windows) == []


def test_a_vector_made_from_text_that_changed_meanwhile_is_not_stored(tmp_path: Path, embedder) -> None:
    root = tmp_path / "notes"
    write(root, "n.md", "# N\n\nOld text.\n")
    index = _open(root)
    policy = NotesPolicy.load(root)
    sync(index, policy, embedder, embed=False)
    [old] = next_batch(index, frozenset(), 64)
    vecs = np.ones((1, embedder.dimensions), dtype=np.float32) / np.sqrt(embedder.dimensions)
    write(root, "n.md", "# N\n\nNew text.\n")
    sync(index, policy, embedder, embed=False)  # re-chunked while the old text was being embedded
    stored = writes.store_vectors(index.conn, [writes.EmbeddedChunk(old.id, old.file_id, old.heading, old.text, vecs)],
                                  embedder.max_windows)
    assert stored == 0
    assert queries.vector_progress(index.conn).embedded == 0
    assert invariants.problems(index.conn, embedder.max_windows) == []


def test_stage_two_logs_its_first_batch_then_at_most_every_ten_seconds(caplog) -> None:
    import logging

    from scree.live.livestage import PROGRESS_LOG_SECONDS, LoggedProgress

    now = [100.0]
    progress = LoggedProgress("/notes", clock=lambda: now[0])
    with caplog.at_level(logging.INFO, logger="scree.live.livestage"):
        for done in (64, 128, 192):  # one run's batches within a few seconds: only the first is logged
            progress.embedding(done, 1000)
            now[0] += 2.0
        now[0] += PROGRESS_LOG_SECONDS
        progress.embedding(256, 1000)
    assert [r.getMessage() for r in caplog.records] == ["/notes: 64 of 1000 chunks have vectors",
                                                        "/notes: 256 of 1000 chunks have vectors"]


def test_every_stored_batch_records_the_runs_clock_which_a_continued_run_keeps(tmp_path: Path, embedder) -> None:
    from scree.index.embedstage import EMBED_BATCH_PASSAGES
    from scree.index.indexstatus import decode_clock

    root = tmp_path / "notes"
    write(root, "big.md", "# Big\n\n" + "".join(f"## Part {i}\n\nWords of part {i}.\n\n" for i in range(200)))
    index = _open(root)
    sync(index, NotesPolicy.load(root), embedder, embed=False)
    first = embed_pending(index, embedder, max_batches=2)
    clock = decode_clock(index.meta())
    assert clock is not None and first.clock is not None and clock.encode() == first.clock.encode()
    assert (clock.batches, clock.first, clock.stored) == (2, EMBED_BATCH_PASSAGES, 2 * EMBED_BATCH_PASSAGES)
    assert clock.rate == 0  # fewer than MIN_BATCHES: estimating
    later = embed_pending(index, embedder, max_batches=1, clock=clock)  # the same run, after a yield
    assert later.clock is not None and later.clock.batches == 3 and abs(later.clock.began - clock.began) < 0.01
    assert later.clock.rate > 0 and decode_clock(index.meta()).encode() == later.clock.encode()
    fresh = embed_pending(index, embedder, max_batches=1)  # a new run starts its own clock
    assert fresh.clock is not None and fresh.clock.batches == 1


def test_the_time_left_is_the_runs_own_estimating_before_and_withdrawn_once_nothing_moves() -> None:
    from scree.index.indexstatus import StageTwoClock, stage_two_note

    now = 1_000_000.0
    running = StageTwoClock(began=now - 30, at=now - 2, first=64, stored=64 * 8, batches=8)  # 16 chunks/s
    assert stage_two_note(1000, 1960, running, now) == ("vectors for 1,000 of 1,960 chunks; keyword covers all "
                                                         "(about 60 s to go)")
    young = StageTwoClock(began=now - 5, at=now - 1, first=64, stored=128, batches=2)
    assert stage_two_note(128, 2000, young, now).endswith("(estimating the time left)")
    assert stage_two_note(1000, 1960, running, now + 70).endswith("(no vectors stored for 72 s)")
    assert stage_two_note(1000, 1960, running, now, "the disk is full; free some space").endswith(
        "keyword covers all; stage two cannot store vectors: the disk is full; free some space")
    assert stage_two_note(1000, 1960) == "vectors for 1,000 of 1,960 chunks; keyword covers all"
    assert stage_two_note(1960, 1960, running, now) is None


def test_the_rate_for_planning_is_the_last_runs_else_a_rough_figure() -> None:
    from scree.index.indexstatus import ASSUMED_RATE, StageTwoClock, recorded_rate

    measured = StageTwoClock(began=100.0, at=110.0, first=64, stored=64 * 6, batches=6)
    assert recorded_rate({"stage_two": measured.encode()}) == 32.0
    assert recorded_rate({"embed_rate": "7.5"}) == 7.5  # an index an earlier scree measured
    assert recorded_rate({}) == ASSUMED_RATE
