"""`scree doctor`'s check of the plugin's hooks: hooks.json and its scripts, the python3 they run with
(and what a pyenv/asdf shim costs), the SCREE_HOOKS / SCREE_USAGE switches, recent hook errors and the
last session-start sync. `doctor.py` runs it with the other checks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Mapping

from .. import settings_table
from .checks import FAIL, INFO, OK, WARN, Check, PluginContext

MIN_HOOK_PYTHON = (3, 8)  # the hook scripts run under the system python3, standard library only
RECENT_LOG_SECONDS = 24 * 3600  # hook errors younger than this are worth a warning
REINSTALL = "reinstall the plugin: `/plugin uninstall scree@scree-tools`, then `/plugin install scree@scree-tools`"


def _python3_version(python3: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run([python3, "-I", "-S", "-c", "import sys; print(*sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=10, check=False).stdout.split()
        return int(out[0]), int(out[1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None


def _hook_scripts(config: dict, root: Path) -> list[Path]:
    scripts = []
    for groups in config.get("hooks", {}).values():
        for group in groups:
            for handler in group.get("hooks", []):
                for arg in handler.get("args", []):
                    if arg.endswith((".py", ".sh")):  # `hooks/launch.sh suggest.py`: the script is in hooks/
                        path = arg.replace("${CLAUDE_PLUGIN_ROOT}", str(root))
                        scripts.append(Path(path) if "/" in path else root / "hooks" / path)
    return scripts


def _hook_log(ctx: PluginContext, env: Mapping[str, str]) -> dict[str, object] | None:
    from ..hookkit.runtime import error_log_path

    path = Path(error_log_path({**env, "CLAUDE_PLUGIN_DATA": str(ctx.data)} if ctx.data else env))
    try:
        st = path.stat()
        # SCREE_HOOKS_DEBUG=1 writes its decisions to the same log: those are not errors.
        lines = [x for x in path.read_text(encoding="utf-8", errors="replace").splitlines() if " decision: " not in x]
    except OSError:
        return None
    return {"path": str(path), "lines": len(lines), "modified": st.st_mtime, "last": lines[-1] if lines else None}


def check_hooks(ctx: PluginContext, env: Mapping[str, str] | None = None) -> Check:
    """The plugin's hooks: hooks/hooks.json and its scripts present, python3 found and new enough,
    the SCREE_HOOKS / SCREE_USAGE switches, and recent errors in the hook log."""
    from ..hookkit.runtime import is_off

    env = os.environ if env is None else env
    if ctx.root is None:
        return Check("hooks", INFO, "not running from the Claude Code plugin: no hooks here", {},
                     "to get the grep hints and usage log, install the plugin: `/plugin install scree@scree-tools`")
    hooks_json = ctx.root / "hooks" / "hooks.json"
    details: dict[str, object] = {"plugin_root": str(ctx.root), "hooks_json": str(hooks_json),
                                  "data": str(ctx.data) if ctx.data else None}
    try:
        config = json.loads(hooks_json.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return Check("hooks", FAIL, f"{hooks_json} is missing or not JSON ({exc})", details, REINSTALL)
    details["events"] = sorted(config.get("hooks", {}))
    missing = [str(p) for p in _hook_scripts(config, ctx.root) if not p.is_file()]
    if missing:
        return Check("hooks", FAIL, f"hook scripts missing: {', '.join(missing)}", details, REINSTALL)
    python3 = shutil.which("python3", path=env.get("PATH"))
    version = _python3_version(python3) if python3 else None
    details.update(python3=python3, python3_version=".".join(map(str, version)) if version else None)
    if python3 is None or version is None:
        return Check("hooks", FAIL, "python3 is not on PATH: the hooks (grep hints, session sync, usage log) cannot run",
                     details, "install Python 3 so that `python3` is on PATH, then restart Claude Code")
    if version < MIN_HOOK_PYTHON:
        return Check("hooks", FAIL, f"python3 is {details['python3_version']}: the hooks need 3.8+", details,
                     "put a Python 3.8+ `python3` first on PATH, then restart Claude Code")
    hooks_off, usage_off = is_off(settings_table.HOOKS.env, env), is_off(settings_table.USAGE.env, env)
    details.update(hooks_off=hooks_off, usage_off=usage_off)
    summary = f"{len(details['events'])} hook events in {hooks_json}, python3 {details['python3_version']}"  # type: ignore[arg-type]
    py_summary, py_fix, py_details = _hook_python(ctx, env)
    details.update(py_details)
    summary += "; " + py_summary
    if py_fix:
        return Check("hooks", WARN, summary, details, py_fix)
    if hooks_off:
        return Check("hooks", WARN, summary + "; SCREE_HOOKS=off (no grep hints, no session-start line)", details,
                     "unset SCREE_HOOKS to turn the grep hints back on")
    logged = _hook_log(ctx, env)
    details["hook_log"] = logged
    if logged and logged["lines"] and time.time() - float(logged["modified"]) < RECENT_LOG_SECONDS:  # type: ignore[arg-type]
        return Check("hooks", WARN, summary + f"; hook errors in the last day (latest: {logged['last']})", details,
                     f"read {logged['path']}; hooks never block Claude Code, but a failing one gives no hints")
    sync_log = ctx.data / "logs" / "sync.log" if ctx.data else None
    try:  # the session-start sync writes what it started, then that command's stderr
        last = sync_log.read_text(encoding="utf-8", errors="replace").splitlines()[-1] if sync_log else ""
    except (OSError, IndexError):
        last = ""
    details["last_sync_log_line"] = last or None
    if "error" in last.lower() or "cannot start" in last:
        return Check("hooks", WARN, summary + f"; the last session-start sync failed: {last}", details,
                     f"read {sync_log}; meanwhile `/scree-reindex` (or the MCP server) keeps the index fresh")
    if usage_off:
        summary += "; usage log off (SCREE_USAGE=off)"
    return Check("hooks", OK, summary, details)


def _hook_python(ctx: PluginContext, env: Mapping[str, str]) -> tuple[str, str | None, dict[str, object]]:
    """(summary, fix when the hooks would run through a pyenv/asdf shim, details): the interpreter
    hooks/launch.sh picks, and what a shim costs per hook call."""
    from ..hookkit import interp

    launch_env = {**env, "CLAUDE_PLUGIN_DATA": str(ctx.data)} if ctx.data else env
    chosen, how = interp.launcher_choice(launch_env)
    python3 = shutil.which("python3", path=env.get("PATH"))
    shim = interp.shim_kind(python3) if python3 else None
    details: dict[str, object] = {"hook_python": chosen, "hook_python_from": how, "python3_shim": shim}
    cost = None
    if shim and python3:
        slow, fast = interp.startup_ms(python3, 3), interp.startup_ms(interp.real_executable(python3) or python3, 3)
        cost = round(slow - fast) if slow is not None and fast is not None else None
        details["shim_cost_ms"] = cost
    per_call = (f"{cost} ms per hook call, two calls per Bash command" if cost is not None
                else "its start-up on every hook call, two calls per Bash command")
    chosen_shim = interp.shim_kind(chosen) if chosen else None
    if chosen and chosen_shim:
        cache = Path(interp.data_root(launch_env)) / interp.CACHE_NAME
        return (f"hooks run Python through a {chosen_shim} shim ({chosen}): it adds {per_call}", f"put a real python3 "
                f"first on PATH (or let the plugin's venv be created), then delete {cache}", details)
    summary = f"hooks run {chosen} ({'the plugin venv' if how == 'venv' else how})"
    if shim:
        summary += f"; python3 on PATH is a {shim} shim that would add {per_call}: the launcher bypasses it"
    return summary, None, details
