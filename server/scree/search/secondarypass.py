"""The notes an agent reads only where the others leave places, searched after them (`notes/secondary.py`): a
Docusaurus site's copies of its docs for past releases, the notes of test folders, agents' instruction files.

`search` runs `search.search` over the other notes first (inside any `within` the languages give it), and over these
only for the places left, one hit per section across a page's versions. Which notes they are is read once per change
of the index (`Index.memo`, keyed by `queries.data_version`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import AbstractSet, Sequence

from ..db import queries
from ..embed import Embedder
from ..index.store import Index
from ..notes import secondary
from ..notes.policy import NotesPolicy
from ..records import FileScope, FilesExcept, SearchResult
from . import search as single
from .search import Query

MAX_K = 100  # the most places a pass over part of the notes asks for (here, and `languages`)
# Remarks of a pass that found nothing: dropped when another pass found something.
NOTHING_FOUND = ("no note matches", "no note contains")
# The second pass asks for this many times the places left, as each section may come in several versions.
COPY_DEPTH = 4


def search(index: Index, policy: NotesPolicy, embedder: Embedder, q: Query,
           vocabulary: AbstractSet[str] = frozenset(), within: FileScope | None = None,
           unread: bool = False) -> SearchResult:
    """`search.search` over the notes, then, for the places they leave free, over those an agent reads only there: a
    Docusaurus site's copies of its docs for past releases (a version the query names is searched with the current
    docs), the notes of test folders and agents' instructions (`notes/secondary.py`)."""
    try:
        later = secondary.later_of(_secondary_groups(index), q.text)
    except index.driver.Error:  # an index from before languages (schema 5), read as it is
        later = set()
    if not later:
        return single.search(index, policy, embedder, q, vocabulary, within, unread)
    # the other notes as all but these (`FilesExcept`: the short list is bound), or as a languages' list narrowed
    if within is None:
        current: FileScope = FilesExcept(frozenset(later))
    else:
        current = [f for f in within if f not in later] if not isinstance(within, FilesExcept) else \
            FilesExcept(within.ids | later)
    first = single.search(index, policy, embedder, q, vocabulary, current, unread) if current else None
    if first is not None and len(first.hits) >= q.k:
        return first
    copies = sorted(later if within is None else (f for f in later if f in within))
    # in the mode the other notes were answered in: a lookup they answered by its spelling is not filled with the
    # vectors' nearest fixtures
    mode = first.mode if first is not None and first.hits else q.mode
    deeper = replace(q, k=min(MAX_K, q.k * COPY_DEPTH), mode=mode)
    second = single.search(index, policy, embedder, deeper, vocabulary, copies, unread)
    if first is None:
        first = replace(second, hits=[])
    hits = [*first.hits, *secondary.one_per_section(second.hits, lambda h: (h.path, h.heading))]
    hits = hits[:q.k]
    notes = [n for n in first.notes if not (hits and n.startswith(NOTHING_FOUND))]
    notes += [n for n in second.notes if n not in notes and not (hits and n.startswith(NOTHING_FOUND))]
    return SearchResult(hits, first.mode if first.hits else second.mode, notes)


def _secondary_groups(index: Index) -> tuple[frozenset[int], dict[str, frozenset[int]]]:
    """The notes searched after the others (`secondary.later_groups`: test folders' notes, agents' instructions,
    versioned copies by version): read once per change of the index, a scan of its files (1.4 ms at 13,000 notes)
    being more than the rest of a lookup's work there, and grouped so a query only checks each version it might
    name."""
    version = queries.data_version(index.conn)
    kept = index.memo.get(_SECONDARY_GROUPS)
    if kept is not None and kept[0] == version:
        return kept[1]  # type: ignore[no-any-return]
    groups = secondary.later_groups(queries.files_with_marks(index.conn, secondary.PATH_MARKS))
    index.memo[_SECONDARY_GROUPS] = (version, groups)
    return groups


_SECONDARY_GROUPS = "secondary_groups"
