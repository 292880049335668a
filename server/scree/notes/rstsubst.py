"""reStructuredText `replace::` substitutions, expanded where a page uses them, as the built page shows them.

A page may spell a name only through a substitution: loguru's troubleshooting page says "Loguru honors
|the-no-color-environment-variable|_", defined at its top as `.. |the-no-color-environment-variable| replace::
the ``NO_COLOR`` environment variable`. The built page reads "honors the NO_COLOR environment variable"; a chunk
of the source never spelled `NO_COLOR`, so neither index found the section that explains it. Each reference to a
`replace::` definition of the same file is written out in the text the chunker reads, on the reference's own
line (line numbers do not move), outside code and markup lines. A role in the replacement is written as the page
shows it (`|Logger|` defined as :class:`~loguru._logger.Logger` reads "Logger": the role's markup was no word of the
page, and written out it blurred the page's vector); other markup is kept as written, as in the rest of a chunk.

Left out: definitions from another file (`.. include::` of a substitutions file, `rst_prolog` / `rst_epilog`
in conf.py), `image::` and `unicode::` substitutions (no words to find), and substitutions nested in a
replacement text (docutils resolves them; they are rare).

Pure, no I/O, never raises on any `str`; a page cannot grow without bound (`MAX_REPLACEMENT_CHARS`,
`MAX_LINE_GROWTH`).
"""

from __future__ import annotations

import re
from typing import Iterable

from .rstblocks import render_roles

# `.. |name| replace:: text`, the text maybe continued on lines indented deeper.
_DEFINITION = re.compile(r"^([ \t]*)\.\.[ \t]+\|([^|\s](?:[^|]*[^|\s])?)\|[ \t]+replace[ \t]*::[ \t]*(.*)$")
# A reference: docutils' inline markup rules, simplified: not inside a word or next to another bar; a
# trailing `_` or `__` makes it a link too, which the built page does not show.
_REFERENCE = re.compile(r"(?<![\w|])\|([^|\s](?:[^|]*[^|\s])?)\|(?:__?)?(?![\w|])")
MAX_REPLACEMENT_CHARS = 1000
# A line's expansion stops (later references stay as written) once it would pass this many times its length
# plus MAX_REPLACEMENT_CHARS: thousands of references to a long text on one line must not blow a page up.
MAX_LINE_GROWTH = 4


def _key(name: str) -> str:
    # docutils matches a reference to its definition by the name with whitespace normalized, then ignoring case.
    return " ".join(name.split()).casefold()


def definitions(lines: list[str]) -> dict[str, str]:
    """The `replace::` substitutions a page defines: normalized name -> replacement text (continuation lines
    joined by spaces). The first definition of a name wins, as docutils warns and keeps it."""
    found: dict[str, str] = {}
    i, n = 0, len(lines)
    while i < n:
        m = _DEFINITION.match(lines[i]) if "replace" in lines[i] else None
        i += 1
        if m is None:
            continue
        indent = len(m.group(1))
        parts = [m.group(3).strip()]
        while i < n and lines[i].strip() and len(lines[i]) - len(lines[i].lstrip(" \t")) > indent:
            parts.append(lines[i].strip())
            i += 1
        text = render_roles(" ".join(p for p in parts if p)[:MAX_REPLACEMENT_CHARS]).strip()
        if text:
            found.setdefault(_key(m.group(2)), text)
    return found


def expand(lines: list[str], defined: dict[str, str], skip: Iterable[int]) -> list[str]:
    """`lines` with each reference to a `defined` substitution written out, except on the lines `skip` names
    (code, markup such as the definitions themselves). Same number of lines; a line without a reference to a
    defined name is returned as it is."""
    if not defined:
        return lines
    skipped = set(skip)
    out = list(lines)
    for i, line in enumerate(lines):
        if "|" not in line or i in skipped:
            continue
        budget = MAX_LINE_GROWTH * len(line) + MAX_REPLACEMENT_CHARS

        def written_out(m: re.Match[str]) -> str:
            nonlocal budget
            text = defined.get(_key(m.group(1)))
            if text is None or len(text) > budget:
                return m.group(0)
            budget -= len(text)
            return text

        out[i] = _REFERENCE.sub(written_out, line)
    return out
