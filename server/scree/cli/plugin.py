"""The `scree doctor` and `scree usage` commands (the plugin-facing side of the CLI).

Reports go to stdout (that is what `/scree-doctor` shows the model); logging goes to stderr.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Sequence

from ..config import Config, add_embedder_flag
from ._common import add_common

if TYPE_CHECKING:
    from ..doctor.checks import Check


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add `doctor` and `usage` to the `scree` sub-command parsers."""
    p = sub.add_parser("doctor", help="check Python, SQLite, the model, the index, the writer, hooks and uv")
    add_common(p)
    add_embedder_flag(p)
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.add_argument("--deep", action="store_true",
                   help="also check every row of the index (each indexed file has all its chunks, keyword rows "
                        "and vectors; nothing is orphaned)")
    p.add_argument("-v", "--verbose", action="store_true", help="more detail (a sample of the names the notes share)")

    p = sub.add_parser("usage", help="how scree and grep were used, from the local usage log")
    add_common(p)
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--here", action="store_true", help="only this folder's project (default: every project)")
    p.add_argument("--days", type=int, default=14, help="days in the chart (default 14)")
    p.add_argument("--sessions", type=int, default=10, help="most recent sessions listed (default 10)")


_LABEL = {"ok": "ok", "warn": "warn", "fail": "FAIL", "info": "info"}  # checks.OK, WARN, FAIL, INFO


def render_checks(checks: Sequence[Check]) -> str:
    """The human report: one line per check, its fix indented below when there is one to do."""
    from ..doctor.checks import FAIL, WARN, failed

    width = max((len(c.name) for c in checks), default=0)
    lines = []
    for c in checks:
        lines.append(f"{_LABEL[c.status]:4}  {c.name:{width}}  {c.summary}")
        if c.fix and c.status in (WARN, FAIL):
            lines.append(f"{'':4}  {'':{width}}  -> {c.fix}")
    bad, warned = len(failed(checks)), sum(c.status == WARN for c in checks)
    verdict = "scree is ready" if not bad else f"{bad} check{'s' * (bad != 1)} failed"
    if warned:
        verdict += f", {warned} warning{'s' * (warned != 1)}"
    lines.append(verdict + ".")
    return "\n".join(lines)


def cmd_doctor(args: argparse.Namespace, cfg: Config) -> int:
    """Run every check; exit 1 when one failed."""
    from ..doctor import doctor
    from ..doctor.checks import failed, to_json

    checks = doctor.run_checks(cfg, deep=args.deep, verbose=args.verbose)
    if args.json:
        print(json.dumps(to_json(checks), indent=2, default=str))
    else:
        print(render_checks(checks))
    return 1 if failed(checks) else 0


def cmd_usage(args: argparse.Namespace, cfg: Config) -> int:
    """The usage report of every log on this machine (or of this folder's project with --here)."""
    from ..doctor import usage_report
    from ..hookkit.usagelog import find_usage_files

    project = None
    if args.here:
        from ..locate import folder_key, resolve_folder

        project = folder_key(resolve_folder(cfg))
    files = find_usage_files()
    report = usage_report.build(usage_report.load_events(files), files=files, project=project, days=args.days,
                                sessions=args.sessions)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(usage_report.render(report))
    return 0


COMMANDS = {"doctor": cmd_doctor, "usage": cmd_usage}
