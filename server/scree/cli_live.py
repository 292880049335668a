"""The `scree watch` and `scree reindex` commands: the ones that take the index's writer lock.

`watch` keeps the index in sync until stopped (a reader while another process writes, taking over when
it exits); it exits non-zero when the folder or the index file is removed or replaced, so systemd or
Docker restarts it. `reindex` syncs now and refuses (exit 1, naming the holder's pid) while another
process writes, unless `--wait`.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Callable

from .config import Config, add_embedder_flag
from .errors import IndexError_, LockHeld

if TYPE_CHECKING:
    from .store import Index
    from .workspace import Workspace

STOP_TIMEOUT = 5.0  # seconds `watch` waits for the writer before exiting anyway
WAIT_POLL = 1.0  # `reindex --wait` retries the lock this often


def _common(p: argparse.ArgumentParser) -> None:
    # The same two options as every other command (cli.py's `_common`, kept here to avoid an import cycle).
    p.add_argument("--notes", type=Path, help="the notes folder (default: $SCREE_NOTES, else the git root above "
                   "$CLAUDE_PROJECT_DIR or the current dir)")
    p.add_argument("--db", type=Path, help="the index file (default: one per folder under $XDG_DATA_HOME/scree)")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add `watch` and `reindex` to the `scree` sub-command parsers."""
    p = sub.add_parser("watch", help="keep the index in sync with the notes folder until stopped")
    _common(p)
    add_embedder_flag(p)
    # Tests shorten these; production uses the defaults.
    p.add_argument("--lock-retry", type=float, default=5.0, help=argparse.SUPPRESS)
    p.add_argument("--health-interval", type=float, default=10.0, help=argparse.SUPPRESS)

    p = sub.add_parser("reindex", help="sync the index now (takes the writer lock)")
    _common(p)
    add_embedder_flag(p)
    p.add_argument("--rebuild", "--all", dest="rebuild", action="store_true",
                   help="re-embed every note, not only the changed ones")
    p.add_argument("--quiet", action="store_true",
                   help="for unattended runs (the plugin's session start): exit 0 silently when another "
                        "process writes the index, and do not build a new index over SCREE_FIRST_SYNC_MB")
    p.add_argument("--wait", action="store_true",
                   help="when another process writes the index, wait for it to exit instead of failing")
    p.add_argument("--json", action="store_true", help="print the sync report as JSON")


class _Signals:
    """SIGINT/SIGTERM: the first asks for a clean stop, the second exits at once."""

    def __init__(self, on_first: Callable[[], None]) -> None:
        self._on_first = on_first
        self._seen = False
        self._previous: dict[int, object] = {}

    def __enter__(self) -> "_Signals":
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self._seen:
            print("scree: second signal: exiting now", file=sys.stderr, flush=True)
            os._exit(128 + signum)
        self._seen = True
        self._on_first()


def cmd_watch(args: argparse.Namespace, cfg: Config) -> int:
    from .live import LiveIndex
    from .workspace import Workspace

    ws = Workspace.from_config(cfg)
    done = threading.Event()
    fatal: list[str] = []

    def on_fatal(reason: str) -> None:
        fatal.append(reason)
        done.set()

    live = LiveIndex(ws, watch=True, lock_retry=args.lock_retry, health_interval=args.health_interval,
                     on_fatal=on_fatal)
    with _Signals(done.set):
        live.start()
        print(f"scree: watching {ws.folder} (index {ws.location.db})", file=sys.stderr, flush=True)
        shown = None
        # Report role and state changes (taking over, first sync done) until told to stop.
        while not done.wait(0.5):
            st = live.status()
            if (st.role, st.state) != shown:
                shown = (st.role, st.state)
                print(f"scree: {st.role}: {st.describe()}", file=sys.stderr, flush=True)
        stopped = live.stop(timeout=STOP_TIMEOUT)
    if fatal:
        print(f"scree: error: index not updating: {fatal[0]}; exiting so a supervisor (systemd, Docker) "
              "restarts scree watch", file=sys.stderr)
        return 1
    if not stopped:
        print(f"scree: the writer did not stop within {STOP_TIMEOUT:g} s; exiting anyway (the next sync "
              "redoes the file it was indexing)", file=sys.stderr)
    return 0


def cmd_reindex(args: argparse.Namespace, cfg: Config) -> int:
    from .lock import LockWaiter, WriterLock, describe_holder, describe_writer, read_holder
    from .store import rebuild_in_place
    from .progress import progress_for_stderr
    from .sync import sync
    from .syncreport import print_notices, print_result
    from .workspace import Workspace

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
            if args.quiet and _too_big_for_unattended_first_sync(index, ws, cfg):
                print(f"scree: {ws.folder} holds more than {cfg.first_sync_mb:g} MB of Markdown and has no index "
                      "yet: not indexing it unattended; run `scree reindex` to build it", file=sys.stderr)
                return 0
            if args.rebuild:
                rebuild_in_place(index, embedder.id, embedder.dimensions, embedder.max_windows)
            report = sync(index, ws.policy(), embedder, max_file_bytes=cfg.max_file_bytes,
                          progress=progress_for_stderr())
        finally:
            index.close()
    finally:
        lock.release()
    print_notices(report)
    if not args.quiet:
        print_result(report, ws.folder, args.json)
    return 0


def _too_big_for_unattended_first_sync(index: Index, ws: Workspace, cfg: Config) -> bool:
    """A brand-new index over a very large folder is built only when a person asks for it."""
    from .db import queries
    from .health import markdown_exceeds

    if cfg.first_sync_mb <= 0 or queries.counts(index.conn).files > 0:
        return False
    return markdown_exceeds(ws.policy(), int(cfg.first_sync_mb * 1024 * 1024))


def _open_for_reindex(ws: Workspace, *, rebuild: bool) -> Index:
    """Open the index; a damaged one is deleted and made anew (we hold the lock, it is a cache)."""
    from .writeindex import open_checked

    try:
        index, damage = open_checked(ws)
    except IndexError_:
        if not rebuild:
            raise
    else:
        if damage:
            print(f"scree: {damage}; rebuilding it from the notes (they are not touched)", file=sys.stderr)
        return index
    from .store import remove_index_files

    remove_index_files(ws.location)  # refuses (deleting nothing) a file that is not scree's
    return ws.open_index()


COMMANDS = {"watch": cmd_watch, "reindex": cmd_reindex}
