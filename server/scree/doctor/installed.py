"""The copy of the plugin Claude Code runs: `scree doctor` run in a shell (outside Claude Code) from a
clone would otherwise describe that clone's hooks and launcher, while Claude Code runs the copy it
installed (issue 35, item 4). Read from Claude Code's own `plugins/installed_plugins.json`."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ..hookkit.mcpstate import config_dir
from .checks import INFO, OK, WARN, Check, PluginContext

PLUGIN = "scree"


@dataclass(frozen=True)
class Installed:
    root: Path  # the copy under <config>/plugins/cache/<marketplace>/<plugin>/<version>
    data: Path  # its data dir: <config>/plugins/data/<plugin>-<marketplace>, as bin/scree derives it
    commit: str | None  # the clone's commit it was copied from (Claude Code records it)


def installed_plugin(env: Mapping[str, str]) -> Installed | None:
    """scree as Claude Code installed it for this user, or None (not installed, or the file unreadable)."""
    config = Path(config_dir(env))
    try:
        data = json.loads((config / "plugins" / "installed_plugins.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    plugins = data.get("plugins") if isinstance(data, dict) else None
    for key, installs in (plugins.items() if isinstance(plugins, dict) else ()):
        name, _, market = str(key).partition("@")
        if name != PLUGIN or not isinstance(installs, list):
            continue
        for entry in installs:
            path = entry.get("installPath") if isinstance(entry, dict) else None
            if isinstance(path, str) and (Path(path) / ".claude-plugin" / "plugin.json").is_file():
                plugin_id = re.sub(r"[^A-Za-z0-9_-]", "-", f"{name}-{market}")
                commit = entry.get("gitCommitSha")
                return Installed(Path(path), config / "plugins" / "data" / plugin_id,
                                 commit if isinstance(commit, str) else None)
    return None


def _head(tree: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def check_installed(ctx: PluginContext, source_tree: Path | None, env: Mapping[str, str]) -> Check:
    """Which copy the checks below describe, and whether it is older than the clone doctor runs from."""
    found = installed_plugin(env)
    if found is None:
        return Check("plugin", INFO, "the scree plugin is not installed in Claude Code for this user"
                     + (f"; the checks describe {ctx.root}" if ctx.root else ""), {})
    details: dict[str, object] = {"install_path": str(found.root), "data": str(found.data), "commit": found.commit}
    head = _head(source_tree) if source_tree is not None and source_tree != found.root else None
    if head and found.commit and head != found.commit:
        details["clone_commit"] = head
        return Check("plugin", WARN, f"Claude Code runs the copy installed at {found.root} (commit "
                     f"{found.commit[:10]}), older than this clone ({head[:10]}): the checks describe that copy",
                     details, "update it: `/plugin marketplace update scree-tools`, then `/plugin update "
                     "scree@scree-tools` (or uninstall and install again)")
    return Check("plugin", OK, f"Claude Code runs the copy installed at {found.root}"
                 + (f" (commit {found.commit[:10]})" if found.commit else ""), details)
