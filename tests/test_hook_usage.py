"""The usage log: the PostToolUse hook run on recorded payloads, the file's rules (private, capped,
rotated, safe under concurrent writers), and the reader/summary API `scree usage` builds on."""

from __future__ import annotations

import json

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "hooks"))

from hookrun import Project, make_project, payload  # noqa: E402

from scree.hookkit import posttool, usagelog  # noqa: E402


@pytest.fixture()
def project(tmp_path: Path) -> Project:
    return make_project(tmp_path, index=False)


def logged(project: Project) -> list[dict]:
    return usagelog.read_events(str(project.usage_file))


def post(project: Project, name: str, **changes: object) -> subprocess.CompletedProcess:
    proc = project.run("log_usage.py", payload(name, cwd=str(project.folder), **changes))
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b"", proc
    return proc


def test_structured_scree_search_is_logged_with_counts_not_text(project: Project) -> None:
    post(project, "posttool_mcp_structured")
    (event,) = logged(project)
    raw = payload("posttool_mcp_structured")
    assert event["event"] == "search" and event["tool"] == "mcp__plugin_scree_scree__search_docs"
    assert event["mode"] == "semantic" and event["results"] == 2
    assert event["bytes"] == len(raw["tool_response"].encode()) and event["duration_ms"] == 18
    assert event["session"] == raw["session_id"] and event["project"] == project.key
    assert event["call"] == "toolu_01GHI" and event["time"].endswith("Z")
    assert "text" not in event and "keep logs" not in project.usage_file.read_text()


def test_query_text_only_when_opted_in(project: Project) -> None:
    project.run("log_usage.py", payload("posttool_mcp_structured"), SCREE_USAGE_TEXT="1")
    (event,) = logged(project)
    assert event["text"] == "how long do we keep logs"


def test_a_search_records_whether_it_carried_an_expected_answer_never_its_text(project: Project) -> None:
    guess = "Application logs are kept for 30 days, then deleted by the nightly job."
    with_guess = {"query": "how long do we keep logs", "expected_answer": guess}
    post(project, "posttool_mcp_structured", tool_input=with_guess, tool_use_id="toolu_guess")
    post(project, "posttool_mcp_structured", tool_input={**with_guess, "expected_answer": "  "}, tool_use_id="toolu_blank")
    post(project, "posttool_mcp_structured", tool_use_id="toolu_plain")
    events = {e["call"]: e for e in logged(project)}
    assert [events[c]["expanded"] for c in ("toolu_guess", "toolu_blank", "toolu_plain")] == [True, False, False]
    assert "30 days, then deleted" not in project.usage_file.read_text()
    assert usagelog.summarize(events.values())["total"]["searches_expanded"] == 1


def test_the_expected_answer_is_logged_only_when_text_is_opted_in(project: Project) -> None:
    guess = "Application logs are kept for 30 days."
    project.run("log_usage.py", payload("posttool_mcp_structured", tool_input={"query": "log retention",
                                                                                "expected_answer": guess}),
                SCREE_USAGE_TEXT="1")
    (event,) = logged(project)
    assert event["expanded"] is True and event["text"] == "log retention" and event["expected_answer"] == guess


def test_unstructured_scree_tool_counts_text_bytes(project: Project) -> None:
    post(project, "posttool_mcp_text")
    (event,) = logged(project)
    assert event["event"] == "other" and event["bytes"] == len("index: 4 files, 11 chunks, fresh")
    assert event["results"] is None and event["duration_ms"] == 3


def test_bash_grep_is_logged_with_stdout_size(project: Project) -> None:
    post(project, "posttool_bash")
    (event,) = logged(project)
    stdout = payload("posttool_bash")["tool_response"]["stdout"]
    assert event["event"] == "grep" and event["tool"] == "Bash" and event["grep"] == "grep"
    assert event["results"] == 2 and event["bytes"] == len(stdout.encode()) and event["duration_ms"] == 41
    assert "retention_days" not in project.usage_file.read_text()


def test_grep_tool_is_logged_with_file_count(project: Project) -> None:
    post(project, "posttool_grep")
    (event,) = logged(project)
    assert event["event"] == "grep" and event["tool"] == "Grep" and event["results"] == 2
    assert event["bytes"] == sum(len(f) + 1 for f in payload("posttool_grep")["tool_response"]["filenames"])


@pytest.mark.parametrize("command", ["ls -la", "make test", "ps aux | grep python", "git log | grep fix", "rg --files"])
def test_bash_calls_that_search_no_files_are_not_logged(project: Project, command: str) -> None:
    post(project, "posttool_bash", tool_input={"command": command})
    assert not project.usage_file.exists()


def test_usage_off_logs_nothing(project: Project) -> None:
    project.run("log_usage.py", payload("posttool_mcp_structured"), SCREE_USAGE="off")
    project.run("log_usage.py", payload("posttool_bash"), SCREE_USAGE="0")
    assert not project.usage_file.exists()


def test_log_file_is_private(project: Project) -> None:
    post(project, "posttool_grep")
    assert stat.S_IMODE(project.usage_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(project.usage_file.parent.stat().st_mode) == 0o700


@pytest.mark.parametrize("stdin", [b"", b"{", b"null", b"{\"tool_name\": \"Bash\", \"tool_input\": 3}"])
def test_bad_input_is_silent(project: Project, stdin: bytes) -> None:
    proc = project.run("log_usage.py", stdin)
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
    assert not project.usage_file.exists()


def test_an_unwritable_log_is_reported_in_the_hook_log_not_to_claude(project: Project) -> None:
    project.usage_file.parent.mkdir(parents=True)
    project.usage_file.mkdir()  # a directory where the log file should be
    proc = project.run("log_usage.py", payload("posttool_grep"))
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
    assert "log_usage" in project.hook_log.read_text()


# ---------------------------------------------------------------- the file


def test_rotation_keeps_the_file_under_the_cap(tmp_path: Path) -> None:
    path = str(tmp_path / "usage" / "p.jsonl")
    for i in range(100):
        usagelog.append_event(path, {"event": "grep", "i": i, "pad": "x" * 80}, max_bytes=2000)
    assert os.path.getsize(path) <= 2000 and os.path.getsize(path + ".1") <= 2000
    numbers = [e["i"] for e in usagelog.read_events(path)]
    assert numbers == sorted(numbers) and numbers[-1] == 99  # the newest events, in order, none torn


def test_concurrent_writers_never_tear_or_lose_lines(tmp_path: Path) -> None:
    path = tmp_path / "usage" / "p.jsonl"
    code = ("import sys; from scree.hookkit import usagelog\n"
            "for i in range(150): usagelog.append_event(sys.argv[1], {'w': sys.argv[2], 'i': i, 'pad': 'y' * 300})")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path), str(w)]) for w in range(4)]
    assert [p.wait(timeout=60) for p in procs] == [0] * 4
    events = usagelog.read_events(str(path))
    assert len(events) == 600 and len(path.read_text().splitlines()) == 600
    for w in range(4):
        assert [e["i"] for e in events if e["w"] == str(w)] == list(range(150))


def test_a_huge_pattern_or_query_is_logged_as_one_capped_line(project: Project) -> None:
    # A 10 MB Grep pattern wrote a 10 MB line, a 1 MB search_docs query a 1 MB one (issue 26, item 8).
    grep = payload("posttool_grep")
    grep["tool_input"] = {**grep["tool_input"], "pattern": "retention_days " * 700_000}
    query = payload("posttool_mcp_structured")
    query["tool_input"] = {**query["tool_input"], "query": "how long do we keep logs " * 42_000}
    for data in (grep, query):
        proc = project.run("log_usage.py", data, timeout=60, SCREE_USAGE_TEXT="1")
        assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b"", proc
    lines = project.usage_file.read_bytes().splitlines()
    assert len(lines) == 2 and max(len(line) for line in lines) <= usagelog.MAX_LINE_BYTES
    grep_event, search_event = logged(project)
    assert grep_event["event"] == "grep" and grep_event["text"].startswith("retention_days retention_days")
    assert grep_event["text"].endswith(f"({len('retention_days ') * 700_000 - usagelog.MAX_TEXT_CHARS} more characters)")
    assert search_event["event"] == "search" and search_event["text"].startswith("how long do we keep logs")


def test_an_opted_in_expected_answer_is_kept_like_the_query_text(tmp_path: Path) -> None:
    """What the user typed (SCREE_USAGE_TEXT=1) keeps MAX_TEXT_CHARS, the guess as much as the query;
    other strings are cut at MAX_FIELD_CHARS."""
    guess = "Failed uploads are retried with backoff. " * 15
    line = usagelog.capped_line({"event": "search", "text": "q", "expected_answer": guess, "tool": "t" * 1000})
    event = json.loads(line)
    assert event["expected_answer"] == guess and len(guess) > usagelog.MAX_FIELD_CHARS
    assert event["tool"].startswith("t" * usagelog.MAX_FIELD_CHARS + "... (")


def test_no_line_or_file_outgrows_its_cap_whatever_the_events(tmp_path: Path) -> None:
    path = str(tmp_path / "usage" / "p.jsonl")
    for i in range(40):  # every string field huge, control characters (six bytes each as JSON) and a surrogate
        usagelog.append_event(path, {"event": "grep", "i": i, "text": "\x01" * 3_000_000, "call": "c" * 1_000_000,
                                     "tool": "\udcff" * 5000, "x" * 10_000: "y"}, max_bytes=50_000)
    for p in (path, path + ".1"):
        data = Path(p).read_bytes()
        assert len(data) <= 50_000 and max(len(line) for line in data.splitlines()) <= usagelog.MAX_LINE_BYTES
    events = usagelog.read_events(path)
    assert [e["i"] for e in events] == list(range(40 - len(events), 40)) and len(events) >= 3
    assert events[-1]["tool"].startswith("\udcff")  # the lone surrogate, as its escape


def test_reader_skips_a_torn_last_line_and_garbage(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_bytes(b'{"event":"search"}\n\n[1,2]\nnot json\n\xff\xfe\n{"event":"grep"}\n{"event":"hi')
    assert usagelog.read_events(str(path)) == [{"event": "search"}, {"event": "grep"}]
    assert usagelog.read_events(str(tmp_path / "missing.jsonl")) == []


# ---------------------------------------------------------------- summaries


def ev(t: int, kind: str, session: str = "s1", project: str = "p1", nbytes: int | None = None,
       call: str | None = None, day: str = "2025-03-01") -> dict:
    return {"time": f"{day}T10:00:{t:02d}.000Z", "session": session, "project": project, "event": kind,
            "bytes": nbytes, "call": call}


def test_summary_counts_hints_followed_and_greps_after_search() -> None:
    events = [
        ev(1, "hint", call="a"), ev(2, "grep", call="a", nbytes=900),  # the hinted grep itself
        ev(3, "search", nbytes=300),  # follows the hint
        ev(4, "grep", nbytes=1100),  # a grep right after a scree search
        ev(5, "hint", call="b"), ev(6, "grep", call="b"), ev(7, "grep"), ev(8, "grep"), ev(9, "grep"),
        ev(10, "search", nbytes=500),  # too late for hint b
        ev(11, "read", nbytes=700),
    ]
    s = usagelog.summarize(reversed(events))  # the order of the input does not matter, times do
    total = s["total"]
    assert total["hints_shown"] == 2 and total["hints_followed"] == 1
    assert total["searches"] == 2 and total["reads"] == 1 and total["greps"] == 6
    assert total["grep_after_search"] == 1
    assert total["median_bytes_scree"] == 500 and total["median_bytes_grep"] == 1000
    assert total["sessions"] == 1 and total["first"].startswith("2025-03-01T10:00:01")


def test_summary_per_session_project_and_day() -> None:
    events = [ev(1, "search", "s1", "p1"), ev(2, "hint", "s2", "p1"), ev(3, "search", "s2", "p1"),
              ev(4, "grep", "s3", "p2", day="2025-03-02"), ev(5, "reindex", "s3", "p2", day="2025-03-02")]
    s = usagelog.summarize(events)
    assert set(s["sessions"]) == {"s1", "s2", "s3"}
    assert s["sessions"]["s2"]["hints_followed"] == 1 and s["sessions"]["s1"]["hints_followed"] == 0
    assert s["projects"]["p1"]["sessions"] == 2 and s["projects"]["p1"]["searches"] == 2
    assert s["projects"]["p2"]["greps"] == 1 and s["projects"]["p2"]["reindexes"] == 1
    assert s["days"] == {"2025-03-01": {"search": 2, "hint": 1}, "2025-03-02": {"grep": 1, "reindex": 1}}
    assert s["total"]["events"] == 5 and s["total"]["median_bytes_grep"] is None


def test_summary_of_nothing() -> None:
    s = usagelog.summarize([])
    assert s["total"]["events"] == 0 and s["sessions"] == {} and s["days"] == {}


def test_a_search_in_another_session_does_not_follow_a_hint() -> None:
    s = usagelog.summarize([ev(1, "hint", "s1"), ev(2, "search", "s2")])
    assert s["total"]["hints_followed"] == 0


def test_hook_output_round_trips_through_the_reader(project: Project) -> None:
    for name in ("posttool_mcp_structured", "posttool_bash", "posttool_grep", "posttool_mcp_text"):
        post(project, name)
    s = usagelog.summarize(logged(project))
    assert s["total"]["searches"] == 1 and s["total"]["greps"] == 2 and s["total"]["events"] == 4
    assert list(s["projects"]) == [project.key]


@pytest.mark.parametrize("tool,kind", [
    ("mcp__plugin_scree_scree__search_docs", "search"), ("mcp__plugin_scree_scree__read_note", "read"),
    ("mcp__plugin_scree_scree__reindex", "reindex"), ("mcp__plugin_scree_scree__status", "other"),
])
def test_scree_tool_names_map_to_event_kinds(tool: str, kind: str) -> None:
    assert posttool.mcp_event_kind(tool) == kind


def test_response_shapes() -> None:
    structured = '{"results": [1, 2, 3], "mode": "hybrid"}'
    assert posttool.mcp_stats(structured) == (3, len(structured), "hybrid")
    assert posttool.mcp_stats("not json") == (None, 8, None)
    assert posttool.mcp_stats([{"type": "text", "text": '{"results": [], "mode": "keyword"}'}])[::2] == (0, "keyword")
    assert posttool.mcp_stats({"results": [1]})[0] == 1
    assert posttool.mcp_stats(None) == (None, None, None)
    assert posttool.grep_stats("Grep", {"mode": "content", "content": "a\nb\n", "numLines": 2}) == (2, 4)
    assert posttool.grep_stats("Bash", {"stdout": "héllo\n"}) == (1, 7)
    assert posttool.grep_stats("Bash", "weird") == (None, None)


def test_usage_files_are_found_without_the_plugin_environment(tmp_path: Path) -> None:
    home = tmp_path / "home"
    logs = [home / ".claude/plugins/data/scree-scree-tools/usage/repo-1.jsonl",
            home / ".claude/plugins/data/scree-inline/usage/repo-2.jsonl",
            home / ".cache/scree/usage/repo-3.jsonl"]
    for f in logs:
        usagelog.append_event(str(f), {"event": "grep"})
    (home / ".claude/plugins/data/other-plugin/usage").mkdir(parents=True)
    (home / ".claude/plugins/data/other-plugin/usage/x.jsonl").write_text("{}\n")
    found = usagelog.find_usage_files({"HOME": str(home)})
    assert sorted(found) == sorted(str(f) for f in logs)
    config = tmp_path / "cfg"
    moved = config / "plugins/data/scree-inline/usage/repo-4.jsonl"
    usagelog.append_event(str(moved), {"event": "grep"})
    assert str(moved) in usagelog.find_usage_files({"HOME": str(home), "CLAUDE_CONFIG_DIR": str(config)})
