"""`scree doctor`'s view of the plugin's shared engine: is one running for this plugin, what it holds,
and why the last start failed (its log), each failure with the one thing that fixes it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

from ..relay import channel
from .checks import FAIL, INFO, OK, WARN, Check, PluginContext

# Lines in the engine's log that say a start failed, and what fixes each.
FAILURES = (
    ("could not download uv", "install uv yourself (curl -LsSf https://astral.sh/uv/install.sh | sh), then run "
     "`/mcp reconnect plugin:scree:scree` in Claude Code"),
    ("Failed to fetch", "the environment could not be downloaded: check the network (or proxy), then run "
     "`/mcp reconnect plugin:scree:scree` in Claude Code"),
    ("No space left", "free some disk space, then run `/mcp reconnect plugin:scree:scree` in Claude Code"),
)


def _last_start(log: Path) -> list[str]:
    """The lines the engine's log holds since its last start (the relay marks each with '--- ')."""
    try:
        text = log.read_bytes()[-20000:].decode("utf-8", "replace")
    except OSError:
        return []
    lines = text.splitlines()
    starts = [n for n, line in enumerate(lines) if line.startswith("--- ")]
    return [line for line in lines[starts[-1] + 1 if starts else 0:] if line.strip()]


def engine_socket(ctx: PluginContext, env: Mapping[str, str]) -> str | None:
    """The socket the plugin's relays use for this plugin copy and data dir (None outside the plugin, with
    SCREE_ENGINE=off, or when its folder is unusable: `check_engine` says why)."""
    if ctx.root is None or env.get("SCREE_ENGINE", "").strip() == "off":
        return None
    try:
        return _socket(ctx, env)
    except (channel.UnsafeDir, OSError):
        return None


def _socket(ctx: PluginContext, env: Mapping[str, str]) -> str:
    assert ctx.root is not None
    # bin/scree's rule when no data dir is given: the XDG cache's scree folder.
    data = str(ctx.data) if ctx.data is not None else os.path.join(
        env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "scree")
    directory = channel.ensure_private_dir(channel.engine_dir(env))
    return channel.socket_path(directory, channel.engine_key(str(ctx.root), data, channel.code_stamp(str(ctx.root))))


def check_engine(ctx: PluginContext, env: Mapping[str, str] | None = None) -> Check:
    env = os.environ if env is None else env
    if ctx.root is None:
        return Check("engine", INFO, "not running from the Claude Code plugin: no shared engine here", {})
    if env.get("SCREE_ENGINE", "").strip() == "off":
        return Check("engine", INFO, "SCREE_ENGINE=off: each session runs the whole server in its own process", {})
    try:
        sock = _socket(ctx, env)
    except (channel.UnsafeDir, OSError) as exc:
        return Check("engine", FAIL, f"the sessions cannot reach an engine: {exc}", {"dir": channel.engine_dir(env)},
                     str(exc))
    log = Path(channel.log_path(sock))
    details: dict[str, object] = {"socket": sock, "log": str(log)}
    status = channel.engine_status(sock)
    if status is not None:
        details.update({k: status.get(k) for k in ("pid", "sessions", "folders", "rss_mb", "uptime", "idle_exit")})
        folders = status.get("folders") or []
        return Check("engine", OK, f"the engine (pid {status.get('pid')}) serves {status.get('sessions')} session(s) "
                     f"on {len(folders)} folder(s), {status.get('rss_mb')} MB; it exits after "
                     f"{status.get('idle_exit'):g} s without a call", details)
    lines = _last_start(log)
    if not lines:
        return Check("engine", INFO, "no engine is running (a session starts it at its first call; it exits when "
                     "idle)", details)
    text = " | ".join(lines[-4:])
    for needle, fix in FAILURES:
        if any(needle in line for line in lines):
            return Check("engine", FAIL, f"the engine's last start failed: {text}", details, fix)
    if any("Traceback" in line or "error" in line.lower() for line in lines):
        return Check("engine", WARN, f"the engine's last run logged: {text}", details,
                     f"read {log}; `/mcp reconnect plugin:scree:scree` in Claude Code starts it again")
    return Check("engine", INFO, "no engine is running now (the last one exited when idle; the next call starts "
                 "one)", details)

