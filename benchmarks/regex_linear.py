"""Every regular expression scree runs on note text, timed on pathological lines of growing size (issue 36).

    uv run --frozen python benchmarks/regex_linear.py [--sizes 25 50 100 200] [--all] [--only language. prose_of]

For each module-level compiled pattern in `scree.notes.*`, `scree.search.*` and `scree.hookkit.*`, and for
the whole per-note functions (prose_of, embed_body, chunk_markdown), it times one `findall` (a `sub` walks
the same matches) over a single line of N KB made of one repeated fragment (`<`, `{*`, `](`, backticks, ...).
Patterns that only see one chunk (embedview's) are timed at
the chunk's cap, 3 KB, whatever the size asked. A linear pattern doubles its time when the input doubles; a quadratic one quadruples it. Prints the time
per size and the growth of the last doubling; without `--all` only rows slower than 5 ms at the largest size.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

FRAGMENTS = ["<", "{*", "](", "`", "``", "[", "[[", "![", "(", "{", "{{", "%%", "<!--", ":", "-", "#", "*", "_",
             "\\", "| ", "a ", "<a ", "[a](", "[a]", "{#", ":::", "```", "=", "'", '"', "<<", "${"]


# Patterns matched against a note's path, never its text: a path is at most PATH_MAX (4 KB) long.
PATH_ONLY = frozenset({"notes.language._DOCUSAURUS"})
# Modules whose patterns only ever see one chunk (at most HARD_CHUNK_BYTES, 3 KB): timed on inputs of at most
# that size, since the chunker has already cut a longer line into pieces before they run.
PER_CHUNK = ("notes.embedview.",)
CHUNK_BYTES = 3000


def patterns() -> list[tuple[str, re.Pattern[str]]]:
    import scree.hookkit
    import scree.notes
    import scree.search

    out = []
    for pkg in (scree.notes, scree.search, scree.hookkit):
        for info in pkgutil.iter_modules(pkg.__path__):
            name = f"{pkg.__name__}.{info.name}"
            try:
                mod = importlib.import_module(name)
            except Exception:  # noqa: BLE001 - a module that needs more than imports is not timed here
                continue
            for attr, value in vars(mod).items():
                if f"{name.removeprefix('scree.')}.{attr}" in PATH_ONLY:
                    continue
                if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                    out.append((f"{name.removeprefix('scree.')}.{attr}", value))
                elif isinstance(value, list) and value and all(isinstance(v, re.Pattern) for v in value):
                    out.extend((f"{name.removeprefix('scree.')}.{attr}[{i}]", v) for i, v in enumerate(value))
    return out


def functions() -> list[tuple[str, Callable[[str], object]]]:
    from scree.notes.chunker import chunk_markdown
    from scree.notes.embedview import embed_body
    from scree.notes.language import prose_of

    return [("language.prose_of", prose_of), ("embedview.embed_body", embed_body),
            ("chunker.chunk_markdown", chunk_markdown)]


def timed(fn: Callable[[str], object], text: str) -> float:
    start = time.perf_counter()
    fn(text)
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[25, 50, 100, 200], help="KB")
    ap.add_argument("--all", action="store_true", help="print every row, not only the slow ones")
    ap.add_argument("--only", nargs="+", default=[], metavar="TEXT", help="only rows whose name holds one of these")
    ap.add_argument("--cap", type=float, default=20.0, help="stop growing a row once one size takes this many s")
    args = ap.parse_args()
    rows: list[tuple[str, Callable[[str], object]]] = [(n, p.findall) for n, p in patterns()] + functions()
    if args.only:
        rows = [(n, fn) for n, fn in rows if any(t in n for t in args.only)]
    print(f"{'what':58} {'input':8} " + " ".join(f"{s:>7}KB" for s in args.sizes) + "  growth")
    worst = 0.0
    for name, fn in rows:
        for frag in FRAGMENTS:
            times: list[float] = []
            for size in args.sizes:
                n = min(size * 1024, CHUNK_BYTES) if name.startswith(PER_CHUNK) else size * 1024
                text = (frag * (n // len(frag) + 1))[:n]
                times.append(timed(fn, text))
                if times[-1] > args.cap:
                    break
            growth = times[-1] / times[-2] if len(times) > 1 and times[-2] > 1e-4 else 0.0
            if args.all or times[-1] > 0.005:
                cells = " ".join(f"{t * 1000:8.1f}ms" if t < 10 else f"{t:8.1f} s" for t in times)
                print(f"{name:58} {frag!r:8} {cells}  x{growth:.1f}")
            worst = max(worst, growth if times[-1] > 0.005 else 0.0)
    print(f"worst growth per doubling among rows over 5 ms: x{worst:.1f} (linear ~x2, quadratic ~x4)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
