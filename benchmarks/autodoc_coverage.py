"""How many of a Sphinx project's autodoc directives scree can show a docstring for, and which it cannot.

    uv run --frozen python benchmarks/autodoc_coverage.py FOLDER [FOLDER ...] [--show 8]

For each notes folder: every `.rst` page's autodoc directives (`.. autoclass::`, `.. automethod::` in a class body,
...; `automodule` and `autosummary` aside, which name no single object), resolved as a sync resolves them
(`notes/autodoc.py` over the folder's Python source, read under the notes policy), and the count of those that show
nothing. A directive shows nothing when its object is outside the folder (an installed package), has no docstring
(Sphinx then shows a bare signature), or is made at run time (a module `__getattr__`); or when scree misreads it,
which is what this is for (docs/benchmarks.md, "Trio, a fiftieth set, and three autodoc reader gaps").
"""

from __future__ import annotations

import argparse
from pathlib import Path

from scree.notes.autodoc import Resolver  # the resolver itself: what the sync asks, one directive at a time
from scree.notes.mdblocks import split_lines
from scree.notes.modules import ModuleFiles
from scree.notes.policy import NotesPolicy
from scree.notes.rstblocks import parse_rst

_NO_OBJECT = ("literalinclude", "automodule", "autosummary")


def coverage(folder: Path) -> tuple[int, list[tuple[str, str, str]]]:
    """The number of directives naming one object under `folder`, and (page, directive, target) of those that show
    nothing."""
    policy = NotesPolicy.load(folder)
    resolver = Resolver(ModuleFiles(policy))
    total = 0
    missing: list[tuple[str, str, str]] = []
    for page in sorted(folder.rglob("*.rst")):
        rel = page.relative_to(folder).as_posix()
        if not policy.inspect(rel).admitted:
            continue
        lines = split_lines(page.read_text(encoding="utf-8", errors="replace"))
        for ref in parse_rst(lines).autodoc:
            if ref.directive in _NO_OBJECT:
                continue
            total += 1
            if not resolver.documented(ref):
                missing.append((rel, ref.directive, ref.target))
    return total, missing


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--show", type=int, default=8, help="unresolved directives listed per folder")
    args = ap.parse_args()
    for folder in args.folders:
        total, missing = coverage(folder.resolve())
        print(f"{folder}: {total - len(missing)} of {total} autodoc directives show a docstring, {len(missing)} do not")
        for rel, directive, target in missing[:args.show]:
            print(f"    {rel}: .. {directive}:: {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
