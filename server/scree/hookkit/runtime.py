"""What every hook script shares: switches, where its files go, reading the payload, logging errors.

A hook must never get in Claude Code's way: `run` turns every failure into one line in the hook
log and a silent exit 0. Files live under `$CLAUDE_PLUGIN_DATA` (kept across plugin updates,
removed with the plugin), else under `~/.cache/scree`.
"""

from __future__ import annotations

import os
import sys
import time

from . import jsonio as json  # `import json` would pull in re and enum: see jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Callable, Mapping

_OFF = frozenset({"off", "0", "false", "no", "disable", "disabled"})
LOG_MAX_BYTES = 256 * 1024
# The log's cap is checked before each write, so one line must be small for the cap to hold: a debug
# field is cut at MAX_FIELD_CHARS (a list at MAX_FIELD_ITEMS items), a whole line at MAX_LINE_CHARS.
# Uncapped, one decision on a huge command wrote a 589 KB line.
MAX_FIELD_CHARS = 300
MAX_FIELD_ITEMS = 20
MAX_LINE_CHARS = 8192


def is_off(name: str, env: Mapping[str, str] | None = None) -> bool:
    """True when the switch `name` (SCREE_HOOKS, SCREE_USAGE) is set to off/0/false/no."""
    env = os.environ if env is None else env
    return env.get(name, "").strip().lower() in _OFF


def is_on(name: str, env: Mapping[str, str] | None = None) -> bool:
    """True when `name` (SCREE_USAGE_TEXT) is set to 1/on/true/yes."""
    env = os.environ if env is None else env
    return env.get(name, "").strip().lower() in ("1", "on", "true", "yes")


def data_root(env: Mapping[str, str] | None = None) -> str:
    """$CLAUDE_PLUGIN_DATA, else ~/.cache/scree."""
    env = os.environ if env is None else env
    root = env.get("CLAUDE_PLUGIN_DATA", "").strip()
    return root or os.path.join(os.path.expanduser("~"), ".cache", "scree")


def error_log_path(env: Mapping[str, str] | None = None) -> str:
    """$CLAUDE_PLUGIN_DATA/logs/hooks.log, else ~/.cache/scree/hooks.log."""
    env = os.environ if env is None else env
    if env.get("CLAUDE_PLUGIN_DATA", "").strip():
        return os.path.join(data_root(env), "logs", "hooks.log")
    return os.path.join(data_root(env), "hooks.log")


def private_dir(path: str) -> str:
    """Create `path` (mode 0700 for what we create) and return it."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def log_error(hook: str, message: str = "", with_traceback: bool = True) -> None:
    """Append the current exception (or `message`) to the hook log; never raises.

    The log is capped: past LOG_MAX_BYTES it moves to `hooks.log.1`.
    """
    try:
        exc = sys.exc_info()[1] if with_traceback else None
        detail = message
        if exc is not None:
            import traceback  # only on the error path: it costs a few ms to import

            detail = (message + ": " if message else "") + "".join(
                traceback.format_exception(type(exc), exc, exc.__traceback__, limit=6)).rstrip()
        path = error_log_path()
        private_dir(os.path.dirname(path))
        try:
            if os.path.getsize(path) > LOG_MAX_BYTES:
                os.replace(path, path + ".1")
        except OSError:
            pass
        if len(detail) > MAX_LINE_CHARS:
            detail = detail[:MAX_LINE_CHARS] + f"... ({len(detail) - MAX_LINE_CHARS} more characters)"
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8", errors="replace") as fh:
            fh.write(f"{stamp} {hook} pid={os.getpid()}: {detail}\n")
    except Exception:
        pass


def debug_on(env: Mapping[str, str] | None = None) -> bool:
    """SCREE_HOOKS_DEBUG=1: every decision of the hooks goes to the hook log, one line each."""
    return is_on("SCREE_HOOKS_DEBUG", env)


def capped(value: object) -> object:
    """`value` with every string cut at MAX_FIELD_CHARS and every list at MAX_FIELD_ITEMS, saying how
    much was cut (nested lists and dicts too): what a log line may hold of a payload's field."""
    if isinstance(value, str):
        if len(value) <= MAX_FIELD_CHARS:
            return value
        return value[:MAX_FIELD_CHARS] + f"... ({len(value) - MAX_FIELD_CHARS} more characters)"
    if isinstance(value, (list, tuple)):
        items = [capped(v) for v in value[:MAX_FIELD_ITEMS]]
        if len(value) > MAX_FIELD_ITEMS:
            items.append(f"... ({len(value) - MAX_FIELD_ITEMS} more items)")
        return items
    if isinstance(value, dict):
        return {capped(str(k)): capped(v) for k, v in list(value.items())[:MAX_FIELD_ITEMS]}
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    return capped(str(value))


def log_debug(hook: str, fields: Mapping[str, object]) -> None:
    """One line `<time> <hook> pid=N decision: {json}` in the hook log (call only when `debug_on()`);
    each field capped (`capped`), so a line stays a few KB whatever the payload held."""
    log_error(hook, "decision: " + json.dumps(capped(dict(fields)), ensure_ascii=False, default=str),
              with_traceback=False)


def read_payload(hook: str, raw: bytes | None = None) -> dict | None:
    """The hook's JSON input (from stdin unless `raw` was read already), or None (logged) when it is
    not a JSON object."""
    raw = sys.stdin.buffer.read() if raw is None else raw
    try:
        payload = json.loads(raw.decode("utf-8", errors="replace"))
    except ValueError:
        log_error(hook, f"stdin is not JSON ({len(raw)} bytes); ignored", with_traceback=False)
        return None
    if not isinstance(payload, dict):
        log_error(hook, f"stdin is JSON but not an object ({type(payload).__name__}); ignored")
        return None
    return payload


def emit_context(event: str, text: str) -> None:
    """Print the `hookSpecificOutput.additionalContext` answer Claude Code shows the model."""
    out = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


def session_id(payload: Mapping[str, object]) -> str:
    """The session id from the payload (else the environment), safe to use in a file name."""
    raw = payload.get("session_id") or os.environ.get("CLAUDE_CODE_SESSION_ID") or "nosession"
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in str(raw))[:100]
    return safe or "nosession"


def project_dir(payload: Mapping[str, object]) -> str:
    """$CLAUDE_PROJECT_DIR, else the payload's cwd, else the process cwd."""
    d = os.environ.get("CLAUDE_PROJECT_DIR", "").strip()
    if not d:
        cwd = payload.get("cwd")
        d = cwd if isinstance(cwd, str) and cwd else os.getcwd()
    return d


def run(hook: str, handler: Callable[[], None]) -> None:
    """Run a hook body; any failure is logged and the process still exits 0 with nothing on stdout."""
    try:
        handler()
    except BaseException as exc:  # noqa: BLE001 - a hook must never fail the tool call
        if not (isinstance(exc, SystemExit) and exc.code in (0, None)):
            log_error(hook)
    try:
        sys.stdout.flush()
    except Exception:
        pass
    os._exit(0)  # skip interpreter teardown: a few ms, and nothing left to flush
