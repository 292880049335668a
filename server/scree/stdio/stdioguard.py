"""Answer every malformed JSON-RPC request on stdio, instead of leaving its sender waiting.

The `mcp` SDK's stdio transport (2.3) drops a line that is JSON but not a valid JSON-RPC message
(params as a list, no method, an object id, a batch) without a reply: a client waiting on that id
hangs (modelcontextprotocol/python-sdk issue #2848; the fix proposed there was not merged, and the
transport has no option for it). This guard reads stdin itself, hands the SDK every valid line
unchanged, and answers the rest on the SDK's own write stream (so replies never tear its frames):
-32700 for a line that is not JSON, -32600 for an invalid request, echoing the request's id when it
is a valid one and null otherwise (JSON-RPC 2.0, section 5). A malformed message without an id is a
notification: nothing waits on it, and it is left to the SDK, which drops it. A message nested deeper
than Python's `json` can recurse (about 1,000 levels: 2 KB of brackets) is answered too, its id read by
a scan that does not recurse (`deep_message_id`), so no depth ends the server.

It runs the SDK's low-level server itself (`MCPServer._lowlevel_server`, a private name: the `mcp`
pin in pyproject.toml says so).
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, cast

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

if TYPE_CHECKING:
    from anyio.abc import ObjectSendStream
    from mcp.server import MCPServer

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
_MAX_DETAIL = 200


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _error(code: int, message: str, request_id: Any) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id if _valid_id(request_id) else None,
                              error=types.ErrorData(code=code, message=message))


def _why(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()) if not isinstance(p, int))
            detail = f"{where}: {first.get('msg', '')}" if where else str(first.get("msg", ""))
            return detail[:_MAX_DETAIL]
        except (IndexError, TypeError, AttributeError):
            pass
    return type(exc).__name__


def replies_for(line: str) -> list[types.JSONRPCError] | None:
    """None when the SDK can take `line` as it is (a valid message, a blank line, or a malformed
    notification); otherwise the error replies its sender is owed."""
    if not line.strip():
        return None
    try:
        parsed = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception as exc:  # noqa: BLE001 - pydantic's ValidationError, or a JSON error inside it
        problem: Exception = exc
    else:
        if not isinstance(parsed, types.JSONRPCNotification):
            return None
        # The SDK reads a request whose id is not a string or integer as a notification (it ignores
        # the unknown field), and a notification is never answered.
        raw = json.loads(line)
        if raw.get("id") is None:
            return None
        return [_error(INVALID_REQUEST, "Invalid Request: id must be a string or an integer", None)]
    try:
        message = json.loads(line)
    except ValueError:
        return [_error(PARSE_ERROR, "Parse error: the line is not JSON", None)]
    except RecursionError:  # deeper than json's recursion allows; the SDK's parser gave up far earlier
        return [_error(INVALID_REQUEST, "Invalid Request: the message is nested too deeply; send one "
                       "with at most a few hundred levels", deep_message_id(line))]
    if isinstance(message, list):  # a batch: MCP dropped JSON-RPC batching (2025-06-18)
        ids = [m["id"] for m in message if isinstance(m, dict) and "id" in m]
        text = "Invalid Request: batches are not supported; send one message per line"
        return [_error(INVALID_REQUEST, text, i) for i in ids] or [_error(INVALID_REQUEST, text, None)]
    if not isinstance(message, dict):
        return [_error(INVALID_REQUEST, "Invalid Request: a message is a JSON object", None)]
    if "id" not in message or message["id"] is None:
        return None
    return [_error(INVALID_REQUEST, f"Invalid Request: {_why(problem)}", message["id"])]


# JSON's tokens, for a scan that keeps a depth count instead of recursing: a string, a bracket or a
# separator, or a run of anything else (a number or a literal).
_TOKEN = re.compile(r'"(?:[^"\\]+|\\.)*"|[][{}:,]|[^][{}:,"\s]+')


def deep_message_id(line: str) -> Any:
    """The `"id"` member of the top-level object in `line`, read without recursion (None when there is
    none, or it is not a string or an integer): the id a reply to a message too deep to parse echoes."""
    depth = 0
    previous = ""  # the last token seen at depth 1
    key: str | None = None  # the member name before the last ':' at depth 1
    for match in _TOKEN.finditer(line):
        token = match.group()
        if token in "{[":
            if depth == 0 and token == "[":
                return None  # a batch: no one id to echo
            if depth == 1 and previous == ":" and key == "id":
                return None  # an object or array is no id
            depth += 1
        elif token in "}]":
            depth -= 1
            if depth <= 0:
                return None
        elif depth == 1:
            if token == ":":
                key = _string(previous)
            elif previous == ":" and key == "id":
                try:
                    value = json.loads(token)
                except ValueError:
                    return None
                return value if _valid_id(value) else None
        if depth == 1:
            previous = token
    return None


def _string(token: str) -> str | None:
    if not token.startswith('"'):
        return None
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


class GuardedStdin:
    """The lines of stdin the SDK can parse; the others are answered on the write stream."""

    def __init__(self, source: anyio.AsyncFile[str]) -> None:
        self._source = source
        self._write: ObjectSendStream[SessionMessage] | None = None
        self._ready = anyio.Event()

    def attach(self, write_stream: ObjectSendStream[SessionMessage]) -> None:
        self._write = write_stream
        self._ready.set()

    async def __aiter__(self) -> AsyncIterator[str]:
        await self._ready.wait()
        assert self._write is not None
        async for line in self._source:
            replies = replies_for(line)
            if replies is None:
                yield line
                continue
            for reply in replies:
                await self._write.send(SessionMessage(reply))


async def serve_stdio(server: MCPServer) -> None:
    """What `server.run()` does for stdio, with stdin read through the guard."""
    # A duplicate of fd 0: the wrapper may close it without closing the process's stdin.
    raw = io.TextIOWrapper(os.fdopen(os.dup(0), "rb"), encoding="utf-8", errors="replace")
    guard = GuardedStdin(anyio.wrap_file(raw))
    lowlevel = server._lowlevel_server  # private: pinned by mcp's range in pyproject.toml
    async with stdio_server(stdin=cast("anyio.AsyncFile[str]", guard)) as (read_stream, write_stream):
        guard.attach(write_stream)
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


async def serve_streams(server: MCPServer, source: anyio.AsyncFile[str], sink: anyio.AsyncFile[str]) -> None:
    """One MCP session over any pair of line files (the engine's socket connections), guarded as stdio is."""
    guard = GuardedStdin(source)
    lowlevel = server._lowlevel_server  # private: pinned by mcp's range in pyproject.toml
    async with stdio_server(stdin=cast("anyio.AsyncFile[str]", guard), stdout=sink) as (read_stream, write_stream):
        guard.attach(write_stream)
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def run(server: MCPServer) -> None:
    anyio.run(serve_stdio, server)
