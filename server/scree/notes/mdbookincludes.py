"""mdBook's include lines: `{{#include ../listings/src/main.rs}}` (or `{{#rustdoc_include ...}}`) on a line of its own,
often inside a code fence, which mdBook replaces with the file's lines when it builds the book.

Read as the lines of a `.. include::` are (`notes/includes.py`): the file's text shown in the line's section, a note
left out (it is indexed as itself). A path's suffix chooses lines as mdBook reads it: `:5` one line, `:5:` from it on,
`::9` up to it, `:5:9` a range (1-based, inclusive), `:name` the lines between `ANCHOR: name` and `ANCHOR_END: name`.
An escaped `\\{{#include ...}}` is mdBook's own way to show the syntax: not an include. Pure.
"""

from __future__ import annotations

import re

from ..records import AutodocRef

_LINE = re.compile(r"^\s*\{\{#(?:include|rustdoc_include)\s+([^\s}]+)\s*\}\}\s*$")
_RANGE = re.compile(r"(\d*):?(\d*)")


def mdbook_includes(lines: list[str]) -> tuple[AutodocRef, ...]:
    """Each include line of a Markdown page, as an `include` directive of its file with the options its suffix means."""
    out: list[AutodocRef] = []
    for i, line in enumerate(lines):
        found = _LINE.match(line) if "{{#" in line else None
        if found is None:
            continue
        path, _, suffix = found.group(1).partition(":")
        values = _options(suffix)
        out.append(AutodocRef(i, i + 1, "include", path, "", frozenset(values), (), tuple(values.items())))
    return tuple(out)


def _options(suffix: str) -> dict[str, str]:
    """The `notes/includes.select` options a path's `:...` suffix means."""
    if not suffix:
        return {}
    numbers = _RANGE.fullmatch(suffix)
    if numbers is None:  # an anchor's name
        return {"start-after": f"ANCHOR: {suffix}", "end-before": f"ANCHOR_END: {suffix}"}
    first, last = numbers.groups()
    if not (first or last):
        return {}
    if ":" not in suffix:
        return {"lines": first}
    return {"lines": f"{first}-{last}"}
