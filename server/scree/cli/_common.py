"""What every `scree` command shares: the --notes/--db options, the config they give, logging, and
how a finished sync is told at the terminal (skips and warnings on stderr, the summary on stdout)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
import traceback
from dataclasses import asdict
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Sequence

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
                   "(default: $SCREE_NOTE_EXTENSIONS, else .md .mdx .markdown)")
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
