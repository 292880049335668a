"""The per-user engine behind the sessions' relays: one process, every session's MCP calls, exits when idle."""
