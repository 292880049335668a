"""Stage one per byte on reStructuredText against Markdown, and the reStructuredText reader against docutils.

    uv run --frozen python benchmarks/formats_speed.py [--cache /tmp/scree-quality] [--rst-mb 2.6]
    uv run --frozen --with docutils python benchmarks/formats_speed.py     # adds the docutils comparison

Corpora: reStructuredText is pytest 9.2.0's `doc/en/**/*.rst` then Sphinx 9.2.0's `doc/**/*.rst` (the `pytest`
and `sphinx` dev sets' pinned sdists, fetched once into the cache), in path order, each page that still fits
under `--rst-mb` MB; Markdown is the shared benchmark's
corpus (97 files of cargo, compose-spec, gh, prometheus and ripgrep docs). Each folder is indexed by a fresh
child process running the real sync's stage one (`embed=False`: text and keyword rows, no model), best of
three, and reported in MB/s. In process, the readers alone: `chunk_note` per MB for both formats, and
docutils' `publish_doctree` on the same reStructuredText (with Sphinx's roles and directives unknown to it,
as they are to any docutils run without Sphinx), counting the pages it reports errors on.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MARKDOWN = HERE.parent.parent / "shared" / "bench" / "corpus"

CHILD = r"""
import json, sys, time
from pathlib import Path
from scree.config import load_config
from scree.workspace import Workspace
from scree.index.sync import sync
ws = Workspace.from_config(load_config().with_overrides(notes=Path(sys.argv[1])))
index = ws.open_index()
t = time.perf_counter()
report = sync(index, ws.policy(), ws.embedder(), embed=False)
print(json.dumps({"files": len(report.added), "seconds": time.perf_counter() - t,
                  "chunks": index.conn.execute("select count(*) from chunks").fetchone()[0]}))
"""


def rst_corpus(cache: Path, limit_bytes: int, dest: Path) -> int:
    """Copy pytest's then Sphinx's docs pages, in path order, up to `limit_bytes`, into `dest` (each set in
    its own folder); returns the bytes of pages copied."""
    sys.path.insert(0, str(HERE))
    from sdist_corpus import ensure_corpus, sdist_sets

    sets = {s.name: s for s in sdist_sets()}
    total = 0
    for name, docs in (("pytest", "doc/en"), ("sphinx", "doc")):
        src = ensure_corpus(sets[name], cache)
        for page in sorted((src / docs).rglob("*.rst")):
            size = page.stat().st_size
            if total + size > limit_bytes:
                continue
            target = dest / name / page.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(page, target)
            total += size
    return total


def stage_one(folder: Path, runs: int = 3) -> dict:
    """Best of `runs` first syncs (stage one only), each into a fresh data folder."""
    best: dict | None = None
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as data:
            env = {**os.environ, "XDG_DATA_HOME": data}
            out = subprocess.run([sys.executable, "-c", CHILD, str(folder)], capture_output=True, text=True,
                                 env=env, check=True)
            r = json.loads(out.stdout)
            if best is None or r["seconds"] < best["seconds"]:
                best = r
    assert best is not None
    return best


def readers(folder: Path, kind: str, pattern: str) -> tuple[int, float]:
    from scree.notes.chunker import chunk_note

    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(folder.rglob(pattern))]
    t = time.perf_counter()
    for text in texts:
        chunk_note(text, kind)
    return sum(len(x.encode()) for x in texts), time.perf_counter() - t


def docutils_time(folder: Path) -> tuple[float, int, int] | None:
    try:
        from docutils.core import publish_doctree
        from docutils.utils import SystemMessage
    except ImportError:
        return None
    pages = sorted(folder.rglob("*.rst"))
    failed = 0
    t = time.perf_counter()
    for page in pages:
        settings = {"report_level": 5, "halt_level": 5, "file_insertion_enabled": False, "raw_enabled": False,
                    "warning_stream": False}
        try:
            tree = publish_doctree(page.read_text(encoding="utf-8", errors="replace"), source_path=str(page),
                                   settings_overrides=settings)
        except (SystemMessage, Exception):  # noqa: BLE001 - counted: a page docutils cannot read
            failed += 1
            continue
        if any(m.get("level", 0) >= 3 for m in tree.findall(lambda n: n.tagname == "system_message")):
            failed += 1
    return time.perf_counter() - t, failed, len(pages)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/scree-quality"))
    ap.add_argument("--rst-mb", type=float, default=2.6)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rst = Path(tmp) / "rst"
        size = rst_corpus(args.cache, int(args.rst_mb * 1e6), rst)
        md = Path(tmp) / "md"
        shutil.copytree(MARKDOWN, md)
        md_size = sum(p.stat().st_size for p in md.rglob("*.md"))
        for name, folder, nbytes in (("reStructuredText", rst, size), ("Markdown", md, md_size)):
            r = stage_one(folder)
            print(f"stage one, {name}: {r['files']} files, {nbytes / 1e6:.2f} MB, {r['chunks']} chunks in "
                  f"{r['seconds']:.2f} s = {nbytes / 1e6 / r['seconds']:.2f} MB/s (best of 3)")
        for name, folder, kind, pattern in (("reStructuredText", rst, "rst", "*.rst"),
                                            ("Markdown", md, "markdown", "*.md")):
            nbytes, secs = readers(folder, kind, pattern)
            print(f"reader + chunker alone, {name}: {nbytes / 1e6:.2f} MB in {secs:.2f} s = "
                  f"{nbytes / 1e6 / secs:.1f} MB/s")
        d = docutils_time(rst)
        if d is None:
            print("docutils: not installed (run with `uv run --frozen --with docutils`)")
        else:
            secs, failed, pages = d
            print(f"docutils publish_doctree alone, reStructuredText: {size / 1e6:.2f} MB in {secs:.2f} s = "
                  f"{size / 1e6 / secs:.1f} MB/s; {failed} of {pages} pages with errors (unknown Sphinx roles "
                  f"and directives)")


if __name__ == "__main__":
    main()
