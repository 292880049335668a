"""Synthetic notes and indexes for the benchmarks (not used by the product).

Words are drawn from a fixed vocabulary with a Zipf-like spread, so BM25 sees realistic term
frequencies; vectors are random unit vectors, so the KNN scan costs what a real one costs.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

WORDS = ("retention backup token deploy release cluster config schema migration index query cache worker "
         "queue lock writer reader watcher chunk embed vector search keyword hybrid folder policy ignore "
         "symlink sqlite table column metric alert rule scrape target label series service volume network "
         "secret image build compose cargo crate package manifest feature profile test bench docs note "
         "heading section trail window model thread batch memory latency throughput error retry timeout").split()


def sentence(rng: random.Random, n: int = 12) -> str:
    words = [WORDS[min(int(rng.paretovariate(1.2)) - 1, len(WORDS) - 1)] if rng.random() < 0.5
             else rng.choice(WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."


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


def fill_index(index, chunks: int, dimensions: int, max_windows: int, seed: int = 7, per_file: int = 10) -> None:
    """Write `chunks` synthetic chunks with random unit vectors straight through the store's writer."""
    from scree.db import writes
    from scree.records import Chunk

    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    for f in range(0, chunks, per_file):
        n = min(per_file, chunks - f)
        cs = [Chunk(heading=f"Note {f} > Part {j}", text=" ".join(sentence(rng) for _ in range(5)),
                    start_line=1 + 10 * j, end_line=9 + 10 * j) for j in range(n)]
        vecs = nprng.standard_normal((n, dimensions)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        version = writes.FileVersion(path=f"synthetic/f{f:07}.md", sha256=f"{f:064x}", mtime_ns=0, size=0, title=None)
        writes.replace_file(index.conn, version, cs, [v[None, :] for v in vecs], max_windows)
