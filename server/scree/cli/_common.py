"""What every `scree` command shares: the --notes/--db options, the config they give, logging, and
how a finished sync is told at the terminal (skips and warnings on stderr, the summary on stdout)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import asdict
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Sequence

from .. import settings_table
from ..config import Config, load_config
from ..errors import scrub

if TYPE_CHECKING:  # the sync module pulls numpy; the parser must stay light
    from ..index.sync import SyncReport


def add_common(p: argparse.ArgumentParser) -> None:
    """--notes and --db, the options every command takes."""
    p.add_argument("--notes", type=Path, help="the notes folder (default: $SCREE_NOTES, else the git root above "
                   "$CLAUDE_PROJECT_DIR or the current dir)")
    p.add_argument("--note-extensions", help="which files are notes, e.g. '.md .mdx .qmd' "
                   "(default: $SCREE_NOTE_EXTENSIONS, else .md .mdx .markdown .rst .adoc .asciidoc .org .pod .texi .texinfo .rdoc .docbook .pdf)")
    p.add_argument("--db", type=Path, help="the index file (default: one per folder under $XDG_DATA_HOME/scree)")


def config_for(args: argparse.Namespace) -> Config:
    """The environment's config with the flags this command was given applied on top."""
    return load_config().with_overrides(
        notes=getattr(args, "notes", None), db=getattr(args, "db", None),
        note_extensions=getattr(args, "note_extensions", None),
        mode=getattr(args, "mode", None), k=getattr(args, "k", None), embedder=getattr(args, "embedder", None),
    )


class ScrubbingFormatter(logging.Formatter):
    """Every record this handler writes, scree's or a library's (httpcore logs response headers at
    DEBUG: a proxy that echoes `Authorization` puts the key there), is scrubbed as a whole line:
    message, arguments, traceback and stack alike."""

    def __init__(self, fmt: str, secrets: Sequence[str | None]) -> None:
        super().__init__(fmt)
        self._secrets = [s for s in secrets if s]

    def add_secrets(self, secrets: Sequence[str | None]) -> None:
        """More values to scrub (the engine learns each session's API key when it connects)."""
        self._secrets.extend(s for s in secrets if s and s not in self._secrets)

    def format(self, record: logging.LogRecord) -> str:
        return scrub(super().format(record), self._secrets)


def secrets_of(cfg: Config, *more: str | None) -> list[str | None]:
    """What no output may show: the API key, a password in the API base URL, the HTTP bearer token."""
    from urllib.parse import urlsplit

    try:
        password = urlsplit(cfg.api_base).password
    except ValueError:
        password = None
    return [cfg.api_key, password, os.environ.get(settings_table.HTTP_TOKEN.env), *more]


def setup_logging(cfg: Config, *more_secrets: str | None) -> None:
    """stderr logging at SCREE_LOG_LEVEL, through one handler that scrubs every line (any logger's)."""
    secrets = secrets_of(cfg, *more_secrets)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(ScrubbingFormatter("scree: %(levelname)s: %(message)s", secrets))
    logging.basicConfig(level=getattr(logging, cfg.log_level.upper(), logging.WARNING), handlers=[handler])
    logging.captureWarnings(True)  # a library's warning goes through the same handler
    # A traceback nobody caught (a bug) is scrubbed too, on the main thread and on any other.

    def print_scrubbed(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        sys.stderr.write(scrub("".join(traceback.format_exception(kind, value, tb)), secrets))

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is not SystemExit and args.exc_value is not None:
            print_scrubbed(args.exc_type, args.exc_value, args.exc_traceback)

    sys.excepthook = print_scrubbed
    threading.excepthook = thread_hook


# After SIGINT or SIGTERM a command has this long to unwind (drop the batch in hand, close the index,
# release the lock) before the process ends anyway: without finalizing, so no model run can abort it.
INTERRUPT_DEADLINE_S = 0.9


class Interrupts:
    """SIGINT and SIGTERM for the commands that run and end (search, reindex, status, doctor...).

    The first signal raises KeyboardInterrupt in the main thread, as Python does for SIGINT (for
    SIGTERM too, which would otherwise kill the process mid-write, skipping every `finally`): the
    embedding loop abandons its batch and waits for its helper threads (`embed.local.in_parallel`),
    the index closes and the lock is released; `main` exits 128 + the signal. Later signals are ignored:
    a terminal's Ctrl-C also reaches `uv run`, which forwards it, so one key press is often two
    SIGINTs, and the second one used to land while the first was being handled, leaving a helper
    thread running the model while the interpreter shut down (onnxruntime: "terminate called without
    an active exception", rc 134). A thread started beforehand, woken through `signal.set_wakeup_fd`
    (from C, in whichever thread took the signal, taking no lock), ends the process with `os._exit`
    if it is still alive INTERRUPT_DEADLINE_S later: nothing runs the interpreter's shutdown around a
    model then, and SQLite and the flock need no cleanup to stay consistent.
    """

    def __init__(self, deadline: float = INTERRUPT_DEADLINE_S) -> None:
        self.signum: int | None = None
        self._deadline = deadline
        self._announced = False
        self._previous: dict[int, Any] = {}
        self._previous_fd: int | None = None
        self._write_end: int | None = None

    def __enter__(self) -> "Interrupts":
        """Take SIGINT and SIGTERM (from the main thread only: Python allows handlers nowhere else)."""
        if threading.current_thread() is not threading.main_thread():
            return self
        read_end, write_end = os.pipe()
        try:
            os.set_blocking(write_end, False)
            self._previous_fd = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
        except (OSError, ValueError):  # a platform whose wakeup fd must be a socket: no deadline there
            os.close(read_end)
            os.close(write_end)
            return self
        threading.Thread(target=self._end_late, args=(read_end,), name="scree-interrupt", daemon=True).start()
        for signum in (signal.SIGINT, signal.SIGTERM):
            self._previous[signum] = signal.signal(signum, self._handle)
        self._write_end = write_end
        return self

    def __exit__(self, *exc: object) -> None:
        """Give the signals back (a caller in-process, such as a test, keeps its own handling)."""
        if self._write_end is None:
            return
        signal.set_wakeup_fd(self._previous_fd if self._previous_fd is not None else -1)
        for signum, handler in self._previous.items():
            # Interrupted, the process is ending: a forwarded second signal must not raise in its shutdown.
            signal.signal(signum, signal.SIG_IGN if self.signum is not None else handler)
        os.close(self._write_end)  # the thread reads the end of the pipe and returns
        self._write_end = None

    @property
    def exit_code(self) -> int:
        return 128 + (self.signum if self.signum is not None else signal.SIGINT)

    def _handle(self, signum: int, frame: object) -> None:
        if self.signum is not None:
            return  # the first one's exit is under way
        self.signum = signum
        raise KeyboardInterrupt

    def _end_late(self, read_end: int) -> None:
        while True:
            woken = os.read(read_end, 1)
            if not woken:
                os.close(read_end)
                return  # the command ended and gave the signals back
            if woken[0] in (signal.SIGINT, signal.SIGTERM):  # not another signal a library handles
                break
        # The read end stays open: a later signal's byte must find a reader (a closed pipe makes the C
        # handler print "Exception ignored ... BrokenPipeError").
        time.sleep(self._deadline)
        try:
            self.announce()
        finally:
            os._exit(128 + woken[0])

    def announce(self) -> None:
        """"scree: interrupted" on stderr, once (by the command, or by the deadline if it came first)."""
        if not self._announced:
            self._announced = True
            sys.stderr.write("scree: interrupted\n")
            sys.stderr.flush()


def print_notices(report: SyncReport) -> None:
    """Skipped files, decoding warnings, an embedder reset and a re-chunking, one line each on stderr."""
    for s in report.skipped:
        print(f"scree: skipped {s.rel_path}: {s.reason}", file=sys.stderr)
    for w in report.warnings:
        print(f"scree: warning: {w}", file=sys.stderr)
    if report.reset:
        print(f"scree: {report.reset}", file=sys.stderr)
    if report.rechunked:
        print(f"scree: {report.rechunked}", file=sys.stderr)


def print_result(report: SyncReport, folder: Path, as_json: bool) -> None:
    """The sync report on stdout: a one-line summary, or every field as JSON."""
    if as_json:
        data = asdict(report)
        data["skipped"] = [asdict(s) for s in report.skipped]
        print(json.dumps(data, indent=2))
    else:
        print(f"{folder}: {report.summary()}")
