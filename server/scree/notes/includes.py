"""The code a page shows from another file: `.. literalinclude:: snippets/threads/run_sync.py` (reStructuredText,
`rstblocks`), ```` ```{literalinclude} snippets/run_sync.py ```` (MyST, `mystdirectives`).

Sphinx renders the named file's lines (or the part its options choose) inside the page; in the source the section
holds only the directive, so the example an agent most needs lives elsewhere (AnyIO keeps all its examples in
`docs/snippets/`). The included lines are indexed as a chunk of the directive's own section, pointing at the
directive's lines and ending with where they came from, `(included from docs/snippets/threads/run_sync.py)`: a
sync that sees that file change indexes the page again (`db.queries.files_citing`), as it does for docstrings.

Any file the notes policy admits is included, whatever its kind: a YAML file of defaults whose comments are the only
words on each key (Jupyter Book's `default_config.yml`), a shell session's output, a licence. What `read` refuses
(hidden, ignored, a link, binary, over its cap, outside the folder) stays the directive's line. The sync keeps each
included file that is no code file in its vocabulary's table (`index/vocabsync.py`, kind `included`), so an edit of
it reaches the page at the next full sync as a code file's does. Paths resolve as Sphinx
resolves them: relative to the page, or, written with a leading `/`, to the source folder (here each folder above the
page, nearest first). The options that choose lines are read in Sphinx's order: `:pyobject:`, `:lines:`, then
`:start-at:`/`:start-after:` and `:end-at:`/`:end-before:`. Pure but for `read`.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Callable
from dataclasses import replace

from . import pysource
from .chunker import chunk_lines
from ..records import Chunk, ChunkedNote

INCLUDE = "literalinclude"  # `AutodocRef.directive` of such a directive (`rstblocks` reports it with autodoc's)
_FROM = "(included from "  # an included chunk's last line: `(included from docs/snippets/run.py)`
MAX_INCLUDED_LINES = 2000  # lines of one included file indexed (a page that includes a generated file)

# A path relative to the notes folder to that file's text, or None when it is not there or not admitted.
FileReader = Callable[[str], "str | None"]


def included_chunks(note: ChunkedNote, note_path: str, read: FileReader) -> list[Chunk]:
    """The chunks of the lines every `literalinclude` directive of `note` (at `note_path`) shows, in order."""
    out: list[Chunk] = []
    for ref, trail in zip(note.autodoc, note.autodoc_trails):
        if ref.directive != INCLUDE:
            continue
        for rel in candidates(note_path, ref.target):
            text = read(rel)
            if text is None:
                continue
            lines = select(text.splitlines(), dict(ref.values))[:MAX_INCLUDED_LINES]
            if any(line.strip() for line in lines):
                note_line = f"{_FROM}{rel})"
                chunks = chunk_lines(lines, trail, ref.line + 1, max(ref.end, ref.line + 1))
                out.extend(replace(c, text=f"{c.text}\n\n{note_line}") for c in chunks)
            break
    return out


def candidates(note_path: str, target: str) -> list[str]:
    """The notes-folder paths a directive's `target` may name from the page `note_path`, most likely first; none
    outside the folder."""
    target = target.strip()
    if not target or "\0" in target:
        return []
    folder = posixpath.dirname(note_path)
    if target.startswith("/"):
        bases = []
        while True:
            bases.append(folder)
            if not folder:
                break
            folder = posixpath.dirname(folder)
        joined = [posixpath.join(base, target.lstrip("/")) for base in bases]
    else:
        joined = [posixpath.join(folder, target)]
    out = []
    for path in joined:
        norm = posixpath.normpath(path)
        if norm != ".." and not norm.startswith(("../", "/")) and norm not in out:
            out.append(norm)
    return out


def select(lines: list[str], options: dict[str, str]) -> list[str]:
    """The part of a file's `lines` a literalinclude's `options` choose (all of them when none does)."""
    if options.get("pyobject"):
        lines = _pyobject(lines, options["pyobject"])
    if options.get("lines"):
        lines = _numbered(lines, options["lines"])
    for start, keep in (("start-at", True), ("start-after", False)):
        marker = options.get(start)
        if marker:
            at = next((i for i, line in enumerate(lines) if marker in line), None)
            lines = [] if at is None else lines[at if keep else at + 1:]
    for end, keep in (("end-at", True), ("end-before", False)):
        marker = options.get(end)
        if marker:
            at = next((i for i, line in enumerate(lines) if marker in line), None)
            lines = lines if at is None else lines[:at + 1 if keep else at]
    return lines


def _numbered(lines: list[str], spec: str) -> list[str]:
    """`:lines: 1,3,5-10,20-`: those 1-based lines, in order; a spec that is no such list chooses all."""
    chosen: list[int] = []
    for part in spec.replace(" ", "").split(","):
        first, dash, last = part.partition("-")
        if not (first or last) or (first and not first.isdigit()) or (last and not last.isdigit()):
            return lines
        low = int(first) if first else 1
        high = (int(last) if last else len(lines)) if dash else low
        chosen.extend(range(max(low, 1), min(high, len(lines)) + 1))
        if len(chosen) >= MAX_INCLUDED_LINES:  # a spec repeating ranges must not build a list of millions
            break
    return [lines[n - 1] for n in chosen]


def _pyobject(lines: list[str], dotted: str) -> list[str]:
    """The lines of the class or function `dotted` names (`Engine.start`), decorators included; none when the
    file is no Python Sphinx could read or has no such object."""
    tree = pysource.parse("\n".join(lines))
    if tree is None:
        return []
    body: list[ast.stmt] = tree.body
    node: ast.stmt | None = None
    for part in dotted.strip().split("."):
        node = next((n for n in body if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                     and n.name == part), None)
        if node is None:
            return []
        body = node.body
    if node is None or node.end_lineno is None:
        return []
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return lines[first - 1:node.end_lineno]
