"""Warm query latency (p50/p95) of keyword, semantic and hybrid search at 10k and 100k chunks.

    uv run --frozen python benchmarks/query_latency.py [--sizes 10000 100000] [--queries 50] [--guess-words 30]

The index is synthetic (random unit vectors, generated text) but goes through the real store,
real sqlite-vec and FTS5, and the real model for query embeddings. Built indexes are cached under
benchmarks/out/ so a second run measures only the queries.

`--guess-words N` also times each mode with the caller's guess at the answer (`expected_answer`, issue 28)
of N words; the queries then end with "?" (a lookup ignores a guess), in the rows without a guess too.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import VOCABULARY, fill_index  # noqa: E402

from scree.config import load_config  # noqa: E402
from scree.embed import make_embedder  # noqa: E402
from scree.locate import IndexLocation  # noqa: E402
from scree.notes.policy import NotesPolicy  # noqa: E402
from scree.search.search import Query, search  # noqa: E402
from scree.index.store import ensure_embedder, open_index  # noqa: E402
from scree.db import queries  # noqa: E402


def build(size: int, out: Path, embedder, windows: int) -> tuple:
    folder = (out / f"folder-{size}").resolve()
    (folder / "synthetic").mkdir(parents=True, exist_ok=True)
    name = f"synthetic-v3-{size}x{windows}"
    db = out / f"{name}.db"
    loc = IndexLocation(dir=out, db=db, lock=out / f"{name}.lock", root_file=out / f"{name}.root")
    index = open_index(loc, folder)
    ensure_embedder(index, embedder.id, embedder.dimensions, embedder.max_windows)
    have = queries.counts(index.conn).chunks
    if have != size:
        t = time.perf_counter()
        fill_index(index, size, embedder.dimensions, embedder.max_windows, windows=windows)
        print(f"  built {size} synthetic chunks in {time.perf_counter() - t:.1f}s", file=sys.stderr)
    # Hits are re-checked against the disk: make the synthetic files exist (empty is enough).
    for _, path in queries.file_paths(index.conn):
        p = folder / path
        if not p.exists():
            p.touch()
    return index, NotesPolicy.load(folder)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--guess-words", type=int, default=0,
                    help="also time each mode with an expected answer of this many words (issue 28)")
    ap.add_argument("--windows", type=int, default=3,
                    help="vectors per chunk (the bench corpus averages 2.6: whole windows plus paragraph pieces)")
    args = ap.parse_args()
    out = Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    embedder = make_embedder("local", threads=load_config().threads)
    rng = random.Random(1)
    # Queries name mid-frequency terms, as questions about a topic do (not the 50 commonest words).
    texts = [" ".join(rng.choice(VOCABULARY[50:5000]) for _ in range(rng.randint(2, 5))) for _ in range(args.queries)]
    guesses = [""] * len(texts)
    runs = [("keyword", False), ("semantic", False), ("hybrid", False)]
    if args.guess_words:
        texts = [t + "?" for t in texts]
        guesses = [" ".join(rng.choice(VOCABULARY[50:5000]) for _ in range(args.guess_words)) for _ in texts]
        runs += [("keyword", True), ("semantic", True), ("hybrid", True)]
    print(f"{'chunks':>8} {'mode':>15} {'p50 ms':>8} {'p95 ms':>8}")
    for size in args.sizes:
        index, policy = build(size, out, embedder, args.windows)
        for mode, guessed in runs:
            asked = [Query(t, k=5, mode=mode, expected_answer=g if guessed else "") for t, g in zip(texts, guesses)]
            for q in asked[:5]:  # warm: model loaded, pages cached
                search(index, policy, embedder, q)
            ms = []
            for q in asked:
                t0 = time.perf_counter()
                search(index, policy, embedder, q)
                ms.append((time.perf_counter() - t0) * 1000)
            ms.sort()
            p95 = ms[max(0, int(len(ms) * 0.95 + 0.999) - 1)]
            label = mode + ("+guess" if guessed else "")
            print(f"{size:>8} {label:>15} {statistics.median(ms):8.1f} {p95:8.1f}")
        index.close()
    print(f"(cpus={os.cpu_count()}, model threads={embedder.__dict__.get('threads', 'default')})")


if __name__ == "__main__":
    main()
