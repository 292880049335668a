"""An AsciiDoc note's block structure, read line by line: section titles, delimited blocks, markup lines.

Pure, no I/O, never raises on any `str`, one pass. It yields the same `Blocks` record as `mdblocks`, so
everything after the reader is shared with Markdown and reStructuredText. Asciidoctor's rules, as far
as structure goes:
- A section title is `=` (the document title), `==`, ... `======` followed by a space and text, at the
  start of a line; Asciidoctor also takes Markdown's `#` form. The level is the number of marks, so the
  document title is the trail's root.
- A delimited block runs from a line of four or more `-`, `.`, `=`, `*`, `_`, `+` or `/` (or `|===`, or
  `--`) to the same line again; no title is looked for inside. Listing (`----`), literal (`....`) and table
  (`|===`) blocks are verbatim: their blank lines are content. Comment (`////`) and passthrough (`++++`)
  blocks are inert: markup a reader never sees.
- Line comments (`// ...`), attribute entries (`:toc: left`), block attribute lines (`[source,python]`,
  `[NOTE]`), preprocessor lines (`include::...[]`, `ifdef::...[]`, `endif::[]`) are inert; an anchor line
  (`[[install]]`, `[#install]`) right above a title is a target, kept with the section it names.
"""

from __future__ import annotations

import re

from .mdblocks import Blocks, Heading
from .rstblocks import clean_rst_title

_TITLE = re.compile(r"^(={1,6}|#{1,6})[ \t]+(\S.*?)[ \t]*$")
_DELIMITER = re.compile(r"^(?:(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,})|(\|={3,})|(--))[ \t]*$")
_ANCHOR = re.compile(r"^\[(?:\[[^\[\]]+\]|#[^\[\]]+)\][ \t]*$")
_MARKUP = re.compile(r"^(?://(?!/)|:[\w-]+!?:(?:[ \t]|$)|\[[^\[\]]*\][ \t]*$|"
                     r"(?:include|ifdef|ifndef|ifeval|endif)::[^\[]*\[.*\][ \t]*$)")
_VERBATIM = ("-", ".", "|")
_INERT = ("/", "+")


def parse_adoc(lines: list[str]) -> Blocks:
    """Section titles, verbatim and inert lines and anchors of an AsciiDoc note given as
    `mdblocks.split_lines` lines."""
    headings: list[Heading] = []
    verbatim: list[tuple[int, int]] = []
    targets: list[int] = []
    inert: list[int] = []
    closing = ""  # the delimiter line that closes the open block, "" when none is open
    opened = -1
    kind = ""
    for i, line in enumerate(lines):
        stripped = line.rstrip(" \t")
        if closing:
            if stripped == closing:
                if kind in _VERBATIM:
                    verbatim.append((opened, i + 1))
                elif kind in _INERT:
                    inert.extend(range(opened, i + 1))
                closing = ""
            continue
        d = _DELIMITER.match(stripped)
        if d:
            closing, opened, kind = stripped, i, "|" if d.group(2) else stripped[0]
            continue
        m = _TITLE.match(stripped)
        if m:
            headings.append(Heading(i, i + 1, len(m.group(1)), clean_rst_title(_strip_closing(m.group(2)))))
            continue
        if _ANCHOR.match(stripped):
            targets.append(i)
        elif _MARKUP.match(stripped):
            inert.append(i)
    if closing:  # never closed: Asciidoctor reads it to the end
        if kind in _VERBATIM:
            verbatim.append((opened, len(lines)))
        elif kind in _INERT:
            inert.extend(range(opened, len(lines)))
    return Blocks(0, None, tuple(headings), tuple(verbatim), tuple(targets), tuple(inert))


def _strip_closing(text: str) -> str:
    """A title's text without the optional closing marks (`== Install ==`)."""
    return text.rstrip("=# \t") or text
