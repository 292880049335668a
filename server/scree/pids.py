"""Is the process named in a lock file still there? Shared by the writer lock and the hooks.

Standard library only (`os`): the hooks import it on every tool call.
"""

from __future__ import annotations

import os


def host_name() -> str:
    """This machine's name as lock files record it (what `socket.gethostname()` returns, without
    importing socket)."""
    return os.uname().nodename


def pid_alive(pid: int) -> bool:
    """True when a process with this pid exists on this machine and is not a zombie."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except OSError:
        return False
    # A killed child its parent has not reaped yet still answers kill(0); it holds no locks.
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat_line = fh.read()
    except OSError:
        return True  # no /proc (macOS) or the process just vanished: trust kill(0)
    state = stat_line[stat_line.rfind(b")") + 2 :][:1]
    return state not in (b"Z", b"X")
