"""Answer a query from the index: semantic (vectors), keyword (FTS5 BM25) or hybrid (RRF of both).

A path filter narrows both halves before their top-k is taken. Every hit's file is re-checked against
the current policy before it is returned, so a deleted or newly ignored note never answers.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import AbstractSet, Sequence

import numpy as np
import pathspec

from .db import queries
from .embed import Embedder
from .fusion import RRF_K, rrf
from .ftsquery import to_match
from .policy import NotesPolicy
from .records import Hit, SearchResult
from .route import route
from .store import Index, vectors_usable

log = logging.getLogger(__name__)

HYBRID_DEPTH_FACTOR = 4  # each half of a hybrid search is searched 4*k deep before fusion
MAX_VECTOR_FETCH = 100


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
    """(chunk id, cosine similarity) best first; a chunk's score is its best window's."""
    qvec = np.asarray(embedder.embed_query(text), dtype="<f4").tobytes()
    limit = min(MAX_VECTOR_FETCH, max(2 * depth, 10))
    out: list[tuple[int, float]] = []
    seen: set[int] = set()
    for rowid, distance in queries.vector_search(index.conn, qvec, limit, file_ids):
        cid = rowid // embedder.max_windows
        if cid not in seen:
            seen.add(cid)
            out.append((cid, 1.0 - distance))
    return out[:depth]


def keyword_ranking(index: Index, text: str, depth: int, file_ids: Sequence[int] | None) -> list[tuple[int, float]]:
    match = to_match(text)
    if match is None:
        return []
    return queries.keyword_search(index.conn, match, depth, file_ids)


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
    """Run one query. Never loads the model for a keyword search or an empty index."""
    text = q.text.strip()
    mode = route(text, vocabulary) if q.mode == "auto" else q.mode
    if not text:
        return SearchResult([], mode, ["the query is empty: ask a question or name what you look for"])
    counts = queries.counts(index.conn)
    if counts.chunks == 0:
        return SearchResult([], mode, ["the index is empty: no Markdown notes are indexed in this folder yet"])
    file_ids: list[int] | None = None
    if q.paths:
        file_ids = matching_file_ids(queries.file_paths(index.conn), q.paths)
        if not file_ids:
            return SearchResult([], mode, [f"the path filter {list(q.paths)} matches no indexed note; "
                                           "drop it or use a glob such as 'docs/**'"])
    notes: list[str] = []
    if mode in ("semantic", "hybrid") and not vectors_usable(index, embedder.id, embedder.dimensions):
        notes.append("vectors are missing or from another embedder until the next sync: keyword results only")
        mode = "keyword"

    depth = q.k * (HYBRID_DEPTH_FACTOR if mode == "hybrid" else 2)
    ranked: list[tuple[int, float]]
    if mode == "keyword":
        ranked = keyword_ranking(index, text, depth, file_ids)
    elif mode == "semantic":
        ranked = semantic_ranking(index, embedder, text, depth, file_ids)
    else:
        sem = semantic_ranking(index, embedder, text, depth, file_ids)
        kw = keyword_ranking(index, text, depth, file_ids)
        ranked = rrf([[c for c, _ in sem], [c for c, _ in kw]], k=RRF_K)

    rows = queries.chunk_rows(index.conn, [cid for cid, _ in ranked])
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
