"""The checks that tell a live index when it must stop updating (folder and index file identity).

A long-running writer keeps file descriptors and inotify watches on what it opened.
If the notes folder is deleted (or deleted and made again, e.g. by a `git clone` into the same path)
or the index file is replaced (`rm` + a new index), the process would go on writing into a ghost: an
unlinked SQLite file, or watches on a directory nobody can reach. So the identity (st_dev, st_ino)
of both is recorded at start and compared periodically; any difference stops the writer.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

log = logging.getLogger(__name__)

DEFAULT_INTERVAL = 10.0


@dataclass(frozen=True)
class FileIdentity:
    """What tells one file or folder apart from another one at the same path."""

    dev: int
    ino: int


def identity(path: Path) -> FileIdentity | None:
    """The (st_dev, st_ino) of `path`, following links; None when it does not exist.

    Raises OSError for anything but absence (permission denied...): "cannot tell" is not "gone".
    """
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return FileIdentity(st.st_dev, st.st_ino)


@dataclass(frozen=True)
class Baseline:
    """The identities a live index started with. `index_id` is None while the index file does not
    exist yet; `wal_id` is the writer's `-wal` file, None unless this process writes."""

    folder: Path
    db: Path
    folder_id: FileIdentity | None
    index_id: FileIdentity | None
    wal_id: FileIdentity | None = None

    @classmethod
    def take(cls, folder: Path, db: Path) -> "Baseline":
        return cls(folder, db, identity(folder), identity(db))

    @property
    def wal(self) -> Path:
        return Path(f"{self.db}-wal")

    def adopt_index(self) -> "Baseline":
        """The same baseline with the index file's identity filled in once it exists (a new index)."""
        if self.index_id is not None:
            return self
        try:
            return replace(self, index_id=identity(self.db))
        except OSError:
            return self

    def adopt_wal(self) -> "Baseline":
        """Record the `-wal` file the writer's connection uses (call right after opening it)."""
        try:
            return replace(self, wal_id=identity(self.wal))
        except OSError:
            return self

    def forget_index(self) -> "Baseline":
        """Forget the index file and its WAL (they are being replaced on purpose: a rebuild, a
        reader reopening); the next `adopt_*` records the new ones."""
        return replace(self, index_id=None, wal_id=None)


@dataclass(frozen=True)
class Change:
    """Why the live index cannot go on as it is. `kind` says what to do:
    "folder" (stop updating), "index" (the file was removed or replaced: a writer stops, a reader
    reopens), "wal" (the writer's -wal vanished under it: checkpoint, reopen and resync)."""

    kind: str
    reason: str


def what_changed(baseline: Baseline, folder_now: FileIdentity | None,
                 index_now: FileIdentity | None) -> str | None:
    """Why the index can no longer be kept up to date, or None when both are still the originals.

    Pure: callers pass the current identities. An index file that did not exist at the baseline is
    not judged (it is adopted by the caller once it appears).
    """
    change = classify(baseline, folder_now, index_now)
    return None if change is None else change.reason


def classify(baseline: Baseline, folder_now: FileIdentity | None, index_now: FileIdentity | None,
             wal_now: FileIdentity | None = None) -> Change | None:
    """`what_changed`, with the kind of change; also judges the WAL when the baseline has one."""
    if folder_now is None:
        return Change("folder", f"the notes folder {baseline.folder} was removed")
    if baseline.folder_id is not None and folder_now != baseline.folder_id:
        return Change("folder", f"the notes folder {baseline.folder} was replaced by another folder at the same path")
    if baseline.index_id is None:
        return None
    if index_now is None:
        return Change("index", f"the index file {baseline.db} was removed")
    if index_now != baseline.index_id:
        return Change("index", f"the index file {baseline.db} was replaced (rebuilt by another process?)")
    if baseline.wal_id is not None and wal_now != baseline.wal_id:
        return Change("wal", f"the index's write-ahead log {baseline.wal} was deleted or replaced under the "
                             "writer; what it held is written back and the notes are re-checked")
    return None


def check(baseline: Baseline) -> str | None:
    """Compare the disk with `baseline` now; None when healthy or when it cannot be told (e.g. EACCES)."""
    change = check_change(baseline)
    return None if change is None else change.reason


def check_change(baseline: Baseline) -> Change | None:
    try:
        wal_now = identity(baseline.wal) if baseline.wal_id is not None else None
        return classify(baseline, identity(baseline.folder), identity(baseline.db), wal_now)
    except OSError as exc:
        log.debug("health check could not stat (%s); assuming nothing changed", exc)
        return None


class HealthMonitor:
    """Runs the identity checks every `interval` seconds on a daemon thread.

    A change of the folder calls `on_failure(reason)` once and ends the checks. A change of the
    index file or of the writer's WAL goes to `on_change(change)` when given, which returns True
    when it dealt with it (the checks go on, with the baseline it set) and False to fail as above.
    The index file's identity is adopted when it first appears.

    `on_tick()`, if given, runs after every passed check: the owner's periodic housekeeping (releasing
    an idle model) rides on this thread instead of another one.
    """

    def __init__(self, folder: Path, db: Path, on_failure: Callable[[str], None], *,
                 interval: float = DEFAULT_INTERVAL, on_tick: Callable[[], None] | None = None,
                 on_change: Callable[[Change], bool] | None = None) -> None:
        self.interval = interval
        self._baseline = Baseline.take(folder, db)
        self._on_failure = on_failure
        self._on_tick = on_tick
        self._on_change = on_change
        self._mu = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def baseline(self) -> Baseline:
        return self._baseline

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="scree-health", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop checking; True when the thread ended within `timeout`."""
        self._stop.set()
        thread = self._thread
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def adopt_index(self) -> None:
        """Record the index file's identity if not known yet; call right after opening or creating it,
        so a replacement that follows at once is still caught."""
        with self._mu:
            self._baseline = self._baseline.adopt_index()

    def adopt_wal(self) -> None:
        """The writer opened its connection: watch its -wal too."""
        with self._mu:
            self._baseline = self._baseline.adopt_index().adopt_wal()

    def forget_wal(self) -> None:
        """This process stopped writing (or closes its connection on purpose)."""
        with self._mu:
            self._baseline = replace(self._baseline, wal_id=None)

    def forget_index(self) -> None:
        """The index file is replaced on purpose (a rebuild) or reopened by a reader."""
        with self._mu:
            self._baseline = self._baseline.forget_index()

    def check_now(self) -> str | None:
        """One check on the caller's thread (adopting a newly created index file)."""
        change = self.change_now()
        return None if change is None else change.reason

    def change_now(self) -> Change | None:
        self.adopt_index()
        with self._mu:
            baseline = self._baseline
        return check_change(baseline)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            change = self.change_now()
            if change is not None and change.kind != "folder" and self._on_change is not None:
                try:
                    if self._on_change(change):
                        continue
                except Exception:
                    log.exception("handling a changed index file failed")
            if change is not None:
                log.warning("index not updating: %s", change.reason)
                try:
                    self._on_failure(change.reason)
                except Exception:
                    log.exception("handling a failed health check failed")
                return
            if self._on_tick is not None:
                try:
                    self._on_tick()
                except Exception:
                    log.exception("periodic housekeeping failed; checks go on")
