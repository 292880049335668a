"""Reciprocal rank fusion: merge ranked lists by rank alone.

BM25 scores and cosine similarities live on unrelated scales; RRF needs no calibration between them
and rewards what both halves rank high (Cormack et al., 2009; k = 60 as there).
"""

from __future__ import annotations

from typing import Hashable, Sequence, TypeVar

K = TypeVar("K", bound=Hashable)

RRF_K = 60


def rrf(rankings: Sequence[Sequence[K]], k: int = RRF_K) -> list[tuple[K, float]]:
    """Fuse best-first lists of ids; returns (id, score) best first. Ties keep first-seen order."""
    scores: dict[K, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    order = {key: i for i, key in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))
