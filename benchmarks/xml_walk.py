"""What telling DocBook from other XML costs a walk: seconds to walk a folder of many XML files that are not DocBook.

    uv run --frozen python benchmarks/xml_walk.py [--files 20000]

An `.xml` file is a note only when it is DocBook in a docs folder (`formats.in_docs_folder`, then the first 4 kB,
`docbookblocks.is_docbook`). Two made-up projects of `--files` Maven-style XML files and 200 READMEs: one with the XML
where a Java or Android project keeps it (`mod*/src/main/res/`), the other with all of it below `docs/` (the worst
case: every file's head is read). Each is walked three times with a fresh policy (a session's first sync) and once
more with the same policy (the watcher's next walk, the verdicts kept by modification time and size).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from scree.notes.policy import NotesPolicy  # noqa: E402
from scree.notes.walk import walk_notes  # noqa: E402

_POM = ("<?xml version='1.0'?>\n<project xmlns='http://maven.apache.org/POM/4.0.0'>\n"
        + "  <dependency><groupId>org.x</groupId><artifactId>a</artifactId></dependency>\n" * 30 + "</project>\n")


def _project(root: Path, files: int, below: str) -> None:
    modules = max(1, files // 100)
    for m in range(modules):
        folder = root / below / f"mod{m}" / "src" / "main" / "res"
        folder.mkdir(parents=True)
        for f in range(files // modules):
            (folder / f"layout{f}.xml").write_text(_POM, encoding="utf-8")
        (root / below / f"mod{m}" / "README.md").write_text(f"# Module {m}\n\nText.\n", encoding="utf-8")
    (root / ".git").mkdir()


def _walk(policy: NotesPolicy) -> tuple[int, float]:
    started = time.perf_counter()
    notes = sum(1 for item in walk_notes(policy) if isinstance(item, str))
    return notes, time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=20_000)
    files = ap.parse_args().files
    print(f"{'layout':24} {'notes':>6} {'fresh walks (s)':>24} {'again (s)':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, below in (("code folders", "."), ("all below docs/", "docs")):
            root = Path(tmp) / name.replace(" ", "-").replace("/", "")
            _project(root, files, below)
            fresh = []
            for _ in range(3):
                policy = NotesPolicy.load(root)
                notes, seconds = _walk(policy)
                fresh.append(seconds)
            _, again = _walk(policy)
            print(f"{name:24} {notes:6} {' / '.join(f'{s:.2f}' for s in fresh):>24} {again:10.2f}")


if __name__ == "__main__":
    main()
