"""`scree usage`: the figures of `hookkit.usagelog.summarize`, laid out per project, per session and per day.

Only presentation lives here: what counts as a search, a grep, a followed hint or a grep after a search
is decided by `usagelog` (the same module the hooks write with).
"""

from __future__ import annotations

import datetime as dt
import os
from typing import Iterable, Mapping, Sequence

from .checks import INFO, Check
from ..hookkit.usagelog import FOLLOW_WINDOW, read_events, summarize

EIGHTHS = " ▏▎▍▌▋▊▉"  # partial blocks, 0/8 .. 7/8 of a cell
FULL = "█"
BAR_WIDTH = 24
SCREE_KINDS = ("search", "read")


def load_events(paths: Iterable[str]) -> list[dict]:
    """Every event of every log in `paths` (rotated parts included)."""
    return [e for p in paths for e in read_events(p)]


def bar(value: float, peak: float, width: int = BAR_WIDTH) -> str:
    """A horizontal bar `value/peak` of `width` cells, in eighths of a cell; empty for 0, at least ▏ otherwise."""
    if value <= 0 or peak <= 0:
        return ""
    eighths = max(1, round(min(value / peak, 1.0) * width * 8))
    full, part = divmod(eighths, 8)
    return FULL * full + (EIGHTHS[part] if part else "")


def _day_rows(days: Mapping[str, Mapping[str, int]], last_day: dt.date, count: int) -> list[dict]:
    rows = []
    for back in range(count - 1, -1, -1):
        day = (last_day - dt.timedelta(days=back)).isoformat()
        kinds = days.get(day, {})
        rows.append({"day": day, "scree": sum(kinds.get(k, 0) for k in SCREE_KINDS),
                     "grep": kinds.get("grep", 0), "hints": kinds.get("hint", 0)})
    return rows


def build(events: Sequence[Mapping[str, object]], *, files: Sequence[str] = (), project: str | None = None,
          days: int = 14, sessions: int = 10, today: dt.date | None = None) -> dict:
    """The report as data (what `--json` prints): totals, per project, the `sessions` most recent
    sessions, and one row per day for the `days` days up to `today` (UTC)."""
    if project is not None:
        events = [e for e in events if e.get("project") == project]
    summary = summarize(events)
    today = today or dt.datetime.now(dt.timezone.utc).date()
    recent = sorted(summary["sessions"].items(), key=lambda kv: str(kv[1].get("last") or ""), reverse=True)
    session_projects: dict[str, str] = {}
    for e in events:
        session_projects.setdefault(str(e.get("session", "")), str(e.get("project", "")))
    return {
        "files": list(files),
        "project_filter": project,
        "follow_window": FOLLOW_WINDOW,
        "total": summary["total"],
        "projects": summary["projects"],
        "sessions": {sid: {**s, "project": session_projects.get(sid, "")} for sid, s in recent[:max(0, sessions)]},
        "sessions_total": len(summary["sessions"]),
        "days": _day_rows(summary["days"], today, max(1, days)),
    }


def _size(value: object) -> str:
    if not isinstance(value, (int, float)):
        return "-"
    if value < 1000:
        return f"{value:.0f} B"
    return f"{value / 1000:.1f} kB" if value < 1_000_000 else f"{value / 1e6:.1f} MB"


def _count(value: object) -> int:
    return value if isinstance(value, int) else 0


def _followed(s: Mapping[str, object]) -> str:
    shown, followed = _count(s.get("hints_shown")), _count(s.get("hints_followed"))
    return f"{followed} ({followed * 100 // shown}%)" if shown else "-"


def _expanded(s: Mapping[str, object]) -> str:
    """Searches sent with an expected answer, and their share of all searches."""
    searches, expanded = _count(s.get("searches")), _count(s.get("searches_expanded"))
    return f"{expanded} ({expanded * 100 // searches}%)" if searches else "-"


def _row(label: str, s: Mapping[str, object]) -> list[str]:
    return [label, str(s.get("searches", 0)), _expanded(s), str(s.get("greps", 0)), str(s.get("hints_shown", 0)),
            _followed(s), str(s.get("grep_after_search", 0)),
            f"{_size(s.get('median_bytes_scree'))} / {_size(s.get('median_bytes_grep'))}"]


HEADER = ["", "searches", "with answer", "greps", "hints", "followed", "grep after search",
          "median bytes scree / grep"]


def _table(rows: list[list[str]], left: tuple[int, ...] = (0,)) -> list[str]:
    """Aligned columns: numbers to the right, the columns in `left` (labels) to the left."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in rows]


def _when(iso: object) -> str:
    return str(iso)[:16].replace("T", " ") if iso else "?"


def render(report: Mapping[str, object]) -> str:
    """The terminal report: a table per project and per recent session, then a per-day chart."""
    total: Mapping[str, object] = report["total"]  # type: ignore[assignment]
    files: Sequence[str] = report["files"]  # type: ignore[assignment]
    where = f" for {report['project_filter']}" if report.get("project_filter") else ""
    if not total.get("events"):
        logs = f"{len(files)} log file(s)" if files else "no log file"
        return (f"scree usage{where}: nothing logged yet ({logs}). The plugin's hooks log scree calls, greps and "
                "hints while Claude Code runs (SCREE_USAGE=off turns that off).")
    projects: Mapping[str, Mapping[str, object]] = report["projects"]  # type: ignore[assignment]
    lines = [f"scree usage{where}: {len(projects)} project(s), {total.get('sessions')} session(s), "
             f"{_when(total.get('first'))} .. {_when(total.get('last'))} UTC, from {len(files)} log file(s)", ""]
    rows = [HEADER, _row("all projects", total)] + [_row(p, s) for p, s in sorted(projects.items())]
    lines += _table(rows)

    sessions: Mapping[str, Mapping[str, object]] = report["sessions"]  # type: ignore[assignment]
    lines += ["", f"sessions (the {len(sessions)} most recent of {report['sessions_total']})"]
    srows = [["started", *HEADER[1:], "project"]]
    srows += [[f"{_when(s.get('first'))}  {sid[:8]}", *_row("", s)[1:], str(s.get("project", ""))]
              for sid, s in sessions.items()]
    lines += _table(srows, left=(0, len(srows[0]) - 1))

    day_rows: Sequence[Mapping[str, object]] = report["days"]  # type: ignore[assignment]
    peak = max((max(int(d["scree"]), int(d["grep"])) for d in day_rows), default=0)  # type: ignore[call-overload]
    lines.append("")
    if not peak:
        lines.append(f"no scree call or grep in the last {len(day_rows)} days")
    else:
        lines.append(f"per day, UTC (scree = searches + reads; bars scaled to the busiest day, {peak} calls)")
        width = len(str(peak))
        for d in day_rows:
            s, g = int(d["scree"]), int(d["grep"])  # type: ignore[call-overload]
            lines.append(f"{d['day']}  scree {s:>{width}} {bar(s, peak).ljust(BAR_WIDTH)}  "
                         f"grep {g:>{width}} {bar(g, peak)}".rstrip())
    lines += ["", f"with answer: searches sent with an expected_answer (the agent's guess at the answer); "
              f"hints followed: a scree search within {report['follow_window']} tool calls after a hint; "
              f"grep after search: a grep within {report['follow_window']} calls after a scree search."]
    return "\n".join(lines)


def usage_check(env: Mapping[str, str] | None = None) -> Check:
    """`scree doctor`'s usage line: a one-line summary of every usage log on this machine."""
    from ..hookkit.runtime import is_off
    from ..settings_table import USAGE
    from ..hookkit.usagelog import find_usage_files

    env = os.environ if env is None else env
    files = find_usage_files(env)
    events = load_events(files)
    details: dict[str, object] = {"files": files, "usage_off": is_off(USAGE.env, env)}
    off = " (SCREE_USAGE=off: not logging now)" if details["usage_off"] else ""
    if not events:
        return Check("usage", INFO, "no usage logged yet" + off, details)
    t = summarize(events)["total"]
    details["total"] = t
    return Check("usage", INFO, f"{t['searches']} scree searches ({t['searches_expanded']} with an expected answer), "
                 f"{t['greps']} greps, {t['hints_shown']} hints "
                 f"({t['hints_followed']} followed) in {t['sessions']} sessions; `scree usage` for more" + off, details)
