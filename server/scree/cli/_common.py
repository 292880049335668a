"""What every `scree` command shares: the --notes/--db options, the config they give, logging, and
how a finished sync is told at the terminal (skips and warnings on stderr, the summary on stdout)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Config, load_config

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


def setup_logging(cfg: Config) -> None:
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, cfg.log_level.upper(), logging.WARNING),
                        format="scree: %(levelname)s: %(message)s")


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
