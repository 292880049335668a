"""Answer a query from the index: semantic (vectors), keyword (FTS5 BM25) or hybrid (both, fused).

A path filter narrows both halves before their top-k is taken. Every hit's file is re-checked against
the current policy before it is returned, so a deleted or newly ignored note never answers.

Ranking choices, each measured on both dev sets with benchmarks/quality.py (see `FUSION`, `NAME_POOL`):
- The unit of an answer is a section: a long section is stored as several chunks, but it is ranked
  once, at its best chunk, and answered by that chunk. Two chunks of one section would otherwise take
  two of the k places, and in hybrid each half may rank a different chunk of it and split its evidence.
- A subsection ranked just below its own parent section moves above it (`ranking.specific_first`): the
  parent's introduction shares the topic words of every subsection, the subsection holds the answer.
- A chunk that spells a name from the query verbatim (`--pre`, `GH_REPO`) outranks one that only
  matches its parts (`pre_stop`, "gh repo"): FTS5 splits identifiers into words, the user did not.
- Hybrid fuses the halves by their scores, each scaled by its own spread (DBSF, `fusion.dbsf`), not by
  rank alone: a half that is sure of its first hit outweighs one whose scores are all alike.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from typing import AbstractSet, Callable, Hashable, Sequence

import numpy as np
import pathspec

from .db import queries
from .embed import Embedder
from .errors import EmbedderError, EmbedderUnavailable
from .fusion import RRF_K, collapse, dbsf, rrf_grouped
from .ftsquery import search_match
from .indexstatus import stage_two_note
from . import ranking
from .policy import NotesPolicy
from .records import Hit, SearchResult
from .route import is_lookup, named_identifiers, route
from .store import Index, vectors_usable

log = logging.getLogger(__name__)

# Each half is searched 4*k sections deep (hybrid fuses them; a single half has room for the hits
# the policy re-check drops).
HYBRID_DEPTH_FACTOR = 4
MAX_VECTOR_FETCH = 100
# Keyword candidates looked at for a verbatim name before the top is kept, so a chunk holding the
# exact name is found even when BM25 ranks chunks full of its parts higher.
NAME_POOL = 100
# How hybrid fuses its halves: "dbsf" (distribution-based score fusion) or "rrf" (reciprocal rank
# fusion, the measured alternative kept for comparison: `benchmarks/quality.py --set search.FUSION="rrf"`).
# DBSF with the vectors at 1.2 and BM25 at 0.8 tied RRF on queries_dev.json and beat it on the httpx set
# (plain top1 44% -> 60%). The weights trade the sets: 1.0/1.0 lost a paraphrase top3 on queries_dev,
# 0.8/1.2 lost httpx's plain gain (docs/benchmarks.md).
FUSION = "dbsf"
DBSF_WEIGHTS = (1.2, 0.8)  # (semantic, keyword)
# RRF's weights: the keyword half 1.5x the semantic half, scaled to sum 2 (a chunk first in both halves
# scores 2/(k+1), as in unweighted RRF); 1.25-1.5 ranked best for RRF on queries_dev.json.
HYBRID_WEIGHTS = (0.8, 1.2)  # (semantic, keyword)


@dataclass(frozen=True)
class Query:
    text: str
    k: int = 5
    mode: str = "auto"
    paths: tuple[str, ...] = ()


def matching_file_ids(files: Sequence[tuple[int, str]], globs: Sequence[str]) -> list[int]:
    """Ids of the files whose path matches any glob (gitignore-style: `docs/`, `*.md`, `adr/**/0*.md`)."""
    spec = pathspec.GitIgnoreSpec.from_lines(globs)
    return [fid for fid, path in files if spec.match_file(path)]


def semantic_ranking(index: Index, embedder: Embedder, text: str, depth: int,
                     file_ids: Sequence[int] | None) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity) best first; a chunk's score is its best window's.

    Enough windows are fetched for `depth` sections even when some have several chunks and windows.
    """
    qvec = np.asarray(embedder.embed_query(text), dtype="<f4")
    limit = min(MAX_VECTOR_FETCH, max(4 * depth, 10))
    out: list[tuple[int, float]] = []
    seen: set[int] = set()
    nearest = index.vectors.knn(index.conn, qvec, limit, file_ids, stride=embedder.max_windows)
    if nearest is None:  # not cached (over the memory budget): sqlite-vec scans the table
        nearest = queries.vector_search(index.conn, qvec.tobytes(), limit, file_ids)
    for rowid, distance in nearest:
        cid = rowid // embedder.max_windows
        if cid not in seen:
            seen.add(cid)
            out.append((cid, 1.0 - distance))
    return out


def _verbatim(name: str) -> re.Pattern[str]:
    # Not inside a longer word or flag: `--type` must not match `--type-add`, nor `pre` match `pre_stop`.
    return re.compile(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])")


HISTORY_IN_TIER = True


def spelled_counter(names: Sequence[str]) -> Callable[[str], int]:
    """A function counting how many of `names` (case-folded) a text spells verbatim."""
    patterns = [(n, _verbatim(n)) for n in names]

    def spelled(text: str) -> int:
        hay = text.casefold()
        # The substring test first: most chunks lack the name, and the bounded regex is 10x slower.
        return sum(1 for n, p in patterns if n in hay and p.search(hay))

    return spelled


def _names_first(ranked: Sequence[tuple[int, float]], texts: dict[int, str],
                names: Sequence[str], lookup: bool = False) -> list[tuple[int, float]]:
    """`ranked` re-ordered by how many of `names` (case-folded) each chunk's text spells verbatim,
    most first; equal counts keep their order (BM25's), except that for a `lookup` a section whose
    heading trail has a heading that is one of the names comes first among equals
    (`ranking.titled_by`), and a section that is mostly a list comes after the others
    (`ranking.mostly_list`).

    Scores stay in step with the order: each name spelled adds the pool's whole BM25 range, so a
    fusion that reads scores (not only ranks) sees the verbatim tier as far above the rest."""
    if not ranked:
        return []
    spelled = spelled_counter(names)
    counts = {cid: spelled(texts.get(cid, "")) for cid, _ in ranked}
    titled: dict[int, bool] = {}
    listed: dict[int, bool] = {}
    if lookup:
        for cid, _ in ranked:
            trail, _, body = texts.get(cid, "").partition("\n")
            titled[cid] = ranking.TITLED_FIRST and ranking.titled_by(trail, names)
            listed[cid] = ranking.LISTS_LAST and ranking.mostly_list(body)
    ordered = sorted(ranked, key=lambda item: (-counts[item[0]], not titled.get(item[0], False),
                                               listed.get(item[0], False)))
    span = max(s for _, s in ranked) - min(s for _, s in ranked) or 1.0
    return [(cid, s + counts[cid] * span) for cid, s in ordered]


def keyword_ranking(index: Index, text: str, depth: int, file_ids: Sequence[int] | None,
                    vocabulary: AbstractSet[str] = frozenset()) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) best first, chunks spelling the query's names verbatim first."""
    match = search_match(text)
    if match is None:
        return []
    names = named_identifiers(text, vocabulary)
    pool = max(2 * depth, NAME_POOL) if names else 2 * depth
    ranked = queries.keyword_search(index.conn, match, pool, file_ids)
    if names and ranked:
        ranked = _names_first(ranked, queries.chunk_texts(index.conn, [cid for cid, _ in ranked]), names,
                              lookup=is_lookup(text))
    return ranked


def _by_section(index: Index, *rankings: list[tuple[int, float]]) -> Callable[[tuple[int, float]], Hashable]:
    """The grouping key of a ranked chunk: its section (file, heading trail)."""
    keys = queries.section_keys(index.conn, sorted({cid for r in rankings for cid, _ in r}))
    return lambda item: keys.get(item[0], ("chunk", item[0]))


class _PolicyCheck:
    """Re-checks a hit's file against the current policy and the disk, once per path per search."""

    def __init__(self, policy: NotesPolicy) -> None:
        self.policy = policy
        self.cache: dict[str, bool] = {}

    def ok(self, path: str) -> bool:
        if path not in self.cache:
            admitted = self.policy.file_skip_reason(path) is None
            self.cache[path] = admitted and os.path.isfile(self.policy.root / path)
        return self.cache[path]


def search(index: Index, policy: NotesPolicy, embedder: Embedder, q: Query,
           vocabulary: AbstractSet[str] = frozenset()) -> SearchResult:
    """Run one query. Never loads the model for a keyword search or an empty index.

    `auto` asks `route` (with the embedder's kind): a lookup runs keyword (and hybrid only if BM25
    finds nothing), a question what the embedder's measured rule says (hybrid for the local model). `vocabulary` (the repo's names) marks query words to be matched verbatim, like identifiers.
    """
    text = q.text.strip()
    mode = route(text, vocabulary, embedder.id) if q.mode == "auto" else q.mode
    if not text:
        return SearchResult([], mode, ["the query is empty: ask a question or name what you look for"])
    if search_match(text) is None:
        # Only punctuation or symbols: the vectors would still rank something, but nothing it means.
        return SearchResult([], mode, ["the query has no searchable words (only punctuation or symbols): "
                                       "ask a question or name what you look for"])
    if not queries.has_chunks(index.conn):
        return SearchResult([], mode, ["the index is empty: no Markdown notes are indexed in this folder yet"])
    file_ids: list[int] | None = None
    if q.paths:
        file_ids = matching_file_ids(queries.file_paths(index.conn), q.paths)
        if not file_ids:
            return SearchResult([], mode, [f"the path filter {list(q.paths)} matches no indexed note; "
                                           "drop it or use a glob such as 'docs/**'"])
    notes: list[str] = []
    usable = vectors_usable(index, embedder.id, embedder.dimensions, embedder.max_windows)
    if mode in ("semantic", "hybrid") and not usable:
        notes.append("vectors are missing or from another embedder until the next sync: keyword results only")
        mode = "keyword"
    # Stage two of a sync may still be embedding: keyword covers every chunk, the vectors only some.
    # `auto` then answers by keyword alone (a fusion would favour the chunks that have vectors over
    # those that do not yet); a mode asked for by name uses the vectors there are.
    vectors = queries.vector_progress(index.conn)
    stage = stage_two_note(vectors.embedded, vectors.total)
    if stage is not None:
        notes.append(stage)
        if q.mode == "auto":
            mode = "keyword"
        usable = usable and vectors.embedded > 0

    depth = q.k * HYBRID_DEPTH_FACTOR
    kw: list[tuple[int, float]] | None = None
    if mode == "keyword":
        kw = keyword_ranking(index, text, depth, file_ids, vocabulary)
        if not kw and q.mode == "auto" and usable:
            mode = "hybrid"  # a lookup the notes never spell: the vectors may still know its topic
    ranked: list[tuple[int, float]]
    if mode == "keyword":
        kw = kw or []
        section = _by_section(index, kw)
        ranked = collapse(kw, section)[:depth]
    elif mode == "semantic":
        try:
            sem = semantic_ranking(index, embedder, text, depth, file_ids)
        except EmbedderUnavailable as exc:  # the API is down: answer from BM25 and say so (see below)
            notes.append(f"keyword results only: {exc}")
            mode, sem = "keyword", keyword_ranking(index, text, depth, file_ids, vocabulary)
        section = _by_section(index, sem)
        ranked = collapse(sem, section)[:depth]
    else:
        try:
            sem = semantic_ranking(index, embedder, text, depth, file_ids)
        except EmbedderError as exc:
            # An unreachable API is passing weather: every mode answers from BM25 and says so. A broken
            # model or a refused key needs a fix: a mode the user chose says exactly that; auto, which
            # promised an answer, falls back and says why.
            if q.mode != "auto" and not isinstance(exc, EmbedderUnavailable):
                raise
            notes.append(f"keyword results only: {exc}")
            mode, sem = "keyword", []
        if kw is None:
            kw = keyword_ranking(index, text, depth, file_ids, vocabulary)
        section = _by_section(index, sem, kw)
        halves = [collapse(sem, section)[:depth], collapse(kw, section)[:depth]]
        if FUSION == "dbsf":
            ranked = dbsf(halves, lambda cid: section((cid, 0.0)), DBSF_WEIGHTS)
        else:
            ranked = [(cid, score) for (cid, _), score in rrf_grouped(halves, section, k=RRF_K, weights=HYBRID_WEIGHTS)]
        if mode == "keyword":  # fell back: rank by BM25 alone, not by a fusion with an empty half
            ranked = halves[1]
    rows = queries.chunk_rows(index.conn, [cid for cid, _ in ranked])
    # A changelog entry names the feature it changed, so it matches a how-to question as well as the page
    # documenting it, but answers "when". For a query naming something it only yields to hits that spell
    # as many of the names: a changelog may be the only note that spells a name.
    history = {cid for cid, row in rows.items() if ranking.is_history_file(row.path)}
    if history and ranking.HISTORY_DEMOTE and not ranking.asks_about_releases(text):
        in_history = lambda item: item[0] in history  # noqa: E731
        names = named_identifiers(text, vocabulary)
        if not names:
            ranked = ranking.history_later(ranked, in_history, ranking.HISTORY_DEMOTE)
        elif HISTORY_IN_TIER:
            spelled = spelled_counter(names)
            tiers = {cid: spelled(row.text) for cid, row in rows.items()}  # each text read once
            ranked = ranking.history_later_in_tier(ranked, in_history, lambda item: tiers.get(item[0], 0),
                                                   ranking.HISTORY_DEMOTE)
    # After the histories have moved: a subsection "close behind" its parent is counted among the hits
    # that stay, so changelog entries demoted from between them no longer hide it (measured: one more
    # plain top1 on the starlette set, the others unchanged).
    ranked = ranking.specific_first(ranked, section, ranking.SPECIFIC_WINDOW)
    check = _PolicyCheck(policy)
    hits: list[Hit] = []
    for cid, score in ranked:
        row = rows.get(cid)
        if row is None or not check.ok(row.path):
            continue
        hits.append(Hit(path=row.path, heading=row.heading, start_line=row.start_line, end_line=row.end_line,
                        score=round(float(score), 6), text=row.text))
        if len(hits) == q.k:
            break
    if not hits:
        notes.append("no note matches this query" + (" within the path filter" if q.paths else "")
                     + ("; try other words or --mode semantic" if mode == "keyword" else "; try other words"))
    return SearchResult(hits, mode, notes)
