"""From a PostToolUse payload to a usage event: what kind of call, how many results, how many bytes.

`tool_response` shapes (Claude Code 2.1.x): a structured MCP tool gives a JSON string (of
`{"results": [...], "mode": ..., ...}` for scree), an unstructured one a list of `{"type": "text"}`
blocks, Bash `{stdout, stderr, ...}`, Grep `{mode, filenames, numFiles, ...}`.
"""

from __future__ import annotations


from . import jsonio as json  # `import json` would pull in re and enum: see jsonio
from . import TOOL_PREFIX
from .grepparse import GrepCall, grep_tool_call, might_search, parse_command, too_large

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Mapping


def mcp_event_kind(tool_name: str) -> str:
    """search / read / reindex / other, from the scree tool's name (`search_docs` -> search)."""
    name = tool_name[len(TOOL_PREFIX):] if tool_name.startswith(TOOL_PREFIX) else tool_name
    name = name.lower()
    if "reindex" in name or "sync" in name or name == "index":
        return "reindex"
    if "search" in name or "find" in name or "query" in name:
        return "search"
    if "read" in name or "get" in name or "open" in name or "show" in name:
        return "read"
    return "other"


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", errors="replace"))


def _results_and_mode(value: object) -> tuple[int | None, str | None]:
    if isinstance(value, dict):
        inner = value.get("structuredContent") or value.get("result")
        if "results" not in value and isinstance(inner, dict):
            value = inner
        results = value.get("results", value.get("hits"))
        mode = value.get("mode")
        return (len(results) if isinstance(results, list) else None), (mode if isinstance(mode, str) else None)
    return None, None


def mcp_stats(response: object) -> tuple[int | None, int | None, str | None]:
    """(result count, bytes the model got, mode) of a scree MCP tool response."""
    if isinstance(response, str):
        try:
            parsed = json.loads(response)
        except ValueError:
            parsed = None
        results, mode = _results_and_mode(parsed)
        return results, _utf8_len(response), mode
    if isinstance(response, list):
        texts = [b.get("text", "") for b in response if isinstance(b, dict) and isinstance(b.get("text"), str)]
        size = sum(_utf8_len(t) for t in texts)
        results, mode = (None, None)
        if len(texts) == 1:
            try:
                results, mode = _results_and_mode(json.loads(texts[0]))
            except ValueError:
                pass
        return results, size, mode
    if isinstance(response, dict):
        results, mode = _results_and_mode(response)
        return results, _utf8_len(json.dumps(response, separators=(",", ":"))), mode
    return None, None, None


def grep_stats(tool_name: str, response: object) -> tuple[int | None, int | None]:
    """(result count, bytes) of a Bash grep (lines of stdout) or a Grep tool call (files or lines)."""
    if not isinstance(response, dict):
        return None, None
    if tool_name == "Bash":
        out = response.get("stdout")
        if not isinstance(out, str):
            return None, None
        return sum(1 for line in out.splitlines() if line.strip()), _utf8_len(out)
    content = response.get("content")
    filenames = response.get("filenames")
    if isinstance(content, str):
        count = response.get("numLines")
        return (count if isinstance(count, int) else len(content.splitlines())), _utf8_len(content)
    if isinstance(filenames, list):
        count = response.get("numFiles")
        size = sum(_utf8_len(f) + 1 for f in filenames if isinstance(f, str))
        return (count if isinstance(count, int) else len(filenames)), size
    return None, None


def searching_call(tool_name: str, tool_input: object) -> GrepCall | None:
    """The grep a Bash or Grep call ran, or None (not a grep, or only a filter like `ps | grep x`)."""
    if tool_name == "Grep":
        return grep_tool_call(tool_input)
    if tool_name != "Bash" or not isinstance(tool_input, dict):
        return None
    command = tool_input.get("command")
    if not isinstance(command, str) or too_large(command) or not might_search(command):
        return None
    for call in parse_command(command):
        if not (call.reads_stdin and not call.paths):
            return call
    return None


def event_for(payload: Mapping[str, object], call: GrepCall | None, with_text: bool = False) -> dict | None:
    """The usage event (without time/session/project) for a PostToolUse payload, or None to log nothing.

    `call` is `searching_call(...)` for Bash/Grep. The query or pattern is kept (as `text`) only
    when `with_text` (SCREE_USAGE_TEXT=1).
    """
    tool = payload.get("tool_name")
    if not isinstance(tool, str):
        return None
    tool_input = payload.get("tool_input")
    response = payload.get("tool_response")
    if tool.startswith(TOOL_PREFIX):
        results, size, mode = mcp_stats(response)
        if mode is None and isinstance(tool_input, dict) and isinstance(tool_input.get("mode"), str):
            mode = tool_input["mode"]
        event: dict = {"event": mcp_event_kind(tool), "tool": tool, "mode": mode, "results": results, "bytes": size}
        if with_text and isinstance(tool_input, dict):
            text = tool_input.get("query") or tool_input.get("path")
            event["text"] = text if isinstance(text, str) else None
        if event["event"] == "search" and isinstance(tool_input, dict):  # did the agent send its guess?
            guess = tool_input.get("expected_answer")
            event["expanded"] = isinstance(guess, str) and bool(guess.strip())
            if with_text and event["expanded"]:
                event["expected_answer"] = guess
    elif call is not None:
        results, size = grep_stats(tool, response)
        event = {"event": "grep", "tool": tool, "grep": call.tool, "mode": None, "results": results, "bytes": size}
        if with_text:
            event["text"] = "\n".join(call.patterns)
    else:
        return None
    call_id = payload.get("tool_use_id")
    duration = payload.get("duration_ms")
    event["call"] = call_id if isinstance(call_id, str) else None
    event["duration_ms"] = duration if isinstance(duration, (int, float)) and not isinstance(duration, bool) else None
    return event
