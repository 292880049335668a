"""Watch the notes folder and report which notes changed, debounced, without watching ignored trees.

A recursive inotify watch puts a watch on every subfolder, `node_modules/` included. Instead this
module lists the folders the policy admits (pruning refused folders before listing them, never
following folder links) and watches each one non-recursively, so an ignored tree costs nothing, not
one watch per folder. Watches are rebuilt with a fresh policy whenever the tree's shape or its rules
change: a folder created, deleted or renamed, a `.git` appearing or vanishing, or any ignore file
edited. Every rebuild is followed by `on_rescan()`, because events inside a new folder can arrive
before its watch exists and a renamed folder moves notes without an event per note.

Two threads: the event thread only reads events and stamps each note's last-event time in a dirty
map (it never waits for indexing); the delivery thread hands a note to `on_paths` once `debounce`
seconds passed since its last event, batching every note that is due. What an event means is not
decided here: the callback looks at the disk (present: re-hash, gone: evict).

Queue overflow, as found in watchfiles 1.3 / notify: when the kernel's inotify queue overflows
(`IN_Q_OVERFLOW`, more than fs.inotify.max_queued_events unread), notify emits an event with no
path and the `Rescan` flag, and watchfiles drops every event without a path, so the overflow never
reaches Python (it only shows as "no paths found" with `debug=True`). It is rare here, since ignored
trees are not watched and notify drains the queue on its own thread. As a stand-in, a flood of
changes (`FLOOD_CHANGES` within `FLOOD_WINDOW` seconds), the situation that overflows the queue,
is treated like a structural change: rebuild, then `on_rescan()`. Errors that watchfiles does
report (`WatchfilesRustInternalError`, e.g. "error in underlying watcher" or a file name that is not
UTF-8) are sticky inside a `RustNotify`, so the watch is rebuilt and `on_rescan()` follows.
Owners that must never miss a change can also run a periodic full sync.

Ignore files above the notes folder (in the enclosing repository) are not watched; the notes
folder's own `.git/info/exclude` is.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

# watchfiles' public API (watch/awatch) can only watch recursively; a watch per folder needs its
# private RustNotify. pyproject bounds watchfiles below the next minor version, and the two calls
# below pass every argument by keyword, so a changed signature fails loudly (tests/test_watcher.py).
from watchfiles._rust_notify import RustNotify, WatchfilesRustInternalError

from ..errors import FolderError
from ..notes.policy import NotesPolicy, SkipCode

log = logging.getLogger(__name__)

# watchfiles' change codes (watchfiles.Change).
_ADDED, _MODIFIED, _DELETED = 1, 2, 3
# watchfiles groups raw events over these; kept short because this module debounces by itself.
RAW_DEBOUNCE_MS = 50
RAW_STEP_MS = 50  # also how often a blocked watch() notices the stop event
# A structural change waits for this much quiet before the watches are rebuilt, and at most
# MAX_REBUILD_DELAY, so a `git checkout` making 50 folders costs one rebuild, not 50.
REBUILD_QUIET = 0.1
MAX_REBUILD_DELAY = 2.0
# After a failed rebuild (folder gone, inotify limits), try again this often.
RETRY_SECONDS = 5.0
# This many changes within FLOOD_WINDOW seconds are treated as a possible queue overflow.
FLOOD_CHANGES = 2000
FLOOD_WINDOW = 2.0
# Verdicts that come from names and rules, not from the file's current state: events for these
# paths mean nothing to the index. Any other refusal (missing, now a FIFO, a broken link...) is
# delivered, since the index may hold an older version that must go.
_RULE_CODES = frozenset(
    {
        SkipCode.OUTSIDE,
        SkipCode.HIDDEN,
        SkipCode.GITIGNORED,
        SkipCode.SCREEIGNORED,
        SkipCode.NOT_MARKDOWN,
        SkipCode.NESTED_REPO,
    }
)
_NOTE, _STRUCTURE = "note", "structure"


def inotify_watch_count(pid: int | None = None) -> int:
    """How many inotify watches a process holds (default: this one), summed over its inotify fds.

    Counts `/proc/<pid>/fdinfo/<fd>` lines starting with `inotify wd:` for every fd linking to
    `anon_inode:inotify`. Linux only: returns 0 where /proc is missing or not readable.
    """
    return sum(inotify_watches_by_fd(pid).values())


def inotify_watches_by_fd(pid: int | None = None) -> dict[int, int]:
    """{fd: number of watches} for every inotify instance of a process (default: this one).

    Each watchfiles/notify watcher owns one instance, so this tells watchers apart. Linux only:
    empty where /proc is missing or not readable.
    """
    base = f"/proc/{'self' if pid is None else pid}"
    try:
        fds = os.listdir(base + "/fd")
    except OSError:
        return {}
    found: dict[int, int] = {}
    for fd in fds:
        try:
            if os.readlink(f"{base}/fd/{fd}") != "anon_inode:inotify":
                continue
            with open(f"{base}/fdinfo/{fd}", encoding="ascii", errors="replace") as fh:
                found[int(fd)] = sum(1 for line in fh if line.startswith("inotify wd:"))
        except OSError:  # closed while we looked
            continue
    return found


def admitted_dirs(policy: NotesPolicy) -> list[str]:
    """Every folder under the policy's root that the walker would enter, as POSIX rel paths.

    The root is "". Refused folders (hidden, ignored, nested repositories) are pruned before they
    are listed, folder links are not followed, and folders that cannot be listed or whose names are
    not UTF-8 (inotify paths must be text) are left out. Raises `FolderError` when the root itself
    cannot be listed.
    """
    root = str(policy.root)
    reason = policy.dir_skip_reason("")
    if reason is not None:
        raise FolderError(f"{reason}; check the path and that it is mounted")
    found: list[str] = []
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            with os.scandir(root + "/" + rel if rel else root) as it:
                names = [e.name for e in it if _is_dir_entry(e)]
        except OSError as exc:
            if not rel:
                raise FolderError(
                    f"cannot list the notes folder {root} ({exc.strerror}); check its permissions"
                ) from exc
            log.debug("not watching %s/: cannot be listed (%s)", rel, exc.strerror)
            continue
        found.append(rel)
        for name in sorted(names, reverse=True):  # reversed onto a stack: visited in order
            child = rel + "/" + name if rel else name
            if _utf8(child) and policy.dir_skip_reason(child) is None:
                stack.append(child)
    return found


def _is_dir_entry(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_real_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


class NotesWatcher:
    """Live change feed for one notes folder; see the module docstring for the design.

    `on_paths(rel_paths)` receives POSIX paths of note files (`.md`, `.rst`, ...) (admitted by the rules,
    whatever their current state on disk) `debounce` seconds after their last event. `on_rescan()`
    asks the owner for a full sync after the tree's shape or rules changed or events may have been
    lost. Both run on the delivery thread, one call at a time; an exception in them is logged and
    watching goes on. `policy_factory()` is called for every (re)build so edited ignore files count.
    """

    def __init__(
        self,
        root: Path,
        policy_factory: Callable[[], NotesPolicy],
        on_paths: Callable[[set[str]], None],
        on_rescan: Callable[[], None],
        *,
        debounce: float = 1.5,
    ) -> None:
        self.root = Path(os.path.abspath(root))
        self.debounce = debounce
        self._root_str = str(self.root)
        self._policy_factory = policy_factory
        self._on_paths = on_paths
        self._on_rescan = on_rescan
        self._stop = threading.Event()
        self._cond = threading.Condition()
        # Shared with the delivery thread, guarded by _cond:
        self._dirty: dict[str, float] = {}  # rel path -> monotonic time of its last event
        self._rescan_at: float | None = None  # last reason for a rescan, None when none is pending
        self._rebuild_pending = False  # a rescan waits until the watches are current again
        # Owned by the event thread (set by start() before it runs):
        self._notify: RustNotify | None = None
        self._policy: NotesPolicy | None = None
        self._rebuild_since: float | None = None
        self._recent: deque[tuple[float, int]] = deque()  # (time, changes) of recent batches
        # Read from any thread; replaced whole, never mutated.
        self._dirs: frozenset[str] = frozenset()
        self._error: str | None = None
        self._threads: list[threading.Thread] = []
        self.rebuilds = 0  # successful rebuilds after start (doctor, tests)

    # ----- public ------------------------------------------------------------------------------

    @property
    def watched_dirs(self) -> frozenset[str]:
        """The folders currently watched (POSIX rel paths, "" is the root); len() is the watch count."""
        return self._dirs

    @property
    def healthy(self) -> bool:
        """True while running with every admitted folder watched (a rebuild in progress counts)."""
        return self._error is None and self.running

    @property
    def error(self) -> str | None:
        """What is wrong with watching right now (None when healthy or not started)."""
        return self._error

    @property
    def running(self) -> bool:
        """True between start() and the end of stop()."""
        return any(t.is_alive() for t in self._threads)

    def start(self) -> None:
        """Put the watches in place (they are active when this returns) and start both threads.

        Raises `FolderError` when the notes folder cannot be listed. Other problems (inotify limits)
        leave the watcher running but not `healthy`, retrying every few seconds. Call once.
        """
        if self._threads:
            raise RuntimeError("a NotesWatcher can be started only once; make a new one")
        self._build(initial=True)
        self._threads = [
            threading.Thread(target=self._event_loop, name="scree-watch-events", daemon=True),
            threading.Thread(target=self._delivery_loop, name="scree-watch-deliver", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop watching; True when both threads ended within `timeout` seconds.

        Pending (not yet due) paths are dropped. A delivery callback that is running is not
        interrupted; if it outlasts `timeout` this returns False and the thread ends after it.
        """
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))
        return not self.running

    def __enter__(self) -> NotesWatcher:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # ----- event thread ------------------------------------------------------------------------

    def _event_loop(self) -> None:
        try:
            while not self._stop.is_set():
                if self._notify is None:
                    if not self._build(initial=False):
                        self._stop.wait(RETRY_SECONDS)
                    continue
                timeout_ms = 0  # wait for events indefinitely (the stop event still ends it)
                if self._rebuild_since is not None:
                    waited = time.monotonic() - self._rebuild_since
                    if waited >= MAX_REBUILD_DELAY:
                        self._close_notify()
                        continue
                    timeout_ms = max(1, int(min(REBUILD_QUIET, MAX_REBUILD_DELAY - waited) * 1000))
                try:
                    raw = self._notify.watch(debounce_ms=RAW_DEBOUNCE_MS, step_ms=RAW_STEP_MS, timeout_ms=timeout_ms,
                                             stop_event=self._stop)
                except (WatchfilesRustInternalError, OSError, RuntimeError) as exc:
                    # A RustNotify keeps its error forever: only a new one can watch again.
                    log.warning("file watching failed (%s); rebuilding the watches and rescanning", exc)
                    self._close_notify()
                    self._want_rebuild(time.monotonic())
                    continue
                if raw == "stop":
                    break
                if raw == "timeout":  # quiet after a structural change: rebuild now
                    self._close_notify()
                    continue
                if isinstance(raw, set):
                    self._handle(raw)
        except Exception:  # never die silently: the owner reads `healthy`/`error`
            log.exception("the file watcher stopped unexpectedly")
            self._error = "the file watcher stopped unexpectedly (see the log); restart scree serve"
        finally:
            self._close_notify()
            self._stop.set()  # a dead event thread must not leave the delivery thread waiting
            with self._cond:
                self._cond.notify_all()

    def _handle(self, raw: set[tuple[int, str]]) -> None:
        now = time.monotonic()
        self._recent.append((now, len(raw)))
        while self._recent[0][0] < now - FLOOD_WINDOW:
            self._recent.popleft()
        recent = sum(n for _at, n in self._recent)
        structural = recent >= FLOOD_CHANGES
        if structural:
            log.info("%d file changes within %.0f s; rescanning instead", recent, FLOOD_WINDOW)
        notes: list[str] = []
        for change, path in raw:
            kind = self._classify(change, path)
            if kind == _NOTE:
                notes.append(path[len(self._root_str) + 1 :])
            elif kind == _STRUCTURE:
                structural = True
        if notes:
            with self._cond:
                for rel in notes:
                    self._dirty[rel] = now
                self._cond.notify()
        if structural:
            self._want_rebuild(now)

    def _classify(self, change: int, path: str) -> str | None:
        """_NOTE, _STRUCTURE, or None to drop the event."""
        policy = self._policy
        if path == self._root_str:  # the folder itself moved or vanished
            return _STRUCTURE if change == _DELETED else None
        if policy is None or not path.startswith(self._root_str + "/"):
            return None
        rel = path[len(self._root_str) + 1 :]
        name = rel.rpartition("/")[2]
        if policy.is_ignore_file(rel):
            return _STRUCTURE
        if change == _DELETED and rel in self._dirs:
            return _STRUCTURE
        if change == _ADDED and _is_real_dir(path):
            if name == ".git" or policy.dir_skip_reason(rel) is None:
                return _STRUCTURE
            return None
        if name == ".git" and change != _MODIFIED:  # a nested repository came or went
            return _STRUCTURE
        if not policy.is_note_name(name, rel) or policy.inspect(rel).code in _RULE_CODES:
            return None
        return _NOTE

    def _want_rebuild(self, now: float) -> None:
        if self._rebuild_since is None:
            self._rebuild_since = now
        with self._cond:
            self._rescan_at = now
            self._rebuild_pending = True
            self._cond.notify()

    def _build(self, *, initial: bool) -> bool:
        """(Re)build the watches with a fresh policy. True on success.

        Initially a folder that cannot be listed raises `FolderError`; any other failure is recorded
        in `error` and retried by the event thread. Every later success requests a rescan, since
        events were missed while the watches were down.
        """
        self._close_notify()
        try:
            policy = self._policy_factory()
            dirs = admitted_dirs(policy)
            git_info = self._root_str + "/.git/info"
            if _is_real_dir(git_info):  # holds the repository's exclude file, an ignore file
                dirs.append(".git/info")
            paths = [self._root_str + "/" + d if d else self._root_str for d in dirs]
            notify, problem = self._open_notify(paths)
        except Exception as exc:
            if initial and isinstance(exc, FolderError):
                raise
            message = str(exc) if isinstance(exc, FolderError) else f"cannot watch {self._root_str}: {exc}"
            log.warning("%s; retrying in %.0f s", message, RETRY_SECONDS)
            self._error = message
            self._rebuild_since = None
            with self._cond:
                # Hold the rescan (and the notes waiting for it) until watching works again:
                # a scan now could not see more than the one that follows the recovery.
                self._rebuild_pending = True
            return False
        self._policy, self._dirs, self._notify = policy, frozenset(dirs), notify
        self._error = problem
        self._rebuild_since = None
        self._recent.clear()
        if not initial:
            self.rebuilds += 1
        log.debug("watching %d folders under %s", len(dirs), self._root_str)
        with self._cond:
            self._rebuild_pending = False
            if not initial:  # what happened while the watches were down is only found by a scan
                self._rescan_at = time.monotonic()
            self._cond.notify()
        return True

    @staticmethod
    def _open_notify(paths: list[str]) -> tuple[RustNotify, str | None]:
        """A RustNotify on `paths`, non-recursive, and what it could not watch (None if nothing)."""
        try:
            return _rust_notify(paths, skip_unreadable=False), None
        except (FileNotFoundError, PermissionError):
            # A folder vanished or became unreadable since it was listed: its parent's event
            # triggers another rebuild, so skip such folders and watch the rest.
            return _rust_notify(paths, skip_unreadable=True), None
        except OSError as exc:
            # Typically fs.inotify.max_user_watches: watch what we can and say what is missing.
            problem = (
                f"not every folder is watched ({exc}); raise fs.inotify.max_user_watches "
                "or exclude folders in .screeignore"
            )
            log.warning("%s", problem)
            return _rust_notify(paths, skip_unreadable=True), problem

    def _close_notify(self) -> None:
        notify, self._notify = self._notify, None
        if notify is not None:
            notify.close()

    # ----- delivery thread ---------------------------------------------------------------------

    def _delivery_loop(self) -> None:
        while True:
            with self._cond:
                rescan, due = self._next_delivery()
                if rescan is None:
                    return
            try:
                if rescan:
                    self._on_rescan()
                elif due:
                    self._on_paths(due)
            except Exception:
                what = "rescan" if rescan else f"{len(due)} changed notes"
                log.exception("handling %s failed; watching goes on", what)

    def _next_delivery(self) -> tuple[bool | None, set[str]]:
        """Wait (holding _cond) until something is due: (True, {}) for a rescan, (False, paths)
        for notes, (None, {}) when stopping.

        While a rescan is pending, notes wait for it: the rescan reads every note that was quiet
        before it starts, so those are dropped, and only notes written since are delivered after.
        """
        while not self._stop.is_set():
            cutoff = time.monotonic() - self.debounce
            wait: float | None = None
            if self._rescan_at is not None:
                if not self._rebuild_pending:
                    if self._rescan_at <= cutoff:
                        self._rescan_at = None
                        for rel in [rel for rel, at in self._dirty.items() if at <= cutoff]:
                            del self._dirty[rel]
                        return True, set()
                    wait = self._rescan_at - cutoff
            elif self._dirty:
                due = {rel for rel, at in self._dirty.items() if at <= cutoff}
                if due:
                    for rel in due:
                        del self._dirty[rel]
                    return False, due
                wait = min(self._dirty.values()) - cutoff
            self._cond.wait(wait)
        return None, set()


def _rust_notify(paths: list[str], *, skip_unreadable: bool) -> RustNotify:
    """One non-recursive inotify watcher on `paths` (watchfiles' private class, called by keyword)."""
    return RustNotify(watch_paths=paths, debug=False, force_polling=False, poll_delay_ms=50, recursive=False,
                      ignore_permission_denied=skip_unreadable)
