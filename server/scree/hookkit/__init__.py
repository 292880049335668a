"""Stdlib-only helpers for the Claude Code hook scripts in `hooks/`.

The hooks run under the system `python3` with no virtual environment, on every Bash call, so
nothing in this package may import a third-party module, and the modules a hook imports on its
hot path must stay cheap to load (no `dataclasses`, whose `inspect` import alone costs ~8 ms).
"""

# The MCP tool names Claude Code gives scree's server (plugin "scree", server key "scree").
TOOL_PREFIX = "mcp__plugin_scree_scree__"
SEARCH_TOOL = TOOL_PREFIX + "search_docs"
