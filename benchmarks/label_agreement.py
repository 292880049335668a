"""How often two labellers choose the same section for a question (issue 38): the ceiling of any top1 bar.

Some sets carry more labellings of their questions (`benchmarks/sets/<set>/queries_second.json`,
`queries_third.json`), each written by a helper who saw only the docs, the questions and `score.py`'s labelling
rules (not the other labels, not scree). For each pair of a set's labellings (A, B) and each stratum, this prints how
often the two `expected` sections are the same (or one holds the other: a hit on a subsection counts for its
parent's label), and how often B's `expected`, returned first, would be a top1 or a valid@1 (a grade-2 label) under
A's labels, and A's under B's. No ranking can score top1 above the labellers' agreement against both at once.

    uv run --frozen python benchmarks/label_agreement.py [--sets requests pluggy anyio click] [--show]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

SETS = Path(__file__).resolve().parent / "sets"


def parts(label: str) -> tuple[str, list[str]]:
    """A label's path and its trail's titles, compared as score.py compares them (backticks, case, spaces)."""
    path, _, trail = label.partition("::")
    return path, [" ".join(t.replace("`", "").split()).casefold() for t in trail.split(" > ")]


def credits(label: str, hit: str) -> bool:
    """Whether `hit`, returned first, matches `label`: the same section or one below it (score.py's rule)."""
    lpath, ltrail = parts(label)
    hpath, htrail = parts(hit)
    return lpath == hpath and htrail[:len(ltrail)] == ltrail


def grade_two(entry: dict[str, Any]) -> list[str]:
    return [entry["expected"], *(k for k, v in (entry.get("also_valid") or {}).items() if v == 2)]


def compare(first: dict[str, list[dict[str, Any]]], second: dict[str, list[dict[str, Any]]],
            stratum: str) -> dict[str, Any]:
    """Counts for one stratum: n, the same section (either nesting), B's answer top1 / valid@1 under A, and A's
    under B; `differ` lists the questions whose two `expected` neither match nor nest."""
    a = {e["query"]: e for e in first.get(stratum, [])}
    b = {e["query"]: e for e in second.get(stratum, [])}
    shared = [q for q in a if q in b]
    out: dict[str, Any] = {"n": len(shared), "same": 0, "b_top1_under_a": 0, "b_valid_under_a": 0,
                           "a_top1_under_b": 0, "a_valid_under_b": 0, "differ": []}
    for q in shared:
        ea, eb = a[q]["expected"], b[q]["expected"]
        same = credits(ea, eb) or credits(eb, ea)
        out["same"] += same
        out["b_top1_under_a"] += credits(ea, eb)
        out["a_top1_under_b"] += credits(eb, ea)
        out["b_valid_under_a"] += any(credits(label, eb) for label in grade_two(a[q]))
        out["a_valid_under_b"] += any(credits(label, ea) for label in grade_two(b[q]))
        if not same:
            out["differ"].append((q, ea, eb))
    return out


LABELLINGS = ("queries.json", "queries_second.json", "queries_third.json")


def labellings(name: str) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """A set's labellings by file stem (`queries`, `queries_second`, ...), those it has."""
    return {f.split(".")[0]: json.loads((SETS / name / f).read_text(encoding="utf-8"))["repo_dev"]
            for f in LABELLINGS if (SETS / name / f).exists()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--sets", nargs="+", default=sorted(p.parent.name for p in SETS.glob("*/queries_second.json")))
    ap.add_argument("--show", action="store_true", help="list the questions whose two labels differ")
    args = ap.parse_args()
    print(f"{'set':11} {'A / B':30} {'stratum':10} {'n':>3} {'same':>5} {'B@1|A':>6} {'Bv@1|A':>7} {'A@1|B':>6} "
          f"{'Av@1|B':>7}")
    for name in args.sets:
        found = labellings(name)
        stems = list(found)
        for i, a in enumerate(stems):
            for b in stems[i + 1:]:
                for stratum in ("identifier", "plain"):
                    c = compare(found[a], found[b], stratum)
                    if not c["n"]:
                        continue
                    pct = {k: round(100 * c[k] / c["n"]) for k in c if k not in ("n", "differ")}
                    print(f"{name:11} {a + ' / ' + b:30} {stratum:10} {c['n']:>3} {pct['same']:>4}% "
                          f"{pct['b_top1_under_a']:>5}% {pct['b_valid_under_a']:>6}% {pct['a_top1_under_b']:>5}% "
                          f"{pct['a_valid_under_b']:>6}%")
                    if args.show:
                        for q, ea, eb in c["differ"]:
                            print(f"    {q}\n      {a}: {ea}\n      {b}: {eb}")


if __name__ == "__main__":
    main()
