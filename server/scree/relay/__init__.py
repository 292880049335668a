"""The session relay: what runs in each Claude Code session as `scree serve` (issues 35, 37).

Everything here imports only the standard library and nothing of scree's outside this package, so it
runs on the system `python3` before the plugin's environment exists.

`relay`: the relay process (answers the handshake, forwards calls to the engine, starts it); `main`: its
script entry; `channel`: where the per-user engine listens and the first line each side says;
`finduv`: where a uv may already be; `getuv`: fetches one from PyPI when there is none; `toolschemas`: the engine's handshake and
tool list as JSON (tools.json), held identical to scree.mcpserver by a test.
"""
