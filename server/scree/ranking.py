"""Pure ranking steps applied around fusion: how sections are scored and ordered once ranked.

Every function takes ranked lists and section keys and returns a new ranked list; nothing here reads
the index, so each rule is tested directly and measured on the benchmark (benchmarks/quality.py)
by switching its constant off.
"""

from __future__ import annotations

from typing import Callable, Hashable, Sequence, TypeVar

T = TypeVar("T")

TRAIL_SEPARATOR = " > "

# How far below a section its own subsection may rank and still be moved above it (0 = off).
SPECIFIC_WINDOW = 0


def is_ancestor(parent: tuple[int, str], child: tuple[int, str]) -> bool:
    """True when `parent` is a section that contains `child` (same file, trail a proper prefix).

    Text before a file's first heading (trail "") contains nothing: it is a preamble, not a parent.
    """
    return (parent[0] == child[0] and bool(parent[1])
            and child[1].startswith(parent[1] + TRAIL_SEPARATOR))


def specific_first(ranked: Sequence[T], key: Callable[[T], Hashable], window: int) -> list[T]:
    """Move a subsection above its own parent section when both rank and it is close behind.

    A parent's introduction shares the words and topic of every subsection under it, so it ranks with
    them on a specific question; the subsection that holds the specific answer is inside the parent
    and says more about less. When a section ranks above one of its own descendants that is at most
    `window` places below it, the best-ranked such descendant takes the parent's place and the parent
    follows it. Sections that are not nested keep their order. Keys that are not (file, trail) pairs
    are left alone.
    """
    if window <= 0:
        return list(ranked)
    items = list(ranked)
    out: list[T] = []
    moved: set[int] = set()
    for i, item in enumerate(items):
        if i in moved:
            continue
        k = key(item)
        if isinstance(k, tuple) and len(k) == 2 and isinstance(k[1], str):
            for j in range(i + 1, min(len(items), i + 1 + window)):
                if j in moved:
                    continue
                kj = key(items[j])
                if isinstance(kj, tuple) and len(kj) == 2 and is_ancestor(k, kj):  # type: ignore[arg-type]
                    out.append(items[j])
                    moved.add(j)
                    break
        out.append(item)
    return out


# Weight of a section's other matching windows/chunks beside its best one (0 = the best alone).
SECTION_SPREAD = 0.0


def combine_groups(ranked: Sequence[tuple[T, float]], group: Callable[[tuple[T, float]], Hashable],
                   spread: float) -> list[tuple[T, float]]:
    """One entry per group (a section): its best item, scored best + `spread` x the sum of the group's
    other scores in `ranked`, best first (ties keep ranking order).

    With spread 0 this is `collapse`: a section is as good as its best window. Above 0, a section whose
    other windows also match gains over one that matches in a single place.
    """
    best: dict[Hashable, tuple[int, T, float]] = {}
    extra: dict[Hashable, float] = {}
    for pos, item in enumerate(ranked):
        g = group(item)
        if g not in best:
            best[g] = (pos, item[0], item[1])
            extra[g] = 0.0
        else:
            extra[g] += item[1]
    scored = [(pos, it, s + spread * extra[g]) for g, (pos, it, s) in best.items()]
    scored.sort(key=lambda t: (-t[2], t[0]))
    return [(it, s) for _, it, s in scored]


def rocchio(query: "np.ndarray", feedback: Sequence["np.ndarray"], weight: float) -> "np.ndarray":
    """`query + weight x mean(feedback)`, renormalised to unit length (float32)."""
    import numpy as np

    if not feedback or weight == 0:
        return query
    moved = query.astype(np.float32) + np.float32(weight) * np.mean(np.stack(feedback), axis=0)
    norm = float(np.linalg.norm(moved))
    return (moved / norm).astype("<f4") if norm > 0 else query
