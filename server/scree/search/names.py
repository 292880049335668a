"""The verbatim-name tier: which chunks spell a query's names exactly, and how a lookup's sections are ordered
among those that spell them as often (titled by the name, defining it, mostly a list).

FTS5 splits identifiers into words and drops punctuation, the user did not: a chunk that spells `--pre`,
`GH_REPO` or `%%comment%%` verbatim outranks one that only matches its parts (`search.keyword_ranking` applies
the tier to its pool; `search._Ranker` asks `exact_chunks` whether a name is rare).
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

from ..db import queries
from ..index.store import Index
from . import ranking


def verbatim_pattern(name: str) -> re.Pattern[str]:
    # Not inside a longer word or flag: `--type` must not match `--type-add`, nor `pre` match `pre_stop`. A
    # name that starts or ends with other punctuation is bounded by it (`path:` in `path:docs/`, `%%x%%`).
    # A name of several words (`{{ page.title }}`: `route.phrase_names`) matches with any whitespace between them.
    before = r"(?<![\w-])" if name[:1].isalnum() or name[:1] in "_-" else ""
    after = r"(?![\w-])" if name[-1:].isalnum() or name[-1:] in "_-" else ""
    return re.compile(before + r"\s+".join(re.escape(word) for word in name.split()) + after)


def spelled_counter(names: Sequence[str]) -> Callable[[str], int]:
    """A function counting how many of `names` (case-folded) a text spells verbatim."""
    # Each name's regex is compiled on its first substring hit: a long query names hundreds of words
    # most chunks lack, and compiling them all up front cost more than the search (issue 21).
    patterns: dict[str, re.Pattern[str]] = {}
    heads = [(n, n.split()[0] if " " in n else n) for n in names if n.strip()]  # what a substring test looks for

    def verbatim(name: str) -> re.Pattern[str]:
        if name not in patterns:
            patterns[name] = verbatim_pattern(name)
        return patterns[name]

    def spelled(text: str) -> int:
        hay = text.casefold()
        # The substring test first: most chunks lack the name, and the bounded regex is 10x slower.
        return sum(1 for n, first in heads if first in hay and verbatim(n).search(hay))

    return spelled


def exact_chunks(index: Index, name: str, limit: int, file_ids: Sequence[int] | None) -> list[int]:
    """Ids of up to `limit` chunks that spell `name` (case-folded) verbatim, as `_verbatim` bounds it."""
    exact = verbatim_pattern(name)
    found = queries.spelling_chunks(index.conn, name, limit, file_ids)
    texts = queries.chunk_texts(index.conn, found)
    return [cid for cid in found if exact.search(texts.get(cid, "").casefold())]


def names_first(ranked: Sequence[tuple[int, float]], texts: dict[int, str],
                names: Sequence[str], lookup: str = "") -> list[tuple[int, float]]:
    """`ranked` re-ordered by how many of `names` (case-folded) each chunk's text spells verbatim,
    most first; equal counts keep their order (BM25's), except that for a `lookup` (the query's text) a
    section whose heading trail has a heading that is one of the names comes first among equals
    (`ranking.titled_by`), then one holding an entry that defines the lookup (`ranking.defines`: a table row,
    list item or term opening with it), and a section that is mostly a list comes after the others
    (`ranking.mostly_list`).

    Scores stay in step with the order: each name spelled adds the pool's whole BM25 range, so a
    fusion that reads scores (not only ranks) sees the verbatim tier as far above the rest."""
    if not ranked:
        return []
    spelled = spelled_counter(names)
    counts = {cid: spelled(texts.get(cid, "")) for cid, _ in ranked}
    titled: dict[int, bool] = {}
    defined: dict[int, bool] = {}
    listed: dict[int, bool] = {}
    if lookup:
        # What a lookup looks up is the whole of it: `platenctl jobs requeue` is defined by its own entry,
        # not by one that opens with `platenctl`.
        terms = [lookup.strip().strip("`").strip()]
        for cid, _ in ranked:
            trail, _, body = texts.get(cid, "").partition("\n")
            titled[cid] = ranking.TITLED_FIRST and ranking.titled_by(trail, names)
            defined[cid] = ranking.DEFINED_FIRST and not titled[cid] and ranking.defines(body, terms)
            listed[cid] = ranking.LISTS_LAST and ranking.mostly_list(body)
    ordered = sorted(ranked, key=lambda item: (-counts[item[0]], not titled.get(item[0], False),
                                               not defined.get(item[0], False), listed.get(item[0], False)))
    span = max(s for _, s in ranked) - min(s for _, s in ranked) or 1.0
    return [(cid, s + counts[cid] * span) for cid, s in ordered]
