"""The notes watcher on real files and real inotify: debounced deliveries, no watches on ignored trees."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import eventually as _eventually
from scree.errors import FolderError
from scree.notes.policy import NotesPolicy
from scree.live.watcher import NotesWatcher, admitted_dirs, inotify_watch_count, inotify_watches_by_fd

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="needs Linux inotify")

DEBOUNCE = 0.2
WAIT = 5.0  # deadline for anything that should happen within a debounce or two


class Recorder:
    """Collects what the watcher delivers and lets a test wait for it with a deadline."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.batches: list[set[str]] = []
        self.batch_times: list[float] = []
        self.rescans = 0
        self.fail_next = False

    def on_paths(self, paths: set[str]) -> None:
        with self.cond:
            self.batches.append(set(paths))
            self.batch_times.append(time.monotonic())
            self.cond.notify_all()
            if self.fail_next:
                self.fail_next = False
                raise RuntimeError("indexing failed")

    def on_rescan(self) -> None:
        with self.cond:
            self.rescans += 1
            self.cond.notify_all()

    def times(self, rel: str) -> int:
        with self.cond:
            return sum(rel in batch for batch in self.batches)

    def wait_for(self, predicate: Callable[[], bool], timeout: float = WAIT) -> bool:
        with self.cond:
            return self.cond.wait_for(predicate, timeout)

    def wait_delivered(self, rel: str, times: int = 1) -> None:
        assert self.wait_for(lambda: sum(rel in b for b in self.batches) >= times), (
            f"{rel} not delivered {times}x within {WAIT} s; got {self.batches}"
        )

    def wait_rescans(self, count: int = 1) -> None:
        assert self.wait_for(lambda: self.rescans >= count), f"no rescan within {WAIT} s"


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "docs").mkdir(parents=True)
    return root


@pytest.fixture
def watch():
    """Start a watcher on a root. Teardown stops every watcher (promptly) and waits until its
    inotify instances are closed, so the next test's watch counts start from a settled process."""
    started: list[tuple[NotesWatcher, set[int]]] = []

    def _watch(root: Path, debounce: float = DEBOUNCE) -> tuple[NotesWatcher, Recorder]:
        rec = Recorder()
        watcher = NotesWatcher(
            root, lambda: NotesPolicy.load(root), rec.on_paths, rec.on_rescan, debounce=debounce
        )
        earlier = set(inotify_watches_by_fd())
        watcher.start()
        started.append((watcher, earlier))
        return watcher, rec

    yield _watch
    for watcher, earlier in started:
        assert watcher.stop(timeout=5.0)
        assert eventually(lambda: set(inotify_watches_by_fd()) <= earlier)


_sentinels = iter(range(10**6))


def settle(root: Path, rec: Recorder) -> None:
    """Write a fresh note and wait for it: every earlier event has been delivered by then."""
    rel = f"zz-sentinel-{next(_sentinels)}.md"
    (root / rel).write_text("sentinel\n")
    rec.wait_delivered(rel)


def eventually(predicate: Callable[[], bool], timeout: float = WAIT) -> bool:
    return _eventually(predicate, timeout)


def test_a_note_written_in_a_burst_is_delivered_once_after_the_last_write(notes, watch):
    # A debounce well above the 40 ms gaps, so a loaded box that stalls this thread for a few hundred
    # milliseconds between two writes still makes one burst.
    _, rec = watch(notes, debounce=1.0)
    note = notes / "docs" / "a.md"
    pause = threading.Event()
    started = time.monotonic()
    for i in range(10):  # 0.4 s of writes, each gap far below the debounce
        note.write_text(f"version {i}\n")
        pause.wait(0.04)
    last_write = time.monotonic()
    rec.wait_delivered("docs/a.md")
    settle(notes, rec)
    assert rec.times("docs/a.md") == 1
    assert rec.batches[0] == {"docs/a.md"}
    assert rec.batch_times[0] - last_write >= 1.0 - 0.05
    assert rec.batch_times[0] - started >= 0.4


def test_editing_and_deleting_a_note_are_both_delivered(notes, watch):
    note = notes / "docs" / "b.markdown"
    note.write_text("first\n")
    _, rec = watch(notes)
    note.write_text("second\n")
    rec.wait_delivered("docs/b.markdown")
    note.unlink()
    rec.wait_delivered("docs/b.markdown", times=2)
    assert rec.rescans == 0


def test_default_debounce_holds_delivery_for_one_and_a_half_seconds(notes, watch):
    watcher, rec = watch(notes, debounce=1.5)
    assert watcher.debounce == 1.5
    written = time.monotonic()
    (notes / "c.md").write_text("hello\n")
    assert rec.wait_for(lambda: rec.batches, timeout=4.0)
    waited = rec.batch_times[0] - written
    assert waited >= 1.5  # never early; how late under load: benchmarks/live_timings.py
    assert rec.batches == [{"c.md"}]


def test_ignored_hidden_and_non_markdown_changes_are_not_delivered(notes, watch):
    (notes / ".gitignore").write_text("node_modules/\n*.tmp.md\n")
    (notes / "node_modules").mkdir()
    (notes / ".hidden").mkdir()
    _, rec = watch(notes)
    (notes / "node_modules" / "readme.md").write_text("x")
    (notes / ".hidden" / "secret.md").write_text("x")
    (notes / "docs" / ".draft.md").write_text("x")
    (notes / "docs" / "scratch.tmp.md").write_text("x")
    (notes / "docs" / "data.json").write_text("{}")
    settle(notes, rec)
    assert all(p.startswith("zz-sentinel-") for batch in rec.batches for p in batch), rec.batches
    assert rec.rescans == 0


def test_an_ignored_tree_of_2000_folders_costs_no_watches(notes, watch):
    (notes / ".gitignore").write_text("node_modules/\n")
    modules = notes / "node_modules"
    for i in range(2000):
        (modules / f"pkg{i}").mkdir(parents=True)
    (notes / "docs" / "deep").mkdir()
    before = inotify_watch_count()
    earlier = set(inotify_watches_by_fd())
    watcher, _ = watch(notes)
    ours = {fd: n for fd, n in inotify_watches_by_fd().items() if fd not in earlier}
    assert watcher.watched_dirs == {"", "docs", "docs/deep"}
    assert list(ours.values()) == [3]  # one inotify instance, one watch per admitted folder
    assert inotify_watch_count() - before <= 3  # a recursive watch would add 2,000 here


def test_admitted_dirs_prune_ignored_hidden_and_linked_folders(notes):
    (notes / ".gitignore").write_text("build/\n")
    (notes / "build" / "inner").mkdir(parents=True)
    (notes / ".cache" / "x").mkdir(parents=True)
    (notes / "docs" / "api").mkdir()
    (notes / "link").symlink_to(notes / "docs", target_is_directory=True)
    assert admitted_dirs(NotesPolicy.load(notes)) == ["", "docs", "docs/api"]


def test_a_new_folder_is_watched_after_the_rescan(notes, watch):
    watcher, rec = watch(notes)
    (notes / "fresh").mkdir()
    rec.wait_rescans()
    assert "fresh" in watcher.watched_dirs
    (notes / "fresh" / "n.md").write_text("new\n")
    rec.wait_delivered("fresh/n.md")
    assert watcher.healthy and watcher.error is None


def test_renaming_a_folder_triggers_a_rescan_and_watches_the_new_name(notes, watch):
    (notes / "docs" / "old.md").write_text("x")
    watcher, rec = watch(notes)
    (notes / "docs").rename(notes / "guides")
    rec.wait_rescans()
    assert "guides" in watcher.watched_dirs and "docs" not in watcher.watched_dirs
    (notes / "guides" / "old.md").write_text("edited\n")
    rec.wait_delivered("guides/old.md")


def test_editing_gitignore_rescans_and_unwatches_a_newly_ignored_folder(notes, watch):
    (notes / "drafts").mkdir()
    watcher, rec = watch(notes)
    assert "drafts" in watcher.watched_dirs
    (notes / ".gitignore").write_text("drafts/\n")
    rec.wait_rescans()
    assert watcher.watched_dirs == {"", "docs"}
    (notes / "drafts" / "idea.md").write_text("x")
    settle(notes, rec)
    assert rec.times("drafts/idea.md") == 0


def test_a_flood_of_changes_is_handled_as_one_rescan(notes, watch, monkeypatch):
    import scree.live.watcher as watcher_module

    # A smaller flood keeps the test fast and its rate well above the threshold on a busy machine.
    monkeypatch.setattr(watcher_module, "FLOOD_CHANGES", 200)
    watcher, rec = watch(notes, debounce=0.5)
    docs = os.fsencode(notes / "docs")
    created = 300
    for i in range(created):
        os.close(os.open(docs + b"/n%d.md" % i, os.O_CREAT | os.O_WRONLY, 0o644))
    rec.wait_rescans()
    settle(notes, rec)
    delivered = sum(len(b) for b in rec.batches)
    assert delivered < created / 2  # the rescan stood in for the individual deliveries
    assert watcher.healthy


def test_a_watch_error_rebuilds_the_watches_and_rescans(notes, watch):
    watcher, rec = watch(notes)
    # notify cannot turn a non-UTF-8 name into text: watchfiles reports it as an error.
    fd = os.open(os.fsencode(notes / "docs") + b"/bad-\xff.md", os.O_CREAT | os.O_WRONLY, 0o644)
    os.close(fd)
    rec.wait_rescans()
    assert watcher.rebuilds >= 1
    (notes / "docs" / "good.md").write_text("still watched\n")
    rec.wait_delivered("docs/good.md")
    assert watcher.healthy


def test_a_failing_callback_does_not_stop_the_deliveries(notes, watch, caplog):
    _, rec = watch(notes)
    rec.fail_next = True
    (notes / "one.md").write_text("x")
    rec.wait_delivered("one.md")
    (notes / "two.md").write_text("x")
    rec.wait_delivered("two.md")
    assert "failed; watching goes on" in caplog.text


def test_stop_drops_pending_changes_and_leaves_no_thread_or_watch(notes):
    earlier = set(inotify_watches_by_fd())
    rec = Recorder()
    watcher = NotesWatcher(notes, lambda: NotesPolicy.load(notes), rec.on_paths, rec.on_rescan)
    watcher.start()
    ours = set(inotify_watches_by_fd()) - earlier
    assert watcher.running and watcher.healthy and len(ours) == 1
    (notes / "pending.md").write_text("x")  # still pending (1.5 s debounce) when we stop
    assert watcher.stop(timeout=5.0)  # how fast: benchmarks/live_timings.py
    assert rec.batches == []  # the pending change was dropped, not waited for and delivered
    assert not watcher.running and not watcher.healthy
    assert not [t for t in threading.enumerate() if t.name.startswith("scree-watch")]
    # notify closes its inotify instance on its own thread, a moment after the drop.
    assert eventually(lambda: not ours & set(inotify_watches_by_fd()))
    assert rec.batches == []


def test_starting_on_a_missing_folder_is_a_folder_error(tmp_path):
    missing = tmp_path / "nope"
    watcher = NotesWatcher(missing, lambda: NotesPolicy.load(missing), lambda p: None, lambda: None)
    with pytest.raises(FolderError):
        watcher.start()
    assert not watcher.running


def test_editing_the_repositorys_exclude_file_rescans_with_the_new_rules(notes, watch):
    (notes / ".git" / "info").mkdir(parents=True)
    (notes / ".git" / "info" / "exclude").write_text("")
    (notes / "private").mkdir()
    watcher, rec = watch(notes)
    assert "private" in watcher.watched_dirs and ".git/info" in watcher.watched_dirs
    (notes / ".git" / "info" / "exclude").write_text("private/\n")
    rec.wait_rescans()
    assert "private" not in watcher.watched_dirs


def test_a_vanished_folder_makes_the_watcher_unhealthy_until_it_returns(notes, watch, monkeypatch):
    import scree.live.watcher as watcher_module

    monkeypatch.setattr(watcher_module, "RETRY_SECONDS", 0.2)
    watcher, rec = watch(notes)
    away = notes.with_name("away")
    notes.rename(away)
    assert eventually(lambda: not watcher.healthy)
    assert str(notes) in (watcher.error or "")
    assert rec.rescans == 0  # a scan of a missing folder would tell the owner nothing
    away.rename(notes)
    rec.wait_rescans()  # everything that happened meanwhile is found by a scan
    assert eventually(lambda: watcher.healthy)
    (notes / "back.md").write_text("x")
    rec.wait_delivered("back.md")


def test_vendored_folders_are_never_watched(tmp_path):
    for rel in ("docs", "node_modules/pkg/lib", "vendor/mod", "venv/lib", "build/out", "keep/vendor"):
        (tmp_path / rel).mkdir(parents=True)
    (tmp_path / ".screeignore").write_text("!keep/vendor/\n")
    assert admitted_dirs(NotesPolicy.load(tmp_path)) == ["", "docs", "keep", "keep/vendor"]
