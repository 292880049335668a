"""Which kind of section the labels choose for a named query: a reference entry or a guide section (issue 38).

For each identifier query whose first five hits (`auto`) hold both a reference entry spelling one of the query's
names (an autodoc docstring, a section titled by the name, or one holding an entry that defines it) and a guide
section spelling it too, counts which kind the label is and whether scree's first hit is the label. Prints one
line per such query, then the counts by query kind (lookup or question).

    uv run --frozen python benchmarks/label_shapes.py --sets dev httpx flask pytest \\
        [--add-set NAME=CORPUS:QUERIES ...] [--cache /work/qcache-main]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import quality as Q
from scree.notes.policy import NotesPolicy
from scree.search import ranking
from scree.search.names import spelled_counter
from scree.search.route import is_lookup, named_identifiers
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--sets", nargs="+", default=["dev", "httpx", "myst", "mdx"])
    ap.add_argument("--add-set", action="append", default=[], metavar="NAME=CORPUS:QUERIES")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/scree-quality"))
    args = ap.parse_args()
    embedder = Q.cached_embedder("local", args.cache)
    scorer = Q.load_scorer(Q.BENCH)
    sets = Q.chosen_sets(Q.BENCH, args.cache, args.sets, args.add_set)
    counts: Counter[tuple[str, str, bool]] = Counter()
    for name in args.sets:
        ds = sets[name]
        index = Q.open_set_index(ds, args.cache, embedder)
        policy = NotesPolicy.load(ds.corpus.resolve())
        for case in scorer.load_queries(ds.queries):
            if case.stratum != "identifier":
                continue
            result = search_with_names(index, policy, embedder, Query(case.query, k=5, mode="auto"))
            names = result.names or named_identifiers(case.query)
            if not names:
                continue
            spelled = spelled_counter(names)
            kinds = []
            for h in result.hits:
                reference = (bool(ranking.docstring_of(h.text)) or ranking.titled_by(h.heading, names)
                             or ranking.defines(h.text, names))
                kinds.append(("reference" if reference else "guide", spelled(f"{h.heading}\n{h.text}") > 0))
            if not ({("reference", True), ("guide", True)} <= set(kinds)):
                continue
            hits = [scorer.Hit(h.path, scorer.split_trail(h.heading), h.heading, h.text, h.start_line, h.end_line,
                               h.score) for h in result.hits]
            rank = scorer.score_case(case, scorer.Answer(hits, 0, 0, result.mode), 5).rank
            label = kinds[rank - 1][0] if rank else "neither"
            kind = "lookup" if is_lookup(case.query) else "question"
            counts[(kind, label, rank == 1)] += 1
            first = kinds[0][0]
            print(f"{name:10} {kind:8} label={label:9} rank={rank} first={first:9} | {case.query[:70]}")
    print()
    for kind in ("lookup", "question"):
        for label in ("reference", "guide", "neither"):
            led, missed = counts[(kind, label, True)], counts[(kind, label, False)]
            if led or missed:
                print(f"{kind:8} label {label:9}: {led + missed:3} ({led} first, {missed} not)")
    embedder.save()


if __name__ == "__main__":
    main()
