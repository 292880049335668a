#!/usr/bin/env python3
"""PreToolUse hook (Bash, Grep): when a grep is one the notes can answer, tell the model where.

Prints `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": ...}}` naming
the best indexed sections (absolute path:start-end) and one instruction, or nothing; the decision
itself is scree.hookkit.decide. SCREE_HOOKS_DEBUG=1 logs each decision as one line in the hook log. Never blocks the tool (no
permissionDecision), never fails it: errors go to the hook log and the exit status is always 0.
At most one hint per distinct pattern per session and MAX_HINTS per session; SCREE_HOOKS=off
silences it. Standard library + scree's stdlib-only helpers only (hooks/launch.sh runs it with the
plugin's venv interpreter or the real executable behind python3, with -I -S).
"""

import os
import sys
import time

_STARTED = time.monotonic()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "server"))

HOOK = "suggest"
MAX_HINTS = 5
# A PreToolUse payload carries the call, not its output: past this it holds a command or pattern far
# over grepparse.MAX_COMMAND_CHARS (even with every character escaped), so it is skipped unread.
MAX_PAYLOAD_BYTES = 64 * 1024
# Claude Code kills the hook at 5 s (hooks.json); past this much of it the hook stops and stays quiet.
BUDGET_SECONDS = 2.0


def over_budget() -> bool:
    return time.monotonic() - _STARTED > BUDGET_SECONDS


def main(raw: bytes) -> None:
    from scree.hookkit import runtime
    from scree.settings_table import HOOKS, USAGE, USAGE_TEXT

    if runtime.is_off(HOOKS.env):
        return
    debug = runtime.debug_on()
    payload = runtime.read_payload(HOOK, raw)
    if payload is None:
        return
    tool = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    from scree.hookkit import grepparse

    def quiet(reason: str, **more: object) -> None:
        if debug:
            runtime.log_debug(HOOK, {"tool": tool, "reason": reason, **more})

    if tool == "Bash":
        command = tool_input.get("command") if isinstance(tool_input, dict) else None
        if isinstance(command, str) and grepparse.too_large(command):
            return quiet("too-large", chars=len(command))
        if not isinstance(command, str) or not grepparse.might_search(command):
            return quiet("no-search-word")
        calls = grepparse.parse_command(command)
    elif tool == "Grep":
        found = grepparse.grep_tool_call(tool_input)
        if found and grepparse.too_large("".join(found.patterns)):
            return quiet("too-large", chars=len("".join(found.patterns)))
        calls = [found] if found else []
    else:
        return quiet("other-tool")
    if over_budget():
        return quiet("time-budget", step="parse")
    from scree.hookkit import VIA_CLI, VIA_NONE, VIA_TOOL, hint, project, state

    call = hint.choose_call(calls)
    if call is None:
        return quiet("no-file-search", parsed=[c.tool for c in calls])
    facts = {"parsed": call.tool, "patterns": list(call.patterns), "paths": list(call.paths)}
    session = runtime.session_id(payload)
    key = hint.hint_key(call)
    known = state.load(session)
    shown = known.get("hints")
    shown = shown if isinstance(shown, list) else []
    if len(shown) >= MAX_HINTS or key in shown:
        return quiet("shown-before" if key in shown else "session-cap", **facts)
    where = project.cached(session, runtime.project_dir(payload), known)
    notes = hint.open_notes(where.db)
    if notes is None:
        return quiet("no-index", **facts)
    try:
        if not notes.has_notes():
            return quiet("empty-index", **facts)
        if over_budget():
            return quiet("time-budget", step="index", **facts)
        from scree.hookkit.decide import decide

        cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
        via = known.get("via") if known.get("via") in (VIA_CLI, VIA_NONE) else VIA_TOOL
        decision = decide(call, where.folder, cwd, notes, os.environ.get("HOME"), via)
    finally:
        notes.close()
    if debug:
        quiet(decision.reason, **facts, aim=decision.aim.describe() if decision.aim else None,
              matches=[f"{s.path}:{s.start_line}-{s.end_line}" for s in decision.sections])
    found_hint = decision.hint
    if found_hint is None:
        return

    def claim(s: dict) -> bool:
        taken = s.get("hints")
        taken = taken if isinstance(taken, list) else []
        if len(taken) >= MAX_HINTS or found_hint.key in taken:
            return False
        s["hints"] = [*taken, found_hint.key]
        return True

    if not state.update(session, claim):
        return  # a parallel call showed it (or reached the cap) first
    runtime.emit_context("PreToolUse", found_hint.text)
    if not runtime.is_off(USAGE.env):
        from scree.hookkit import usagelog

        event = {"time": usagelog.now_iso(), "session": session, "project": where.key, "event": "hint",
                 "tool": tool, "call": payload.get("tool_use_id"), "reason": found_hint.reason,
                 "results": len(found_hint.sections), "bytes": len(found_hint.text.encode("utf-8"))}
        if runtime.is_on(USAGE_TEXT.env):
            event["text"] = "\n".join(call.patterns)
        usagelog.append_event(usagelog.usage_path(runtime.data_root(), where.key), event)


if __name__ == "__main__":
    try:
        # Decide from the raw bytes first: most Bash calls run no search, and for them the hook ends
        # before json (and with it re and enum) is imported.
        from scree.hookkit import prefilter

        _raw = sys.stdin.buffer.read()
        if len(_raw) > MAX_PAYLOAD_BYTES:  # no person's search: skipped before JSON or shell parsing
            if prefilter.debug_requested():
                from scree.hookkit import runtime as _runtime

                _runtime.log_debug(HOOK, {"reason": "too-large", "bytes": len(_raw)})
            os._exit(0)
        if not (prefilter.may_search(_raw)):
            if prefilter.debug_requested():
                from scree.hookkit import runtime as _runtime

                _runtime.log_debug(HOOK, {"reason": "prefilter: no search word"})
            os._exit(0)
        from scree.hookkit import runtime as _runtime
    except BaseException:  # the plugin's files are damaged: nothing to do but stay out of the way
        sys.exit(0)
    _runtime.run(HOOK, lambda: main(_raw))
