"""Exactly one writer per index: an exclusive `flock` on the index's `writer.lock` file.

The process that holds the lock syncs and watches; every other `scree serve` on the same index only
reads, and can wait with `LockWaiter` to take over when the writer exits. The kernel drops a flock
when its last file descriptor closes, so a writer that crashes or is killed (even with SIGKILL)
frees the lock at once; no stale-lock cleanup is needed. The lock file also holds
`{"pid", "since", "host"}` of the current holder so others can say who is writing.

The descriptor is opened close-on-exec, so programs the writer spawns do not inherit the lock, but a
child made by a bare `fork()` (multiprocessing's "fork" start method) shares it and keeps it held
until that child exits too.

On NFS and some other network file systems `flock` may be emulated or not enforced across
machines, so two writers could both believe they hold the lock. SQLite's own locking still keeps the
index file consistent; the cost would be duplicate indexing work, never corruption.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

import portalocker

from ..errors import IndexError_, LockHeld
from ..locate import make_private_dirs
from ..pids import host_name, pid_alive

log = logging.getLogger(__name__)

LOCK_FILE_MODE = 0o600
# The holder record is a few dozen bytes; anything much larger is not ours.
_MAX_HOLDER_BYTES = 4096


@dataclass(frozen=True)
class Holder:
    """Who holds (or last held) a writer lock, as written into the lock file."""

    pid: int
    since: float  # unix time the lock was taken
    host: str
    command: str = ""  # e.g. "scree index", "scree serve" ("" in records of older versions)

    @property
    def keeps_syncing(self) -> bool:
        """True when the holder is a live writer (serve, watch) that keeps the index in sync by itself."""
        return self.command in ("scree serve", "scree watch")


def this_command(argv: list[str] | None = None) -> str:
    """What this process is, for others' messages: "scree index", "scree serve"... (`python -m
    scree.cli index` and `scree-mcp` count as scree too)."""
    argv = sys.argv if argv is None else argv
    prog = os.path.basename(argv[0]) if argv and argv[0] else "python"
    words = [a for a in argv[1:] if not a.startswith("-")]
    if prog == "scree-mcp":
        return "scree serve"
    if prog in ("scree", "__main__.py"):
        return f"scree {words[0]}" if words else "scree"
    return " ".join([prog, *words[:1]])[:60]


def read_holder(path: Path) -> Holder | None:
    """The process named in the lock file at `path`, or None when nobody credible holds it.

    None when the file is absent, empty (released), unparsable, or names a pid that is not alive
    on this host. A holder on another host (shared folder) is returned as written: its liveness
    cannot be checked from here. This only reads the file; it never takes the lock.
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read(_MAX_HOLDER_BYTES)
    except OSError:
        return None
    try:
        record = json.loads(data.decode("utf-8"))
        holder = Holder(pid=int(record["pid"]), since=float(record["since"]), host=str(record["host"]),
                        command=str(record.get("command", ""))[:60])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    if holder.host == host_name() and not pid_alive(holder.pid):
        return None
    return holder


def describe_holder(holder: Holder | None) -> str:
    """A short human phrase naming the holder, for messages ("pid 123 on host x since 10:04:05")."""
    if holder is None:
        return "another process"
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(holder.since))
    what = f" ({holder.command})" if holder.command else ""
    return f"pid {holder.pid}{what} on {holder.host} (since {since})"


def describe_writer(holder: Holder | None) -> str:
    """The holder named as in `describe_holder`, saying whether it keeps the index in sync by itself
    (serve, watch) or is a one-off run (`scree index`) that will end."""
    name = describe_holder(holder)
    if holder is not None and holder.keeps_syncing:
        return f"{name}, which keeps it in sync by itself"
    if holder is not None and holder.command:
        return f"{name}, which ends when its sync is done"
    return name


class WriterLock:
    """An exclusive, non-blocking writer lock on one index.

    `try_acquire()` returns False when another process (or another `WriterLock` on the same file in
    this process) holds it. Used as a context manager it acquires or raises `LockHeld`, and
    releases on exit. Not thread-safe: one owner thread per instance.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fh: IO[bytes] | None = None

    @property
    def held(self) -> bool:
        """True while this instance holds the lock."""
        return self._fh is not None

    def try_acquire(self) -> bool:
        """Take the lock if it is free; never blocks. True when held afterwards (also if already held).

        Raises `IndexError_` when the lock file cannot be created or opened (permissions, read-only
        file system), because waiting would never help.
        """
        if self._fh is not None:
            return True
        fh = self._open()
        try:
            portalocker.lock(fh, portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
        except portalocker.AlreadyLocked:
            fh.close()
            return False
        except portalocker.LockException as exc:
            fh.close()
            raise IndexError_(
                f"cannot lock {self.path} ({exc}); if the index is on a network file system, "
                "move it to a local disk"
            ) from exc
        try:
            record = {"pid": os.getpid(), "since": time.time(), "host": host_name(), "command": this_command()}
            os.ftruncate(fh.fileno(), 0)
            os.pwrite(fh.fileno(), json.dumps(record).encode("utf-8"), 0)
        except OSError as exc:
            # Naming the holder is a courtesy; the lock itself is what counts.
            log.warning("holding %s but could not record the holder (%s)", self.path, exc.strerror)
        self._fh = fh
        return True

    def release(self) -> None:
        """Give the lock up (no-op when not held). Clears the holder record first so nobody names us."""
        fh, self._fh = self._fh, None
        if fh is None:
            return
        # Unbuffered: nothing is left to flush at close(), so a failed write (a full disk) can never
        # surface again here and mask the error that made the caller let go.
        try:
            os.ftruncate(fh.fileno(), 0)
        except OSError as exc:
            log.debug("could not clear holder record of %s: %s", self.path, exc)
        try:
            portalocker.unlock(fh)
        except portalocker.LockException as exc:  # closing below releases it anyway
            log.debug("unlock of %s failed: %s", self.path, exc)
        try:
            fh.close()
        except OSError as exc:  # the descriptor is gone either way, and with it the flock
            log.debug("closing %s failed: %s", self.path, exc)

    def __enter__(self) -> WriterLock:
        if not self.try_acquire():
            holder = read_holder(self.path)
            raise LockHeld(
                f"the index is being written by {describe_holder(holder)}; "
                "wait for it to finish or stop that process",
                pid=holder.pid if holder else None,
            )
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def _open(self) -> IO[bytes]:
        try:
            make_private_dirs(self.path.parent)  # 0700 for folders it makes; existing ones untouched
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, LOCK_FILE_MODE)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                hint = "it is a symbolic link; remove it"
            elif exc.errno == errno.EROFS:
                hint = ("the disk is read-only: searching what is indexed still works (`scree search "
                        "--no-sync`), or set SCREE_DATA_DIR / --db to a writable place")
            else:
                hint = "check the permissions of its folder"
            raise IndexError_(f"cannot open the writer lock {self.path} ({exc.strerror}); {hint}") from exc
        try:
            # O_CREAT's mode only applies to a new file; tighten one left by an older version.
            if os.fstat(fd).st_mode & 0o777 != LOCK_FILE_MODE:
                os.fchmod(fd, LOCK_FILE_MODE)
        except OSError:
            pass  # someone else's file: locking it still works
        return os.fdopen(fd, "r+b", buffering=0)


class LockWaiter:
    """Retry `lock.try_acquire()` every `interval` seconds on a daemon thread until it succeeds.

    Once the lock is taken, `on_acquired()` runs once on the waiter's thread and the thread ends;
    the lock then belongs to the caller (the waiter never releases it). `stop()` ends the wait
    promptly. This is how a read-only `scree serve` becomes the writer when the writer exits.
    """

    def __init__(self, lock: WriterLock, on_acquired: Callable[[], None], *, interval: float = 5.0) -> None:
        self.lock = lock
        self.interval = interval
        self._on_acquired = on_acquired
        self._stop = threading.Event()
        self._acquired = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def acquired(self) -> bool:
        """True once the waiter took the lock (the callback has been started)."""
        return self._acquired.is_set()

    @property
    def running(self) -> bool:
        """True while the waiting thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start waiting (no-op while running or once the lock was taken)."""
        if self.running or self._acquired.is_set():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="scree-lock-waiter", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop waiting; True when the thread has ended within `timeout`.

        If the lock was taken just before the stop, it stays held: check `lock.held`.
        """
        self._stop.set()
        thread = self._thread
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def wait_acquired(self, timeout: float | None = None) -> bool:
        """Block until the lock was taken (True) or `timeout` passed (False)."""
        return self._acquired.wait(timeout)

    def _run(self) -> None:
        reported = False
        while not self._stop.is_set():
            try:
                got = self.lock.try_acquire()
            except IndexError_ as exc:
                if not reported:  # the same failure every few seconds would flood the log
                    log.warning("%s; will keep retrying", exc)
                    reported = True
                got = False
            if got:
                self._acquired.set()
                try:
                    self._on_acquired()
                except Exception:
                    log.exception("taking over as the index writer failed")
                return
            self._stop.wait(self.interval)
