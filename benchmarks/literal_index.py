"""What the literal (FTS5 trigram) index beside the word index costs: size and lookup time (issue 38).

    uv run --frozen python benchmarks/literal_index.py [--chunks 10000 100000] [--notes DIR ...] [--mode scree|fulltext]

`--mode scree` (the default) measures scree's own table, `chunks_literal` (db/literal.py: each chunk's
punctuated tokens, migration 8), as `scree reindex` builds it: the index's size without it (dropped) and with
it, both vacuumed; the share of the chunks' text bytes its rows hold; and p50/p95 of `queries.literal_search`
against the scan it replaces (`queries.verbatim_search(fold=True)`), whose answers must be equal. `--notes`
measures real folders the same way, `--copies N` each folder copied N times (real text at scale; every
name then has N times its chunks): generated prose holds almost no punctuated token but the names, so on it
the table's size is a lower bound. `--mode fulltext` is the first measurement, made before the table existed:
a trigram table over every chunk's whole heading and text.

For each size: a generated repository of Markdown notes whose sections hold ordinary words and the
punctuation-heavy names issue 38 is about (`path:`, `--retry-limit`, `{{date}}`, `%%comment%%`, `[[Page]]`,
`max_connections`, `a.b.c`), indexed by the real `scree reindex` with the fake embedder (256-dimensional
vectors: the real model's 384 would make the index larger and the trigram share smaller). Then, on a copy:

- the index file's size, and its size once a contentless trigram table (`detail=full`: a phrase of trigrams needs positions; `none` and `column` refuse it, and a contentless table cannot answer LIKE) over every chunk's
  heading and text is added and filled: the literal index's cost;
- p50 and p95 over the names of today's literal lookup (`queries.verbatim_search`: a scan with `instr`) and
  of the trigram lookup (MATCH on the trigram table, then the same exact `instr` check on its candidates).

The fulltext mode is a measurement only: scree's table holds the punctuated tokens, not the whole text.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "server"))
from scree.db import literal, queries  # noqa: E402
from scree.db.connect import connect  # noqa: E402

NAMES = ["path:", "--retry-limit", "{{date}}", "%%comment%%", "[[Setup Guide]]", "max_connections", "auth.tokens.refresh",
         "--no-verify", "tag:#urgent", "cssclasses"]
WORDS = ("the of and to in is for on with as by this that are be from or an it at can will your when which "
         "configure build target volume alert rule search hidden file token login cache network retry server "
         "client request response option value setting default plugin index section note folder").split()
SECTIONS_PER_NOTE = 4


def generate(folder: Path, chunks: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    for n in range(chunks // SECTIONS_PER_NOTE):
        parts = [f"# Note {n}\n"]
        for s in range(SECTIONS_PER_NOTE):
            words = [rng.choice(WORDS) for _ in range(110)]
            if rng.random() < 0.3:  # some sections mention a name
                words.insert(rng.randrange(len(words)), f"`{rng.choice(NAMES)}`")
            parts.append(f"## Part {s}\n\n" + " ".join(words) + ".\n")
        sub = folder / f"d{n // 500:03}"
        sub.mkdir(exist_ok=True)
        (sub / f"n{n:06}.md").write_text("\n".join(parts), encoding="utf-8")


def p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


def build(notes: Path, db: Path) -> float:
    """`scree reindex` of `notes` into `db` with the fake embedder; the seconds it took."""
    env = {**os.environ, "SCREE_EMBEDDER": "fake", "SCREE_TEST_EMBEDDER": str(REPO / "tests" / "helpers" / "fake_embedder.py")}
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "scree.cli", "reindex", "--quiet", "--notes", str(notes), "--db", str(db)],
                   env=env, check=True)
    return time.monotonic() - started


def vacuumed_size(db: Path, work: Path, drop_literal: bool) -> int:
    """The size of a vacuumed copy of `db`, without `chunks_literal` when `drop_literal`."""
    copy = work / f"{db.stem}-{'without' if drop_literal else 'with'}.db"
    shutil.copy(db, copy)
    conn = connect(copy)
    if drop_literal:
        conn.execute("drop table chunks_literal")
    conn.execute("vacuum")
    conn.execute("pragma wal_checkpoint(truncate)")
    conn.close()
    size = copy.stat().st_size
    copy.unlink()
    return size


def measure_scree(label: str, notes: Path, work: Path, needles: list[str], rounds: int = 5) -> dict[str, object]:
    db = work / f"index-{label}.db"
    built = build(notes, db)
    conn = connect(db)
    conn.execute("pragma wal_checkpoint(truncate)")
    indexed, text_bytes = conn.execute("select count(*), sum(length(cast(heading || char(10) || text as blob))) "
                                       "from chunks").fetchone()
    row_bytes = sum(len(literal.row(h, t, n).encode()) for h, t, n in conn.execute("select heading, text, names from chunks"))
    conn.close()
    without = vacuumed_size(db, work, drop_literal=True)
    with_table = vacuumed_size(db, work, drop_literal=False)
    conn = connect(db)
    assert conn.execute("select value from meta where key = 'literal'").fetchone()[0] == literal.version()
    searchable = [n for n in (x.lower() for x in needles) if literal.searchable(n)]
    scan: list[float] = []
    table: list[float] = []
    for _ in range(rounds):
        for needle in searchable:
            t = time.perf_counter()
            scanned = queries.verbatim_search(conn, needle, 50, fold=True)
            scan.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            found = queries.literal_search(conn, needle, 50)
            table.append((time.perf_counter() - t) * 1000)
            assert found == scanned, needle
    conn.close()
    return {"notes": label, "chunks": indexed, "build_s": round(built, 1), "literal_share_of_text_pct":
            round(100 * row_bytes / max(1, text_bytes), 1), "index_mb": round(without / 1e6, 1),
            "with_literal_mb": round(with_table / 1e6, 1), "growth_pct": round(100 * (with_table - without) / without, 1),
            "needles": len(searchable), "scan_p50_ms": round(statistics.median(scan), 2),
            "scan_p95_ms": round(p(scan, 95), 2), "literal_p50_ms": round(statistics.median(table), 2),
            "literal_p95_ms": round(p(table, 95), 2)}


def folder_needles(notes: Path, most: int = 30, seed: int = 7) -> list[str]:
    """Punctuated tokens a real folder spells (what `literal.row` keeps, cores only), a sample of `most`."""
    found: dict[str, None] = {}
    for path in sorted(notes.rglob("*.md")):
        for token in literal.row("", path.read_text(encoding="utf-8", errors="replace"), "").split():
            middle = literal.core(token).lower()
            if literal.searchable(middle):
                found[middle] = None
    names = sorted(found)
    return random.Random(seed).sample(names, min(most, len(names)))


def measure(chunks: int, work: Path) -> dict[str, object]:
    notes = work / f"notes-{chunks}"
    notes.mkdir()
    generate(notes, chunks)
    db = work / f"index-{chunks}.db"
    built = build(notes, db)
    conn = connect(db)
    conn.execute("drop table chunks_literal")  # what the index was before migration 8
    conn.execute("vacuum")
    conn.execute("pragma wal_checkpoint(truncate)")
    indexed = conn.execute("select count(*) from chunks").fetchone()[0]
    before = db.stat().st_size
    with_lit = work / f"lit-{chunks}.db"
    conn.close()
    shutil.copy(db, with_lit)
    lit = connect(with_lit)
    lit.execute("create virtual table lit using fts5(body, tokenize='trigram', detail='full', content='')")
    lit.execute("insert into lit(rowid, body) select id, heading || char(10) || text from chunks")
    lit.commit()
    lit.execute("pragma wal_checkpoint(truncate)")
    after = with_lit.stat().st_size
    today: list[float] = []
    trigram: list[float] = []
    for _ in range(5):
        for name in NAMES:
            needle = name.lower()
            t = time.perf_counter()
            found_today = queries.verbatim_search(lit, needle, 50, fold=True)
            today.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            quoted = '"' + needle.replace('"', '""') + '"'
            ids = [r[0] for r in lit.execute("select rowid from lit where lit match ?", [quoted]).fetchall()]
            hits = []
            if ids:
                marks = ",".join("?" * len(ids))
                hits = lit.execute(f"select id from chunks where id in ({marks}) and "
                                   f"instr(lower(heading || char(10) || text), ?) > 0 limit 50", [*ids, needle]).fetchall()
            trigram.append((time.perf_counter() - t) * 1000)
            assert {h[0] for h in hits} <= {i for i, _ in queries.verbatim_search(lit, needle, 10**6, fold=True)}
            assert len(hits) == min(50, len(found_today)) or len(found_today) == 50
    lit.close()
    return {"chunks": indexed, "build_s": round(built, 1), "index_mb": round(before / 1e6, 1),
            "with_trigram_mb": round(after / 1e6, 1), "growth_pct": round(100 * (after - before) / before, 1),
            "today_p50_ms": round(statistics.median(today), 2), "today_p95_ms": round(p(today, 95), 2),
            "trigram_p50_ms": round(statistics.median(trigram), 2), "trigram_p95_ms": round(p(trigram, 95), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--notes", type=Path, nargs="*", default=[], help="real folders to measure too (scree mode)")
    parser.add_argument("--copies", type=int, nargs="*", default=[1],
                        help="measure each --notes folder copied this many times into one (real text at scale)")
    parser.add_argument("--mode", choices=("scree", "fulltext"), default="scree")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="scree-literal-"))
    try:
        for chunks in args.chunks:
            if args.mode == "fulltext":
                print(measure(chunks, work), flush=True)
                continue
            notes = work / f"notes-{chunks}"
            notes.mkdir()
            generate(notes, chunks)
            print(measure_scree(f"generated-{chunks}", notes, work, NAMES), flush=True)
            shutil.rmtree(notes, ignore_errors=True)
        for folder in args.notes:
            needles = folder_needles(folder)
            for copies in args.copies:
                if copies == 1:
                    print(measure_scree(folder.name, folder, work, needles), flush=True)
                    continue
                many = work / f"{folder.name}-x{copies}"
                for i in range(copies):
                    shutil.copytree(folder, many / f"c{i:04}")
                print(measure_scree(f"{folder.name} x{copies}", many, work, needles), flush=True)
                shutil.rmtree(many, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
