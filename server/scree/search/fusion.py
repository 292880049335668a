"""Fusing ranked lists: distribution-based score fusion (what hybrid uses) and reciprocal rank fusion.

BM25 scores and cosine similarities live on unrelated scales. RRF sidesteps that by using ranks alone
(Cormack et al., 2009; k = 60 as there), but so it also forgets how sure each list is. DBSF (as in
Qdrant's hybrid search) puts each list on its own scale instead, mean +- 3 standard deviations of its
scores mapped to 0..1, so a first hit far above the rest of its list counts for more than one that
barely leads. Measured on both dev sets, DBSF won (docs/benchmarks.md); RRF stays for comparison.
"""

from __future__ import annotations

from typing import AbstractSet, Callable, Hashable, Sequence, TypeVar

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



# Distribution-based score fusion: a list's scores are scaled so that mean - 3 sd is 0 and mean + 3 sd is 1.
DBSF_SIGMAS = 3.0


def dbsf_scaled(scores: Sequence[float]) -> list[float]:
    """Scores on their list's own scale: mean - 3 sd -> 0, mean + 3 sd -> 1, clipped (all 1 when alike)."""
    if not scores:
        return []
    mean = sum(scores) / len(scores)
    sd = (sum((x - mean) ** 2 for x in scores) / len(scores)) ** 0.5
    if sd <= 0:
        return [1.0] * len(scores)
    return [min(1.0, max(0.0, (s - mean + DBSF_SIGMAS * sd) / (2 * DBSF_SIGMAS * sd))) for s in scores]


def dbsf(rankings: Sequence[Sequence[tuple[T, float]]], group: Callable[[T], Hashable],
         weights: Sequence[float]) -> list[tuple[T, float]]:
    """Distribution-based score fusion: (representative item, fused score) per group, best first.

    Each list's scores are scaled by their own spread (mean +- 3 standard deviations become 0 and 1,
    clipped), then summed per group with the list's weight; a group missing from a list gets 0 there.
    Unlike RRF, the fused order keeps how sure each half is: an item far above the rest of its list
    (an exact name for BM25, a close paraphrase for the vectors) outweighs one that leads a list of
    near-equal scores. A group counts once per list, at its best item; its representative is the item
    with the highest scaled score (ties: the earlier list). Ties in the fused score keep first-seen order.
    """
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings: give one weight per ranking")
    fused: dict[Hashable, float] = {}
    rep: dict[Hashable, tuple[float, T]] = {}
    for w, ranking in zip(weights, rankings):
        best = collapse(ranking, lambda item: group(item[0]))
        if not best:
            continue
        for (item, _), scaled in zip(best, dbsf_scaled([s for _, s in best])):
            g = group(item)
            fused[g] = fused.get(g, 0.0) + w * scaled
            if g not in rep or scaled > rep[g][0]:
                rep[g] = (scaled, item)
    order = {g: i for i, g in enumerate(fused)}
    return [(rep[g][1], score) for g, score in sorted(fused.items(), key=lambda kv: (-kv[1], order[kv[0]]))]


# ----- fusing while some items have no vectors yet (stage two of a sync, issue 18) -------------------


def keep_places(fused: Sequence[tuple[T, float]], keyword: Sequence[tuple[T, float]],
                group: Callable[[T], Hashable], held: AbstractSet[Hashable]) -> list[tuple[T, float]]:
    """`fused` re-ordered so that each `held` group (one the semantic half could not see: no vectors
    yet) takes exactly its place in the `keyword` ranking; the other places of that ranking go, in
    fused order, to the groups that have vectors, and whatever the keyword ranking did not hold
    follows. So a chunk without vectors is never ranked below where keyword alone puts it, nor above:
    the vectors only reorder the chunks they can see. With no group held this is `fused`; with every
    group held, `keyword` (plus what the semantic half alone found, after it).
    """
    by_group = {group(item): (item, score) for item, score in fused}
    places = [group(item) for item, _ in collapse(keyword, lambda it: group(it[0]))]
    kept = {g for g in places if g in held and g in by_group}
    rest = iter([(item, score) for item, score in fused if group(item) not in kept])
    out: list[tuple[T, float]] = []
    for g in places:
        if g in kept:
            out.append(by_group[g])
        else:
            nxt = next(rest, None)
            if nxt is not None:
                out.append(nxt)
    out.extend(rest)
    return out


def dbsf_imputed(semantic: Sequence[tuple[T, float]], keyword: Sequence[tuple[T, float]],
                 group: Callable[[T], Hashable], weights: Sequence[float],
                 held: AbstractSet[Hashable]) -> list[tuple[T, float]]:
    """DBSF of the two halves in which a `held` group (no vectors yet) missing from the semantic half
    gets its keyword scaled score in place of the semantic one it cannot have: as if the vectors
    agreed with BM25 about it. (The alternative to `keep_places`, measured against it.)"""
    sem_groups = {group(item) for item, _ in semantic}
    kw = collapse(keyword, lambda it: group(it[0]))
    stand_in = {group(item): weights[0] * scaled for (item, _), scaled in zip(kw, dbsf_scaled([s for _, s in kw]))
                if group(item) in held and group(item) not in sem_groups}
    fused = [(item, score + stand_in.get(group(item), 0.0)) for item, score in dbsf([semantic, keyword], group, weights)]
    return sorted(fused, key=lambda kv: -kv[1])  # stable: ties keep dbsf's order
