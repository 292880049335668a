"""The live writer's own connection to its index, and what keeps it usable.

Owned by the writer's worker thread (`live.py`). Opening it waits out a full disk (retrying) and
rebuilds a damaged file (the index is a cache of the notes, and the writer holds the lock); right
after opening, a bounded `PRAGMA quick_check` catches damage that only a later query would meet.
`reopen()` recovers from a damaged file met later, or from a `-wal` deleted under the connection.

One process never holds connections on two files at the index path: if the file was replaced (the
new one shares the old one's `-shm` by name), SQLite keys its shared-memory state by the database
file's inode, and POSIX locks do not tell one process's connections apart, so opening the new file
truncates the `-shm` that the old file's connection has mapped (SIGBUS), or closing the old one
checkpoints the new WAL into the old file and deletes it. So the writer drops the read connection
before it reopens, a writer that finds the file replaced stops (`health`), and the read side does
not open the new file while `holds_replaced_file()`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from ..db.connect import checkpoint
from ..db.invariants import damage_found
from ..errors import DiskFull, IndexDamaged, IndexError_, IndexMismatchError, NotAnIndex
from .health import FileIdentity, HealthMonitor, identity
from ..index.store import Index, remove_index_files
from ..workspace import Workspace

log = logging.getLogger(__name__)

# A writer checks the file with `PRAGMA quick_check` when it opens it, for at most this long.
QUICK_CHECK_SECONDS = 2.0


class WriteIndex:
    """The worker's write connection (`index`), opened, checked, rebuilt or reopened on demand.

    `drop_readers()` closes this process's read connection, which must not outlive the file it
    reads when the file is rebuilt.
    """

    def __init__(self, workspace: Workspace, health: HealthMonitor | None, *, retry: float,
                 drop_readers: Callable[[], None]) -> None:
        self.workspace = workspace
        self.health = health
        self.retry = retry
        self.drop_readers = drop_readers
        self.index: Index | None = None
        self._opened: FileIdentity | None = None  # the file `index` is open on

    def open(self, stop: threading.Event) -> Index | None:
        """Open (create) the index to write and check it; None when stopped while waiting for space."""
        index = self._open(stop)
        if index is None:
            return None
        self._set(index)
        if self.health is not None:
            self.health.adopt_wal()
        damage = damage_found(index.conn, QUICK_CHECK_SECONDS, keyword_rows=True)
        if damage is not None:
            log.warning("the index %s is damaged (%s); rebuilding it from the notes",
                        self.workspace.location.db, damage)
            return self.reopen(stop, repair=True)
        return index

    def reopen(self, stop: threading.Event, *, repair: bool) -> Index | None:
        """Close the write (and read) connection and open the index again.

        `repair`: the file is damaged; delete it and build a new one. Otherwise the WAL vanished
        under the connection: checkpoint what it holds into the file first (the connection still
        has the unlinked WAL open), then reopen. The caller runs a full sync after either, which
        redoes whatever is missing.
        """
        if self.health is not None:
            self.health.forget_index() if repair else self.health.forget_wal()
        index = self.index
        if index is not None:
            if not repair:
                try:
                    checkpoint(index.conn)
                except Exception as exc:  # noqa: BLE001 - best effort: the resync repairs the rest
                    log.warning("could not write back the lost WAL (%s); re-checking every note", exc)
            self._close()
        self.drop_readers()
        if repair:
            self._remove()
        index = self._open(stop)
        self._set(index)
        if index is not None and self.health is not None:
            self.health.adopt_wal()
        self.drop_readers()  # a search may have reopened the old file meanwhile
        return index

    def damage(self) -> str | None:
        """What a bounded quick_check and the row counts find wrong with the open file (None: sound or
        not open)."""
        return None if self.index is None else damage_found(self.index.conn, QUICK_CHECK_SECONDS, keyword_rows=True)

    def close(self) -> None:
        if self.health is not None:
            self.health.forget_wal()  # closing may remove the -wal: that is not a fault
        self._close()

    def holds_replaced_file(self) -> bool:
        """True while the connection is open on a file that is no longer the one at the index path
        (called from other threads: `index` is cleared only once the connection is closed)."""
        opened = self._opened
        if self.index is None or opened is None:
            return False
        try:
            return identity(self.workspace.location.db) != opened
        except OSError:
            return True  # cannot tell: opening beside it is the risk not to take

    def _set(self, index: Index | None) -> None:
        self._opened = identity(self.workspace.location.db) if index is not None else None
        self.index = index

    def _close(self) -> None:
        index = self.index
        if index is not None:
            index.close()
        self.index = None
        self._opened = None

    def _open(self, stop: threading.Event) -> Index | None:
        reported = False
        rebuilt = False
        while True:
            try:
                return self._open_once(stop)
            except IndexDamaged as exc:
                if rebuilt:  # the file just made is damaged too: say so rather than delete it for ever
                    raise
                log.warning("%s; rebuilding it from the notes", exc)
                # A search may hold the damaged file open: it must not outlive it (see the module's note).
                self.drop_readers()
                self._remove()
                rebuilt = True  # the new file is opened like any other: a first open that fails once is retried
            except DiskFull as exc:
                if not reported:
                    log.warning("%s; retrying every %.0f s", exc, self.retry)
                    reported = True
                if stop.wait(self.retry):
                    return None

    def _remove(self) -> None:
        """Delete the damaged file. The health check forgets it before and after, so it never takes
        the deletion for someone else replacing the index (it adopts the new file once it exists)."""
        if self.health is not None:
            self.health.forget_index()
        remove_index_files(self.workspace.location)
        if self.health is not None:
            self.health.forget_index()

    def _open_once(self, stop: threading.Event) -> Index:
        try:
            return self.workspace.open_index()
        except (IndexDamaged, DiskFull, NotAnIndex, IndexMismatchError):
            raise
        except IndexError_ as exc:
            # A brand-new file can fail here when another process opened it at the same moment:
            # migrations read the schema version before taking SQLite's write lock, so the slower
            # one finds the tables already made. Once the other is done, opening works.
            log.debug("opening the index failed (%s); trying once more", exc)
            if stop.wait(0.5):
                raise
            return self.workspace.open_index()


def open_checked(workspace: Workspace, quick_check_seconds: float = QUICK_CHECK_SECONDS) -> tuple[Index, str | None]:
    """For the CLI's writers (`scree reindex`, and `scree search`'s sync with no quick_check: they hold the
    lock): open the index, and when it is damaged (`damage_found`, or a schema its version does not hold),
    delete and recreate it. Returns the index and what was wrong."""
    try:
        index = workspace.open_index()
    except IndexDamaged as exc:
        return rebuild_damaged(workspace), f"the index {workspace.location.db} was damaged ({exc.detail})"
    damage = damage_found(index.conn, quick_check_seconds, keyword_rows=True)
    if damage is None:
        return index, None
    index.close()
    return rebuild_damaged(workspace), f"the index {workspace.location.db} was damaged ({damage})"


def rebuild_damaged(workspace: Workspace) -> Index:
    """Delete a damaged index (the caller holds the lock and has closed it) and open a new, empty one;
    refuses, deleting nothing, a file that is not scree's."""
    remove_index_files(workspace.location)
    return workspace.open_index()


def await_report(future: Future, worker_alive: Callable[[], bool], failure: Callable[[], str | None],
                 timeout: float) -> Any:
    """A queued reindex's result, waiting at most `timeout` s: a worker that ended without running
    it, or a sync still going, is said in words, never waited on forever."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return future.result(timeout=min(1.0, max(0.0, deadline - time.monotonic())))
        except FutureTimeout:
            pass
        if not worker_alive():
            if future.done():
                return future.result(timeout=0)
            raise IndexError_(f"the index writer stopped before this reindex ran ({failure() or 'see the log'})")
        if time.monotonic() >= deadline:
            raise IndexError_(f"the sync is still running after {timeout:.0f} s; it goes on in the background: "
                              "search now for what is indexed, or ask again later")
