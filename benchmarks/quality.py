"""Retrieval quality on every dev set, in process: semantic / keyword / hybrid / auto per stratum.

    uv run --frozen python benchmarks/quality.py [--sets dev httpx starlette] [--modes auto hybrid]
        [--embedder local] [--cache /tmp/scree-quality] [--show-misses auto] [--json out.json]
        [--set MODULE.NAME=VALUE ...] [--expand none all skill] [--expansions DIR]
        [--queries-from benchmarks/sets/short-phrases] [--add-set NAME=CORPUS:QUERIES ...]
        [--embedded-fraction 0.25 0.5 0.75 [--drop-order random|tail] [--seeds 18 ...]
         [--partial keyword places impute shrink]]

Scores with the shared benchmark's own scorer (`score.py`, imported, so label matching is exactly
the scorer's), and prints plain BM25 (`score.py --baseline bm25`) beside each set for comparison.
Each set's index is built once through the real sync into the cache folder and reused while the code
that decides its content (everything but the ranking modules) is unchanged. Passage and query
vectors are cached by their exact text, so a chunking experiment re-embeds only the passages whose
text changed and a ranking experiment loads no model at all.

Sets: `dev` (shared/bench/queries_dev.json), `httpx`, `myst`, `mdx` (shared/bench/repos/*) and this repo's own
benchmarks/sets/* (`starlette`, and the reStructuredText sets `flask`, `sphinx`, `pytest` of issue 34: each corpus
is a pinned PyPI sdist, fetched once into the cache; `platen`: notes never published anywhere, written for the
benchmark, its corpus in the repo).

`--expand` scores each mode without the caller's guess at the answer (`none`, the rows named by the mode),
with one for every query (`<mode>+all`) and as an agent following the skill sends them (`<mode>+skill`: none
for a bare name, flag or short keyword phrase); the guesses are `--expansions/<set>.json` (issue 28,
benchmarks/expansions/README.md), a set without one is scored without. Below each table: per mode, the
questions each way ranks better and worse than without guesses.

`--set` overrides a module constant for one run (`--set search.ranking.SPECIFICITY=0`), to measure an idea
before it is made the default; the value is a Python literal. `--queries-from DIR` scores DIR/<set>.json
over each set's corpus and cached index instead of its own queries (the short phrases of issue 29:
`benchmarks/sets/short-phrases/`); `--add-set` adds a set whose corpus lives outside the repository.

`--embedded-fraction F ...` scores `auto` as it runs mid stage two of a sync (issue 18): on a copy of
each set's cached index (the cache itself is never written), vectors are dropped
(`db.writes.forget_vectors`, leaving what stage one leaves) so that the first F of the chunks in stage
two's order keep theirs. Stage two embeds file by file (a file's chunks in order), searched-for and
recently modified notes first, which on a first index is an order unrelated to the questions:
`--drop-order random` takes the files in a seeded random order (`--seeds`: each row is the mean over
them), `tail` in the walk order (sorted paths), so the last files lack vectors. Each `--partial`
variant is one row per F: `keyword` (auto answers by BM25 alone), or auto running hybrid with that
`search.search.PARTIAL_FUSION` (`places`, `impute`, `shrink`, `dbsf`); F = 1 is the plain `auto` row. Below
each table: per variant, the questions it ranks better and worse than keyword alone, and the strata
where it is below keyword (docs/benchmarks.md, "Searches during stage two").
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib
import importlib.util
import json
import pickle
import random
import shutil
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from scree.search import search as search_module
from scree.config import load_config
from scree.db import queries, writes
from scree.embed import Embedder, Passage, make_embedder
from scree.locate import IndexLocation
from scree.notes.policy import NotesPolicy
from scree.search.search import Query, search
from scree.search.vocabsearch import search_with_names
from scree.index.store import Index, open_index
from scree.index.sync import sync

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sdist_corpus import SETS, ensure_corpus, sdist_sets  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PKG = REPO / "server" / "scree"
BENCH = REPO.parent / "shared" / "bench"
# Modules that only rank: changing them never changes what an index holds.
RANKING_MODULES = {"search/search.py", "search/keyword.py", "search/names.py", "search/ranking.py", "search/fusion.py",
                   "search/route.py",
                   "search/ftsquery.py", "search/vocabsearch.py", "search/expansion.py", "search/links.py", "search/ahead.py",
                   "search/releases.py", "search/__init__.py",
                   "notes/sectiontext.py",
                   "index/vectors.py", "db/queries.py"}
MODES = ("semantic", "keyword", "hybrid", "auto")


@dataclass(frozen=True)
class DevSet:
    name: str
    queries: Path
    corpus: Path


def dev_sets(bench: Path, cache: Path | None = None, wanted: Sequence[str] = ()) -> dict[str, DevSet]:
    """The shared benchmark's sets, plus this repo's own sets under benchmarks/sets/, whose corpora are
    published sdists unpacked into `cache` on first use (`sdist_corpus`; only the `wanted` ones)."""
    sets = {
        "dev": DevSet("dev", bench / "queries_dev.json", bench / "corpus"),
    }
    for repo in sorted((bench / "repos").glob("*/queries.json")):  # httpx, myst, mdx
        sets[repo.parent.name] = DevSet(repo.parent.name, repo, repo.parent / "corpus")
    for s in sdist_sets():
        if cache is not None and s.name in wanted:
            sets[s.name] = DevSet(s.name, s.queries, ensure_corpus(s, cache))
    for folder in sorted(SETS.glob("*/corpus")):  # a set whose corpus is in this repo (platen: written for it)
        sets[folder.parent.name] = DevSet(folder.parent.name, folder.parent / "queries.json", folder)
    return sets


def chosen_sets(bench: Path, cache: Path, names: list[str], added: Sequence[str]) -> dict[str, DevSet]:
    """`dev_sets` plus each `--add-set NAME=CORPUS:QUERIES`, whose name joins `names` (in place) if it is not there."""
    sets = dev_sets(bench, cache, names)
    for spec in added:
        name, _, paths = spec.partition("=")
        corpus, _, queries = paths.partition(":")
        sets[name] = DevSet(name, Path(queries), Path(corpus))
        if name not in names:
            names.append(name)
    return sets


def cached_embedder(kind: str, cache: Path) -> "CachedEmbedder":
    """The embedder `kind` (`local`, or `api` as the SCREE_API_* settings say) behind the vector cache in `cache`."""
    inner = make_embedder(kind, config=load_config())
    return CachedEmbedder(inner, cache / f"vectors-{hashlib.sha256(inner.id.encode()).hexdigest()[:10]}.pkl")


def load_scorer(bench: Path) -> Any:
    """The shared benchmark's score.py as a module (its matching rules, its metrics)."""
    spec = importlib.util.spec_from_file_location("bench_score", bench / "score.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_score"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


class CachedEmbedder:
    """An Embedder that answers from a cache keyed by the exact text, and asks the model for the rest."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        self.id, self.dimensions, self.max_windows = inner.id, inner.dimensions, inner.max_windows
        self.languages = getattr(inner, "languages", None)  # notes in other languages stay keyword-only
        self.path = path
        self.cache: dict[str, np.ndarray] = {}
        if path.exists():
            with path.open("rb") as f:
                self.cache = pickle.load(f)
        self.added = 0

    @staticmethod
    def _key(kind: str, *parts: str) -> str:
        return hashlib.sha256("\x00".join((kind, *parts)).encode("utf-8", "surrogatepass")).hexdigest()

    def embed_passages(self, passages: Sequence[Passage]) -> list[np.ndarray]:
        keys = [self._key("p", p.header, p.body) for p in passages]
        missing = [i for i, k in enumerate(keys) if k not in self.cache]
        if missing:
            for i, vecs in zip(missing, self.inner.embed_passages([passages[i] for i in missing])):
                self.cache[keys[i]] = vecs
            self.added += len(missing)
        return [self.cache[k] for k in keys]

    def embed_query(self, text: str) -> np.ndarray:
        key = self._key("q", text)
        if key not in self.cache:
            self.cache[key] = self.inner.embed_query(text)
            self.added += 1
        return self.cache[key]

    def close(self) -> None:
        self.inner.close()

    def trim(self) -> None:
        pass

    def save(self) -> None:
        if self.added:
            tmp = self.path.with_suffix(".tmp")
            with tmp.open("wb") as f:
                pickle.dump(self.cache, f, protocol=pickle.HIGHEST_PROTOCOL)
            tmp.replace(self.path)
            self.added = 0


def content_fingerprint(embedder_id: str) -> str:
    """Changes when code that decides an index's content changes (chunking, views, sync, schema)."""
    h = hashlib.sha256(embedder_id.encode())
    for p in sorted(PKG.rglob("*.py")):
        rel = p.relative_to(PKG).as_posix()
        if rel not in RANKING_MODULES:
            h.update(rel.encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:12]


def open_set_index(ds: DevSet, cache: Path, embedder: CachedEmbedder) -> Index:
    folder = ds.corpus.resolve()
    name = f"{ds.name}-{content_fingerprint(embedder.id)}"
    loc = IndexLocation(dir=cache, db=cache / f"{name}.db", lock=cache / f"{name}.lock",
                        root_file=cache / f"{name}.root")
    fresh = not loc.db.exists()
    index = open_index(loc, folder)
    if fresh:
        t = time.perf_counter()
        try:
            report = sync(index, NotesPolicy.load(folder), embedder)  # type: ignore[arg-type]
        except BaseException:
            index.close()
            for suffix in ("", "-wal", "-shm"):
                Path(f"{loc.db}{suffix}").unlink(missing_ok=True)
            raise
        print(f"  [{ds.name}] built {name}.db: {report.summary()} ({time.perf_counter() - t:.1f}s)", file=sys.stderr)
    return index


def partial_copy(ds: DevSet, index: Index, cache: Path, fraction: float, order: str, seed: int,
                 max_windows: int) -> tuple[Index, float]:
    """A copy of `index` (under cache/partial/) in which only `fraction` of the chunks keep their
    vectors (stage two's order: files in `order`, a file's chunks in order), and the fraction that did."""
    src = Path(index.location.db)
    dst_dir = cache / "partial"
    dst_dir.mkdir(exist_ok=True)
    name = f"{ds.name}-{order}-{seed}-{fraction:g}"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{dst_dir / name}.db{suffix}").unlink(missing_ok=True)
    for suffix in ("", "-wal"):  # the file with its log: nothing writes to the cached index meanwhile
        if Path(f"{src}{suffix}").exists():
            shutil.copyfile(f"{src}{suffix}", dst_dir / f"{name}.db{suffix}")
    shutil.copyfile(index.location.root_file, dst_dir / f"{name}.root")
    loc = IndexLocation(dir=dst_dir, db=dst_dir / f"{name}.db", lock=dst_dir / f"{name}.lock",
                        root_file=dst_dir / f"{name}.root")
    copy = open_index(loc, ds.corpus.resolve())
    files = sorted(queries.stored_files(copy.conn))  # the walk order
    if order == "random":
        random.Random(seed).shuffle(files)
    # Stage two's order: file by file, each file's chunks in order; the first F of the chunks keep vectors.
    chunks = [c.id for path in files for c in queries.chunks_of_file(copy.conn, path)]
    drop = chunks[round(fraction * len(chunks)):]
    writes.forget_vectors(copy.conn, drop, max_windows)
    progress = queries.vector_progress(copy.conn)
    return copy, progress.embedded / max(progress.total, 1)


def _set_partial(variant: str) -> None:
    if variant == "keyword":
        search_module.AUTO_MID_STAGE_TWO = "keyword"
    else:
        search_module.AUTO_MID_STAGE_TWO, search_module.PARTIAL_FUSION = "hybrid", variant


def _below(summary: dict[str, dict[str, float]], keyword: dict[str, dict[str, float]]) -> list[str]:
    """The strata where `summary` is below keyword alone: a lower MRR, or top1 lower by more than one
    question (one question's top1 is noise when MRR holds)."""
    out = []
    for stratum, kw in keyword.items():
        got = summary[stratum]
        if got["mrr"] < kw["mrr"] - 1e-9 or got["top1"] < kw["top1"] - 1 / kw["n"] - 1e-9:
            out.append(f"{stratum} {got['top1']:.0%}/{got['mrr']:.3f} < {kw['top1']:.0%}/{kw['mrr']:.3f}")
    return out


def mid_stage_two(scorer: Any, ds: DevSet, index: Index, policy: NotesPolicy, embedder: Any, cases: list[Any],
                  args: argparse.Namespace, table: dict[str, Any]) -> list[str]:
    """Rows `<variant>@F` (the mean over `args.seeds`) for auto mid stage two, added to `table`; returns
    lines comparing each variant with the first (keyword alone) per question and per stratum."""
    lines: list[str] = []
    seeds = args.seeds if args.drop_order == "random" else args.seeds[:1]
    for fraction in args.embedded_fraction:
        if fraction >= 1:
            continue  # every vector there: the plain auto row
        summaries: dict[str, list[dict[str, dict[str, float]]]] = {v: [] for v in args.partial}
        better = {v: 0 for v in args.partial}
        worse = {v: 0 for v in args.partial}
        below: dict[str, list[str]] = {v: [] for v in args.partial}
        for seed in seeds:
            copy, got = partial_copy(ds, index, args.cache, fraction, args.drop_order, seed, embedder.max_windows)
            try:
                ranks: dict[str, list[int]] = {}
                for variant in args.partial:
                    saved = search_module.AUTO_MID_STAGE_TWO, search_module.PARTIAL_FUSION
                    _set_partial(variant)
                    try:
                        rows = run_mode(scorer, copy, policy, embedder, cases, "auto", args.k,
                                        vocabulary=not args.no_vocabulary)
                    finally:
                        search_module.AUTO_MID_STAGE_TWO, search_module.PARTIAL_FUSION = saved
                    summaries[variant].append(strata_summary(scorer, rows, args.k))
                    ranks[variant] = [r.rank or args.k + 1 for r in rows]
                    if args.show_misses == f"{variant}@{fraction:.2f}":
                        print(f"{ds.name} misses ({variant}@{got:.2f}, seed {seed}):\n{misses(rows)}\n")
                first = args.partial[0]
                for variant in args.partial[1:]:
                    pairs = list(zip(ranks[first], ranks[variant]))
                    better[variant] += sum(b < a for a, b in pairs)
                    worse[variant] += sum(b > a for a, b in pairs)
                    below[variant] += [f"seed {seed}: {b}" for b in _below(summaries[variant][-1], summaries[first][-1])]
            finally:
                copy.close()
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{copy.location.db}{suffix}").unlink(missing_ok=True)
                copy.location.root_file.unlink(missing_ok=True)
                copy.location.lock.unlink(missing_ok=True)
        for variant in args.partial:
            runs = summaries[variant]
            table[f"{'kw' if variant == 'keyword' else variant}@{fraction:.2f}"] = {
                stratum: {m: statistics.mean(r[stratum][m] for r in runs) for m in runs[0][stratum]}
                for stratum in runs[0]}
        for variant in args.partial[1:]:
            lines.append(f"{variant}@{fraction:.2f} vs {args.partial[0]}, {len(seeds)} order(s): better on "
                         f"{better[variant]}, worse on {worse[variant]} of {len(seeds) * len(cases)} questions; "
                         f"below it: {'; '.join(below[variant]) or 'nowhere'}")
    return lines


def apply_overrides(settings: Sequence[str]) -> None:
    for s in settings:
        target, _, value = s.partition("=")
        mod_name, _, attr = target.rpartition(".")
        module = importlib.import_module(f"scree.{mod_name}")
        if not hasattr(module, attr):
            raise SystemExit(f"--set {s}: scree.{mod_name} has no {attr}")
        setattr(module, attr, ast.literal_eval(value))


def run_mode(scorer: Any, index: Index, policy: NotesPolicy, embedder: Embedder, cases: list[Any],
             mode: str, k: int, vocabulary: bool = True, guesses: dict[str, str] | None = None) -> list[Any]:
    """Score one mode; `vocabulary=False` searches without the repo's names (issue 9's comparison).
    `guesses` maps a query to the expected answer sent with it (issue 28)."""
    rows = []
    ask = search_with_names if vocabulary else search
    for case in cases:
        t = time.perf_counter()
        guess = (guesses or {}).get(case.query, "")
        result = ask(index, policy, embedder, Query(case.query, k=k, mode=mode, expected_answer=guess))
        ms = (time.perf_counter() - t) * 1000
        hits = [scorer.Hit(h.path, scorer.split_trail(h.heading), h.heading, h.text, h.start_line, h.end_line, h.score)
                for h in result.hits]
        rows.append(scorer.score_case(case, scorer.Answer(hits, ms, scorer.text_bytes(hits), result.mode), k))
    return rows


# How a caller fills `expected_answer` (issue 28), each scored as its own row (`<mode>+<policy>`):
#   none  - never (the rows named by the mode alone);
#   all   - on every query it has a guess for;
#   skill - as the skill asks: not for a bare name, a flag or a short keyword phrase (`skill_expands`).
EXPAND_POLICIES = ("none", "all", "skill")


def skill_expands(query: str) -> bool:
    """Whether an agent following skills/scree/SKILL.md would send a guess with `query`: for a question
    or a description in plain words, not for a bare name, flag, setting or error string. Read from the
    query as the agent sees it: a question mark, or more than three words, makes it a question."""
    return query.rstrip().endswith("?") or len(query.split()) > 3


def load_guesses(folder: Path, set_name: str) -> dict[str, str] | None:
    """`folder/<set>.json`'s expected answers by query (written blind: see benchmarks/expansions/README.md),
    or None when the set has none."""
    path = folder / f"{set_name}.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return {str(e["query"]): str(e["expected_answer"]) for e in data["expansions"] if e.get("expected_answer")}


def guesses_for(policy: str, guesses: dict[str, str]) -> dict[str, str]:
    if policy == "none":
        return {}
    if policy == "skill":
        return {q: g for q, g in guesses.items() if skill_expands(q)}
    return guesses


def compare_ranks(name: str, base: list[Any], other: list[Any], k: int) -> str:
    """One line: on how many questions `other` ranks the expected section better or worse than `base`."""
    pairs = [(a.rank or k + 1, b.rank or k + 1) for a, b in zip(base, other)]
    better = [b.case.query for (x, y), b in zip(pairs, other) if y < x]
    worse = [b.case.query for (x, y), b in zip(pairs, other) if y > x]
    return f"{name}: better on {len(better)}, worse on {len(worse)} of {len(pairs)}" + (
        "; worse: " + " | ".join(worse) if worse else "")


def bm25_rows(scorer: Any, ds: DevSet, cases: list[Any], k: int) -> list[Any]:
    baseline = scorer.Bm25Baseline(scorer.load_corpus(ds.corpus.resolve()), k)
    try:
        return [scorer.score_case(c, baseline.search(c.query), k) for c in cases]
    finally:
        baseline.close()


def strata_summary(scorer: Any, rows: list[Any], k: int) -> dict[str, dict[str, float]]:
    return {name.split("/", 1)[1]: scorer.summarize(members, k) for name, members in scorer.groups_of(rows).items()}


def render(set_name: str, table: dict[str, dict[str, dict[str, float]]]) -> str:
    strata = list(next(iter(table.values())))
    width = max(12, *(len(run) for run in table))
    head = f"{set_name:<{width}}" + "".join(f" | {s:^22}" for s in strata) + " | p50 bytes"
    lines = [head, "-" * len(head)]
    for run, summary in table.items():
        cells = "".join(f" | {s['top1']:4.0%} {s['top3']:4.0%} {s['mrr']:5.3f}   " for s in summary.values())
        lines.append(f"{run:<{width}}{cells} | {summary[strata[-1]]['median_bytes']:8.0f}")
    return "\n".join(lines)


def misses(rows: list[Any]) -> str:
    out = []
    for r in rows:
        if r.rank == 1:
            continue
        got = "; ".join(f"{h.path}::{h.heading}" for h in r.answer.hits[:3]) or "(none)"
        out.append(f"  [{r.case.stratum}] rank={r.rank} mode={r.answer.mode} {r.case.query}\n"
                   f"      want {r.case.expected.raw}\n      got  {got}")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--bench", type=Path, default=BENCH, help="the shared benchmark folder")
    ap.add_argument("--sets", nargs="+", default=["dev", "httpx", "myst", "mdx", "starlette", "platen"])
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    ap.add_argument("--embedder", default="local", help="local, or api (configured by SCREE_API_* as usual)")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/scree-quality"))
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="MODULE.NAME=VALUE")
    ap.add_argument("--show-misses", metavar="MODE")
    ap.add_argument("--json", type=Path, help="write every table here")
    ap.add_argument("--embedded-fraction", type=float, nargs="+", default=[], metavar="F",
                    help="also score auto mid stage two, with vectors for F of the chunks (issue 18)")
    ap.add_argument("--drop-order", choices=("random", "tail"), default="random",
                    help="stage two's order of files: seeded random, or the walk order (its last files lack vectors)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[18],
                    help="random orders to average over (each F's row is their mean)")
    ap.add_argument("--partial", nargs="+", default=["keyword", "places"],
                    choices=("keyword", "places", "impute", "shrink", "dbsf"),
                    help="how auto answers mid stage two: keyword alone, or hybrid with this partial fusion")
    ap.add_argument("--expansions", type=Path, default=REPO / "benchmarks" / "expansions",
                    help="folder of <set>.json expected answers (issue 28)")
    ap.add_argument("--expand", nargs="+", default=list(EXPAND_POLICIES), choices=EXPAND_POLICIES,
                    help="score each mode without guesses (none), with one for every query (all), and as the skill asks")
    ap.add_argument("--no-vocabulary", action="store_true",
                    help="search without the repo's names from code and manifests (issue 9's comparison)")
    ap.add_argument("--queries-from", type=Path, metavar="DIR",
                    help="score DIR/<set>.json instead of each set's own queries (sets without one are left out), "
                         "e.g. benchmarks/sets/short-phrases")
    ap.add_argument("--add-set", action="append", default=[], metavar="NAME=CORPUS:QUERIES",
                    help="one more set: a corpus folder and its labelled queries (score.py's format)")
    args = ap.parse_args(argv)

    apply_overrides(args.overrides)
    scorer = load_scorer(args.bench)
    args.cache.mkdir(parents=True, exist_ok=True)
    embedder = cached_embedder(args.embedder, args.cache)
    sets = chosen_sets(args.bench, args.cache, args.sets, args.add_set)
    out: dict[str, Any] = {}
    try:
        for name in args.sets:
            if name not in sets:
                raise SystemExit(f"no dev set {name!r}: choose from dev, httpx, myst, mdx and benchmarks/sets/*")
            ds = sets[name]
            if args.queries_from is not None:
                if not (args.queries_from / f"{name}.json").exists():
                    continue
                ds = DevSet(ds.name, args.queries_from / f"{name}.json", ds.corpus)
            cases = scorer.load_queries(ds.queries)
            index = open_set_index(ds, args.cache, embedder)
            embedder.save()  # a later failure must not cost the embedding just done
            policy = NotesPolicy.load(ds.corpus.resolve())
            try:
                table = {"bm25": strata_summary(scorer, bm25_rows(scorer, ds, cases, args.k), args.k)}
                ms: dict[str, float] = {}
                compared: list[str] = []
                guesses = load_guesses(args.expansions, name)
                policies = [p for p in args.expand if p == "none" or guesses is not None]
                for mode in args.modes:
                    base: list[Any] | None = None
                    for expand in policies:
                        run = mode if expand == "none" else f"{mode}+{expand}"
                        rows = run_mode(scorer, index, policy, embedder, cases, mode, args.k,  # type: ignore[arg-type]
                                        vocabulary=not args.no_vocabulary,
                                        guesses=guesses_for(expand, guesses or {}))
                        table[run] = strata_summary(scorer, rows, args.k)
                        ms[run] = statistics.median(r.answer.ms for r in rows)
                        if expand == "none":
                            base = rows
                        elif base is not None:
                            compared.append(compare_ranks(f"{run} vs {mode}", base, rows, args.k))
                        if args.show_misses == run:
                            print(f"{name} misses ({run}):\n{misses(rows)}\n")
                compared += mid_stage_two(scorer, ds, index, policy, embedder, cases, args, table)
            finally:
                index.close()
            print(render(name, table))
            print("  median ms per query: " + ", ".join(f"{m} {v:.1f}" for m, v in ms.items()))
            print("".join(f"  {c}\n" for c in compared))
            out[name] = table
    finally:
        embedder.save()
        embedder.close()
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
