"""`scree watch`: keep the index in sync until stopped.

A reader while another process writes, taking over when it exits; it exits non-zero when the folder
or the index file is removed or replaced, so systemd or Docker restarts it.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from types import FrameType
from typing import Callable

from ..config import Config, add_embedder_flag
from ._common import add_common

STOP_TIMEOUT = 5.0  # seconds `watch` waits for the writer before exiting anyway


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("watch", help="keep the index in sync with the notes folder until stopped")
    add_common(p)
    add_embedder_flag(p)
    # Tests shorten these; production uses the defaults.
    p.add_argument("--lock-retry", type=float, default=5.0, help=argparse.SUPPRESS)
    p.add_argument("--health-interval", type=float, default=10.0, help=argparse.SUPPRESS)


class _Signals:
    """SIGINT/SIGTERM: the first asks for a clean stop, the second exits at once."""

    def __init__(self, on_first: Callable[[], None]) -> None:
        self._on_first = on_first
        self._seen = False
        self.signum: int | None = None  # the first signal, once one came
        self._previous: dict[int, object] = {}

    def __enter__(self) -> "_Signals":
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            # Stopped by a signal, the process is ending: a forwarded second SIGINT (`uv run` passes the
            # terminal's on) must not kill it in the interpreter's shutdown, which resets Python-level
            # handlers to the default (rc -2 instead of 130), so it is ignored from here.
            signal.signal(sig, signal.SIG_IGN if self._seen else handler)  # type: ignore[arg-type]

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self._seen:
            print("scree: second signal: exiting now", file=sys.stderr, flush=True)
            os._exit(128 + signum)
        self._seen = True
        self.signum = signum
        self._on_first()


def cmd_watch(args: argparse.Namespace, cfg: Config) -> int:
    from ..live.live import LiveIndex
    from ..workspace import Workspace

    ws = Workspace.from_config(cfg)
    done = threading.Event()
    fatal: list[str] = []

    def on_fatal(reason: str) -> None:
        fatal.append(reason)
        done.set()

    live = LiveIndex(ws, watch=True, lock_retry=args.lock_retry, health_interval=args.health_interval,
                     on_fatal=on_fatal)

    def on_signal() -> None:
        done.set()
        live.wake()  # the loop below sees it now, not at its half-second recheck

    with _Signals(on_signal) as signals:
        live.start()
        print(f"scree: watching {ws.folder} (index {ws.location.db})", file=sys.stderr, flush=True)
        shown: tuple[str, str] | None = None
        # Report role and state changes (taking over, first sync done) until told to stop, waking on
        # the live index's own signal (the signal handler wakes it too).
        while not done.is_set():
            st = live.status()
            if (st.role, st.state) != shown:
                shown = (st.role, st.state)
                print(f"scree: {st.role}: {st.describe()}", file=sys.stderr, flush=True)
            live.wait_until(lambda now: done.is_set() or (now.role, now.state) != shown, 60.0)
        stopped = live.stop(timeout=STOP_TIMEOUT)
    if fatal:
        print(f"scree: error: index not updating: {fatal[0]}; exiting so a supervisor (systemd, Docker) "
              "restarts scree watch", file=sys.stderr)
        return 1
    code = 0 if signals.signum is None else 128 + signals.signum  # 130 for SIGINT, 143 for SIGTERM
    if not stopped:
        print(f"scree: the writer did not stop within {STOP_TIMEOUT:g} s; exiting anyway (the next sync "
              "redoes the file it was indexing)", file=sys.stderr, flush=True)
        # Not through the interpreter's shutdown: finalizing around a model still running on the
        # writer's thread aborts in onnxruntime (SIGABRT, a core file). The OS frees the lock (an
        # flock), and the part being embedded was never committed.
        sys.stdout.flush()
        os._exit(code)
    return code


COMMANDS = {"watch": cmd_watch}
