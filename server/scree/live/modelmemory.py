"""When the live index gives the model's memory back: after a big sync, and once it has been idle.

The local model's ONNX Runtime arena stays at its peak after a large batch, and an idle `scree serve`
should hold ~100 MB, not ~400: the model is dropped and reloads (~0.5 s) on its next use. Kept apart
from `live.py` because it is one small piece of state (when the model was last used, whether a job is
using it now) with its own lock, read by the health thread's tick and written by the worker and searches.
"""

from __future__ import annotations

import logging
import threading
import time

from ..embed import Embedder
from ..memory import release_memory

log = logging.getLogger(__name__)

# After a sync that embedded this many chunks the model is dropped (it reloads in ~0.5 s on the next
# edit): a big sync leaves the ORT arena at its peak, and an idle writer should not keep it.
BIG_SYNC_CHUNKS = 200
# The model is dropped after this long without embedding anything (sync or query), in both roles:
# an idle `scree serve` then holds ~100 MB instead of ~400. Reloading costs ~0.5 s on the next use.
MODEL_IDLE_SECONDS = 60.0


class ModelMemory:
    """The model's last use and whether a job holds it, and the two rules that release it."""

    def __init__(self, embedder: Embedder, idle_seconds: float = MODEL_IDLE_SECONDS) -> None:
        self._embedder = embedder
        self._idle = idle_seconds
        self._mu = threading.Lock()
        self._used_at: float | None = None  # last embedding (sync or query) since the last release
        self._busy = False

    def used(self) -> None:
        with self._mu:
            self._used_at = time.monotonic()

    def set_busy(self, busy: bool) -> None:
        """A job (a sync, stage two) runs: the idle rule must not drop the model under it."""
        with self._mu:
            self._busy = busy

    def after_big_sync(self, chunks: int, *, always_trim: bool = False) -> None:
        """After a sync that embedded `chunks`: drop the model when that was a big one. `always_trim`
        (the first sync) gives the other memory back either way, keeping the model when it was small."""
        if chunks >= BIG_SYNC_CHUNKS:
            release_memory(self._embedder)
        elif always_trim:
            release_memory(None)

    def release_if_idle(self) -> None:
        """On the health thread's tick: drop the model once nothing embedded for the idle time."""
        with self._mu:
            used = self._used_at
            if used is None or self._busy or time.monotonic() - used < self._idle:
                return
            self._used_at = None
        log.debug("model idle for %.0f s: releasing it", self._idle)
        release_memory(self._embedder)
