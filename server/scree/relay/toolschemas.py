"""What the engine's MCP server says in the handshake and the tool list, readable with the standard
library alone.

The relay answers `initialize` and `tools/list` itself (before any environment exists), so it needs
them without pydantic or the mcp SDK. They live in tools.json beside this module; a test holds the file
identical to what scree.mcpserver and the SDK declare, and
`uv run --frozen python tests/test_relay_toolschemas.py --write` regenerates it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

SNAPSHOT = Path(__file__).resolve().parent / "tools.json"


def load_snapshot(path: Path = SNAPSHOT) -> Dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data.get("tools"), list) or not isinstance(data.get("initialize"), dict):
        raise ValueError(f"{path}: not a tool snapshot")
    return data


def load_tools(path: Path = SNAPSHOT) -> List[Dict[str, Any]]:
    """The tools as the wire's `tools/list` result carries them (camelCase keys)."""
    tools: List[Dict[str, Any]] = load_snapshot(path)["tools"]
    return tools


def initialize_result(requested: Any, snapshot: Dict[str, Any]) -> Dict[str, Any]:
    """The engine's `initialize` result for a client asking for protocol version `requested`: that
    version when the SDK speaks it, else the SDK's latest (as the SDK negotiates)."""
    versions = snapshot["handshakeVersions"]
    chosen = requested if requested in versions else snapshot["latestHandshake"]
    return {"protocolVersion": chosen, **snapshot["initialize"]}


def render(tools: List[Dict[str, Any]], initialize: Dict[str, Any], versions: List[str], latest: str) -> str:
    data = {"tools": tools, "initialize": initialize, "handshakeVersions": versions, "latestHandshake": latest}
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
