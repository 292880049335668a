"""What a literal (FTS5 trigram) index beside the word index would cost: size and lookup time (issue 38).

    uv run --frozen python benchmarks/literal_index.py [--chunks 10000 100000]

For each size: a generated repository of Markdown notes whose sections hold ordinary words and the
punctuation-heavy names issue 38 is about (`path:`, `--retry-limit`, `{{date}}`, `%%comment%%`, `[[Page]]`,
`max_connections`, `a.b.c`), indexed by the real `scree reindex` with the fake embedder (256-dimensional
vectors: the real model's 384 would make the index larger and the trigram share smaller). Then, on a copy:

- the index file's size, and its size once a contentless trigram table (`detail=full`: a phrase of trigrams needs positions; `none` and `column` refuse it, and a contentless table cannot answer LIKE) over every chunk's
  heading and text is added and filled: the literal index's cost;
- p50 and p95 over the names of today's literal lookup (`queries.verbatim_search`: a scan with `instr`) and
  of the trigram lookup (MATCH on the trigram table, then the same exact `instr` check on its candidates).

A measurement only: nothing of scree uses the trigram table yet.
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
from scree.db import queries  # noqa: E402
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


def measure(chunks: int, work: Path) -> dict[str, object]:
    notes = work / f"notes-{chunks}"
    notes.mkdir()
    generate(notes, chunks)
    db = work / f"index-{chunks}.db"
    env = {**os.environ, "SCREE_EMBEDDER": "fake", "SCREE_TEST_EMBEDDER": str(REPO / "tests" / "helpers" / "fake_embedder.py")}
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "scree.cli", "reindex", "--quiet", "--notes", str(notes), "--db", str(db)],
                   env=env, check=True)
    built = time.monotonic() - started
    conn = connect(db)
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
    parser.add_argument("--chunks", type=int, nargs="+", default=[10_000, 100_000])
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="scree-literal-"))
    try:
        for chunks in args.chunks:
            print(measure(chunks, work), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
