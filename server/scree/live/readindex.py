"""A live index's read side: this process's read-only connection to the index, shared by searches
and status, opened on first use and dropped when the file under it was rebuilt or replaced.

Read-only on purpose: a reader never migrates, chmods or creates anything, so a read-only disk
still answers. SQLite's WAL lets it read the last commit while the writer (this process's worker
or another process) writes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from ..db import queries
from ..index.indexstatus import StageTwoClock, decode_clock
from ..db.connect import is_db_error
from ..db.invariants import damage_found
from ..errors import ScreeError
from .health import FileIdentity, identity
from ..index.store import Index
from ..workspace import Workspace

log = logging.getLogger(__name__)


class ReadIndex:
    """The read connection. Callers hold `mu` around `open_locked()` and what they do with the index
    (searches are serialized on it); `may_open()` says whether opening now is safe (not while this
    process's writer is still creating the file, nor while it holds a file replaced since),
    `on_open()` runs after each open."""

    def __init__(self, workspace: Workspace, may_open: Callable[[], bool], on_open: Callable[[], None]) -> None:
        self.workspace = workspace
        self.mu = threading.Lock()
        self.error: str | None = None  # why the last open failed
        self._may_open = may_open
        self._on_open = on_open
        self._index: Index | None = None
        self._opened: FileIdentity | None = None  # the file the connection opened
        # Every answer reports the counts; recounting the chunks per query cost more than the search
        # under load, so they are kept until a commit (data_version) changes them.
        self._counted: tuple[tuple[int, int], tuple[int, int, bool]] | None = None

    def open_locked(self) -> Index | None:
        """The read connection, opened on first use; None (with `error`) while there is no index.

        A connection whose file was removed and replaced at the same path (another process rebuilt
        the index) is reopened on the new file, which must be a scree index: otherwise the process
        would answer from the deleted copy for as long as it runs (one stat per call). Not while
        `may_open()` says no: this process's writer still has the old file open, and a connection
        on the new one beside it would break both (see writeindex)."""
        if self._index is not None and self._superseded() and self._may_open():
            log.info("the index %s was rebuilt by another process: reading the new file", self.workspace.location.db)
            self.close_locked()
        if self._index is None:
            db = self.workspace.location.db
            if not self._may_open() or not db.exists():
                return None
            try:
                self._opened = identity(db)
                self._index = self.workspace.open_index(create=False)
                self.error = None
                self._on_open()
            except (ScreeError, OSError) as exc:
                self.error = str(exc)
                return None
        return self._index

    def replaced_locked(self) -> bool:
        """True when the file at the index path is not the one the connection opened (rebuilt)."""
        try:
            return identity(self.workspace.location.db) != self._opened
        except OSError:
            return False

    def _superseded(self) -> bool:
        """A different file now exists at the index path (absence is not a replacement: the copy
        this connection has is still the best answer until a new one is built)."""
        try:
            now = identity(self.workspace.location.db)
        except OSError:
            return False
        return now is not None and now != self._opened

    def close_locked(self) -> None:
        self._counted = None
        if self._index is not None:
            self._index.close()
            self._index = None

    def drop(self) -> None:
        """Close the connection; the next use opens the file that is there then."""
        with self.mu:
            self.close_locked()

    def damage(self, seconds: float) -> str | None:
        """What a quick_check bounded to `seconds` and the row counts find wrong with the file (None:
        sound, or no index)."""
        with self.mu:
            index = self.open_locked()
            if index is None:
                return None
            return damage_found(index.conn, seconds)

    def counts(self) -> tuple[int, int, bool] | None:
        """(files, chunks, a sync ever finished) from committed rows; None when there is no index."""
        with self.mu:
            index = self.open_locked()
            if index is None:
                return None
            try:
                version = queries.data_version(index.conn)
                if self._counted is not None and self._counted[0] == version:
                    return self._counted[1]
                c = queries.counts(index.conn)
                counted = (c.files, c.chunks, "last_sync" in index.meta())
                self._counted = (version, counted)
                return counted
            except Exception as exc:
                if not is_db_error(exc, index.driver):
                    raise
                log.debug("could not count the index rows: %s", exc)
                return None


    def vector_counts(self) -> tuple[int, int]:
        """Stage two's progress from committed rows: (chunks with vectors, all chunks); (0, 0) when unknown."""
        with self.mu:
            index = self.open_locked()
            if index is None:
                return 0, 0
            try:
                p = queries.vector_progress(index.conn)
                return p.embedded, p.total
            except Exception as exc:
                if not is_db_error(exc, index.driver):
                    raise
                return 0, 0


    def stage_two_clock(self) -> StageTwoClock | None:
        """The clock the writer (maybe another process) recorded for its stage two run."""
        with self.mu:
            index = self.open_locked()
            if index is None:
                return None
            try:
                return decode_clock(index.meta())
            except Exception as exc:
                if not is_db_error(exc, index.driver):
                    raise
                return None


def damaged_note(exc: BaseException, writer: bool, holder: str) -> str:
    """The one note a search gives when it met a damaged file."""
    doing = ("scree is rebuilding it from the notes now; keyword results return as files are re-indexed"
             if writer else f"its writer ({holder}) rebuilds it when it meets the damage, or stop it and run "
             "`scree index --rebuild`; your notes are not touched")
    return f"the index is damaged ({exc}): {doing}"
