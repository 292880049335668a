"""`scree reindex` (alias `scree index`): sync the index now, holding the writer lock.

It refuses (exit 1, naming the holder's pid) while another process writes, unless `--wait`.
`--rebuild` has one meaning everywhere (here and in the MCP `reindex` tool): re-embed every note;
the index file keeps its inode so readers and health checks keep seeing it, and only a file that
cannot be opened at all (damaged, from a newer scree) is deleted and made anew.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Config, add_embedder_flag
from ..errors import IndexError_, LockHeld
from ._common import add_common, print_notices, print_result

if TYPE_CHECKING:
    from ..index.store import Index
    from ..workspace import Workspace

WAIT_POLL = 1.0  # `reindex --wait` retries the lock this often


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("reindex", aliases=["index"], help="sync the index now (takes the writer lock)")
    add_common(p)
    add_embedder_flag(p)
    p.add_argument("--rebuild", "--all", dest="rebuild", action="store_true",
                   help="re-embed every note, not only the changed ones (a damaged index file is made anew)")
    p.add_argument("--quiet", action="store_true",
                   help="for unattended runs (the plugin's session start): exit 0 silently when another "
                        "process writes the index")
    p.add_argument("--wait", action="store_true",
                   help="when another process writes the index, wait for it to exit instead of failing")
    p.add_argument("--json", action="store_true", help="print the sync report as JSON")


def cmd_reindex(args: argparse.Namespace, cfg: Config) -> int:
    from ..live.lock import LockWaiter, WriterLock, describe_holder, describe_writer, read_holder
    from ..index.progress import progress_for_stderr
    from ..index.store import rebuild_in_place
    from ..index.sync import sync
    from ..workspace import Workspace

    ws = Workspace.from_config(cfg)
    lock = WriterLock(ws.location.lock)
    if not lock.try_acquire():
        holder = read_holder(lock.path)
        if args.quiet and not args.wait:
            return 0  # a writer is at work: it keeps the index in sync, nothing to do
        if not args.wait:
            raise LockHeld(
                f"the index of {ws.folder} is being written by {describe_writer(holder)}; use --wait to "
                "run after it exits, or stop it",
                pid=holder.pid if holder else None,
            )
        print(f"scree: waiting for {describe_holder(holder)} to finish writing the index...", file=sys.stderr)
        got = threading.Event()
        waiter = LockWaiter(lock, got.set, interval=WAIT_POLL)
        waiter.start()
        try:
            while not got.wait(1.0):  # a timed wait keeps Ctrl-C responsive
                pass
        finally:
            waiter.stop()
    try:
        embedder = ws.embedder()
        index = _open_for_reindex(ws, rebuild=args.rebuild)
        try:
            if args.rebuild:
                rebuild_in_place(index, embedder.id, embedder.dimensions, embedder.max_windows)
            # An explicit reindex (the session's background one too) checks for space to give back
            # whatever it changed: a search's own sync may have removed notes and left the vectors to it.
            gone = _FolderWatch(ws.folder)
            report = sync(index, ws.policy(), embedder, max_file_bytes=cfg.max_file_bytes,
                          progress=progress_for_stderr(), shrink=True, should_stop=gone)
        finally:
            index.close()
    finally:
        lock.release()
    if gone.stopped:
        print(f"scree: the notes folder {ws.folder} was deleted or replaced while it was being indexed: stopped; "
              "nothing more was written (the index is a cache: the next sync of the folder, if it comes back, "
              "brings it up to date)", file=sys.stderr)
        return 1
    print_notices(report)
    if not args.quiet:
        print_result(report, ws.folder, args.json)
    return 0


class _FolderWatch:
    """`should_stop` for a reindex: true once the notes folder is gone or another folder took its path (a
    detached reindex kept embedding for ~55 s after its folder was deleted: issue 36, item 5). Looked at
    no more than every CHECK_SECONDS, so a sync's many calls cost nothing."""

    CHECK_SECONDS = 0.5

    def __init__(self, folder: Path) -> None:
        from ..live.health import identity

        self._identity = identity
        self._folder = folder
        self._start = identity(folder)
        self._next = time.monotonic() + self.CHECK_SECONDS
        self.stopped = False

    def __call__(self) -> bool:
        if self.stopped or time.monotonic() < self._next:
            return self.stopped
        self._next = time.monotonic() + self.CHECK_SECONDS
        try:
            self.stopped = self._identity(self._folder) != self._start
        except OSError:  # "cannot tell" (permission) is not "gone"
            pass
        return self.stopped


def _open_for_reindex(ws: Workspace, *, rebuild: bool) -> Index:
    """Open the index; a damaged one is deleted and made anew (we hold the lock, it is a cache), and
    with --rebuild so is one that cannot be opened at all."""
    from ..db.connect import is_damage, is_db_error
    from ..index.store import remove_index_files
    from ..live.writeindex import open_checked

    try:
        index, damage = open_checked(ws)
    except Exception as exc:  # an unopenable file: not scree's error type when SQLite meets the damage first
        if not rebuild or not (isinstance(exc, IndexError_) or (is_db_error(exc) and is_damage(exc))):
            raise
    else:
        if damage:
            print(f"scree: {damage}; rebuilding it from the notes (they are not touched)", file=sys.stderr)
        return index
    remove_index_files(ws.location)  # refuses (deleting nothing) a file that is not scree's
    return ws.open_index()


COMMANDS = {"reindex": cmd_reindex, "index": cmd_reindex}
