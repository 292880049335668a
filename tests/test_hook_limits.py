"""Huge hook payloads: a command too large to be a person's search is skipped before it is parsed
(the hook stays quiet and, with SCREE_HOOKS_DEBUG=1, logs why), and every field of a hook-log line is
capped, so the log's 256 KB cap (checked before each write) holds. Timing is benchmarked in
benchmarks/hook_huge.py, not asserted here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "hooks"))

from hookrun import Project, context_of, make_project, payload  # noqa: E402

from scree.hookkit import posttool, runtime  # noqa: E402
from scree.hookkit.grepparse import MAX_COMMAND_CHARS  # noqa: E402


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return make_project(tmp_path_factory.mktemp("limits"))


def _decisions(project: Project) -> list[dict]:
    out = []
    for line in project.hook_log.read_text().splitlines():
        if "decision: " in line:
            out.append(json.loads(line.split("decision: ", 1)[1]))
    return out


def _bash(project: Project, command: str, session: str):
    data = payload("pretool_bash", tool_input={"command": command, "description": "search"}, session_id=session,
                   cwd=str(project.folder))
    return project.run("suggest.py", data, timeout=60, SCREE_HOOKS_DEBUG="1")


def test_the_searches_below_are_hinted_when_small(project: Project) -> None:
    # The control: these searches get a hint at a person's size, so quiet below means skipped.
    assert context_of(_bash(project, "grep -rn retention_days .", "small-1"), "PreToolUse")
    assert context_of(_bash(project, "grep -rn -e retention_days -e retention_days .", "small-2"), "PreToolUse")


@pytest.mark.parametrize("command", [
    "grep -rn '" + "retention_days " * 700_000 + "' .",  # ~10 MB, one pattern
    " | ".join(["grep retention_days"] * 500_000),  # ~10 MB of pipes
], ids=["10MB-pattern", "10MB-pipes"])
def test_a_ten_megabyte_command_is_skipped_unread_and_quiet(project: Project, command: str) -> None:
    proc = _bash(project, command, "huge")
    assert proc.returncode == 0 and proc.stdout == b""
    skipped = [d for d in _decisions(project) if d.get("reason") == "too-large" and d.get("bytes", 0) > 10_000_000]
    assert skipped, project.hook_log.read_text()[-2000:]


@pytest.mark.parametrize("tool, tool_input", [
    ("pretool_bash", {"command": "grep -rn " + "-e retention_days " * 300 + ".", "description": "search"}),
    ("pretool_grep", {"pattern": "retention_days|" * 300, "path": "."}),
], ids=["bash-e-options", "grep-tool-pattern"])
def test_a_command_or_pattern_over_the_cap_is_not_parsed_and_quiet(project: Project, tool: str,
                                                                  tool_input: dict) -> None:
    text = tool_input.get("command") or tool_input["pattern"]
    assert len(text) > MAX_COMMAND_CHARS
    data = payload(tool, tool_input=tool_input, session_id=f"cap-{tool}", cwd=str(project.folder))
    proc = project.run("suggest.py", data, SCREE_HOOKS_DEBUG="1")
    assert proc.returncode == 0 and proc.stdout == b""
    assert {"reason": "too-large", "chars": len(text)}.items() <= _decisions(project)[-1].items()


def test_the_usage_hook_does_not_parse_a_command_over_the_cap() -> None:
    small = posttool.searching_call("Bash", {"command": "grep -rn retention_days ."})
    assert small is not None and small.patterns == ("retention_days",)
    big = "grep -rn " + "-e retention_days " * 300 + "."
    assert posttool.searching_call("Bash", {"command": big}) is None


def test_every_field_of_a_debug_line_is_capped_so_the_log_cap_holds(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path))
    log = Path(runtime.error_log_path())
    huge = {"tool": "Bash", "reason": "no-match", "patterns": ["p" * 600_000] + ["q"] * 5000,
            "nested": {"k" * 1000: ["v" * 1000]}, "aim": object()}
    for _ in range(200):
        runtime.log_debug("suggest", huge)
    runtime.log_error("suggest", "m" * 1_000_000, with_traceback=False)
    lines = log.read_text().splitlines()
    assert max(len(line.encode()) for line in lines) <= runtime.MAX_LINE_CHARS * 4 + 200
    decision = json.loads(lines[0].split("decision: ", 1)[1])
    assert decision["reason"] == "no-match" and decision["patterns"][0].startswith("p" * runtime.MAX_FIELD_CHARS)
    assert "599700 more characters" in decision["patterns"][0] and "more items" in decision["patterns"][-1]
    total = log.stat().st_size + (log.with_name(log.name + ".1").stat().st_size
                                  if log.with_name(log.name + ".1").exists() else 0)
    assert log.stat().st_size <= runtime.LOG_MAX_BYTES + 4 * runtime.MAX_LINE_CHARS + 200 and total > 0
