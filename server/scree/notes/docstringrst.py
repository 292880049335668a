"""What a docstring's reStructuredText makes of it beyond its text, as Sphinx builds it: the object descriptions in it
as entries of their own (`docstring_sections`), and a module docstring's opening section title (`opening_title`).
Pure; `notes/autodoc.py` reads the docstrings."""

from __future__ import annotations

from . import rstblocks
from .chunker import TRAIL_SEPARATOR
from .sections import split_lines


# A module docstring that opens with a section title ("Application Dispatcher" / "======================", each of
# werkzeug's middleware modules) titles what `.. automodule::` shows: Sphinx puts the title in the page, the module's
# text under it and its members' entries in that section, so a page holding only the directive is titled so.
# Measured (docs/benchmarks.md): MODULE_TITLES.
MODULE_TITLES = True


def opening_title(doc: str) -> tuple[str, str]:
    """(title, the rest) when `doc` opens with a reStructuredText section title; ("", doc) otherwise."""
    lines = doc.split("\n")
    parsed = rstblocks.parse_rst(split_lines(doc))
    first = next(iter(parsed.blocks.headings), None)
    if first is None or first.level >= rstblocks.ENTRY_LEVEL or any(line.strip() for line in lines[:first.start]):
        return "", doc
    return first.text, "\n".join(lines[first.end:]).strip("\n")


# A docstring is reStructuredText, and an object description in it (`.. attribute:: autojump_threshold` in trio's
# `MockClock` docstring, a property documented nowhere else) is an entry Sphinx nests under the object's own, in the
# page and its table of contents: "trio.testing.MockClock > autojump_threshold". Titles in a docstring are not
# sections (NumPy-style "Parameters" / "----------" is a field list to napoleon). Measured (docs/benchmarks.md):
# DOCSTRING_ENTRIES.
DOCSTRING_ENTRIES = True


def docstring_sections(lines: list[str], heading: str) -> list[tuple[str, list[str]]]:
    """A docstring's lines (signature first) as (trail, lines) sections: the object's own under `heading`, and each
    object description in it under `heading` and the descriptions holding it. Lines outside every section are none."""
    parsed = rstblocks.parse_rst(split_lines("\n".join(lines))) if DOCSTRING_ENTRIES else None
    headings = parsed.blocks.headings if parsed else ()
    if not any(h.text and h.level >= rstblocks.ENTRY_LEVEL for h in headings):
        return [(heading, lines)]
    out: list[tuple[str, list[str]]] = []
    stack: list[tuple[int, str]] = []
    trail, start = heading, 0
    for h in headings:
        out.append((trail, lines[start:h.start]))
        while stack and stack[-1][0] >= h.level:
            stack.pop()
        if h.text and h.level >= rstblocks.ENTRY_LEVEL:  # a title closes the entries: its text is the object's
            stack.append((h.level, h.text))
        trail = TRAIL_SEPARATOR.join([heading, *(text for _, text in stack)])
        start = h.start
    out.append((trail, lines[start:]))
    return [(t, part) for t, part in out if any(line.strip() for line in part)]
