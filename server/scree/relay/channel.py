"""Where a user's engine listens, and the first line each side says: shared by the relay (stdlib only,
any Python 3.8+) and the engine.

One engine per user and per plugin build: its socket sits in a directory only that user can enter
(0700, owned by them), and its name carries a key of the plugin's root, data dir and code stamp, so
two installs, or an upgraded plugin beside sessions still on the old one, never share an engine.

A connection opens with one JSON line from the relay and one from the engine, then carries the
session's MCP messages, one JSON-RPC message per line, as stdio does:

    relay  -> {"scree": "hello", "protocol": 1, "argv": [...], "env": {...}, "cwd": "..."}
    engine -> {"scree": "ready", "pid": N, "version": "..."}   or   {"scree": "refused", "error": "..."}

`{"scree": "status"}` instead of a hello gets one line describing the engine, and the connection ends.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import struct
import sys
import tempfile
from typing import Any, Dict, Mapping, Optional

PROTOCOL = 1
# What the relay passes to the engine for each session: the engine is shared, so a session's settings
# travel with its connection instead of coming from the engine's own environment.
PASSED_ENV_PREFIXES = ("SCREE_", "CLAUDE_", "XDG_", "OPENROUTER_", "OPENAI_")
PASSED_ENV_NAMES = ("HOME", "PATH", "LANG", "LC_ALL")
# A Unix socket path is at most 108 bytes on Linux (104 on macOS).
MAX_SOCKET_PATH = 100


class UnsafeDir(Exception):
    """The engine directory exists but another user could use it: scree will not listen or connect there."""


def engine_dir(env: Mapping[str, str], uid: Optional[int] = None) -> str:
    """SCREE_RUNTIME_DIR; else $XDG_RUNTIME_DIR/scree (already private to the user); else
    <tmp>/scree-<uid>. Not created here (see `ensure_private_dir`)."""
    uid = os.getuid() if uid is None else uid
    given = env.get("SCREE_RUNTIME_DIR", "").strip()
    if given:
        return os.path.abspath(given)
    runtime = env.get("XDG_RUNTIME_DIR", "").strip()
    if runtime and os.path.isabs(runtime) and _owned_dir(runtime, uid):
        return os.path.join(runtime, "scree")
    return os.path.join(tempfile.gettempdir(), "scree-%d" % uid)


def _owned_dir(path: str, uid: int) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == uid


def ensure_private_dir(path: str, uid: Optional[int] = None) -> str:
    """Create `path` (0700) when missing and check that only this user can use it.

    /tmp is shared: another user could have made `/tmp/scree-<our uid>` first, to read our queries or
    answer them. A directory owned by someone else, a symlink, or one others can enter is refused
    (UnsafeDir names the fix); our own directory with loose bits is tightened."""
    uid = os.getuid() if uid is None else uid
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise UnsafeDir("cannot create %s (%s): set SCREE_RUNTIME_DIR to a folder of yours" % (path, exc.strerror or exc))
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise UnsafeDir("%s is not a plain folder (a symlink or a file): remove it, or set SCREE_RUNTIME_DIR" % path)
    if st.st_uid != uid:
        raise UnsafeDir("%s belongs to another user (uid %d), who could read this user's searches: remove it "
                        "(as root or that user), or set SCREE_RUNTIME_DIR to a folder of yours" % (path, st.st_uid))
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def code_stamp(root: str) -> str:
    """A stamp that changes when the plugin's code or locked dependencies change: a clone edited in
    place, or an upgrade installed over the same folder, gets a new engine."""
    newest = 0
    count = 0
    package = os.path.join(root, "server", "scree")
    for folder, dirs, files in os.walk(package):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith((".py", ".json")):
                try:
                    newest = max(newest, os.stat(os.path.join(folder, name)).st_mtime_ns)
                except OSError:
                    continue
                count += 1
    for name in ("uv.lock", "pyproject.toml"):
        try:
            newest = max(newest, os.stat(os.path.join(root, name)).st_mtime_ns)
        except OSError:
            pass
    return "%d-%d" % (newest, count)


def engine_key(root: str, data: str, stamp: str) -> str:
    return hashlib.sha256("\0".join((root, data, stamp)).encode("utf-8", "surrogateescape")).hexdigest()[:12]


def socket_path(directory: str, key: str) -> str:
    path = os.path.join(directory, "engine-%s.sock" % key)
    if len(path.encode("utf-8", "surrogateescape")) > MAX_SOCKET_PATH:
        raise UnsafeDir("the engine's socket path %s is too long for a Unix socket: set SCREE_RUNTIME_DIR "
                        "to a shorter folder" % path)
    return path


def log_path(sock: str) -> str:
    """The engine's stderr: beside its socket, where `scree doctor` and the relay read why it failed."""
    return sock[: -len(".sock")] + ".log"


def peer_uid(sock: socket.socket) -> Optional[int]:
    """The uid of the process at the other end (Linux SO_PEERCRED); None where the OS does not say."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None or not sys.platform.startswith("linux"):
        return None
    raw = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    return struct.unpack("3i", raw)[1]


def passed_env(env: Mapping[str, str]) -> Dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(PASSED_ENV_PREFIXES) or k in PASSED_ENV_NAMES}


def hello(argv: list, env: Mapping[str, str], cwd: str) -> bytes:
    return encode({"scree": "hello", "protocol": PROTOCOL, "argv": list(argv), "env": passed_env(env), "cwd": cwd})


def encode(message: Dict[str, Any]) -> bytes:
    # ensure_ascii: a lone surrogate in a string (JSON allows its escape) still makes valid UTF-8 bytes.
    return (json.dumps(message, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")


def decode(line: bytes) -> Dict[str, Any]:
    """One handshake line; ValueError when it is not one."""
    message = json.loads(line.decode("utf-8", "replace"))
    if not isinstance(message, dict) or not isinstance(message.get("scree"), str):
        raise ValueError("not a scree handshake line")
    return message


def engine_status(sock_path: str, timeout: float = 3.0) -> Optional[Dict[str, Any]]:
    """What the engine listening on `sock_path` says of itself (its `describe()`); None when none listens."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(sock_path)
        sock.sendall(encode({"scree": "status"}))
        return decode(sock.makefile("rb").readline())
    except (OSError, ValueError):
        return None
    finally:
        sock.close()
