"""The session relay's stdlib-only parts (issues 35, 37).

Everything here imports only the standard library and nothing of scree's, so it runs on the system
`python3` before the plugin's environment exists: the relay answers Claude Code's MCP handshake from
these files while the environment builds, then forwards to the per-user engine.

`toolschemas`: the engine's tool list as JSON (tools.json), held identical to scree.mcpserver by a test.
The relay process itself and the per-user engine are not built yet (docs/architecture.md, The plugin).
"""
