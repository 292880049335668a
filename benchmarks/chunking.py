"""CPU time of chunking a corpus (read once, chunked in memory; no model, no index), and of the embedded view.

    uv run --frozen python benchmarks/chunking.py                          # the bench corpus
    uv run --frozen python benchmarks/chunking.py --baseline-rev c267d3a   # also the chunker of that commit
    uv run --frozen python benchmarks/chunking.py --corpus ../shared/bench/repos/httpx/corpus
    uv run --frozen python benchmarks/chunking.py --corpus ../shared/bench/repos/myst/corpus --baseline-rev bd47da4

Each chunker line also counts chunks that hold nothing but markup a reader never sees (a MyST `(label)=`
target, an MDX import/export line, a bare JSX/HTML tag, heading lines): issue 19 wants 0 of them.

A baseline's chunker.py is taken from git (`git show REV:server/scree/notes/chunker.py`) and imported beside
the current one, so both run on the same text in the same process. Figures are the best of --repeat
runs of process CPU time.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CORPUS = REPO.parent / "shared" / "bench" / "corpus"


def load_baseline(rev: str) -> Callable[[str], object]:
    """chunk_markdown of the chunker at git revision `rev`, imported as a module of the scree package."""
    source = subprocess.run(["git", "show", f"{rev}:server/scree/notes/chunker.py"], cwd=REPO, check=True,
                            capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="scree-chunker-")) / "chunker_baseline.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("scree._chunker_baseline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "scree"
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.chunk_markdown


# An independent reading of "markup a reader never sees" (not mdblocks' own): MyST targets and comments,
# MDX import/export lines, lines of bare JSX/HTML tags, and heading lines (a chunk needs more than those).
_MARKUP_LINE = re.compile(r"^\s*(?:\([^()\s]+\)=|%.*|(?:import|export)\s.*|(?:</?[A-Za-z][\w.:-]*(?:\s[^<>]*)?/?>\s*)+|#{1,6}(?:\s.*)?)\s*$")


def markup_only(text: str) -> bool:
    """True when every non-blank line of a chunk is a target, an import/export, a tag or a heading."""
    return all(_MARKUP_LINE.match(line) for line in text.split("\n") if line.strip())


def best_cpu(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--baseline-rev", help="also time the chunker of this git revision")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    from scree.notes.chunker import chunk_markdown
    from scree.notes.embedview import embed_body

    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(args.corpus.rglob("*"))
             if p.suffix in (".md", ".mdx") and p.is_file()]
    mb = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) / 1e6
    print(f"corpus: {args.corpus} ({len(texts)} files, {mb:.2f} MB)")

    rows: list[tuple[str, Callable[[str], object]]] = []
    if args.baseline_rev:
        rows.append((f"chunker at {args.baseline_rev}", load_baseline(args.baseline_rev)))
    rows.append(("chunker (this tree)", chunk_markdown))
    for name, chunk in rows:
        notes = [chunk(t) for t in texts]
        n = sum(len(note.chunks) for note in notes)  # type: ignore[attr-defined]
        bare = sum(markup_only(c.text) for note in notes for c in note.chunks)  # type: ignore[attr-defined]
        cpu = best_cpu(lambda: [chunk(t) for t in texts], args.repeat)
        print(f"{name:28} {cpu * 1000:8.0f} ms CPU  {mb / cpu:6.1f} MB/s  {n} chunks, "
              f"{bare} holding only a label, import or tag")

    bodies = [c.text for t in texts for c in chunk_markdown(t).chunks]
    cpu = best_cpu(lambda: [embed_body(b) for b in bodies], args.repeat)
    print(f"{'embedded view (this tree)':28} {cpu * 1000:8.0f} ms CPU  over {len(bodies)} chunks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
