"""A question's own entries: the sections titled by the identifiers a question names, kept among its first answers.

A question naming `LogfmtRenderer` is often answered by the guides that use the name, and the fused order puts them
first; the section that defines the name (autodoc's `structlog.processors.LogfmtRenderer`) must not be left out of
sight below them (issue 38). A lookup's entries are `names.names_first`'s, a dotted name's `names.dotted_entries`'.
"""

from __future__ import annotations

from typing import AbstractSet, Callable, Sequence

from ..db import queries
from ..index.store import Index
from . import names
from .route import EDGE_PUNCT, looks_like_identifier, named_identifiers
from ..records import FileScope


# A question naming an identifier that a heading titles (`LogfmtRenderer`: autodoc's
# `structlog.processors.LogfmtRenderer`; `json_path` under `ValidationError`) has that entry among its first three
# answers: the fused order may put the guides that use the name first (a question's name may be context), but the
# section that defines it is not left below them. Third, not first: which of a guide and an entry a question asks for
# is the labellers' habit (docs/benchmarks.md). Measured (docs/benchmarks.md): questionentries.PLACE.
PLACE = 3


def question_entries(index: Index, query: str, vocabulary: AbstractSet[str], limit: int,
                     file_ids: FileScope | None) -> list[int]:
    """One chunk id per section titled by each undotted identifier a question spells (`route.looks_like_identifier`,
    as typed: `LogfmtRenderer`, `json_path`), by the name alone or qualified by its modules (`names.entry_of`); a
    name with more than `names.ENTRY_MAX_SECTIONS` such sections gives none."""
    out: list[int] = []
    typed = [w.strip(EDGE_PUNCT) for w in query.split()]
    for name in named_identifiers(query, vocabulary):
        word = next((t for t in typed if t.casefold() == name), "")
        if not word or "." in word or not looks_like_identifier(word):
            continue
        sections: dict[tuple[int, str], int] = {}
        words = names.HEADING_WORDS.findall(word)
        for cid, fid, trail in queries.headed_chunks(index.conn, words, limit, file_ids):
            if (fid, trail) not in sections and names.entry_of(trail, word):
                sections[(fid, trail)] = cid
        if sections and names.STUB_PAGES_UNPINNED:
            texts = queries.chunk_texts(index.conn, list(sections.values()))
            sections = {key: cid for key, cid in sections.items()
                        if not names.on_stub_page(key[1], texts.get(cid, ""))}
        if 0 < len(sections) <= names.ENTRY_MAX_SECTIONS:
            out += [cid for cid in sections.values() if cid not in out]
    return out


def entries_within(ranked: Sequence[tuple[int, float]], entries: Sequence[int], place: int,
                   section: Callable[[tuple[int, float]], object]) -> list[tuple[int, float]]:
    """`ranked` with each of the `entries`' sections that ranks below `place` (1-based) moved up to it, in the entries'
    order, each at its best-ranked chunk; the sections above keep theirs. Scores stay in step with the order."""
    if not entries or not ranked or place < 1:
        return list(ranked)
    wanted = {section((cid, 0.0)) for cid in entries}
    head = list(ranked[:place - 1])
    seen = {section(item) for item in head}
    lifted: list[tuple[int, float]] = []
    rest: list[tuple[int, float]] = []
    for item in ranked[place - 1:]:
        key = section(item)
        if key in wanted and key not in seen:
            seen.add(key)
            lifted.append(item)
        else:
            rest.append(item)
    if not lifted:
        return list(ranked)
    top = max(s for _, s in ranked[place - 1:])
    return head + [(cid, top) for cid, _ in lifted] + rest
