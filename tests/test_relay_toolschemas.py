"""The relay's stdlib copy of the tool schemas is the engine's, byte for byte.

The relay answers `tools/list` before the environment exists, from server/scree/relay/tools.json;
if that file drifted from scree.mcpserver, Claude Code would show the agent tools the engine then
rejects. Regenerate with `uv run --frozen python tests/test_relay_toolschemas.py --write`.
"""

from __future__ import annotations

import json
import subprocess
import os
import sys
from typing import Any, Dict, List

import anyio

from scree.mcpserver import build_server
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from scree.relay.toolschemas import SNAPSHOT, initialize_result, load_snapshot, load_tools, render


def engine_tools() -> List[Dict[str, Any]]:
    """What the engine's MCP server declares now; listing tools never touches the index."""
    server = build_server(None)  # type: ignore[arg-type]

    async def listed() -> List[Dict[str, Any]]:
        return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in await server.list_tools()]

    return anyio.run(listed)


def engine_initialize() -> Dict[str, Any]:
    """The engine's `initialize` result but its protocol version (which the relay negotiates)."""
    options = build_server(None)._lowlevel_server.create_initialization_options()  # type: ignore[arg-type]
    info = {"name": options.server_name, "version": options.server_version}
    return {"capabilities": options.capabilities.model_dump(mode="json", by_alias=True, exclude_none=True),
            "serverInfo": info, "instructions": options.instructions}


def snapshot_now() -> str:
    return render(engine_tools(), engine_initialize(), list(HANDSHAKE_PROTOCOL_VERSIONS), LATEST_HANDSHAKE_VERSION)


def test_the_relays_tool_schemas_are_what_the_engine_declares() -> None:
    assert SNAPSHOT.read_text(encoding="utf-8") == snapshot_now(), (
        "server/scree/relay/tools.json is stale: run `uv run --frozen python tests/test_relay_toolschemas.py --write`")
    assert [t["name"] for t in load_tools()] == ["search_docs", "read_doc", "reindex"]


def test_the_relay_negotiates_the_protocol_version_as_the_sdk_does() -> None:
    snapshot = load_snapshot()
    for asked in [*HANDSHAKE_PROTOCOL_VERSIONS, "1999-01-01", None]:
        expected = asked if asked in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
        assert initialize_result(asked, snapshot)["protocolVersion"] == expected
    assert initialize_result("2025-06-18", snapshot)["serverInfo"]["name"] == "scree"


def test_the_tool_schemas_load_on_the_system_python_with_no_environment() -> None:
    # -S -I: no site-packages, no user site, no PYTHONPATH; only the standard library and this file.
    code = ("import importlib.util, json, sys; p = sys.argv[1];"
            "spec = importlib.util.spec_from_file_location('toolschemas', p); m = importlib.util.module_from_spec(spec);"
            "spec.loader.exec_module(m); print(json.dumps([t['name'] for t in m.load_tools()]));"
            "print(sorted(k for k in sys.modules if k.split('.')[0] in ('scree', 'pydantic', 'mcp', 'anyio')))")
    path = str(SNAPSHOT.parent / "toolschemas.py")
    out = subprocess.run(["/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable,
                          "-S", "-I", "-c", code, path], capture_output=True, text=True, timeout=60, check=True).stdout
    names, loaded = out.splitlines()
    assert json.loads(names) == ["search_docs", "read_doc", "reindex"]
    assert loaded == "[]"


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        SNAPSHOT.write_text(snapshot_now(), encoding="utf-8")
