"""End-to-end latency of `search_with_names` for name queries at ~10k and ~100k chunks (issue 38: "p50 within 2 ms of today").

    uv run --frozen python benchmarks/search_names_latency.py [--chunks 10000 100000] [--runs 7] [--per-query] [--profile]
        [--toggle MODULE.NAME ...] [--kinds bare question syntax release]

`search_with_names` (scree.search.vocabsearch) is what the CLI and the MCP server call. It is timed here on the code of
the tree the script runs from, so the same file copied into an older checkout measures that checkout (it only uses APIs
both have: `search_with_names`, `Query`, `open_index`, `sync`, `NotesPolicy`, `IndexLocation`).

Corpus: the real notes of `benchmarks/sets/platen/corpus` copied N times into one folder (as literal_index.py's
`--copies` does; every name then has N times its chunks), N chosen from the chunks one copy makes so the index holds
about each `--chunks`. Indexed in-process by `sync` with the fake embedder (tests/helpers/fake_embedder.py: no model is
loaded, a query's embedding costs microseconds, so the times are scree's own work). The copied notes and each index are
cached under `--cache` (/tmp by default), the index keyed by a hash of the tree's `server/scree` sources and N, so a
rerun only measures.

Queries: 30 names the platen corpus spells, 10 of each kind: bare names, short questions naming one name, and
syntax/punctuation tokens (dotted names, `scope:verb` forms, paths, `KEY=value`). Mode `auto`, k=5. Each query: one
warm-up, then `--runs` timed runs; p50 and p95 (nearest rank) over all runs of a kind and over all. `--per-query` adds
each query's p50; `--profile` adds, per size, the cProfile top functions (cumulative) of each kind's queries.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import importlib
import io
import math
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "server"))
os.environ.setdefault("SCREE_TEST_EMBEDDER", str(REPO / "tests" / "helpers" / "fake_embedder.py"))
os.environ["SCREE_EMBEDDER"] = "fake"

from scree.embed import make_embedder  # noqa: E402
from scree.index.store import open_index  # noqa: E402
from scree.index.sync import sync  # noqa: E402
from scree.locate import IndexLocation  # noqa: E402
from scree.notes.policy import NotesPolicy  # noqa: E402
from scree.search.search import Query  # noqa: E402
from scree.search.vocabsearch import search_with_names  # noqa: E402

PLATEN = REPO / "benchmarks" / "sets" / "platen" / "corpus"

QUERIES: dict[str, list[str]] = {
    "bare": [  # a name alone, as the corpus spells it
        "SPOOLSIDE_PREFETCH",
        "PLT-4302",
        "platenctl jobs requeue",
        "--rendered-by",
        "PLATEN_P0_RESERVED_SLOTS",
        "compute_backoff",
        "PlatenQueuePausedTooLong",
        "platen_queue_oldest_age_seconds",
        "ADR-0007",
        "PLATEN_GLYPH_CACHE_DIR",
    ],
    "question": [  # a short question naming one name
        "What does --rendered-by filter?",
        "What is SPOOLSIDE_PREFETCH for?",
        "What does PLT-3007 mean?",
        "When should I run platenctl queue pause?",
        "What is the default of PLATEN_ROUTER_CONCURRENCY?",
        "How does compute_backoff pick a delay?",
        "What does the PlatenQueuePausedTooLong alert mean?",
        "When does the job.printed webhook fire?",
        "Who needs the printers:admin scope?",
        "What does PLATEN_LEASE_TTL_S control?",
    ],
    "syntax": [  # punctuated tokens the corpus spells: dotted names, scope:verb forms, paths, KEY=value
        "job.printed",
        "batch.completed",
        "printers:admin",
        "jobs:batchCreate",
        "floor/spoolside",
        "/v2/batches",
        "PLATEN_AUTH_MODE=dev",
        "details.required_scope",
        "spoolside-gw.platen.internal:7443",
        "platen_router_slots_busy{pool}",
    ],
}


# Asked for by `--kinds`, not part of the default table: the questions the release rule reads (`search/releases.py`),
# a mark alone (`route.lone_mark`) and code paths of three parts, each as platen's notes or code spell them.
EXTRA_QUERIES: dict[str, list[str]] = {
    "release": [
        "Which release added PLATEN_FEATURE_PDF_RASTER?",
        "In which version was PLATEN_P0_RESERVED_SLOTS introduced?",
        "Which release first added PLATEN_GLYPH_CACHE_DIR?",
        "Since which version does platenctl jobs requeue accept --batch?",
        "In which release was PLATEN_RENDER_TIMEOUT_MS removed?",
        "~",
        "|",
    ],
    # code paths of three parts, which also search for their last two (`names.DOTTED_TAILS`)
    "paths": [
        "platen.backoff.compute_backoff",
        "platen.backoff.should_retry",
        "platen.cli.queue_pause",
        "How does platen.backoff.compute_backoff pick a delay?",
        "When does platen.backoff.should_retry give up?",
    ],
}


def source_key(root: Path) -> str:
    """A short hash of the tree's scree sources: one cached index per tree."""
    h = hashlib.sha256()
    pkg = root / "server" / "scree"
    for p in sorted(pkg.rglob("*.py")):
        h.update(p.relative_to(pkg).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:10]


def tree_label(root: Path) -> str:
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        head = "?"
    return f"{root} @ {head}"


def copied_notes(notes: Path, copies: int, cache: Path) -> Path:
    """`notes` copied `copies` times into one folder under `cache` (made once, then reused)."""
    folder = cache / f"notes-{notes.name}-x{copies}"
    done = folder / ".complete"
    if not done.exists():
        shutil.rmtree(folder, ignore_errors=True)
        for i in range(copies):
            shutil.copytree(notes, folder / f"c{i:04}")
        done.write_text("")
    return folder


def built_index(notes: Path, copies: int, cache: Path, embedder):
    """The index of `notes` x `copies` on this tree's code, synced once and cached; (index, policy, its file,
    seconds built: 0 when cached)."""
    folder = copied_notes(notes, copies, cache).resolve()
    name = f"index-{source_key(REPO)}-{notes.name}-x{copies}"
    loc = IndexLocation(dir=cache, db=cache / f"{name}.db", lock=cache / f"{name}.lock",
                        root_file=cache / f"{name}.root")
    ready = cache / f"{name}.complete"
    policy = NotesPolicy.load(folder)
    built = 0.0
    if not ready.exists():
        for suffix in ("", "-wal", "-shm"):
            Path(f"{loc.db}{suffix}").unlink(missing_ok=True)
        index = open_index(loc, folder)
        t = time.perf_counter()
        sync(index, policy, embedder)
        built = time.perf_counter() - t
        index.conn.execute("pragma wal_checkpoint(truncate)")
        index.close()
        ready.write_text("")
    return open_index(loc, folder), policy, loc.db, built


def nearest_rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def measure(index, policy, embedder, runs: int, k: int, mode: str, answered: dict[str, str],
            queries: dict[str, list[str]]) -> dict[str, dict[str, list[float]]]:
    """Per kind, per query: `runs` timings in ms, after one warm-up; `answered` gets each query's mode and names."""
    out: dict[str, dict[str, list[float]]] = {}
    for kind, texts in queries.items():
        out[kind] = {}
        for text in texts:
            q = Query(text, k=k, mode=mode)
            result = search_with_names(index, policy, embedder, q)  # warm-up
            answered[text] = f"{result.mode} {result.names}"
            ms = []
            for _ in range(runs):
                t = time.perf_counter()
                search_with_names(index, policy, embedder, q)
                ms.append((time.perf_counter() - t) * 1000)
            out[kind][text] = ms
    return out


def set_flags(toggles: list[str], value: object) -> list[object]:
    """Set each `module.NAME` (under scree., e.g. `search.names.DOTTED_ENTRIES`) to `value` (one value, or one
    per setting); the values they had."""
    values = value if isinstance(value, list) else [value] * len(toggles)
    had: list[object] = []
    for spec, new in zip(toggles, values):
        module, _, name = spec.rpartition(".")
        mod = importlib.import_module(f"scree.{module}")
        if not hasattr(mod, name):
            raise SystemExit(f"no setting scree.{spec}")
        had.append(getattr(mod, name))
        setattr(mod, name, new)
    return had


def measure_toggled(index, policy, embedder, runs: int, k: int, mode: str, toggles: list[str],
                    queries: dict[str, list[str]]) -> dict[bool, dict[str, list[float]]]:
    """Per setting (the `toggles` all off, all on), per kind: every timing in ms. Each query's runs alternate off
    and on after two warm-ups of each, so the two sides share the index, the process and the box's moment: on a
    noisy box this separates a rule's cost from the drift between two runs of the script."""
    out: dict[bool, dict[str, list[float]]] = {False: {}, True: {}}
    had = set_flags(toggles, True)
    try:
        for kind, texts in queries.items():
            for side in out.values():
                side[kind] = []
            for text in texts:
                q = Query(text, k=k, mode=mode)
                for value in (False, True, False, True):
                    set_flags(toggles, value)
                    search_with_names(index, policy, embedder, q)
                for _ in range(runs):
                    for value in (False, True):
                        set_flags(toggles, value)
                        t = time.perf_counter()
                        search_with_names(index, policy, embedder, q)
                        out[value][kind].append((time.perf_counter() - t) * 1000)
    finally:
        set_flags(toggles, had)
    return out


def profile(index, policy, embedder, k: int, mode: str, queries: dict[str, list[str]], top: int = 18) -> None:
    for kind, texts in queries.items():
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(3):
            for text in texts:
                search_with_names(index, policy, embedder, Query(text, k=k, mode=mode))
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
        print(f"\n### cProfile, {kind} (3 x {len(texts)} queries)\n```\n{buf.getvalue().strip()}\n```", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunks", type=int, nargs="+", default=[10_000, 100_000], help="about this many chunks each")
    ap.add_argument("--notes", type=Path, default=PLATEN, help="the folder copied N times (default: platen's corpus)")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/scree-names-latency"))
    ap.add_argument("--runs", type=int, default=7, help="timed runs per query (after one warm-up)")
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("--mode", default="auto")
    ap.add_argument("--per-query", action="store_true", help="also print each query's p50")
    ap.add_argument("--profile", action="store_true", help="also print cProfile's top functions per kind")
    ap.add_argument("--toggle", nargs="+", default=[], metavar="MODULE.NAME",
                    help="time each query with these boolean settings off and on, interleaved (e.g. "
                         "search.names.DOTTED_ENTRIES search.route.CALLS), instead of the tree's own table")
    ap.add_argument("--kinds", nargs="+", default=list(QUERIES), choices=[*QUERIES, *EXTRA_QUERIES],
                    help="the kinds of queries timed (default: bare, question, syntax; `release` adds the release "
                         "questions and marks alone)")
    args = ap.parse_args()
    queries = {kind: {**QUERIES, **EXTRA_QUERIES}[kind] for kind in args.kinds}
    args.cache.mkdir(parents=True, exist_ok=True)
    embedder = make_embedder("fake")
    one, _, _, _ = built_index(args.notes, 1, args.cache, embedder)
    per_copy = one.conn.execute("select count(*) from chunks").fetchone()[0]
    one.close()
    label = tree_label(REPO)
    print(f"tree: {label}; {args.notes.name}: {per_copy} chunks a copy; mode {args.mode}, k={args.k}, "
          f"1 warm-up + {args.runs} runs a query; cpus={os.cpu_count()}", flush=True)
    rows = []
    for target in args.chunks:
        copies = max(1, round(target / per_copy))
        t = time.perf_counter()
        index, policy, db, built = built_index(args.notes, copies, args.cache, embedder)
        if built:
            print(f"  built x{copies} in {built:.0f}s", file=sys.stderr, flush=True)
        chunks = index.conn.execute("select count(*) from chunks").fetchone()[0]
        mb = db.stat().st_size / 1e6  # checkpointed after the build: the whole index
        if args.toggle:
            toggled = measure_toggled(index, policy, embedder, args.runs, args.k, args.mode, args.toggle, queries)
            index.close()
            print(f"\n{chunks:,} chunks, {' '.join(args.toggle)} off / on (p50 ms, interleaved)")
            for kind in queries:
                off, on = statistics.median(toggled[False][kind]), statistics.median(toggled[True][kind])
                print(f"  {kind}: {off:.2f} / {on:.2f} ({on - off:+.2f})")
            off = statistics.median([m for ms in toggled[False].values() for m in ms])
            on = statistics.median([m for ms in toggled[True].values() for m in ms])
            print(f"  all: {off:.2f} / {on:.2f} ({on - off:+.2f})", flush=True)
            continue
        answered: dict[str, str] = {}
        timings = measure(index, policy, embedder, args.runs, args.k, args.mode, answered, queries)
        row = {"tree": label, "copies": copies, "chunks": chunks, "mb": mb, "kinds": {}}
        everything: list[float] = []
        for kind, per_query in timings.items():
            flat = [m for ms in per_query.values() for m in ms]
            everything += flat
            row["kinds"][kind] = (statistics.median(flat), nearest_rank(flat, 95))
        row["all"] = (statistics.median(everything), nearest_rank(everything, 95))
        rows.append(row)
        print(f"  x{copies}: {chunks} chunks measured in {time.perf_counter() - t:.0f}s", file=sys.stderr, flush=True)
        if args.per_query:
            print(f"\n#### per query, {chunks} chunks (p50 / max ms)\n\n| kind | query | p50 | max | mode, names |\n|---|---|---:|---:|---|")
            for kind, per_query in timings.items():
                for text, ms in per_query.items():
                    print(f"| {kind} | `{text}` | {statistics.median(ms):.2f} | {max(ms):.2f} | {answered[text]} |")
            print(flush=True)
        if args.profile:
            profile(index, policy, embedder, args.k, args.mode, queries)
        index.close()
    if args.toggle:
        return
    kinds = list(queries)
    head = "| tree | chunks | index MB | " + " | ".join(f"{k} p50 / p95 ms" for k in kinds) + " | all p50 / p95 ms |"
    print("\n" + head + "\n|" + "---|" * 3 + "---:|" * (len(kinds) + 1))
    for r in rows:
        cells = [f"{r['kinds'][k][0]:.2f} / {r['kinds'][k][1]:.2f}" for k in kinds]
        print(f"| {r['tree']} | {r['chunks']:,} | {r['mb']:.1f} | " + " | ".join(cells)
              + f" | {r['all'][0]:.2f} / {r['all'][1]:.2f} |", flush=True)


if __name__ == "__main__":
    main()
