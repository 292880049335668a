"""Times for people: a local timestamp and an age ("3 min ago"), for `scree status` and `scree doctor`."""

from __future__ import annotations

import time


def when(t: float) -> str:
    """`2026-11-30 08:14:19` in local time."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t))


def age(seconds: float) -> str:
    """How long ago, in the largest whole unit: `12 s ago`, `5 min ago`, `3 h ago`, `2 d ago`."""
    seconds = max(0.0, seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit} ago"
    return f"{seconds:.0f} s ago"


def when_and_age(t: float, now: float | None = None) -> str:
    """`2026-11-30 08:14:19 (5 min ago)`."""
    return f"{when(t)} ({age((time.time() if now is None else now) - t)})"
