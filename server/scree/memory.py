"""Giving memory back to the OS: after a big sync, after the model is dropped, when a writer goes idle.

Python's allocator and glibc keep freed pages for reuse, so a long-lived `scree serve` would sit at its
peak after one big sync. These calls are best effort: other platforms and C libraries (musl) simply
keep their pages.
"""

from __future__ import annotations

import ctypes
import gc
import sys
from typing import Protocol


class Closable(Protocol):
    """What `release_memory` needs of an embedder: `close()`. A protocol, so this module imports no
    other of scree's (embed/local.py imports it, and the embed package must not be its dependency)."""

    def close(self) -> None: ...


def trim_heap() -> None:
    """Ask glibc to give freed heap pages back to the OS (measured: RSS after dropping the model
    ~190 MB without it, ~75 MB with it)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library already linked into this process
    except (OSError, AttributeError):
        return
    trim(0)


def release_memory(embedder: Closable | None = None) -> None:
    """Drop the model (if given), collect garbage, and trim the heap."""
    if embedder is not None:
        embedder.close()
    gc.collect()
    trim_heap()


def rss_mb() -> float | None:
    """This process's resident memory in MB (Linux /proc; None elsewhere)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    import os

    return round(pages * os.sysconf("SC_PAGE_SIZE") / 1e6, 1)
