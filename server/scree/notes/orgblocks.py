"""An Org file's block structure (`README.org`, Magit's manual `docs/magit.org`), read line by line as Emacs shows it.

Pure, no I/O, never raises on any `str`, one pass. It yields the same `Blocks` record as `mdblocks`:
- A line of stars and a blank (`** Staging`) is a heading, its level the stars; a TODO keyword, a priority cookie,
  a statistics cookie and trailing tags are not its title; inline markup is (`=x=` and `~x~` read as code spans,
  `[[target][text]]` as text).
- The file's `#+title:` is its title, as a Markdown page's front-matter title is (handed over as front matter).
- `#+begin_src`, `#+begin_example` and `#+begin_export` blocks and fixed-width lines (`: text`) are verbatim; other
  blocks (`quote`, `center`) are text, their delimiters markup.
- Keyword lines (`#+options:`), comments (`# text`), and property and logbook drawers are markup a reader never sees;
  another drawer's (`:PREAMBLE:`) content is text.
- A description list item (`- Key: C-c C-c (magit-commit-create) ::`, `- =magit-status= ::`) stays its section's
  text: as an entry of its own (ORG_ENTRIES, off) its term titled it, and Magit's plain questions lost their sections
  to their siblings' entries.
"""

from __future__ import annotations

import json
import re

from .mdblocks import MAX_HEADING_BYTES, Blocks, Heading
from .utf8 import cut_utf8

# A description list's item as an entry of its own, titled by its term: off. Magit's identifier top1 24 -> 26 of 28,
# its plain top3 12 -> 9 of 12 (the small entries of a sibling section took the places). Measured
# (docs/benchmarks.md): ORG_ENTRIES.
ORG_ENTRIES = False
_MAX_LEVEL = 6
_HEADING = re.compile(r"(\*+)[ \t]+(.*)")
_TODO = re.compile(r"(?:TODO|DONE|NEXT|WAITING|HOLD|CANCELLED|CANCELED)\s+")
_PRIORITY = re.compile(r"\[#[A-Z0-9]\]\s*")
_TAGS = re.compile(r"\s+:[\w@#%:]{1,200}:$")
_COOKIE = re.compile(r"\s*\[\d{0,4}(?:%|/\d{0,4})\]")
_LINK = re.compile(r"\[\[([^\]\n]{0,500})\](?:\[([^\]\n]{0,500})\])?\]")
_CODE = re.compile(r"(?<![\w=~])([=~])(\S(?:[^\n]{0,200}?\S)?)\1(?![\w=~])")
_EMPHASIS = re.compile(r"(?<![\w*/+])([*/+])(\S(?:[^\n]{0,200}?\S)?)\1(?![\w*/+])")
_BLOCK = re.compile(r"[ \t]*#\+(begin|end)_(\w+)", re.IGNORECASE)
_VERBATIM_BLOCKS = {"src", "example", "export"}
_KEYWORD = re.compile(r"[ \t]*#\+\w+:")
_TITLE = re.compile(r"[ \t]*#\+title:[ \t]*(.*)", re.IGNORECASE)
_DRAWER = re.compile(r"[ \t]*:([\w-]+):[ \t]*$")
_METADATA_DRAWERS = {"PROPERTIES", "LOGBOOK"}
_FIXED_WIDTH = re.compile(r"[ \t]*:(?: |$)")
_MAX_TERM_LINE = 2000  # a longer line is no term (and the term's pattern stays linear)
_ITEM = re.compile(r"[ \t]*(?:[-+]|[ \t]+\*)[ \t]+(.+?)[ \t]+::(?:[ \t]|$)")


def parse_org(lines: list[str]) -> Blocks:
    """Headings, entries, verbatim blocks, markup lines and title of an Org file given as `mdblocks.split_lines`
    lines."""
    headings: list[Heading] = []
    verbatim: list[tuple[int, int]] = []
    inert: list[int] = []
    title: str | None = None
    block = ""  # the open block's kind ("src", "quote", ...), "" when none
    block_start = -1
    drawer = ""  # the open drawer's name, "" when none
    fixed = -1  # the first line of a run of fixed-width lines, -1 when none
    level = 0  # the current heading's level
    for i, line in enumerate(lines):
        if fixed >= 0 and not _FIXED_WIDTH.match(line):
            verbatim.append((fixed, i))
            fixed = -1
        if block:
            end = _BLOCK.match(line)
            if end and end.group(1).lower() == "end" and end.group(2).lower() == block:
                if block in _VERBATIM_BLOCKS:
                    verbatim.append((block_start, i + 1))
                else:
                    inert.append(i)
                block = ""
            continue
        if drawer:
            if line.strip().upper() == ":END:":
                inert.append(i)
                drawer = ""
            elif drawer in _METADATA_DRAWERS:
                inert.append(i)
            continue
        heading = _HEADING.fullmatch(line.rstrip())
        if heading:
            level = min(len(heading.group(1)), _MAX_LEVEL)
            text = clean_org_heading(heading.group(2))
            if text:
                headings.append(Heading(i, i + 1, level, text))
            continue
        opened = _BLOCK.match(line)
        if opened and opened.group(1).lower() == "begin":
            block, block_start = opened.group(2).lower(), i
            if block not in _VERBATIM_BLOCKS:
                inert.append(i)
            continue
        named = _TITLE.match(line)
        if named and title is None:
            title = clean_org_heading(named.group(1))
        if _KEYWORD.match(line) or line.startswith("# ") or line.rstrip() == "#":
            inert.append(i)
            continue
        opened_drawer = _DRAWER.match(line)
        if opened_drawer and opened_drawer.group(1).upper() != "END":
            drawer = opened_drawer.group(1).upper()
            inert.append(i)
            continue
        if _FIXED_WIDTH.match(line):
            if fixed < 0:
                fixed = i
            continue
        item = _ITEM.match(line) if ORG_ENTRIES and "::" in line and len(line) <= _MAX_TERM_LINE else None
        if item:
            term = clean_org_heading(item.group(1))
            if term:
                headings.append(Heading(i, i + 1, min(level + 1, _MAX_LEVEL), term, body=True))
    if fixed >= 0:
        verbatim.append((fixed, len(lines)))
    if block and block in _VERBATIM_BLOCKS:
        verbatim.append((block_start, len(lines)))
    front = f"title: {json.dumps(title)}" if title else None
    return Blocks(0, front, tuple(headings), tuple(verbatim), inert=tuple(inert))


def clean_org_heading(raw: str) -> str:
    """A heading's or term's text as a trail shows it: no TODO keyword, priority, statistics cookie or tags;
    links as their text, `=code=` and `~code~` as code spans, emphasis markers off, blanks collapsed."""
    text = raw.strip()[:MAX_HEADING_BYTES * 4]
    text = _TODO.sub("", text, count=1) if _TODO.match(text) else text
    text = _PRIORITY.sub("", text, count=1) if text.startswith("[#") else text
    text = _TAGS.sub("", text)
    text = _COOKIE.sub("", text)
    text = _LINK.sub(lambda m: m.group(2) or m.group(1), text)
    text = _CODE.sub(lambda m: f"`{m.group(2)}`", text)
    text = _EMPHASIS.sub(lambda m: m.group(2), text)
    return cut_utf8(" ".join(text.split()), MAX_HEADING_BYTES).rstrip()
