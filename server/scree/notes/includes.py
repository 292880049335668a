"""The code a page shows from another file: `.. literalinclude:: snippets/threads/run_sync.py` (reStructuredText,
`rstblocks`), ```` ```{literalinclude} snippets/run_sync.py ```` (MyST, `mystdirectives`), and the include lines of
mdBook (`mdbookincludes`) and of PyMdown's snippets (`mkdocssnippets`).

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
from collections.abc import Callable, Iterator
from dataclasses import replace

from . import mdblocks, pysource, rstblocks
from .chunker import TRAIL_SEPARATOR, chunk_lines, chunk_note
from .formats import DEFAULT_SUFFIXES, SPHINX_TEXT_SUFFIX
from .mkdocssnippets import FENCED, SPLICED
from .sections import Excerpt, chunks_excerpt
from .utf8 import cut_utf8
from ..records import AutodocRef, Chunk, ChunkedNote

INCLUDE = "literalinclude"  # `AutodocRef.directive` of such a directive (`rstblocks` reports it with autodoc's)
# A plain `.. include::` (MyST's `{include}`) of a file that is no note: its text is the page's (marshmallow's
# `about.rst.inc`). One with `:literal:` or `:code:` is reported as a literalinclude; one of a note shows that note,
# which is indexed as itself, so it is not shown twice.
TEXT_INCLUDE = "include"
NOTE_SUFFIXES = (*DEFAULT_SUFFIXES, SPHINX_TEXT_SUFFIX)
SNIPPET_MARK = "8<"  # a PyMdown snippet's line (`notes/mkdocssnippets.py`), which names no directive
_FROM = "(included from "  # an included chunk's last line: `(included from docs/snippets/run.py)`
MAX_INCLUDED_LINES = 2000  # lines of one included file indexed (a page that includes a generated file)
# One page's includes, each at most MAX_INCLUDED_LINES: the most any page of the 78 sets shows is 37 directives
# (textual's layout guide) and 1,207 lines (its widgets guide), so these bound only a page written to flood the index.
MAX_INCLUDES_PER_PAGE = 200
MAX_PAGE_INCLUDED_LINES = 20_000

# A path relative to the notes folder to that file's text, or None when it is not there or not admitted.
FileReader = Callable[[str], "str | None"]


def included_chunks(note: ChunkedNote, note_path: str, read: FileReader) -> list[Chunk]:
    """The chunks of the lines every `literalinclude` directive of `note` (at `note_path`) shows, in order."""
    out: list[Chunk] = []
    for ref, trail, rel, lines in _shown(note, note_path, read):
        first, last = ref.line + 1, max(ref.end, ref.line + 1)
        levels = dict(ref.values).get(SPLICED)
        parts = [(trail, lines)] if levels is None else _spliced_sections(lines, trail, levels)
        for section, text in parts:
            chunks = chunk_lines(text, section, first, last)
            out.extend(replace(c, text=f"{c.text}\n\n{_FROM}{rel})") for c in chunks)
    return out


def included_excerpt(text: str, kind: str, heading: str, note_path: str, read: FileReader,
                     max_bytes: int) -> Excerpt | None:
    """read_doc of a section only an included file makes (a heading a PyMdown snippet brings into the page): its
    lines, as search showed them, ending with where they came from. None when no include of the page makes it."""
    return chunks_excerpt(included_chunks(chunk_note(text, kind), note_path, read), heading, text, max_bytes,
                          "lines an included file brings into this page (lines start_line-end_line include it)")


def _spliced_sections(lines: list[str], trail: str, levels: str) -> list[tuple[str, list[str]]]:
    """A snippet spliced into a Markdown page (`mkdocssnippets.SPLICED`), cut into its sections: the lines before its
    first heading under `trail`, then each heading's lines under the trail the page's open headings (`levels`, one
    for each of the trail's last parts) and its own headings give it."""
    parts = trail.split(TRAIL_SEPARATOR) if trail else []
    opened = [int(level) for level in levels.split(",") if level.isdigit()][-len(parts):] if parts else []
    root = parts[:len(parts) - len(opened)]  # a title the page has above its headings (its front matter's)
    stack = list(zip(opened, parts[len(parts) - len(opened):]))
    heads = [h for h in mdblocks.parse_blocks(lines).headings if h.text and not h.body]
    out = [(trail, lines[:heads[0].start if heads else len(lines)])]
    for k, head in enumerate(heads):
        stack = [(level, text) for level, text in stack if level < head.level] + [(head.level, head.text)]
        end = heads[k + 1].start if k + 1 < len(heads) else len(lines)
        out.append((TRAIL_SEPARATOR.join([*root, *(text for _, text in stack)]), lines[head.start:end]))
    return [(section, text) for section, text in out if any(line.strip() for line in text)]


def with_included_lines(ex: Excerpt, text: str, kind: str, note_path: str, read: FileReader,
                        max_bytes: int) -> Excerpt:
    """read_doc of a part of a page holding `literalinclude` directives: its lines, then the lines each directive in
    it shows, each ending with where they came from, as search showed them. Any other excerpt is returned as it is."""
    if TEXT_INCLUDE not in ex.text and SNIPPET_MARK not in ex.text:  # the word of each directive, or the scissors
        return ex
    shown = [(rel, f"{chr(10).join(lines)}\n\n{_FROM}{rel})") for ref, _, rel, lines in
             _shown(chunk_note(text, kind), note_path, read) if ex.start_line <= ref.line + 1 <= ex.end_line]
    if not shown:
        return ex
    whole = "\n\n".join([ex.text.rstrip("\n"), *(lines for _, lines in shown)])
    body = cut_utf8(whole, max_bytes)
    remarks = [ex.note] if ex.note else []
    remarks.append("after the lines, the lines its literalinclude directives show")
    if len(body) < len(whole):
        remarks.append(f"cut at {max_bytes // 1000} KB: the rest is in {', '.join(rel for rel, _ in shown)}")
    return replace(ex, text=body, note="; ".join(remarks))


def _shown(note: ChunkedNote, note_path: str, read: FileReader) -> Iterator[tuple[AutodocRef, str, str, list[str]]]:
    """Each `literalinclude` directive of `note` that shows lines: the directive, its section's trail, the file's
    path and the lines its options choose; each file read once, at most MAX_INCLUDES_PER_PAGE directives and
    MAX_PAGE_INCLUDED_LINES lines in all."""
    texts: dict[str, str | None] = {}
    shown, left = 0, MAX_PAGE_INCLUDED_LINES
    for ref, trail in zip(note.autodoc, note.autodoc_trails):
        if ref.directive not in rstblocks.FILE_DIRECTIVES:
            continue
        if ref.directive == TEXT_INCLUDE and ref.target.strip().lower().endswith(NOTE_SUFFIXES) \
                and FENCED not in dict(ref.values):
            continue
        if shown >= MAX_INCLUDES_PER_PAGE or left <= 0:
            return  # a page written to make the index read one file thousands of times
        for rel in candidates(note_path, ref.target):
            if rel not in texts:
                texts[rel] = read(rel)
            text = texts[rel]
            if text is None:
                continue
            lines = select(text.splitlines(), dict(ref.values))[:min(MAX_INCLUDED_LINES, left)]
            if any(line.strip() for line in lines):
                shown, left = shown + 1, left - len(lines)
                yield ref, trail, rel, lines
            break


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
    if options.get("start-line") or options.get("end-line"):  # an include's, 0-based, negative from the end
        lines = lines[_index(options.get("start-line")):_index(options.get("end-line"))]
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


def _index(value: str | None) -> int | None:
    """An include's `:start-line:` or `:end-line:` as a slice bound (None when absent or no integer)."""
    try:
        return int(value) if value else None
    except ValueError:
        return None


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
