"""The byte-level prefilter may wave a payload through wrongly, but never drops a real search."""

from __future__ import annotations

import json

import pytest

from scree.hookkit import grepparse, prefilter
from test_hook_grepparse import CASES


def payload(command: str, tool: str = "Bash") -> bytes:
    key = "command" if tool == "Bash" else "pattern"
    return json.dumps({"session_id": "s", "cwd": "/repo", "hook_event_name": "PreToolUse", "tool_name": tool,
                       "tool_input": {key: command}}).encode()


@pytest.mark.parametrize("command", [c for c, _ in CASES])
def test_every_command_the_parser_finds_a_search_in_passes_the_prefilter(command):
    if grepparse.parse_command(command):
        assert prefilter.may_search(payload(command))


@pytest.mark.parametrize("command", ["ls -la", "git status", "npm run build", "pytest -q tests/", "cd src && make",
                                     "python3 -m pip install uv", "cat README.md | head -20"])
def test_ordinary_commands_stop_at_the_prefilter(command):
    assert not prefilter.may_search(payload(command))


def test_grep_tool_and_scree_tools_are_recognised():
    assert prefilter.may_search(payload("retention", tool="Grep"))
    assert prefilter.is_scree_tool(b'{"tool_name": "mcp__plugin_scree_scree__search_docs"}')
    assert prefilter.may_search(payload("cd docs; rg -n token"))
    assert prefilter.may_search(payload("x=$(ag foo)"))
