"""What the trust checks cost (issue 26): the row counts every sync starts with (`invariants.out_of_step`)
and the schema comparison every open makes (`schema.untrusted_parts`), on a 10,000-file index, beside a
no-op sync of the same folder (what `scree search` already pays before every query); and the two bounded
checks only an explicit reindex and a live writer's open run (`quick_check`, FTS5's `fts_check`), unbounded here.

    uv run --frozen python benchmarks/damage_check.py                 # 10,000 notes, ~5 chunks each
    uv run --frozen python benchmarks/damage_check.py --chunks-per-file 10
    SCREE_SQLITE=stdlib /usr/bin/python3 ...                          # the same on Debian's SQLite 3.40

Stage one only (text and keyword rows): the checks never read vectors. The notes are synthetic
(`synth.write_corpus`) and go through the real walk, chunker and store. Each figure is the median of
`--runs` runs on a warm page cache, the first run after opening shown apart; built folders are cached
under benchmarks/out/.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from synth import write_corpus  # noqa: E402

from scree.config import load_config  # noqa: E402
from scree.db import invariants, queries, schema  # noqa: E402
from scree.index.sync import sync  # noqa: E402
from scree.locate import IndexLocation  # noqa: E402
from scree.workspace import Workspace  # noqa: E402


def median_ms(fn, runs: int) -> tuple[float, float]:
    """(first run, median of the rest) in ms."""
    times = []
    for _ in range(runs + 1):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return times[0], statistics.median(times[1:])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--chunks-per-file", type=int, default=4, help="sections per synthetic note")
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    out = (HERE / "out" / f"damage-{args.files}x{args.chunks_per_file}").resolve()
    folder = out / "notes"
    if not folder.exists():
        write_corpus(folder, args.files, sections=args.chunks_per_file)
        (folder / ".git").mkdir()  # its own repository: benchmarks/out/ is ignored by this one's rules
    name = "index"
    loc = IndexLocation(dir=out, db=out / f"{name}.db", lock=out / f"{name}.lock", root_file=out / f"{name}.root")
    cfg = load_config().with_overrides(notes=folder)
    ws = Workspace(config=cfg, folder=folder, location=loc)
    index = ws.open_index()
    embedder = ws.embedder()  # the model never loads: stage one only
    t = time.perf_counter()
    report = sync(index, ws.policy(), embedder, embed=False)
    first = time.perf_counter() - t
    if report.added:
        print(f"built stage one: {len(report.added):,} files in {first:.1f}s", file=sys.stderr)
    c = queries.counts(index.conn)
    size = loc.db.stat().st_size / 1e6
    print(f"index: {c.files:,} files, {c.chunks:,} chunks, {size:.0f} MB; SQLite {index.driver.name} "
          f"{index.driver.sqlite_version}")
    cold, warm = median_ms(lambda: invariants.out_of_step(index.conn), args.runs)
    print(f"out_of_step (every sync): first {cold:.1f} ms, then median {warm:.1f} ms")
    runs = min(args.runs, 5)
    _, quick = median_ms(lambda: invariants.quick_check(index.conn, 60.0), runs)
    _, fts = median_ms(lambda: invariants.fts_check(index.conn), runs)
    print(f"explicit reindex and a writer's open only (each bounded to 2 s): quick_check median {quick:.0f} ms, "
          f"fts_check median {fts:.0f} ms")
    cold, warm = median_ms(lambda: schema.untrusted_parts(index.conn, index.driver.module), args.runs)
    print(f"untrusted_parts (every open; the expected schema is built once per process): first {cold:.1f} ms, "
          f"then median {warm:.1f} ms")
    index.close()
    _, opened = median_ms(lambda: ws.open_index(create=False).close(), args.runs)
    print(f"open read-only, untrusted_parts included: median {opened:.1f} ms")
    index = ws.open_index()
    noop_first, noop = median_ms(lambda: sync(index, ws.policy(), embedder, embed=False), min(args.runs, 5))
    index.close()
    print(f"no-op sync of the folder (hash every note, includes out_of_step): median {noop:.0f} ms")


if __name__ == "__main__":
    main()
