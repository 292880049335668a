"""Synthetic notes and indexes for the benchmarks (not used by the product).

Words follow Zipf's law over a vocabulary of 20,000 terms (the bench corpus of real docs already has
7,400 distinct FTS terms in 1,600 chunks, and vocabularies grow with size), so BM25 sees realistic
posting lists: a handful of very common words and a long tail. Vectors are random unit vectors, so the KNN scan costs what a real one
costs.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np

WORDS = ("retention backup token deploy release cluster config schema migration index query cache worker "
         "queue lock writer reader watcher chunk embed vector search keyword hybrid folder policy ignore "
         "symlink sqlite table column metric alert rule scrape target label series service volume network "
         "secret image build compose cargo crate package manifest feature profile test bench docs note "
         "heading section trail window model thread batch memory latency throughput error retry timeout").split()


def _pseudo_word(i: int) -> str:
    consonants, vowels = "bcdfghklmnprstvz", "aeiou"
    out = []
    while True:
        out.append(consonants[i % 16] + vowels[(i // 16) % 5])
        i //= 80
        if i == 0:
            return "".join(out)


VOCABULARY = WORDS + [_pseudo_word(i) + "x" for i in range(20_000 - len(WORDS))]
_ZIPF_CUMULATIVE = list(itertools.accumulate(1.0 / (rank + 1) ** 1.07 for rank in range(len(VOCABULARY))))


def words(rng: random.Random, n: int) -> list[str]:
    return rng.choices(VOCABULARY, cum_weights=_ZIPF_CUMULATIVE, k=n)


def sentence(rng: random.Random, n: int = 12) -> str:
    return " ".join(words(rng, n)).capitalize() + "."


def note(rng: random.Random, sections: int = 4) -> str:
    parts = [f"# {rng.choice(WORDS).title()} {rng.choice(WORDS)}\n"]
    for s in range(sections):
        parts.append(f"## {rng.choice(WORDS).title()} {s}\n")
        parts.append(" ".join(sentence(rng) for _ in range(rng.randint(2, 6))) + "\n")
    return "\n".join(parts)


def write_corpus(root: Path, files: int, seed: int = 7, sections: int = 4) -> Path:
    rng = random.Random(seed)
    for i in range(files):
        p = root / f"d{i % 20:02}" / f"note{i:05}.md"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(note(rng, sections), encoding="utf-8")
    return root


def fill_index(index, chunks: int, dimensions: int, max_windows: int, seed: int = 7, per_file: int = 10,
               windows: int = 1) -> None:
    """Write `chunks` synthetic chunks with `windows` random unit vectors each straight through the store's
    writer (a real index averages about 2.6 windows per chunk: whole-chunk windows and paragraph pieces)."""
    from scree.db import writes
    from scree.records import Chunk

    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    for f in range(0, chunks, per_file):
        n = min(per_file, chunks - f)
        cs = [Chunk(heading=f"Note {f} > Part {j}", text=" ".join(sentence(rng) for _ in range(5)),
                    start_line=1 + 10 * j, end_line=9 + 10 * j) for j in range(n)]
        vecs = nprng.standard_normal((n, windows, dimensions)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=2, keepdims=True)
        version = writes.FileVersion(path=f"synthetic/f{f:07}.md", sha256=f"{f:064x}", mtime_ns=0, size=0, title=None)
        writes.replace_file(index.conn, version, cs, list(vecs), max_windows)
