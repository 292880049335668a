"""Questions in Japanese, Chinese and Korean on FastAPI's translated docs (issue 27): the page in the
question's language first?

    git clone https://github.com/fastapi/fastapi /tmp/fastapi
    git -C /tmp/fastapi checkout c3f316b7e814667e8ee81e03a7330d00ee61e45c
    SCREE_DATA_DIR=/tmp/fa scree reindex /tmp/fastapi        # once: the complete index (both stages)
    uv run --frozen python benchmarks/translated_cjk.py /tmp/fastapi --data /tmp/fa [--stage-one /tmp/fa-s1]

Scores the 20 questions of `benchmarks/sets/fastapi/queries_cjk.json` (10 Japanese, 5 Chinese, 5 Korean,
written from the list of page names before any result was seen) with the default `auto`, k = 5, on the
complete index of the checkout under `--data` (synced first: a newer scree migrates it), per page: a
question's rank is the first hit on its page in its language (or an `also_valid` page). Prints top1/top3
per language, each question's rank, mode and first hits, and the 10 English questions of
`benchmarks/sets/fastapi/queries.json` per page too (they must not move). With `--stage-one DIR`, it also
builds a copy of the checkout from nothing up to the end of stage one (no model) and prints its time and
file size, and what the CJK keyword rows take (`dbstat`).

`--set module.NAME=value` (JSON value) changes a constant under `scree.` first, as `quality.py` does, to
measure an alternative. The checkout's files never enter this repository; timings are on a shared box.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from scree.config import load_config
from scree.db import queries
from scree.embed import make_embedder
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import IndexLocation, index_location
from scree.notes.policy import NotesPolicy
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names

HERE = Path(__file__).resolve().parent
CJK_QUERIES = HERE / "sets" / "fastapi" / "queries_cjk.json"
EN_QUERIES = HERE / "sets" / "fastapi" / "queries.json"


def apply_sets(pairs: list[str]) -> None:
    for pair in pairs:
        name, _, raw = pair.partition("=")
        module, _, attr = name.rpartition(".")
        mod = importlib.import_module(f"scree.{module}")
        if not hasattr(mod, attr):
            raise SystemExit(f"scree.{module} has no {attr}")
        setattr(mod, attr, json.loads(raw))


def file_bytes(db: Path) -> int:
    return sum(Path(f"{db}{s}").stat().st_size for s in ("", "-wal") if Path(f"{db}{s}").exists())


def table_bytes(conn: Any) -> dict[str, int]:
    """Bytes of pages per table family (FTS5 shadow tables under their table's name), by `dbstat`."""
    out: dict[str, int] = {}
    try:
        rows = conn.execute("select name, sum(pgsize) from dbstat group by name").fetchall()
    except Exception:  # noqa: BLE001 - an SQLite built without dbstat
        return out
    for name, size in rows:
        for family in ("chunks_fts", "chunks_cjk", "chunks_vec", "embed_cache", "chunks"):
            if str(name).startswith(family):
                out[family] = out.get(family, 0) + int(size)
                break
        else:
            out["other"] = out.get("other", 0) + int(size)
    return out


def stage_one(checkout: Path, work: Path) -> dict[str, Any]:
    """A copy of the checkout indexed from nothing up to the end of stage one (no model)."""
    folder = work / "fastapi"
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(checkout, folder, ignore=shutil.ignore_patterns(".git"), symlinks=True)
    db = work / "stage-one.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    loc = IndexLocation(dir=work, db=db, lock=db.with_suffix(".lock"), root_file=db.with_suffix(".root"))
    index = open_index(loc, folder.resolve())
    embedder = make_embedder("local")  # never loaded: stage one does not embed
    c0 = time.process_time()
    report = sync(index, NotesPolicy.load(folder.resolve()), embedder, embed=False)
    cpu = time.process_time() - c0
    index.conn.execute("pragma wal_checkpoint(truncate)").fetchall()
    counts = queries.counts(index.conn)
    tables = table_bytes(index.conn)
    index.close()
    return {"stage_one_s": round(report.keyword_seconds, 1), "stage_one_cpu_s": round(cpu, 1),
            "files": counts.files, "chunks": counts.chunks, "bytes": file_bytes(db), "tables": tables}


def rank_of(hits: list[Any], wanted: set[str]) -> int | None:
    for i, h in enumerate(hits, 1):
        if h.path in wanted:
            return i
    return None


def score(checkout: Path, data: Path, k: int) -> dict[str, Any]:
    cfg = load_config({**os.environ, "SCREE_DATA_DIR": str(data)})
    folder = checkout.resolve()
    loc = index_location(folder, cfg)
    if not loc.db.exists():
        raise SystemExit(f"no index of {folder} under {data}: run `SCREE_DATA_DIR={data} scree reindex {folder}`")
    embedder = make_embedder("local")
    index = open_index(loc, folder)
    policy = NotesPolicy.load(folder)
    t0 = time.perf_counter()
    report = sync(index, policy, embedder)  # a newer scree migrates and fills what it adds
    synced = round(time.perf_counter() - t0, 1)
    index.conn.execute("pragma wal_checkpoint(truncate)").fetchall()
    out: dict[str, Any] = {"sync": report.summary(), "sync_s": synced, "bytes": file_bytes(loc.db),
                           "tables": table_bytes(index.conn)}
    cases = json.loads(CJK_QUERIES.read_text(encoding="utf-8"))
    lines: list[str] = []
    for lang in ("ja", "zh", "ko"):
        top1 = top3 = 0
        for case in cases[lang]:
            result = search_with_names(index, policy, embedder, Query(case["query"], k=k))
            wanted = {case["expected"], *case.get("also_valid", [])}
            r = rank_of(list(result.hits), wanted)
            top1 += r == 1
            top3 += r is not None and r <= 3
            first = ", ".join(h.path.removeprefix("docs/") for h in result.hits[:3]) or "(none)"
            lines.append(f"  {lang} rank {r or '-'} [{result.mode}] {case['query']}  ->  {first}"
                         + (f"  notes: {'; '.join(result.notes)}" if result.notes else ""))
        out[lang] = f"top1 {top1}/{len(cases[lang])} top3 {top3}/{len(cases[lang])}"
    english = json.loads(EN_QUERIES.read_text(encoding="utf-8"))["fastapi"]
    en_cases = [c for stratum in english.values() for c in stratum]
    top1 = top3 = 0
    for case in en_cases:
        result = search_with_names(index, policy, embedder, Query(case["query"], k=k))
        pages = {case["expected"].split("::")[0], *(p.split("::")[0] for p in case.get("also_valid", {}))}
        r = rank_of(list(result.hits), pages)
        top1 += r == 1
        top3 += r is not None and r <= 3
        lines.append(f"  en rank {r or '-'} [{result.mode}] {case['query'][:70]}")
    out["en (page)"] = f"top1 {top1}/{len(en_cases)} top3 {top3}/{len(en_cases)}"
    out["detail"] = lines
    index.close()
    embedder.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("checkout", type=Path, help="a clone of github.com/fastapi/fastapi")
    ap.add_argument("--data", type=Path, required=True, help="the SCREE_DATA_DIR holding the checkout's index")
    ap.add_argument("--stage-one", type=Path, help="also build a copy up to the end of stage one in this folder")
    ap.add_argument("--set", action="append", default=[], metavar="module.NAME=json")
    ap.add_argument("-k", type=int, default=5)
    args = ap.parse_args(argv)
    if not (args.checkout / "docs" / "ja" / "docs").is_dir():
        raise SystemExit(f"{args.checkout} is not a FastAPI checkout (no docs/ja/docs)")
    apply_sets(args.set)
    if args.stage_one is not None:
        args.stage_one.mkdir(parents=True, exist_ok=True)
        print(json.dumps({"stage_one": stage_one(args.checkout, args.stage_one)}), flush=True)
    result = score(args.checkout, args.data, args.k)
    detail = result.pop("detail")
    print(json.dumps(result, ensure_ascii=False), flush=True)
    print("\n".join(detail), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
