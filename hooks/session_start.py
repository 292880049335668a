#!/usr/bin/env python3
"""SessionStart hook (startup, resume, clear, compact): start a background index sync, add one line.

Starts `uv run --quiet --frozen --project $CLAUDE_PLUGIN_ROOT scree reindex --quiet` detached
(own session, no inherited descriptors, UV_PROJECT_ENVIRONMENT=$CLAUDE_PLUGIN_DATA/venv, run in
the project folder) and returns at once: it re-runs this script as a detached helper
(`--background`), which skips the sync when a scree writer already holds the index's lock and
otherwise execs it (see scree.hookkit.bgsync). Adds one line of context naming scree's search tool
and when to use it first, or, when the server will not be connected in this session, says so and what
to do, naming no scree tool: Claude Code skips the server after a failed start, or the user disabled it
(scree.hookkit.mcpstate). With uv missing or no environment yet the server is connected anyway (its
relay sets itself up), and the line says its tool answers once that is done.
SCREE_SYNC_COMMAND (a JSON list) replaces the sync command; SCREE_HOOKS=off drops the context
line. On a first install (no plugin venv yet) the line says instead that the environment is being
built and when search arrives, and the sync compiles the new environment's bytecode. Always exits 0.
Standard library + scree's stdlib-only helpers only.
"""

import json
import os
import sys

PLUGIN_ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, os.path.join(PLUGIN_ROOT, "server"))

HOOK = "session_start"


def start_sync(payload: dict) -> str:
    """Start the detached helper (unless uv is missing); return the context line to show."""
    line, via = _start_sync(payload)
    _remember_via(payload, via)
    return line


def _remember_via(payload: dict, via: str) -> None:
    """Record for the grep hints of this session how they may name a search (scree.hookkit.VIA_*):
    a hint never names a tool this session lacks."""
    from scree.hookkit import runtime, state

    state.update(runtime.session_id(payload), lambda s: s.__setitem__("via", via))


def _start_sync(payload: dict) -> tuple[str, str]:
    """Start the detached helper (unless uv is missing); the context line, and how hints name a search."""
    from scree.hookkit import bgsync, runtime
    from scree.hookkit import VIA_CLI, VIA_TOOL

    cmd = bgsync.command_override()
    if cmd is None:
        uv = bgsync.find_uv(plugin_root=os.environ.get("CLAUDE_PLUGIN_ROOT") or PLUGIN_ROOT,
                            plugin_data=runtime.data_root())
        if uv is None:  # the server's relay fetches uv itself (bgsync.NO_UV_LINE); no sync to start here
            return bgsync.NO_UV_LINE, VIA_TOOL
        cmd = bgsync.sync_command(uv, os.environ.get("CLAUDE_PLUGIN_ROOT") or PLUGIN_ROOT)
    first = not bgsync.environment_ready(runtime.data_root())
    job = {"cmd": cmd, "session": runtime.session_id(payload), "project_dir": runtime.project_dir(payload),
           "first": first}
    bgsync.launch_detached([sys.executable, "-I", "-S", os.path.realpath(__file__), "--background", json.dumps(job)])
    if first:
        return bgsync.BUILDING_LINE, VIA_TOOL
    from scree.hookkit import mcpstate, project

    # Claude Code will not start the server in this session: say so, and name no tool it lacks.
    skipped = mcpstate.skipped_since()
    if skipped is not None:
        return mcpstate.skipped_line(*skipped), VIA_CLI
    cwd = payload.get("cwd")
    if mcpstate.disabled_in({job["project_dir"], *([cwd] if isinstance(cwd, str) else [])}):
        return mcpstate.disabled_line(), VIA_CLI

    try:  # the stage the index is at: the helper finds the same (cached) location
        where = project.cached(job["session"], job["project_dir"])
    except Exception:  # noqa: BLE001 - the line is still worth showing
        return bgsync.CONTEXT_LINE, VIA_TOOL
    return bgsync.CONTEXT_LINE + bgsync.stage_line(where.db), VIA_TOOL


def main() -> None:
    from scree.hookkit import bgsync, runtime
    from scree.settings_table import HOOKS

    payload = runtime.read_payload(HOOK)
    if payload is None:
        return
    line = bgsync.CONTEXT_LINE
    try:
        line = start_sync(payload)
    finally:  # a failed start is logged by runtime.run; the model still learns about the tool
        if not runtime.is_off(HOOKS.env):
            runtime.emit_context("SessionStart", line)


def background() -> None:
    """The detached helper: find the index (caching it for this session's other hooks), then sync."""
    from scree.hookkit import bgsync, project, runtime, state

    job = json.loads(sys.argv[2])
    state.prune()
    where = project.cached(job["session"], job["project_dir"])
    root = runtime.data_root()
    env = dict(os.environ)
    env["UV_PROJECT_ENVIRONMENT"] = os.path.join(root, "venv")
    # The sync runs inside the folder found here; naming it keeps a relative SCREE_NOTES from being
    # resolved a second time from there.
    env["SCREE_NOTES"] = where.folder
    if job.get("first"):
        # The environment is new: compile its bytecode now, in the background, so the next session's
        # server starts as fast as a warm one (measured in docs/benchmarks.md). Not on every sync: on a
        # built environment `uv run` would walk it all again (about 1 s).
        env["UV_COMPILE_BYTECODE"] = "1"
    bgsync.exec_sync(job["cmd"], where.folder, where.lock, os.path.join(root, "logs", "sync.log"), env)


if __name__ == "__main__":
    try:
        from scree.hookkit import runtime as _runtime
    except BaseException:
        sys.exit(0)
    if sys.argv[1:2] == ["--background"]:
        _runtime.run(HOOK + " (background)", background)
    else:
        _runtime.run(HOOK, main)
