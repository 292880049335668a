"""An AsciiDoc note's block structure, read line by line: section titles, delimited blocks, markup lines.

Pure, no I/O, never raises on any `str`, one pass. It yields the same `Blocks` record as `mdblocks`, so
everything after the reader is shared with Markdown and reStructuredText. Asciidoctor's rules, as far
as structure goes:
- A section title is `=` (the document title), `==`, ... `======` followed by a space and text, at the
  start of a line; Asciidoctor also takes Markdown's `#` form. The level is the number of marks, so the
  document title is the trail's root.
- Or a two-line title (SETEXT_TITLES): a line of text that opens a block, underlined by a line of one mark as
  long within one character, `=` the document title, then `-`, `~`, `^`, `+` (AsciiDoc.py's form, which
  Asciidoctor reads: Git's manual pages are written so). Read before delimiters, as Asciidoctor does: `NAME`
  over `----` is a title, not a listing block.
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
# A title may end in its own anchor (`Discussion[[Discussion]]`), which Asciidoctor takes off the title.
_TITLE_ANCHOR = re.compile(r"[ \t]*\[\[[^\[\]]+\]\]$")
_VERBATIM = ("-", ".", "|")
# A two-line title's underline mark and the level it gives, as `_TITLE`'s marks count (Asciidoctor's
# SETEXT_SECTION_LEVELS, one up: its document title is level 0, ours 1).
# Measured (docs/benchmarks.md): SETEXT_TITLES.
SETEXT_TITLES = True
_SETEXT_LEVELS = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}
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
    underline = -1  # the line a two-line title took as its underline
    opens_block = True  # whether the line read next may open a block (the first, or after a blank line)
    for i, line in enumerate(lines):
        stripped = line.rstrip(" \t")
        starts = opens_block
        # a blank line ends a paragraph; an anchor, attribute or comment line keeps the block to come
        opens_block = not stripped or (starts and bool(_ANCHOR.match(stripped) or _MARKUP.match(stripped)))
        if i == underline:
            opens_block = True
            continue
        if closing:
            if stripped == closing:
                if kind in _VERBATIM:
                    verbatim.append((opened, i + 1))
                elif kind in _INERT:
                    inert.extend(range(opened, i + 1))
                closing, opens_block = "", True
            continue
        level = _setext_level(stripped, lines[i + 1].rstrip(" \t") if i + 1 < len(lines) else "") \
            if SETEXT_TITLES and starts else 0
        if level:
            headings.append(Heading(i, i + 2, level, _title_text(stripped)))
            underline = i + 1
            continue
        d = _DELIMITER.match(stripped)
        if d:
            closing, opened, kind = stripped, i, "|" if d.group(2) else stripped[0]
            continue
        m = _TITLE.match(stripped)
        if m:
            headings.append(Heading(i, i + 1, len(m.group(1)), _title_text(_strip_closing(m.group(2)))))
            opens_block = True
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


def _setext_level(title: str, under: str) -> int:
    """The level of a two-line title of `title` over `under` (Asciidoctor's `setext_section_title?`: a title
    not opening with a dot, holding a letter or digit, over one mark repeated as long within one); 0 for none."""
    level = _SETEXT_LEVELS.get(under[:1], 0)
    if not level or under.strip(under[0]) or abs(len(title) - len(under)) > 1:
        return 0
    if title.startswith((".", " ", "\t")) or not any(c.isalnum() for c in title):
        return 0
    # a one-line title, and the lines Asciidoctor reads before it looks for a title (a block's attributes, an
    # anchor, a comment, an attribute entry), are never one
    if _TITLE.match(title) or _ANCHOR.match(title) or _MARKUP.match(title):
        return 0
    return level


def _title_text(title: str) -> str:
    """A title as a reader sees it (`clean_rst_title`), without its own trailing anchor."""
    return clean_rst_title(_TITLE_ANCHOR.sub("", title) or title)


def _strip_closing(text: str) -> str:
    """A title's text without the optional closing marks (`== Install ==`)."""
    return text.rstrip("=# \t") or text
