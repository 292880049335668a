"""Does asking for more results change the first ones? Top 5 of `k=5` against the first 5 of `k=20`.

    uv run --frozen python benchmarks/k_stability.py [--sets dev httpx myst mdx starlette]
        [--cache /tmp/scree-quality] [-n 5] [--k-large 20] [--mode auto]

For every dev question of each set (the real local model, in process, through quality.py's cached
indexes and vectors), prints how many questions' first n hits differ between `k=n` and `k=k-large`,
how many hits of the larger k show a score above the hit before them, and top1/top3 of both runs as the
benchmark's scorer counts them. Issue 18: each half used to be searched 4*k deep, so the order changed
with k. To measure another revision's code, put its `server/` first on PYTHONPATH
(`git archive REV server | tar -x -C /tmp/old && PYTHONPATH=/tmp/old/server ...`).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from quality import BENCH, CachedEmbedder, dev_sets, load_scorer, open_set_index  # noqa: E402

import scree  # noqa: E402
from scree.config import load_config  # noqa: E402
from scree.embed import make_embedder  # noqa: E402
from scree.notes.policy import NotesPolicy  # noqa: E402
from scree.search.search import Query  # noqa: E402
from scree.search.vocabsearch import search_with_names  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--bench", type=Path, default=BENCH, help="the shared benchmark folder")
    ap.add_argument("--sets", nargs="+", default=["dev", "httpx", "myst", "mdx", "starlette"])
    ap.add_argument("--cache", type=Path, default=Path("/tmp/scree-quality"))
    ap.add_argument("-n", type=int, default=5, help="the results compared")
    ap.add_argument("--k-large", type=int, default=20)
    ap.add_argument("--mode", default="auto")
    args = ap.parse_args(argv)

    scorer = load_scorer(args.bench)
    args.cache.mkdir(parents=True, exist_ok=True)
    inner = make_embedder("local", config=load_config())
    embedder = CachedEmbedder(inner, args.cache / f"vectors-{hashlib.sha256(inner.id.encode()).hexdigest()[:10]}.pkl")
    sets = dev_sets(args.bench, args.cache, args.sets)
    print(f"scree from {Path(scree.__file__).parent}; mode {args.mode}; top {args.n} of k={args.n} "
          f"against the first {args.n} of k={args.k_large}")
    print(f"{'set':<10} | questions | top {args.n} differ | scores rising | top1 k={args.n} / k={args.k_large} "
          f"| top3 k={args.n} / k={args.k_large}")
    try:
        for name in args.sets:
            ds = sets[name]
            cases = scorer.load_queries(ds.queries)
            index = open_set_index(ds, args.cache, embedder)
            embedder.save()
            policy = NotesPolicy.load(ds.corpus.resolve())
            differ = rising = 0
            ranks: dict[int, list[int | None]] = {args.n: [], args.k_large: []}
            try:
                for case in cases:
                    got = {}
                    for k in (args.n, args.k_large):
                        result = search_with_names(index, policy, embedder, Query(case.query, k=k, mode=args.mode))
                        got[k] = result.hits
                        hits = [scorer.Hit(h.path, scorer.split_trail(h.heading), h.heading, h.text, h.start_line,
                                           h.end_line, h.score) for h in result.hits[:args.n]]
                        row = scorer.score_case(case, scorer.Answer(hits, 0.0, scorer.text_bytes(hits), result.mode),
                                                args.n)
                        ranks[k].append(row.rank)
                    place = lambda h: (h.path, h.start_line, h.end_line)  # noqa: E731
                    differ += [place(h) for h in got[args.n]] != [place(h) for h in got[args.k_large][:args.n]]
                    scores = [h.score for h in got[args.k_large]]
                    rising += any(b > a for a, b in zip(scores, scores[1:]))
            finally:
                index.close()
            total = len(cases)

            def share(k: int, within: int) -> str:
                return f"{sum(1 for r in ranks[k] if r is not None and r <= within) / max(total, 1):4.0%}"

            print(f"{name:<10} | {total:>9} | {differ:>12} | {rising:>13} | {share(args.n, 1)} / {share(args.k_large, 1)}"
                  f"           | {share(args.n, 3)} / {share(args.k_large, 3)}")
    finally:
        embedder.save()
        embedder.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
