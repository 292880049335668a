"""A long query's vector computed before the index is taken (`embedded_ahead`), so a model pass that is most of a
search's cost does not hold up every search queued behind it (`live.py` calls it outside the index lock)."""

from __future__ import annotations

from typing import cast

import numpy as np

from ..embed import Embedder
from . import expansion
from .route import is_lookup
from .search import Query, cap_query


# A query at least this long is embedded before the index is taken (`embedded_ahead`): its window
# is then full and the model's pass is most of its cost, which would otherwise hold up every search
# queued behind it. Shorter queries embed in a few ms, where they always did.
EMBED_AHEAD_CHARS = 500


class _EmbeddedAhead:
    """The embedder, answering one query text's `embed_query` with what was computed ahead (a vector
    or the exception the embedder raised, so a failure is reported exactly as it was)."""

    def __init__(self, embedder: Embedder, text: str, vector: np.ndarray | None, error: Exception | None) -> None:
        self._embedder, self._text, self._vector, self._error = embedder, text, vector, error

    def embed_query(self, text: str) -> np.ndarray:
        if text != self._text:
            return self._embedder.embed_query(text)
        if self._error is not None:
            raise self._error
        assert self._vector is not None
        return self._vector

    def __getattr__(self, name: str) -> object:
        return getattr(self._embedder, name)


def embedded_ahead(embedder: Embedder, q: Query) -> Embedder:
    """`embedder`, or for a long query that will need its vector, a view of it holding that vector.

    Only with the local model already loaded (nothing loads, nothing is sent to an API that search
    might not have asked), and only for a mode that embeds: a lookup in `auto` runs keyword first.
    """
    text = cap_query(q.text)[0].strip()
    if q.mode == "keyword" or (q.mode == "auto" and is_lookup(text)):
        return embedder
    guess = cap_query(q.expected_answer, expansion.MAX_GUESS_CHARS)[0].strip()
    if expansion.applies(text, guess):  # what the semantic half will embed: the question with the guess
        text = expansion.embedded_text(text, guess)
    if len(text) < EMBED_AHEAD_CHARS or getattr(embedder, "loaded", False) is not True:
        return embedder
    try:
        vector, error = embedder.embed_query(text), None
    except Exception as exc:  # noqa: BLE001 - raised again, unchanged, where search asks for the vector
        vector, error = None, exc
    return cast(Embedder, _EmbeddedAhead(embedder, text, vector, error))
