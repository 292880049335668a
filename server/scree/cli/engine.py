"""`scree engine`: the per-user engine the plugin's relays start (not a command people run).

The relay (`relay/relay.py`) starts it through the launcher, detached, with stderr to a log beside its
socket; it serves every session's MCP calls until idle (see `engine/engine.py`)."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

from .. import settings_table
from ..config import Config, load_config
from ..errors import ConfigError
from ..locate import resolve_folder
from ._common import ScrubbingFormatter, secrets_of


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("engine", help="(internal) the per-user engine behind the plugin's sessions",
                       description="Serve the plugin's relays over a Unix socket until idle.")
    p.add_argument("--socket", required=True, help="the Unix socket to listen on")
    p.add_argument("--idle", type=float, default=None,
                   help=f"exit after this many seconds without a call (default ${settings_table.ENGINE_IDLE.env}, else 120)")


def idle_seconds(args: argparse.Namespace, env: Mapping[str, str]) -> float:
    if args.idle is not None:
        value = args.idle
    else:
        raw = env.get(settings_table.ENGINE_IDLE.env, "").strip()
        try:
            value = float(raw) if raw else 120.0
        except ValueError:
            raise ConfigError(f"{settings_table.ENGINE_IDLE.env}={raw!r} is not a number of seconds") from None
    if not 1 <= value <= 86400:
        raise ConfigError(f"the engine's idle time must be 1..86400 seconds, not {value:g}")
    return value


def session_settings(hello: Mapping[str, Any]) -> tuple[Config, Path, Any]:
    """The config, folder and serve options a relay's hello names: its env (the session's settings) and
    its argv (`scree serve`'s flags, as the plugin's .mcp.json gives them)."""
    from ..mcpserver import ServeOptions
    from . import serve as serve_cli

    env = {str(k): str(v) for k, v in dict(hello.get("env") or {}).items()}
    argv = [str(a) for a in hello.get("argv") or []]
    parser = argparse.ArgumentParser(prog="scree", add_help=False, exit_on_error=False)
    serve_cli.add_parsers(parser.add_subparsers(dest="command"))
    try:
        args, extra = parser.parse_known_args(["serve", *argv])
    except (argparse.ArgumentError, SystemExit) as exc:
        raise ConfigError(f"scree serve's flags are not valid ({exc}): {' '.join(argv)}") from None
    if extra:
        raise ConfigError(f"scree serve does not take {' '.join(extra)}")
    cfg = load_config(env).with_overrides(notes=args.notes, db=args.db, note_extensions=args.note_extensions,
                                          embedder=args.embedder)
    if cfg.notes is not None and not cfg.notes.is_absolute():
        cfg = cfg.with_overrides(notes=Path(str(hello.get("cwd") or ".")) / cfg.notes)
    folder = resolve_folder(cfg, cwd=Path(str(hello.get("cwd") or os.getcwd())), env=env)
    # The engine starts again after an idle exit: a search first lets the start sync catch up on edits
    # made meanwhile, within the search budget.
    options = ServeOptions(watch=not args.no_watch, health_interval=args.health_interval, catch_up=cfg.search_budget)
    if args.first_sync_wait is not None:
        options = replace(options, first_sync_wait=args.first_sync_wait)
    _scrub_its_secrets(cfg)
    return cfg, folder, options


def _scrub_its_secrets(cfg: Config) -> None:
    """A session's API key joins what every log line is scrubbed of (the engine's handler was set up
    before any session said its settings)."""
    import logging

    for handler in logging.getLogger().handlers:
        formatter = handler.formatter
        if isinstance(formatter, ScrubbingFormatter):
            formatter.add_secrets(secrets_of(cfg))


def cmd_engine(args: argparse.Namespace, cfg: Config) -> int:
    from ..engine.engine import run_engine

    return run_engine(args.socket, session_settings, idle_seconds(args, os.environ))


COMMANDS = {"engine": cmd_engine}
