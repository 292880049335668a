"""A chunk's paragraphs, embedded beside the chunk as a whole.

A chunk's vector is the mean of its tokens, so a 2 KB section about a tool's options is a blur of all of
them, and a question about one option matches it no better than a section that mentions the tool in
passing. Each chunk is therefore also embedded in pieces: its paragraphs grouped into runs of at least
`PIECE_CHARS` characters (about 70 words; a piece averages about 100, the passage size of dense passage
retrieval), each read with the chunk's header. A piece's vectors are extra windows of the chunk, so a
chunk scores at its best window, whole or piece (`search.semantic_ranking`), and the store, the
rowid stride and the section collapse need no new concept. Measured on both dev sets (docs/benchmarks.md):
semantic-mode top1 on paraphrases 35% -> 50% and 68% -> 72%; replacing the whole-chunk windows by the
pieces instead lost on mixed questions, so both are kept.

A chunk short enough to be one piece has no pieces: its own window already is one.

A chunk longer than one model window (`PIECES_ONLY_CHARS`, when set) can be read in its pieces only. Its whole text
would be cut into 256-token windows anyway, partial views like the pieces but cut mid-paragraph, and
dropping those windows saves 36% of the tokens the bench corpus embeds (docs/benchmarks.md, "Throughput").
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .base import Embedder, Passage

__all__ = ["PIECE_CHARS", "embed_with_pieces", "pieces_of", "sent_texts", "with_pieces"]

PIECE_CHARS = 400
# About one 256-token window of prose (~4 characters a token, less the header): a body longer than this
# is windowed by the model, so its pieces stand in for it. 0 keeps every chunk's whole text too.
PIECES_ONLY_CHARS = 0  # off until measured on every dev set: 1000 is the candidate (docs/benchmarks.md)


def pieces_of(body: str, min_chars: int = PIECE_CHARS) -> list[str]:
    """`body` (an embedded view: paragraphs separated by one blank line) as runs of whole paragraphs of at
    least `min_chars` characters, and the remainder. [] when that makes fewer than two pieces."""
    paragraphs = [p.strip() for p in body.split("\n\n") if p.strip()]
    pieces: list[str] = []
    run: list[str] = []
    size = 0
    for p in paragraphs:
        run.append(p)
        size += len(p) + (2 if size else 0)
        if size >= min_chars:
            pieces.append("\n\n".join(run))
            run, size = [], 0
    if run:
        pieces.append("\n\n".join(run))
    return pieces if len(pieces) >= 2 else []


def with_pieces(passage: Passage) -> list[Passage]:
    """What the embedder reads for `passage`: the passage itself, then each of its pieces under the same
    header; a body longer than `PIECES_ONLY_CHARS` only as its pieces. The one definition both
    embedding and doctor's cost estimate (`sent_texts`) use."""
    pieces = [Passage(passage.header, piece) for piece in pieces_of(passage.body)]
    if pieces and PIECES_ONLY_CHARS and len(passage.body) > PIECES_ONLY_CHARS:
        return pieces
    return [passage, *pieces]


def embed_with_pieces(embedder: Embedder, passages: Sequence[Passage],
                      should_stop: Callable[[], bool] | None = None) -> list[np.ndarray]:
    """Like `embedder.embed_passages`, with each passage's pieces (`with_pieces`) appended to its windows, up
    to the embedder's `max_windows`. One embed call for everything, so batching stays the embedder's."""
    expanded: list[Passage] = []
    owners: list[int] = []
    for i, p in enumerate(passages):
        parts = with_pieces(p)
        expanded.extend(parts)
        owners.extend([i] * len(parts))
    if not expanded:
        return []
    # Only a caller that can stop passes `should_stop` on, so a plain embedder need not take it.
    vectors = embedder.embed_passages(expanded, **({} if should_stop is None else {"should_stop": should_stop}))
    per_passage: list[list[np.ndarray]] = [[] for _ in passages]
    for owner, v in zip(owners, vectors):
        per_passage[owner].append(v)
    cap = embedder.max_windows
    return [np.concatenate(p, axis=0)[:cap] for p in per_passage]


def sent_texts(passage: Passage) -> list[str]:
    """Every text the embedder reads for `passage` (what an embeddings API is sent and bills)."""
    return [p.text for p in with_pieces(passage)]
