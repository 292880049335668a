"""A deterministic fake embedder for tests that do not rank (test-only; never shipped, never configured).

Each vector is a signed hash of the passage's lowercased words (feature hashing), L2-normalised: the
same text always gives the same vector in every process, texts that share words point the same way,
and nothing is loaded. It implements the whole `scree.embed.Embedder` protocol, including windows
(a long body is cut into windows of WINDOW_WORDS words, each repeating the header, at most
`max_windows`), `trim` and `close`, and counts calls so tests can see what the indexer did.

In-process tests get it from the `embedder` fixture in conftest.py. Subprocesses (CLI, `scree serve`,
live runners) get it through two environment variables that conftest sets for every test:
`SCREE_TEST_EMBEDDER=<this file>` registers the name `fake` (see scree/embed/__init__.py) and
`SCREE_EMBEDDER=fake` selects it. Only numpy is imported, so no subprocess loads onnxruntime.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from typing import Callable, Sequence

import numpy as np

NAME = "fake"  # the name SCREE_EMBEDDER selects once SCREE_TEST_EMBEDDER points at this file
ID = "fake:hashed-words:v1"  # never a prefix of the local model's id ("local:...")
DIMENSIONS = 256
MAX_WINDOWS = 8
WINDOW_WORDS = 120

#: For a test that kills a process in the middle of a sync: after this many embed_passages calls
#: the next one blocks for good, so the kill lands mid-sync however fast the machine is.
HANG_AFTER_ENV = "SCREE_FAKE_EMBEDDER_HANG_AFTER"
#: Seconds each passage takes, for a test that needs a stage two long enough to act during it; `should_stop`
#: is honoured between passages, as the model honours it between batches.
SECONDS_PER_PASSAGE_ENV = "SCREE_FAKE_EMBEDDER_SECONDS_PER_PASSAGE"

_WORD = re.compile(r"\w+")


def _word_slot(word: str) -> tuple[int, float]:
    digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % DIMENSIONS, (1.0 if value >> 63 else -1.0)


def hashed_vector(text: str) -> np.ndarray:
    """The unit vector of `text`: signed word counts in DIMENSIONS slots; no words -> the first axis."""
    vec = np.zeros(DIMENSIONS, dtype=np.float32)
    for word in _WORD.findall(text.lower()):
        slot, sign = _word_slot(word)
        vec[slot] += sign
    norm = float(np.linalg.norm(vec))
    if norm == 0.0:
        vec[0] = 1.0
        return vec
    return (vec / norm).astype(np.float32)


class FakeEmbedder:
    """Feature-hashed bag of words; implements `scree.embed.Embedder` without a model."""

    id: str = ID
    dimensions: int = DIMENSIONS
    max_windows: int = MAX_WINDOWS
    languages: frozenset[str] = frozenset({"en"})  # as the local model declares: other languages stay keyword-only

    def __init__(self, *, threads: int | None = None) -> None:
        self.threads = threads
        self._lock = threading.Lock()
        self._loaded = False
        self.passage_calls = 0  # embed_passages calls
        self.passages = 0  # passages embedded in all
        self.queries = 0
        self.closes = 0
        self.trims = 0
        hang = os.environ.get(HANG_AFTER_ENV)
        self._hang_after = int(hang) if hang else None
        self._pace = float(os.environ.get(SECONDS_PER_PASSAGE_ENV) or 0)

    @property
    def loaded(self) -> bool:
        """True between the first embed call and close(), like the local model's."""
        return self._loaded

    def embed_passages(self, passages: Sequence[object], should_stop: Callable[[], bool] | None = None,
                       ) -> list[np.ndarray]:
        with self._lock:
            self.passage_calls += 1
            self.passages += len(passages)
            if passages:
                self._loaded = True
            hang = self._hang_after is not None and self.passage_calls > self._hang_after
        if hang:
            threading.Event().wait()  # until the test kills this process
        out = []
        for p in passages:
            if should_stop is not None and should_stop():  # as the model does between its batches
                from scree.errors import EmbedStopped

                raise EmbedStopped()
            if self._pace:
                threading.Event().wait(self._pace)
            header, body = p.header, p.body  # type: ignore[attr-defined]
            words = body.split()
            parts = [" ".join(words[i:i + WINDOW_WORDS]) for i in range(0, len(words), WINDOW_WORDS)]
            parts = parts[:MAX_WINDOWS] or [""]
            out.append(np.stack([hashed_vector(f"{header}\n\n{part}") for part in parts]))
        return out

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            self.queries += 1
            self._loaded = True
        return hashed_vector(text)

    def close(self) -> None:
        with self._lock:
            self.closes += 1
            self._loaded = False

    def trim(self) -> None:
        with self._lock:
            self.trims += 1


def make_embedder(threads: int | None = None) -> FakeEmbedder:
    """The factory scree.embed calls for the name `fake` (same signature as its own factories)."""
    return FakeEmbedder(threads=threads)
