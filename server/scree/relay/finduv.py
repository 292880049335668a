"""Where a `uv` may already be on this machine: PATH, its installers' folders, the plugin's folders, and
the Quickstart's `.uv/bin` of a clone Claude Code knows as a local marketplace.

Apart from `getuv` (which fetches one) so that looking, which the relay does at every engine start,
imports nothing of the network stack: the relay stays a small process.
"""

from __future__ import annotations

import json
import os
from typing import Dict, List, Mapping, Optional, Tuple


def uv_candidates(env: Mapping[str, str], plugin_root: Optional[str],
                  plugin_data: Optional[str]) -> List[Tuple[str, str]]:
    """Every place a uv may be, as (path, where), most preferred first; none is checked to exist."""
    found: List[Tuple[str, str]] = []
    for d in env.get("PATH", "").split(os.pathsep):
        if d:
            found.append((os.path.join(d, "uv"), "PATH"))
    home = env.get("HOME", "")
    if home:
        # uv's own installer puts it in ~/.local/bin (older ones in ~/.cargo/bin), often not on a GUI's PATH
        found.append((os.path.join(home, ".local", "bin", "uv"), "~/.local/bin"))
        found.append((os.path.join(home, ".cargo", "bin", "uv"), "~/.cargo/bin"))
    if plugin_root:
        found.append((os.path.join(plugin_root, ".uv", "bin", "uv"), "the Quickstart's .uv/bin"))
    if plugin_data:
        found.append((os.path.join(plugin_data, "uv", "bin", "uv"), "the plugin's data dir"))
    for d in _local_marketplace_dirs(env):
        found.append((os.path.join(d, ".uv", "bin", "uv"), f"the Quickstart's .uv/bin in {d}"))
    unique: Dict[str, str] = {}
    for path, where in found:
        unique.setdefault(path, where)  # a dir on PATH twice, or ~/.local/bin on it too: keep the first
    return list(unique.items())


def _local_marketplace_dirs(env: Mapping[str, str]) -> List[str]:
    """Directories Claude Code knows as local marketplaces: a Quickstart checkout added with
    `/plugin marketplace add <dir>` has its .uv there while the plugin runs from a cached copy."""
    config = env.get("CLAUDE_CONFIG_DIR") or (os.path.join(env["HOME"], ".claude") if env.get("HOME") else "")
    if not config:
        return []
    try:
        with open(os.path.join(config, "plugins", "known_marketplaces.json"), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return []  # Claude Code's file, not ours: any trouble reading it just means no extra places
    dirs: List[str] = []
    for entry in data.values() if isinstance(data, dict) else ():
        source = entry.get("source") if isinstance(entry, dict) else None
        if not isinstance(source, dict) or source.get("source") != "directory":
            continue
        for path in (source.get("path"), entry.get("installLocation")):
            if isinstance(path, str) and os.path.isabs(path):
                dirs.append(path)
                break
    return dirs


def find_uv(env: Mapping[str, str], plugin_root: Optional[str],
            plugin_data: Optional[str]) -> Optional[Tuple[str, str]]:
    """The first candidate that is an executable regular file, as (path, where); None if there is none."""
    for path, where in uv_candidates(env, plugin_root, plugin_data):
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path, where
    return None
