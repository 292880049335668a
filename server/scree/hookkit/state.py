"""A small JSON file per session under the plugin data dir: hints shown, and where the index is.

Hooks for parallel tool calls can run at the same moment, so every change happens under an
exclusive `flock` of the file itself (read, change, rewrite in place). A damaged file reads as
empty: the worst outcome is one hint shown twice.
"""

from __future__ import annotations

import os
import time

from . import jsonio as json  # `import json` would pull in re and enum: see jsonio
from .runtime import data_root, private_dir

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Callable, Mapping, TypeVar

    T = TypeVar("T")

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no locking, the hooks still work
    fcntl = None  # type: ignore[assignment]

MAX_STATE_BYTES = 256 * 1024


def state_dir(env: Mapping[str, str] | None = None) -> str:
    """$CLAUDE_PLUGIN_DATA/state, else ~/.cache/scree/state."""
    return os.path.join(data_root(env), "state")


def state_path(session: str, env: Mapping[str, str] | None = None) -> str:
    """The state file of one session (`session` must already be file-name safe)."""
    return os.path.join(state_dir(env), f"{session}.json")


def _decode(data: bytes) -> dict:
    try:
        value = json.loads(data.decode("utf-8"))
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def load(session: str) -> dict:
    """The session's state ({} when there is none yet or it is unreadable), read under a shared lock:
    `update` empties the file before it writes it again, and a reader in between would see nothing (the
    session's hints then named a tool the session lacks: `via`, as SessionStart's helper wrote beside it)."""
    try:
        with open(state_path(session), "rb") as fh:
            if fcntl is not None:
                fcntl.flock(fh.fileno(), fcntl.LOCK_SH)
            return _decode(fh.read(MAX_STATE_BYTES))
    except OSError:
        return {}


def update(session: str, change: Callable[[dict], T]) -> T:
    """Run `change(state)` under the file's lock and write the state back; returns what `change` returned."""
    path = state_path(session)
    private_dir(os.path.dirname(path))
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        chunks = []
        while True:
            block = os.read(fd, 65536)
            if not block:
                break
            chunks.append(block)
        state = _decode(b"".join(chunks))
        result = change(state)
        data = json.dumps(state, separators=(",", ":")).encode("utf-8")
        os.lseek(fd, 0, os.SEEK_SET)
        os.ftruncate(fd, 0)
        os.write(fd, data)
        return result
    finally:
        os.close(fd)  # also drops the flock


def prune(max_age_s: float = 7 * 24 * 3600, env: Mapping[str, str] | None = None) -> int:
    """Delete state files untouched for `max_age_s`; returns how many went. Never raises."""
    removed = 0
    cutoff = time.time() - max_age_s
    try:
        entries = list(os.scandir(state_dir(env)))
    except OSError:
        return 0
    for entry in entries:
        try:
            if entry.name.endswith(".json") and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            pass
    return removed
