"""How a finished sync is told to the person at the terminal: skips and warnings on stderr, the
summary (or JSON) on stdout. Shared by `scree index`, `scree search` and `scree reindex`."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

from .sync import SyncReport


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
