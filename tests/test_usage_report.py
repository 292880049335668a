"""`scree usage`: recorded usage logs (as the hooks write them) turned into per-project, per-session and
per-day figures, as JSON and as a terminal report with unicode bars."""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path

import pytest

from scree.doctor import usage_report
from scree.cli import plugin as cli_plugin
from scree.config import load_config
from scree.hookkit.usagelog import append_event
from scree.locate import folder_key

TODAY = dt.date(2026, 11, 28)
P1, P2 = "notes-1111111111111111", "other-2222222222222222"


def _ev(time: str, session: str, project: str, event: str, call: str, nbytes: int | None = None, **extra) -> dict:
    e = {"time": time, "session": session, "project": project, "event": event, "call": call, **extra}
    if nbytes is not None:
        e["bytes"] = nbytes
    return e


# Session A follows its hint (a search right after the hinted grep) and greps after a search.
# Session B ignores its hint: the search comes four tool calls later, outside the 3-call window.
SESSION_A = [
    _ev("2026-11-27T10:00:00.000Z", "sess-aaaa1111", P1, "hint", "t1", 700, tool="Bash", reason="docs", results=2),
    _ev("2026-11-27T10:00:01.000Z", "sess-aaaa1111", P1, "grep", "t1", 9000, tool="Bash", grep="grep", results=40),
    _ev("2026-11-27T10:00:05.000Z", "sess-aaaa1111", P1, "search", "t2", 1200,
        tool="mcp__plugin_scree_scree__search_docs", mode="semantic", results=3, expanded=True),
    _ev("2026-11-27T10:00:09.000Z", "sess-aaaa1111", P1, "read", "t3", 3000, tool="mcp__plugin_scree_scree__read_doc"),
    _ev("2026-11-27T10:00:12.000Z", "sess-aaaa1111", P1, "grep", "t4", 500, tool="Bash", grep="rg", results=2),
]
SESSION_B = [
    _ev("2026-11-28T08:00:00.000Z", "sess-bbbb2222", P2, "hint", "u1", 650, tool="Bash", reason="match", results=1),
    _ev("2026-11-28T08:00:01.000Z", "sess-bbbb2222", P2, "grep", "u1", 100, tool="Bash", grep="grep"),
    _ev("2026-11-28T08:00:02.000Z", "sess-bbbb2222", P2, "grep", "u2", 200, tool="Bash", grep="grep"),
    _ev("2026-11-28T08:00:03.000Z", "sess-bbbb2222", P2, "grep", "u3", 300, tool="Grep"),
    _ev("2026-11-28T08:00:04.000Z", "sess-bbbb2222", P2, "grep", "u4", 400, tool="Bash", grep="git-grep"),
    _ev("2026-11-28T08:00:05.000Z", "sess-bbbb2222", P2, "search", "u5", 800,
        tool="mcp__plugin_scree_scree__search_docs", mode="hybrid", results=5),
]


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME whose Claude Code plugin data holds the two sessions' logs, as the hooks wrote them.

    Session A's first events sit in the rotated `.1` part, and one torn line ends the live file.
    """
    home = tmp_path / "home"
    usage = home / ".claude" / "plugins" / "data" / "scree-scree-tools" / "usage"
    for e in SESSION_A[:2]:
        append_event(str(usage / f"{P1}.jsonl.1"), e)
    for e in SESSION_A[2:]:
        append_event(str(usage / f"{P1}.jsonl"), e)
    with open(usage / f"{P1}.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"time": "2026-11-27T10:00:13.000Z", "sess')  # a crash mid-write
    for e in SESSION_B:
        append_event(str(usage / f"{P2}.jsonl"), e)
    monkeypatch.setenv("HOME", str(home))
    for var in ("CLAUDE_PLUGIN_DATA", "CLAUDE_CONFIG_DIR", "SCREE_USAGE"):
        monkeypatch.delenv(var, raising=False)
    return home


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="scree")
    cli_plugin.add_parsers(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    code = cli_plugin.COMMANDS[args.command](args, load_config().with_overrides(notes=args.notes))
    return code, capsys.readouterr().out


def test_json_report_counts_follows_and_medians_per_project_and_session(home, capsys) -> None:
    code, out = _run(["usage", "--json", "--days", "3"], capsys)
    report = json.loads(out)
    assert code == 0 and len(report["files"]) == 2
    total = report["total"]
    assert (total["searches"], total["reads"], total["greps"]) == (2, 1, 6)
    assert total["searches_expanded"] == 1  # session A's search carried an expected answer, B's did not
    assert report["projects"][P1]["searches_expanded"] == 1 and report["projects"][P2]["searches_expanded"] == 0
    assert (total["hints_shown"], total["hints_followed"], total["grep_after_search"]) == (2, 1, 1)
    assert total["median_bytes_scree"] == 1200 and total["median_bytes_grep"] == 350
    assert report["projects"][P1]["hints_followed"] == 1 and report["projects"][P2]["hints_followed"] == 0
    assert list(report["sessions"]) == ["sess-bbbb2222", "sess-aaaa1111"]  # most recent first
    assert report["sessions"]["sess-aaaa1111"]["project"] == P1


def test_terminal_report_has_tables_and_a_bar_per_day(home, capsys) -> None:
    files = sorted(str(p) for p in home.rglob("*.jsonl"))
    report = usage_report.build(usage_report.load_events(files), files=files, days=3, today=TODAY)
    text = usage_report.render(report)
    lines = text.splitlines()
    header = next(line for line in lines if "searches" in line and "followed" in line)
    assert "with answer" in header and "grep after search" in header and "median bytes scree / grep" in header
    (total,) = [line for line in lines if line.startswith("all projects")]
    # searches, with an expected answer (share), greps, hints, followed (share), grep after search
    assert total.split()[2:10] == ["2", "1", "(50%)", "6", "2", "1", "(50%)", "1"] and "1.2 kB / 350 B" in total
    assert any(line.startswith("2026-11-28 08:00  sess-bbb") and line.endswith(P2) for line in lines)
    days = {line[:10]: line for line in lines if line[:4] == "2026" and "scree" in line and "grep" in line}
    assert list(days) == ["2026-11-26", "2026-11-27", "2026-11-28"]
    # 11-28 has the busiest column (4 greps): a full 24-cell bar; 11-27's 2 greps are half of it.
    assert days["2026-11-28"].endswith("grep 4 " + "█" * 24)
    assert days["2026-11-27"].endswith("grep 2 " + "█" * 12)
    assert "scree 1 " + "█" * 6 in days["2026-11-28"] and "█" not in days["2026-11-26"]


def test_here_keeps_only_this_folders_project(home, tmp_path, capsys) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    key = folder_key(notes.resolve())
    usage = home / ".claude" / "plugins" / "data" / "scree-scree-tools" / "usage"
    append_event(str(usage / f"{key}.jsonl"), _ev("2026-11-28T09:00:00.000Z", "sess-here", key, "search", "h1", 10))
    code, out = _run(["usage", "--json", "--here", "--notes", str(notes)], capsys)
    report = json.loads(out)
    assert code == 0 and report["project_filter"] == key
    assert list(report["projects"]) == [key] and report["total"]["searches"] == 1


def test_no_log_says_how_usage_gets_logged(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "empty-home"))
    monkeypatch.delenv("CLAUDE_PLUGIN_DATA", raising=False)
    code, out = _run(["usage"], capsys)
    assert code == 0 and "nothing logged yet" in out and "SCREE_USAGE=off" in out


def test_bar_uses_eighths_and_never_hides_a_nonzero_value() -> None:
    assert usage_report.bar(0, 10) == "" and usage_report.bar(5, 0) == ""
    assert usage_report.bar(10, 10, width=4) == "████"
    assert usage_report.bar(3, 8, width=4) == "█▌"  # 1.5 cells
    assert usage_report.bar(1, 1000, width=4) == "▏"  # tiny but visible
    assert usage_report.bar(50, 10, width=3) == "███"  # capped at the width
