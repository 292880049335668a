"""PyMdown's snippets (`pymdownx.snippets`, MkDocs Material's include): `--8<-- "docs/examples/app.py"` on a line of its
own, often inside a code fence, which the extension replaces with the file's lines before the page is read; or a block
of paths, one a line, between two `--8<--` lines.

Read as the lines of a `.. include::` are (`notes/includes.py`): the file's text shown in the line's section, a note
left out (it is indexed as itself) unless the line is inside a code block, whose code the file's text is. A path is the
extension's: relative to its base path, which is the folder MkDocs runs in unless `mkdocs.yml` says otherwise, so each
folder above the page is tried, nearest first (the notes folder last). Its suffix chooses lines as the extension reads
it: `:5` from line 5 on, `:5:9` lines 5 to 9, `::9` up to it (1-based, inclusive), `:name` the lines between
`--8<-- [start:name]` and `--8<-- [end:name]`. A line opening with `;` (`;--8<-- "file.md"`) is the extension's way to
show the syntax, and a path opening with one is commented out: neither is an include. A URL is never fetched, and an
SVG drawing (inlined, a picture) is not shown.

The extension splices a file's text into the page before the page is read: outside a code fence, the headings it brings
are the page's ("## Examples" in pixi's `add_extender`), each in the place its level gives it among the page's headings
open at the line. Such a line is marked SPLICED with those levels (`includes` makes the sections). Left out: the page's
text after the line stays under the page's own heading, where the built page puts it under the snippet's last one. Pure.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .mdblocks import Blocks
from ..records import AutodocRef

# The extension's own patterns (pymdownx/snippets.py, RE_ALL_SNIPPETS): one quoted path, or a block's marker alone.
_LINE = re.compile(r"""^[ \t]*(;*)-+8<-+[ \t]+("(?:\\"|[^"\n\r])+?"|'(?:\\'|[^'\n\r])+?')\s*$""")
_BLOCK = re.compile(r"^[ \t]*(;*)-+8<-+\s*$")
_PICTURES = (".svg",)  # Textual inlines its Excalidraw diagrams: kilobytes of paths and embedded fonts
_SUFFIX = re.compile(r"(?i)(.*?)(?:(:[0-9]*)?(:[0-9]*)?|(:[a-z][-_0-9a-z]*)?)$")


# Measured (docs/benchmarks.md): SNIPPETS. A reader rule: turning it off or on sets the next CHUNKER_VERSION.
SNIPPETS = True


# The option of a snippet spliced into the page's Markdown (a line outside code, not indented): the levels of the
# page's headings open at its line, "1,2", for `includes` to give the headings it brings the places they take.
SPLICED = "spliced"
# The option of a snippet inside a code block: its file's text is that code, whatever the file (a `CMakeLists.txt`, a
# `README.md` shown as Markdown source), so a note is shown too.
FENCED = "fenced"


def snippets(lines: list[str], blocks: Blocks | None = None) -> tuple[AutodocRef, ...]:
    """Each snippet a Markdown page includes, as an `include` directive of its file with the options its suffix
    means, its line the line naming the file; with the page's `blocks`, one inside code is marked FENCED and one
    outside it SPLICED."""
    out: list[AutodocRef] = []
    if not SNIPPETS:
        return ()
    block = False
    for i, line in enumerate(lines):
        if "8<" not in line and not block:
            continue
        found = _LINE.match(line) or _BLOCK.match(line)
        if found and found.group(1):
            continue  # escaped: the syntax shown
        if found and found.re is _BLOCK:
            block = not block
            continue
        if bool(found) == block:
            continue  # a quoted path inside a block (the extension leaves it out), or a line that only says `8<`
        ref = _ref(i, found.group(2)[1:-1].strip() if found else line.strip())
        fenced = blocks is not None and any(start <= i < end for start, end in blocks.verbatim)
        if ref is not None and fenced:
            ref = replace(ref, values=(*ref.values, (FENCED, "")))
        elif ref is not None and blocks is not None and not line[:1].isspace():
            levels = ",".join(str(level) for level in _open_levels(blocks, i))
            ref = replace(ref, values=(*ref.values, (SPLICED, levels)))
        if ref is not None:
            out.append(ref)
    return tuple(out)


def _open_levels(blocks: Blocks, line: int) -> list[int]:
    """The levels of the headings open at `line`: each heading above it that no later one of its level or above
    closed, outermost first."""
    stack: list[int] = []
    for heading in blocks.headings:
        if heading.start >= line:
            break
        if heading.text and not heading.body:
            stack = [level for level in stack if level < heading.level] + [heading.level]
    return stack


def _ref(line: int, spec: str) -> AutodocRef | None:
    """The include a path with its suffix means; None for an empty or commented-out path, or a URL."""
    if not spec or spec.startswith(";") or spec.lower().startswith(("http://", "https://")):
        return None
    if spec.lower().split(":", 1)[0].endswith(_PICTURES):
        return None  # inlined, a drawing's markup is a picture on the page, not its words
    found = _SUFFIX.match(spec)
    assert found is not None  # every string matches: each part is optional
    path, first, last, section = (found.group(n) or "" for n in range(1, 5))
    path = path.strip()
    if not path:
        return None
    values: dict[str, str] = {}
    if section:
        name = section[1:]
        values = {"start-after": f"[start:{name}]", "end-before": f"[end:{name}]"}
    elif len(first) > 1 or len(last) > 1:
        values = {"lines": f"{first[1:]}-{last[1:]}"}
    # "/": the base path is a folder above the page (`includes.candidates` tries each, nearest first)
    return AutodocRef(line, line + 1, "include", "/" + path.lstrip("/"), "", frozenset(values), (),
                      tuple(values.items()))
