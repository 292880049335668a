"""Retry backoff used by the router for retryable render/blob failures."""

from __future__ import annotations

import random

from platen.config import Settings


def compute_backoff(attempt: int, settings: Settings, rng: random.Random | None = None) -> float:
    """Seconds to wait before `attempt` (1-based: attempt 2 is the first retry).

    Full jitter: random(0, min(cap, base * 2^(attempt-1))).
    Defaults: base 2 s, cap 60 s, max 5 attempts.
    """
    rng = rng or random.Random()
    base = settings.retry_base_ms / 1000
    cap = settings.retry_max_ms / 1000
    ceiling = min(cap, base * (2 ** max(attempt - 1, 0)))
    return rng.uniform(0, ceiling)


def should_retry(attempt: int, retryable: bool, settings: Settings) -> bool:
    return retryable and attempt < settings.retry_max_attempts
