"""The live index in one process: background sync, watching, the size guard, health, reindex, stop.

Real files, real SQLite, real inotify and the fake embedder. Two LiveIndex on
one index in one process contend for the lock exactly like two processes do (flock is per open file).
"""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import write
from conftest import eventually as _eventually
from scree.config import Config
from scree.db import invariants, queries
from scree.errors import EmbedStopped, IndexError_, LockHeld
from scree.live.live import LiveIndex
from scree.live.lock import WriterLock
from scree.search.search import Query
from scree.live.watcher import inotify_watch_count
from scree.workspace import Workspace

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="needs Linux inotify")

HOLDER = Path(__file__).parent / "helpers" / "lock_holder.py"
WAIT = 15.0


def eventually(predicate: Callable[[], bool], timeout: float = WAIT) -> bool:
    return _eventually(predicate, timeout)


def paths_for(live: LiveIndex, words: str) -> set[str]:
    return {h.path for h in live.search(Query(words, k=20, mode="keyword")).hits}


class SpyEmbedder:
    """An embedder counting close() calls."""

    def __init__(self, inner) -> None:  # noqa: ANN001 - an Embedder
        self.inner = inner
        self.id, self.dimensions, self.max_windows = inner.id, inner.dimensions, inner.max_windows
        self.closed = 0

    def embed_passages(self, passages, should_stop=None):  # noqa: ANN001, ANN201
        return self.inner.embed_passages(passages, should_stop)

    def embed_query(self, text):  # noqa: ANN001, ANN201
        return self.inner.embed_query(text)

    def close(self) -> None:
        self.closed += 1


class GatedEmbedder:
    """An embedder behind a gate: each embed_passages call waits until the test opens the gate."""

    def __init__(self, inner) -> None:  # noqa: ANN001 - an Embedder
        self.inner = inner
        self.id, self.dimensions, self.max_windows = inner.id, inner.dimensions, inner.max_windows
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.calls = 0

    def embed_passages(self, passages, should_stop=None):  # noqa: ANN001, ANN201
        self.calls += 1
        self.entered.set()
        assert self.gate.wait(WAIT), "the test never opened the gate"
        return self.inner.embed_passages(passages, should_stop)

    def embed_query(self, text):  # noqa: ANN001, ANN201
        return self.inner.embed_query(text)

    def close(self) -> None:
        pass


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    write(root, "ops/retention.md", "# Retention\n\nAudit logs are kept for ninety days, then purged.\n")
    write(root, "ops/deploy.md", "# Deploy\n\nWe deploy with a blue green switch on Tuesdays.\n")
    write(root, "team/oncall.md", "# On call\n\nThe pager rotates weekly between four engineers.\n")
    return root


@pytest.fixture
def make_live(embedder):
    """LiveIndex factory with the fake embedder; every instance is stopped at teardown."""
    made: list[LiveIndex] = []

    def _make(folder: Path, *, config: Config | None = None, emb=None, **kw) -> LiveIndex:  # noqa: ANN001
        cfg = config or Config()
        ws = Workspace.from_config(cfg.with_overrides(notes=folder))
        live = LiveIndex(ws, embedder=emb or embedder, **kw)
        made.append(live)
        return live

    yield _make
    for live in made:
        assert live.stop(timeout=5.0)


def complete(live: LiveIndex) -> bool:
    return live.status().state == "complete"


def reached(live: LiveIndex, state: str, timeout: float = WAIT) -> bool:
    """Wait on the live index's own signal (not a poll) until its status is `state`."""
    return live.wait_until(lambda st: st.state == state, timeout)


def test_writer_syncs_in_the_background_and_searches_find_the_notes(notes, make_live, embedder):
    gated = GatedEmbedder(embedder)
    live = make_live(notes, emb=gated)
    starting = threading.Thread(target=live.start)
    starting.start()
    starting.join(WAIT)
    assert not starting.is_alive(), "start() waited for the sync, which is held in the embedder"
    assert gated.entered.wait(WAIT) and live.status().state == "embedding"  # stage one is done
    gated.gate.set()
    assert reached(live, "complete")
    st = live.status()
    assert (st.role, st.indexed_files, st.chunks) == ("writer", 3, 3)
    assert st.describe() == "complete (3 files, 3 chunks)"
    assert paths_for(live, "ninety days") == {"ops/retention.md"}
    hits = live.search(Query("how long are audit logs kept", k=1, mode="semantic")).hits
    assert hits[0].path == "ops/retention.md"


def test_edit_create_rename_and_delete_all_become_searchable(notes, make_live):
    # How soon (production debounce, 1.5 s) is measured by benchmarks/live_timings.py.
    live = make_live(notes, debounce=0.2)
    live.start()
    assert reached(live, "complete")
    write(notes, "ops/deploy.md", "# Deploy\n\nWe deploy with a canary marmoset on Fridays.\n")  # edit
    write(notes, "team/new.md", "# New\n\nThe quokka handbook lives here.\n")  # create
    os.rename(notes / "team/oncall.md", notes / "team/pager.md")  # rename
    (notes / "ops/retention.md").unlink()  # delete
    checks = {
        "edit": lambda: paths_for(live, "marmoset") == {"ops/deploy.md"} and not paths_for(live, "Tuesdays"),
        "create": lambda: paths_for(live, "quokka") == {"team/new.md"},
        "rename": lambda: paths_for(live, "pager rotates") == {"team/pager.md"},
        "delete": lambda: not paths_for(live, "ninety"),
    }
    seen: set[str] = set()

    def all_seen() -> bool:
        seen.update(name for name, check in checks.items() if name not in seen and check())
        return len(seen) == len(checks)

    assert eventually(all_seen), f"only {seen} were searchable"
    # Searches drop a vanished path at once (the policy re-check); the old row of the renamed note may
    # leave the index a batch later.
    assert eventually(lambda: live.status().indexed_files == 3), live.status()


def test_keyword_answers_before_any_vector_exists_and_searches_say_how_far_embedding_is(
        notes, make_live, embedder):
    gated = GatedEmbedder(embedder)  # stage two blocks in its first embed call until the gate opens
    live = make_live(notes, emb=gated)
    live.start()
    assert gated.entered.wait(WAIT)
    assert reached(live, "embedding")  # stage one is over: every note is keyword-searchable
    st = live.status()
    assert st.indexed_files == 3 and st.vectors_done == 0 and st.vectors_total == st.chunks > 0
    assert st.describe().startswith("keyword-ready (3 files")
    assert st.describe().endswith("keyword covers all (estimating the time left)")  # no rate measured yet
    result = live.search(Query("ninety days", mode="keyword"))
    assert [h.path for h in result.hits] == ["ops/retention.md"]
    assert f"vectors for 0 of {st.chunks} chunks; keyword covers all" in result.notes
    auto = live.search(Query("how long are logs kept", mode="auto"))
    assert auto.mode == "keyword"  # never below keyword alone while vectors are missing
    gated.gate.set()
    assert reached(live, "complete")
    result = live.search(Query("ninety days", mode="keyword"))
    assert [h.path for h in result.hits] == ["ops/retention.md"] and result.notes == []
    assert live.status().describe().startswith("complete (3 files")


def test_removing_the_notes_folder_stops_the_writer_and_searches_serve_what_is_indexed(notes, make_live):
    fatal: list[str] = []
    told = threading.Event()
    live = make_live(notes, health_interval=0.1, on_fatal=lambda reason: (fatal.append(reason), told.set()))
    live.start()
    assert reached(live, "complete")
    shutil.rmtree(notes)
    assert reached(live, "not_updating") and told.wait(WAIT)
    st = live.status()
    # Found by the health check ("... was removed") or by a sync that could not list the folder.
    assert st.reason.startswith(f"the notes folder {notes} ")
    assert st.describe().startswith(f"index not updating: the notes folder {notes} ")
    assert fatal == [st.reason]
    assert eventually(lambda: WriterLock(live.workspace.location.lock).try_acquire())
    result = live.search(Query("ninety days", mode="keyword"))
    assert result.notes[0].startswith("index not updating: ")
    with pytest.raises(IndexError_, match="index not updating"):
        live.reindex()


def test_replacing_the_index_file_stops_the_writer(notes, make_live):
    live = make_live(notes, health_interval=0.1)
    live.start()
    assert reached(live, "complete")
    db = live.workspace.location.db
    shutil.copyfile(db, db.with_name("copy.db"))
    os.replace(db.with_name("copy.db"), db)  # atomic: the path never goes missing
    assert reached(live, "not_updating")
    assert "was replaced" in live.status().reason
    assert live.status().indexed_files == 3  # still serving the index it has open


def files_open_at(path: Path) -> set[int]:
    """The inodes this process has open at `path`, the file there now or one replaced since."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target in (str(path), f"{path} (deleted)"):
                inodes.add(os.stat(f"/proc/self/fd/{fd}").st_ino)
        except OSError:
            continue  # closed meanwhile (the listing's own fd)
    return inodes


def test_a_search_after_the_index_file_is_replaced_reads_the_file_the_writer_still_has(notes, make_live):
    # Two files at one path in one process share the -shm by name but not SQLite's per-inode state:
    # opening the new one truncates the map the old one's connection uses (SIGBUS, seen in CI).
    live = make_live(notes, health_interval=3600.0)  # the writer does not notice the replacement
    live.start()
    assert reached(live, "complete")
    assert paths_for(live, "ninety days") == {"ops/retention.md"}
    db = live.workspace.location.db
    shutil.copyfile(db, db.with_name("copy.db"))
    os.replace(db.with_name("copy.db"), db)
    assert paths_for(live, "ninety days") == {"ops/retention.md"}
    assert live.status().indexed_files == 3
    assert len(files_open_at(db)) == 1


def test_a_second_live_index_only_reads_then_takes_over_and_catches_up(notes, make_live):
    first = make_live(notes, lock_retry=0.2)
    first.start()
    assert reached(first, "complete")
    second = make_live(notes, lock_retry=0.2)
    second.start()
    assert second.status().role == "reader" and complete(second)
    assert paths_for(second, "ninety days") == {"ops/retention.md"}
    assert first.stop(timeout=5.0)
    write(notes, "ops/retention.md", "# Retention\n\nAudit logs are kept for a fortnight.\n")  # nobody writes
    assert eventually(lambda: paths_for(second, "fortnight") == {"ops/retention.md"})
    assert second.status().role == "writer"


def test_reindex_on_a_reader_names_the_process_that_holds_the_lock(notes, make_live):
    live = make_live(notes, lock_retry=60.0)
    holder = subprocess.Popen([sys.executable, str(HOLDER), str(live.workspace.location.lock)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(holder.stdout, selectors.EVENT_READ)
            assert sel.select(WAIT), "the lock holder never started"
        assert holder.stdout.readline().strip() == "locked"
        live.start()
        assert live.status().role == "reader"
        with pytest.raises(LockHeld, match=f"pid {holder.pid} ") as info:
            live.reindex()
        assert info.value.pid == holder.pid
        holder.stdin.close()  # the holder releases and exits
        assert holder.wait(timeout=WAIT) == 0
        # Now this process takes the lock (its waiter may have won the race with this call).
        report = live.reindex()
        assert len(report.added) + report.unchanged == 3
        assert live.status().role == "writer" and live.status().indexed_files == 3
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


def test_reindex_with_rebuild_re_embeds_every_note_on_the_writer(notes, make_live):
    live = make_live(notes)
    live.start()
    assert reached(live, "complete")
    assert live.reindex().changed is False
    report = live.reindex(rebuild=True)
    assert sorted(report.updated) == ["ops/deploy.md", "ops/retention.md", "team/oncall.md"]
    assert live.status().chunks == 3


def test_stop_ends_a_long_first_sync_between_files(notes, make_live, embedder):
    for i in range(20):
        write(notes, f"bulk/n{i:02d}.md", f"# Bulk {i}\n\nFiller note number {i}.\n")
    gated = GatedEmbedder(embedder)
    live = make_live(notes, emb=gated)
    live.start()
    assert gated.entered.wait(WAIT)
    stopped: list[bool] = []
    stopper = threading.Thread(target=lambda: stopped.append(live.stop(timeout=5.0)))
    stopper.start()
    assert eventually(lambda: live._stopping)
    gated.gate.set()  # the file in hand finishes; the sync must not start another
    stopper.join(WAIT)
    assert stopped == [True]
    assert gated.calls == 1
    assert WriterLock(live.workspace.location.lock).try_acquire()


class StallingEmbedder:
    """An embedder whose embed call runs until a stop request reaches it, as a long batch of the model
    does (each of its small runs looks at the request); a call never told of one runs its full course."""

    def __init__(self, inner) -> None:  # noqa: ANN001 - an Embedder
        self.inner = inner
        self.id, self.dimensions, self.max_windows = inner.id, inner.dimensions, inner.max_windows
        self.entered = threading.Event()
        self.course = threading.Event()  # set by the test to end a call nobody stops

    def embed_passages(self, passages, should_stop=None):  # noqa: ANN001, ANN201
        self.entered.set()
        while not self.course.wait(0.01):
            if should_stop is not None and should_stop():
                raise EmbedStopped()
        return self.inner.embed_passages(passages)

    def embed_query(self, text):  # noqa: ANN001, ANN201
        return self.inner.embed_query(text)

    def close(self) -> None:
        pass


def test_a_stop_while_the_model_embeds_drops_the_batch_and_releases_the_lock(notes, make_live, embedder):
    # `scree watch` waited out its 5 s and `serve` its 2 s while a batch of 64 passages finished (issue 26, item 7).
    stalling = StallingEmbedder(embedder)
    live = make_live(notes, emb=stalling)
    live.start()
    assert stalling.entered.wait(WAIT) and reached(live, "embedding")
    try:
        assert live.stop(timeout=5.0)  # within a run of the model, not a whole batch
    finally:
        stalling.course.set()
    assert WriterLock(live.workspace.location.lock).try_acquire()
    index = live.workspace.open_index(create=False)
    try:
        assert queries.vector_progress(index.conn).embedded == 0  # the dropped batch was not stored
        assert invariants.problems(index.conn) == []
    finally:
        index.close()


def test_editing_screeignore_drops_the_newly_ignored_notes(notes, make_live):
    live = make_live(notes, debounce=0.2)
    live.start()
    assert reached(live, "complete")
    write(notes, ".screeignore", "team/\n")
    assert live.wait_until(lambda st: st.indexed_files == 2, WAIT)
    assert paths_for(live, "pager") == set()


def test_the_model_is_released_after_it_sat_idle(notes, make_live, embedder):
    spy = SpyEmbedder(embedder)
    live = make_live(notes, emb=spy, health_interval=0.05, model_idle=0.3)
    live.start()
    assert reached(live, "complete")
    assert eventually(lambda: spy.closed == 1), "the model used by the first sync was never released"
    assert paths_for(live, "ninety days") == {"ops/retention.md"}  # keyword: no model
    assert spy.closed == 1
    used = time.monotonic()
    live.search(Query("how long are audit logs kept", mode="semantic"))
    assert eventually(lambda: spy.closed == 2)
    assert time.monotonic() - used >= 0.3


def test_a_restarted_writer_reports_the_committed_notes_at_once(notes, make_live, embedder):
    first = make_live(notes)
    first.start()
    assert reached(first, "complete")
    assert first.stop(timeout=5.0)
    gated = GatedEmbedder(embedder)  # holds the restarted writer inside its first sync
    again = make_live(notes, emb=gated)
    write(notes, "ops/new.md", "# New\n\nSomething to embed.\n")
    again.start()
    assert gated.entered.wait(WAIT)
    st = again.status()
    # Stage one committed the new note at once; its one chunk waits for its vectors.
    assert (st.state, st.role, st.indexed_files) == ("embedding", "writer", 4)
    assert st.vectors_done == st.vectors_total - 1
    gated.gate.set()
    assert reached(again, "complete")


def test_a_docbook_page_written_into_a_docs_folder_is_found_and_other_xml_is_not(notes, make_live):
    live = make_live(notes, debounce=0.2)
    live.start()
    assert reached(live, "complete")
    write(notes, "man/tool.8.xml", "<?xml version='1.0'?>\n<!DOCTYPE refentry PUBLIC '-//OASIS//DTD DocBook V4.5//EN'>\n"
                                   "<refentry><refsect1><title>OPTIONS</title><para>The axolotl flag.</para>"
                                   "</refsect1></refentry>\n")
    write(notes, "src/layout.xml", "<layout><text>axolotl</text></layout>\n")  # no docs folder: never read
    write(notes, "man/catalog.xml", "<catalog><item>axolotl</item></catalog>\n")  # a docs folder, but no DocBook
    assert eventually(lambda: paths_for(live, "axolotl") == {"man/tool.8.xml"})
    assert live.wait_until(lambda st: st.indexed_files == 4, WAIT), live.status()


def test_a_plain_text_doc_written_by_its_name_is_found_and_a_code_file_of_that_word_is_not(notes, make_live):
    live = make_live(notes, debounce=0.2)
    live.start()
    assert reached(live, "complete")
    write(notes, "PROTOCOL.agent", "1. session-bind extension\n\nThe axolotl binding.\n")
    write(notes, "src/protocol.c", "/* axolotl */\n")  # code: never read
    write(notes, "TODO", "axolotl later\n")  # a list, not a doc
    assert eventually(lambda: paths_for(live, "axolotl") == {"PROTOCOL.agent"})
    assert live.wait_until(lambda st: st.indexed_files == 4, WAIT), live.status()
