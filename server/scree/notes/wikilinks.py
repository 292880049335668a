"""Wiki-style links (`[[Page]]`, `[[Page|alias]]`, `[[Page#Heading]]`, `![[embed]]`) as Obsidian resolves them.

Pure, no I/O. read_doc accepts a wikilink as its path so an agent can follow a link it read in a note.
A hand-written rule: the installed mdit-py-plugins has no wikilink rule, and only the link itself is read
here, so one regex is enough: the target runs up to `#` (a heading) or `|` (an alias).

Resolution follows Obsidian's "shortest path when possible": a target with a folder (`guides/Setup`)
names the note at that path (relative to the notes folder, extension optional); a bare name names the
note whose file name (without its extension) is that name, compared case-insensitively, and when several
notes share it the one with the shortest path, then the first in path order, wins.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass

_WIKILINK = re.compile(r"^\s*!?\[\[([^\[\]|#]*)(?:#([^\[\]|]*))?(?:\|([^\[\]]*))?\]\]\s*$")


@dataclass(frozen=True)
class WikiLink:
    """One link: the note it names, the heading after `#` (None without one), the alias after `|`."""

    target: str
    heading: str | None
    alias: str | None


def parse_wikilink(text: str) -> WikiLink | None:
    """The link when `text` is exactly one `[[...]]` (or `![[...]]`) link, else None."""
    m = _WIKILINK.match(text)
    if m is None:
        return None
    target = m.group(1).strip()
    heading = m.group(2).strip() if m.group(2) is not None else None
    alias = m.group(3).strip() if m.group(3) is not None else None
    if not target and not heading:
        return None
    return WikiLink(target, heading or None, alias or None)


def resolve_wikilink(target: str, notes: Iterable[str], suffixes: tuple[str, ...]) -> str | None:
    """The rel path of the note `target` names among `notes` (POSIX rel paths), or None."""
    want = target.strip().strip("/").casefold()
    if not want:
        return None
    best: str | None = None
    for rel in notes:
        low = rel.casefold()
        stem = _strip_suffix(low, suffixes)
        if "/" in want:
            hit = low == want or stem == want
        else:
            hit = posixpath.basename(stem) == want or posixpath.basename(low) == want
        if hit and (best is None or (rel.count("/"), len(rel), rel) < (best.count("/"), len(best), best)):
            best = rel
    return best


def _strip_suffix(name: str, suffixes: tuple[str, ...]) -> str:
    for s in suffixes:
        if name.endswith(s):
            return name[: -len(s)]
    return name
