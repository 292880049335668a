"""The MCP server's stdio transport guards: every request gets an answer, whatever its bytes.

Modules: `stdinfilter` (a request holding a lone UTF-16 surrogate stays answerable), `stdioguard`
(a malformed JSON-RPC request is answered, not dropped).

Imports nothing: importing one module never loads the others.
"""
