"""Stdlib-only helpers for the Claude Code hook scripts in `hooks/`.

The hooks run with `-I -S` (no site-packages) under the interpreter hooks/launch.sh picks (the
plugin's venv, else the real executable behind `python3`), on every Bash call, so nothing in this
package may import a third-party module, and the modules a hook imports on its hot path must stay
cheap to load: no `dataclasses` (it imports `inspect`), no `json` or `re` (`jsonio`, `terms`).
"""

# The MCP tool names Claude Code gives scree's server (plugin "scree", server key "scree").
TOOL_PREFIX = "mcp__plugin_scree_scree__"
SEARCH_TOOL = TOOL_PREFIX + "search_docs"
# How a grep hint names the search it suggests, by what the session has (the SessionStart hook records
# it in the session's state): the MCP tool; the scree command in Bash, when Claude Code will not connect
# the server in this session (it failed and is paused, is disabled, or its environment is being built);
# nothing, when not even the command can run (no uv). A hint never names a tool the model lacks.
VIA_TOOL, VIA_CLI, VIA_NONE = "tool", "cli", "none"
