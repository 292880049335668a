"""Is there order left to learn in a named query's first hits? A linear reorder, judged leave-one-set-out (issue 38).

    uv run --frozen python benchmarks/learned_reorder.py [--sets dev httpx ...] [--add-set NAME=CORPUS:QUERIES ...]
        [--stratum identifier] [--top 5] [--cache /tmp/scree-quality]

Runs every query of each set in `auto` (as `quality.py` does, through the cached indexes), keeps those naming
something (`SearchResult.names`), and describes each of the first `--top` hits by its shape: its place and score,
whether its heading titles a name or its text defines one (the ranking's own tests), how often it spells the names,
its length and depth, release history, front README, an API reference path or autodoc entry, a guide's path, the
question's other words in its heading and text, and a few of these crossed with the question's form (a bare name,
"how ...", "what ..."). A pairwise logistic model (numpy, L2) learns which hit is the labelled one; each set is
scored by the model trained on all the others, so a signal counts only if it carries over to a repository it never
saw. Prints per set top1 / top3 kept against learned, the totals, the weights trained on everything, and that
model's own (in-sample) totals: how far any reorder by these features could go.

What it is for: before adding one more hand rule on a hit's shape, see whether the shapes can still separate the
label from the hits above it at all (docs/benchmarks.md, "A learned reorder of the first hits").
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import quality as Q  # noqa: E402  (the benchmark's own set loading, cache and scorer)

from scree.notes.sectiontext import defines, titled_by  # noqa: E402
from scree.search import ranking  # noqa: E402
from scree.search.search import Query  # noqa: E402
from scree.search.vocabsearch import search_with_names  # noqa: E402

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]+")
_STOP = set("the a an of to in on for and or is are do does i my me how what when why which with without can should "
            "will it its this that be by from as at if not use using set get".split())
_REFERENCE = re.compile(r"(^|/)(api|references?|ref)\b|[-_]reference|reference[-_.]|/api[-_./]", re.IGNORECASE)
_GUIDE = re.compile(r"how-?to|guide|tutorial|usage|quickstart|getting|topics|concepts", re.IGNORECASE)
_AUTODOC = re.compile(r"^\.\. (auto\w+|py:\w+)::", re.MULTILINE)


def features(query: str, names: Sequence[str], hits: Sequence[Any], i: int) -> dict[str, float]:
    """The shape of hit `i` of `hits` (the answer's first hits) for `query` naming `names`."""
    hit = hits[i]
    text, trail, path = hit.text, hit.heading, hit.path
    folded = text.casefold()
    words = [w.casefold() for w in _WORD.findall(query) if w.casefold() not in _STOP]
    spelled = sum(folded.count(n.casefold()) for n in names)
    bare = len(query.split()) <= 3
    how = query.casefold().startswith("how ")
    what = query.casefold().startswith(("what ", "which "))
    top = hits[0].score or 1e-9
    in_heading = {w.casefold() for w in _WORD.findall(trail)}
    in_text = {w.casefold() for w in _WORD.findall(text)}
    reference = bool(_REFERENCE.search(path))
    autodoc = bool(ranking.docstring_of(text) or _AUTODOC.search(text))
    guide = bool(_GUIDE.search(path))
    titled = titled_by(trail, names)
    heading_words = sum(w in in_heading for w in words) / max(1, len(words))
    text_words = sum(w in in_text for w in words) / max(1, len(words))
    shape = {
        "first": i == 0, "second": i == 1, "third": i == 2, "place": 1 / (i + 1),
        "score": hit.score / top if top > 0 else 0.0,
        "titled": titled, "defines": defines(text, names),
        "leaf_spells": any(n.casefold() in trail.rsplit(" > ", 1)[-1].casefold() for n in names),
        "trail_spells": any(n.casefold() in trail.casefold() for n in names),
        "spelled": math.log1p(spelled), "unspelled": spelled == 0,
        "opens_with": any(n.casefold() in folded[:300] for n in names),
        "length": math.log1p(len(text)) / 10, "depth": trail.count(" > ") / 4,
        "history": ranking.is_history_file(path), "readme": ranking.is_front_readme(path),
        "reference": reference, "autodoc": autodoc, "guide": guide,
        "heading_words": heading_words, "text_words": text_words,
        "bare_reference": bare and reference, "question_reference": not bare and reference,
        "how_reference": how and reference, "what_reference": what and reference, "how_guide": how and guide,
        "bare_autodoc": bare and autodoc, "question_autodoc": not bare and autodoc, "bare_titled": bare and titled,
        "question_heading_words": (not bare) * heading_words, "question_text_words": (not bare) * text_words,
        "same_file_as_first": i > 0 and path == hits[0].path,
    }
    return {k: float(v) for k, v in shape.items()}


def _pairs(cases: Sequence[tuple[str, int | None, np.ndarray]]) -> np.ndarray:
    """Feature differences label minus other, for each case whose label is among its hits."""
    rows = [x[rank - 1] - x[j] for _, rank, x in cases if rank for j in range(len(x)) if j != rank - 1]
    return np.array(rows)


def train(cases: Sequence[tuple[str, int | None, np.ndarray]], l2: float = 1.0, steps: int = 300) -> np.ndarray:
    """Pairwise logistic regression by gradient descent: weights under which the label outscores the others."""
    d = _pairs(cases)
    w = np.zeros(d.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(d @ w)))
        w -= (-(d * (1 - p)[:, None]).mean(0) + l2 * w / len(d))
    return w


def places(cases: Sequence[tuple[str, int | None, np.ndarray]], w: np.ndarray | None) -> list[int | None]:
    """The label's place among the hits, as they are (`w` None) or re-ordered by `w` (ties keep the order)."""
    out: list[int | None] = []
    for _, rank, x in cases:
        if not rank or w is None:
            out.append(rank)
            continue
        order = list(np.argsort(-(x @ w), kind="stable"))
        out.append(order.index(rank - 1) + 1)
    return out


def _tops(found: Sequence[int | None]) -> tuple[int, int]:
    return sum(p == 1 for p in found), sum(p is not None and p <= 3 for p in found)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--sets", nargs="+", default=["dev", "httpx", "myst", "mdx", "starlette", "platen"])
    ap.add_argument("--add-set", action="append", default=[], metavar="NAME=CORPUS:QUERIES")
    ap.add_argument("--stratum", default="identifier", help="a stratum, or `all`")
    ap.add_argument("--top", type=int, default=5, help="how many first hits the model may re-order")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/scree-quality"))
    args = ap.parse_args(argv)

    scorer = Q.load_scorer(Q.BENCH)
    embedder = Q.cached_embedder("local", args.cache)
    sets = Q.chosen_sets(Q.BENCH, args.cache, args.sets, args.add_set)
    cases: list[tuple[str, int | None, np.ndarray]] = []
    keys: list[str] = []
    try:
        for name in args.sets:
            ds = sets[name]
            index = Q.open_set_index(ds, args.cache, embedder)
            policy = Q.NotesPolicy.load(ds.corpus.resolve())
            try:
                for case in scorer.load_queries(ds.queries):
                    if args.stratum != "all" and case.stratum != args.stratum:
                        continue
                    result = search_with_names(index, policy, embedder, Query(case.query, k=args.top, mode="auto"))
                    if not result.names or not result.hits:
                        continue
                    hits = [scorer.Hit(h.path, scorer.split_trail(h.heading), h.heading, h.text, h.start_line,
                                       h.end_line, h.score) for h in result.hits]
                    row = scorer.score_case(case, scorer.Answer(hits, 0, scorer.text_bytes(hits), result.mode),
                                            args.top)
                    shapes = [features(case.query, result.names, result.hits, i) for i in range(len(result.hits))]
                    keys = keys or list(shapes[0])
                    cases.append((name, row.rank, np.array([[s[k] for k in keys] for s in shapes])))
            finally:
                index.close()
    finally:
        embedder.save()
        embedder.close()

    kept = [0, 0]
    learned = [0, 0]
    for name in args.sets:
        held = [c for c in cases if c[0] == name]
        if not held:
            continue
        w = train([c for c in cases if c[0] != name])
        before, after = _tops(places(held, None)), _tops(places(held, w))
        kept = [kept[0] + before[0], kept[1] + before[1]]
        learned = [learned[0] + after[0], learned[1] + after[1]]
        print(f"{name:<12} n={len(held):3}  top1 {before[0]:3} -> {after[0]:3}   top3 {before[1]:3} -> {after[1]:3}")
    print(f"all sets, each held out: top1 {kept[0]} -> {learned[0]}, top3 {kept[1]} -> {learned[1]} "
          f"of {len(cases)} named {args.stratum} queries")
    w = train(cases)
    print(f"trained on every set and scored on them (in sample): top1 {_tops(places(cases, w))[0]}, "
          f"top3 {_tops(places(cases, w))[1]}")
    for key, weight in sorted(zip(keys, w), key=lambda kw: -abs(kw[1])):
        print(f"  {key:<24} {weight:+.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
