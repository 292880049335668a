"""Whether Claude Code will connect scree's MCP server in this session, from its own files (stdlib only).

The SessionStart line must not tell the model to call a tool it will not have (issue 29). Two states
Claude Code keeps on disk say the server will not be started, whatever the plugin does:

- **skipped**: a plugin server that failed to start is recorded in `<config>/mcp-needs-auth-cache.json`
  (`{"plugin:scree:scree": {"timestamp": <ms>, "id": ..., "ttlMs"?: ...}}`); for 15 minutes (or its
  `ttlMs`) new sessions report it `failed` without trying (2.1.197 through 2.1.332). Claude Code
  also compares `id`, a hash of the server's configuration, so a changed configuration is tried
  again: that hash is Claude Code's own and not recomputed here, so an entry within its time counts
  as a skip (the line then says "not connected" for a server that may connect: never the reverse).
  `/mcp reconnect plugin:scree:scree` connects it at once and drops the entry (tested on 2.1.332).
- **disabled**: `/mcp disable` records it in `projects[<folder>].disabledMcpServers` of
  `<config>/.claude.json` (`~/.claude.json` when CLAUDE_CONFIG_DIR is unset); `/mcp enable` undoes it.

`<config>` is $CLAUDE_CONFIG_DIR, else ~/.claude.
"""

from __future__ import annotations

import os
import time

from . import jsonio as json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable, Mapping

SERVER = "plugin:scree:scree"  # Claude Code's name for the plugin's server ("scree" in .mcp.json)
SKIP_SECONDS = 15 * 60  # how long Claude Code skips a plugin server that failed (its default ttl)
CLOCK_SLACK = 60.0  # Claude Code honours an entry stamped up to a minute in the future
MAX_CONFIG_BYTES = 32 * 1024 * 1024  # ~/.claude.json is read only below this (it is read at session start only)


def config_dir(env: Mapping[str, str] | None = None) -> str:
    """Claude Code's config dir: $CLAUDE_CONFIG_DIR, else ~/.claude."""
    env = os.environ if env is None else env
    configured = env.get("CLAUDE_CONFIG_DIR", "").strip()
    return configured or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".claude")


def claude_json(env: Mapping[str, str] | None = None) -> str:
    """Claude Code's per-user state file: $CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json (beside,
    not inside, ~/.claude)."""
    env = os.environ if env is None else env
    configured = env.get("CLAUDE_CONFIG_DIR", "").strip()
    return os.path.join(configured or env.get("HOME") or os.path.expanduser("~"), ".claude.json")


def skipped_since(env: Mapping[str, str] | None = None, now: float | None = None) -> tuple[float, float] | None:
    """(failed at, skipped until) in unix seconds while Claude Code skips the server after a failed
    start; None when it will try it (no entry, an old one, or an unreadable file)."""
    path = os.path.join(config_dir(env), "mcp-needs-auth-cache.json")
    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read(1024 * 1024).decode("utf-8"))
        entry = data[SERVER] if isinstance(data, dict) else None
        if not isinstance(entry, dict):
            return None
        failed_at = float(entry["timestamp"]) / 1000
        ttl = float(entry.get("ttlMs") or SKIP_SECONDS * 1000) / 1000
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    age = (time.time() if now is None else now) - failed_at
    if -CLOCK_SLACK < age < ttl:
        return failed_at, failed_at + ttl
    return None


def disabled_in(folders: Iterable[str], env: Mapping[str, str] | None = None) -> bool:
    """True when the user disabled the server (`/mcp disable`) for one of `folders` (the session's
    project folder and cwd)."""
    path = claude_json(env)
    try:
        if os.path.getsize(path) > MAX_CONFIG_BYTES:
            return False
        with open(path, "rb") as fh:
            raw = fh.read()
        if SERVER.encode() not in raw:  # the usual case: no need to parse the whole file
            return False
        data = json.loads(raw.decode("utf-8"))
        projects = data.get("projects") if isinstance(data, dict) else None
        if not isinstance(projects, dict):
            return False
        for folder in folders:
            project = projects.get(folder)
            disabled = project.get("disabledMcpServers") if isinstance(project, dict) else None
            if isinstance(disabled, list) and SERVER in disabled:
                return True
        return False
    except (OSError, ValueError, TypeError, AttributeError):
        return False


def clock(t: float) -> str:
    """A local time of day for the line: "14:05"."""
    return time.strftime("%H:%M", time.localtime(t))


# The fallback the lines offer while the server is not connected: the plugin's CLI is on the Bash
# tool's PATH (bin/scree) and `scree search` answers at once (issue 29, item 1).
CLI_FALLBACK = ('Until then, search the notes with the scree command in Bash (`scree search "<question>"`: the '
                "same index, answers at once) or with grep.")


def skipped_line(failed_at: float, until: float) -> str:
    return ("scree's notes search is not connected in this session: its MCP server failed to start at "
            f"{clock(failed_at)}, and Claude Code does not start it again in new sessions until {clock(until)} "
            "(its pause after a failed start). If the user asks, tell them: `scree doctor` (in a shell) shows why "
            f"it failed, and once that is fixed `/mcp reconnect {SERVER}` connects it now. " + CLI_FALLBACK)


def disabled_line() -> str:
    return ("scree's notes search is not connected in this session: its MCP server is disabled for this project "
            f"(in /mcp). If the user wants it, `/mcp enable {SERVER}` turns it back on. " + CLI_FALLBACK)
