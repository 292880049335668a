"""The MCP tool list the engine declares, readable with the standard library alone.

The relay answers `tools/list` itself (before any environment exists), so it needs the schemas
without pydantic or the mcp SDK. They live in tools.json beside this module; a test holds the file
identical to what scree.mcpserver declares, and
`uv run --frozen python tests/test_relay_toolschemas.py --write` regenerates it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

SNAPSHOT = Path(__file__).resolve().parent / "tools.json"


def load_tools(path: Path = SNAPSHOT) -> List[Dict[str, Any]]:
    """The tools as the wire's `tools/list` result carries them (camelCase keys)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    tools = data["tools"]
    if not isinstance(tools, list):
        raise ValueError(f"{path}: 'tools' is not a list")
    return tools


def render(tools: List[Dict[str, Any]]) -> str:
    return json.dumps({"tools": tools}, indent=1, sort_keys=True, ensure_ascii=False) + "\n"

