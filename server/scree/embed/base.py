"""The embedding interface: what the indexer and the search layer may rely on.

Kept free of heavy imports (only numpy) so that importing it never loads a model
runtime: keyword-only searches and no-op syncs must stay cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol, Sequence, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class Passage:
    """One chunk as the embedder sees it.

    The text embedded is ``f"{header}\\n\\n{body}"`` where ``header`` is
    ``f"{path}\\n{trail}"``. Header and body are separate so that a long body
    split into several windows repeats the header in every window.
    """

    header: str
    body: str

    @property
    def text(self) -> str:
        """The whole passage as one string (what a single-window embedding reads)."""
        return f"{self.header}\n\n{self.body}"


@runtime_checkable
class Embedder(Protocol):
    """A text embedder. Every vector it returns is float32 and L2-normalised (cosine = dot product).

    ``id`` names the model and every setting that changes vectors; an index built
    under another id must be re-embedded. ``max_windows`` bounds the windows of one
    passage, because the store encodes a vector's rowid as
    ``chunk_id * max_windows + window``.
    """

    id: str
    dimensions: int
    max_windows: int
    # Optional (read with `readable_languages`): the languages the model reads, as language codes
    # (`{"en"}` for the local model), or None when it reads any. Notes in other languages are not embedded.

    def embed_passages(self, passages: Sequence[Passage], should_stop: Callable[[], bool] | None = None,
                       ) -> list[np.ndarray]:
        """One ``(n_windows, dimensions)`` float32 array per passage, ``1 <= n_windows <= max_windows``.

        ``should_stop`` (a stop request: a server or watcher shutting down) is checked between model
        batches or requests; once it is true the call raises `scree.errors.EmbedStopped` and returns
        nothing, so a stop never waits for the rest of a large call."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """A ``(dimensions,)`` float32 vector for a search query."""
        ...

    def close(self) -> None:
        """Free the model (its memory returns); a later embed call may load it again."""
        ...

    def trim(self) -> None:
        """Return spare working memory to the OS but keep the model loaded (after a sync)."""
        ...


def readable_languages(embedder: object) -> frozenset[str] | None:
    """The languages `embedder` declares it reads (its `languages`), None for any: an embedder that declares
    nothing is taken at its word that it reads whatever it is given."""
    languages = getattr(embedder, "languages", None)
    return None if languages is None else frozenset(languages)
