#!/usr/bin/env python3
"""PostToolUse hook (scree's MCP tools; Bash and Grep): one line per call in the local usage log.

Logs scree searches/reads/reindexes and the greps (Bash calls that run no grep are ignored) to
`$CLAUDE_PLUGIN_DATA/usage/<project>.jsonl`: counts, bytes, durations, never the query or
pattern unless SCREE_USAGE_TEXT=1. SCREE_USAGE=off turns it off. Nothing leaves the machine.
Prints nothing and always exits 0. Standard library + scree's stdlib-only helpers only.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "server"))

HOOK = "log_usage"


def main(raw: bytes) -> None:
    from scree.hookkit import runtime
    from scree.settings_table import USAGE, USAGE_TEXT

    if runtime.is_off(USAGE.env):
        return
    payload = runtime.read_payload(HOOK, raw)
    if payload is None:
        return
    from scree.hookkit import TOOL_PREFIX, posttool

    tool = payload.get("tool_name")
    if not isinstance(tool, str):
        return
    call = None
    if not tool.startswith(TOOL_PREFIX):
        call = posttool.searching_call(tool, payload.get("tool_input"))
        if call is None:
            return
    event = posttool.event_for(payload, call, with_text=runtime.is_on(USAGE_TEXT.env))
    if event is None:
        return
    from scree.hookkit import project, usagelog

    session = runtime.session_id(payload)
    where = project.cached(session, runtime.project_dir(payload))
    record = {"time": usagelog.now_iso(), "session": session, "project": where.key, **event}
    usagelog.append_event(usagelog.usage_path(runtime.data_root(), where.key), record)


if __name__ == "__main__":
    try:
        # Decide from the raw bytes first: most Bash calls run no search, and for them the hook ends
        # before json (and with it re and enum) is imported.
        from scree.hookkit import prefilter

        _raw = sys.stdin.buffer.read()
        if not (prefilter.is_scree_tool(_raw) or prefilter.may_search(_raw)):
            os._exit(0)
        from scree.hookkit import runtime as _runtime
    except BaseException:  # the plugin's files are damaged: nothing to do but stay out of the way
        sys.exit(0)
    _runtime.run(HOOK, lambda: main(_raw))
