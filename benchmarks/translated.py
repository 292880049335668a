"""A repository with translated docs (issue 27): FastAPI's, English plus 12 translations under docs/<lang>/.

    git clone https://github.com/fastapi/fastapi /tmp/fastapi
    git -C /tmp/fastapi checkout c3f316b7e814667e8ee81e03a7330d00ee61e45c
    uv run --frozen python benchmarks/translated.py /tmp/fastapi [--work /tmp/scree-translated] [--order en-first]

Builds two indexes of copies of the checkout (its files stay out of this repository) with the local model,
back to back, each from nothing: the default settings, and English only (the same copy with the
translations ignored by a `.screeignore`: `docs/*/` then `!docs/en/`). For each it prints stage one's and
stage two's time, the chunks embedded, the notes per language, the file size and the bytes per chunk.
Then it scores the 10 English questions of `benchmarks/sets/fastapi/queries.json` (written by a helper that
read only the English docs, before any result was seen) on both, with the shared benchmark's scorer,
and counts how many result slots are English notes. Last, it ignores the translations in the default
build's copy and syncs again: the file must shrink to about the English-only build's size.

Timings are wall-clock on whatever else the machine runs, and CPU time of this process (the model's threads
included), which the rest of a shared machine disturbs far less: the two builds run back to back (`--order`
says which goes first); say so when quoting them.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from scree.db import queries
from scree.embed import make_embedder
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import IndexLocation
from scree.notes.policy import NotesPolicy
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names

HERE = Path(__file__).resolve().parent
QUERIES = HERE / "sets" / "fastapi" / "queries.json"
BENCH = HERE.parent.parent / "shared" / "bench"
COMMIT = "c3f316b7e814667e8ee81e03a7330d00ee61e45c"
ENGLISH_ONLY = "docs/*/\n!docs/en/\n"


def copy_checkout(src: Path, dst: Path, ignore: str | None) -> Path:
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".git"), symlinks=True)
    if ignore is not None:
        (dst / ".screeignore").write_text(ignore, encoding="utf-8")
    return dst


def open_fresh(folder: Path, db: Path):
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    loc = IndexLocation(dir=db.parent, db=db, lock=db.with_suffix(".lock"), root_file=db.with_suffix(".root"))
    return open_index(loc, folder.resolve())


def file_bytes(db: Path) -> int:
    return sum(Path(f"{db}{s}").stat().st_size for s in ("", "-wal") if Path(f"{db}{s}").exists())


class StageOneEnd:
    """Sync progress that notes the process's CPU time when stage one ends (CPU time, summed over the model's
    threads, is what the work costs; wall time also says what the rest of a shared machine did)."""

    def __init__(self) -> None:
        self.cpu = 0.0

    def start(self, total_files: int) -> None:
        pass

    def advance(self, chunks: int) -> None:
        pass

    def finish(self) -> None:
        self.cpu = time.process_time()


def build(name: str, folder: Path, db: Path) -> dict[str, Any]:
    embedder = make_embedder("local")
    index = open_fresh(folder, db)
    marks = StageOneEnd()
    t0, c0 = time.perf_counter(), time.process_time()
    report = sync(index, NotesPolicy.load(folder.resolve()), embedder, progress=marks)
    wall, cpu = time.perf_counter() - t0, time.process_time()
    index.conn.execute("pragma wal_checkpoint(truncate)").fetchall()
    c = queries.counts(index.conn)
    langs = {lc.lang: (lc.files, lc.keyword_only) for lc in queries.language_counts(index.conn)}
    size = file_bytes(db)
    embedded = queries.vector_progress(index.conn).total
    out = {"build": name, "files": c.files, "chunks": c.chunks, "embedded_chunks": embedded,
           "stage_one_s": round(report.keyword_seconds, 1), "stage_two_s": round(wall - report.keyword_seconds, 1),
           "stage_one_cpu_s": round(marks.cpu - c0, 1), "stage_two_cpu_s": round(cpu - marks.cpu, 1),
           "chunks_embedded": report.chunks, "bytes": size, "bytes_per_chunk": round(size / max(c.chunks, 1)),
           "bytes_per_embedded_chunk": round(size / max(embedded, 1)), "bytes_per_note": round(size / max(c.files, 1)),
           "languages": langs}
    index.close()
    embedder.close()
    return out


def load_scorer() -> Any:
    spec = importlib.util.spec_from_file_location("bench_score", BENCH / "score.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_score"] = module
    spec.loader.exec_module(module)
    return module


def score(name: str, folder: Path, db: Path, scorer: Any, k: int = 5) -> dict[str, Any]:
    embedder = make_embedder("local")
    loc = IndexLocation(dir=db.parent, db=db, lock=db.with_suffix(".lock"), root_file=db.with_suffix(".root"))
    index = open_index(loc, folder.resolve())
    policy = NotesPolicy.load(folder.resolve())
    lang_of = dict(index.conn.execute("select path, lang from files").fetchall())
    top1 = top3 = english = slots = 0
    lines = []
    for case in scorer.load_queries(QUERIES):
        result = search_with_names(index, policy, embedder, Query(case.query, k=k))
        hits = [scorer.Hit(h.path, scorer.split_trail(h.heading), h.heading, h.text, h.start_line, h.end_line, h.score)
                for h in result.hits]
        row = scorer.score_case(case, scorer.Answer(hits, 0.0, scorer.text_bytes(hits), result.mode), k)
        top1 += row.rank == 1
        top3 += row.rank is not None and row.rank <= 3
        english += sum(lang_of.get(h.path) == "en" for h in result.hits)
        slots += len(result.hits)
        lines.append(f"    rank {row.rank or '-'}  {case.query[:70]}")
    index.close()
    embedder.close()
    n = len(lines)
    return {"build": name, "top1": f"{top1}/{n}", "top3": f"{top3}/{n}", "english_slots": f"{english}/{slots}",
            "detail": lines}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("checkout", type=Path, help=f"a clone of github.com/fastapi/fastapi at {COMMIT}")
    ap.add_argument("--work", type=Path, default=Path("/tmp/scree-translated"))
    ap.add_argument("--order", choices=("en-first", "default-first"), default="en-first")
    ap.add_argument("--skip-build", action="store_true", help="score the indexes the last run built")
    args = ap.parse_args(argv)
    if not (args.checkout / "docs" / "en" / "docs").is_dir():
        raise SystemExit(f"{args.checkout} is not a FastAPI checkout (no docs/en/docs): clone it at {COMMIT}")
    args.work.mkdir(parents=True, exist_ok=True)
    runs = {"default": (args.work / "default", None), "english-only": (args.work / "english-only", ENGLISH_ONLY)}
    order = ["english-only", "default"] if args.order == "en-first" else ["default", "english-only"]
    if not args.skip_build:
        for name in order:
            folder, ignore = runs[name]
            copy_checkout(args.checkout, folder, ignore)
            print(json.dumps(build(name, folder, args.work / f"{name}.db")), flush=True)
    scorer = load_scorer()
    for name in order:
        result = score(name, runs[name][0], args.work / f"{name}.db", scorer)
        detail = result.pop("detail")
        print(json.dumps(result), flush=True)
        print("\n".join(detail), flush=True)
    # Ignoring the translations in the default build's copy: the file gives the space back.
    folder = runs["default"][0]
    db = args.work / "default.db"
    before = file_bytes(db)
    (folder / ".screeignore").write_text(ENGLISH_ONLY, encoding="utf-8")
    index = open_index(IndexLocation(dir=db.parent, db=db, lock=db.with_suffix(".lock"),
                                     root_file=db.with_suffix(".root")), folder.resolve())
    t0 = time.perf_counter()
    report = sync(index, NotesPolicy.load(folder.resolve()), make_embedder("local"))
    index.close()
    print(json.dumps({"shrink": "translations ignored in the default build", "removed": len(report.removed),
                      "bytes_before": before, "bytes_after": file_bytes(db),
                      "english_only_build_bytes": file_bytes(args.work / "english-only.db"),
                      "seconds": round(time.perf_counter() - t0, 1), "note": report.shrunk}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
