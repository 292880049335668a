"""Reciprocal rank fusion: merge ranked lists by rank alone.

BM25 scores and cosine similarities live on unrelated scales; RRF needs no calibration between them
and rewards what both halves rank high (Cormack et al., 2009; k = 60 as there). A weight per list
lets one half count more without giving up the rank-only property.
"""

from __future__ import annotations

from typing import Callable, Hashable, Sequence, TypeVar

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")

RRF_K = 60


def rrf(rankings: Sequence[Sequence[K]], k: int = RRF_K,
        weights: Sequence[float] | None = None) -> list[tuple[K, float]]:
    """Fuse best-first lists of ids; returns (id, score) best first. Ties keep first-seen order.

    An id at rank r of list i adds weights[i] / (k + r); without weights every list counts 1.
    """
    if weights is not None and len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings: give one weight per ranking")
    scores: dict[K, float] = {}
    for i, ranking in enumerate(rankings):
        w = 1.0 if weights is None else weights[i]
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + w / (k + rank)
    order = {key: i for i, key in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def collapse(ranking: Sequence[T], group: Callable[[T], Hashable]) -> list[T]:
    """The best (first) item of each group, in ranking order: one entry per group."""
    seen: set[Hashable] = set()
    out: list[T] = []
    for item in ranking:
        g = group(item)
        if g not in seen:
            seen.add(g)
            out.append(item)
    return out


def rrf_grouped(rankings: Sequence[Sequence[T]], group: Callable[[T], Hashable], k: int = RRF_K,
                weights: Sequence[float] | None = None) -> list[tuple[T, float]]:
    """RRF over groups of items (the chunks of one section): (representative item, score) best first.

    A group counts once per ranking, at the rank of its best item there, so two chunks of one section
    neither split its evidence (each half may rank a different chunk of it) nor take two places.
    The representative is the group's best-ranked item in any list (ties: the earlier list).
    """
    collapsed = [collapse(r, group) for r in rankings]
    fused = rrf([[group(item) for item in r] for r in collapsed], k, weights)
    best: dict[Hashable, tuple[int, int, T]] = {}
    for li, ranking in enumerate(collapsed):
        for rank, item in enumerate(ranking):
            g = group(item)
            if g not in best or (rank, li) < best[g][:2]:
                best[g] = (rank, li, item)
    return [(best[g][2], score) for g, score in fused]
