"""Plain text (a `README`, `INSTALL` or `PROTOCOL.agent` file, a listed `.txt`) read for the titles its writer laid
out, as a reader skimming it sees them.

Pure, no I/O, never raises on any `str`, one pass over the lines. Two layouts make a title; anything else is text:
- A line underlined by a line of one mark, three times or more (`How to compile this.` over `----`, GNU's `Basic
  Installation` over `====`), the line before it blank: a heading whose level follows the order in which the page
  first uses each mark, as reStructuredText's titles do (a line over a title with the same mark is part of it).
- A numbered line standing alone between blank lines (OpenSSH's `1.1. transport: Protocol 2 MAC algorithms`, an RFC
  copy's `3.  Requirements`), or wrapped onto one more line before the blank, not a sentence (no closing `.`, `:`, `;`
  or `,`): a heading one level deeper per part of its number, below the underlined title it follows.
Every line stays text: a title is a line of the page (`Heading.body`).
"""

from __future__ import annotations

import re

from .mdblocks import Blocks, Heading

MAX_TITLE_CHARS = 100
_MAX_LEVEL = 6
_UNDERLINE = re.compile(r"([=\-~*^#+])\1{2,}[ \t]*")
_NUMBERED = re.compile(r"(\d{1,3}(?:\.\d{1,3}){0,4})\.?[ \t]+(\S.*)")
_SENTENCE_ENDS = (".", ":", ";", ",")


def parse_text(lines: list[str]) -> Blocks:
    """The titles of a plain-text page given as `mdblocks.split_lines` lines (see the module docstring)."""
    marks: list[str] = []  # the underline marks in the order the page first uses them
    headings: list[Heading] = []
    under = 0  # the level of the last underlined title: numbered titles go below it
    n = len(lines)
    i = 0
    while i < n:
        line = lines[i]
        title = line.strip()
        if not title or line[:1].isspace() or len(title) > MAX_TITLE_CHARS or _is_rule(line) or not (
                i == 0 or not lines[i - 1].strip() or _is_rule(lines[i - 1])):  # a title follows a blank or a rule
            i += 1
            continue
        if i + 1 < n and _is_rule(lines[i + 1]) and len(lines[i + 1].strip()) >= min(len(title), 3):
            mark = lines[i + 1].strip()[0]
            if mark not in marks:
                marks.append(mark)
            under = min(marks.index(mark) + 1, _MAX_LEVEL)
            headings.append(Heading(i, i + 2, under, " ".join(title.split()), body=True))
            i += 2
            continue
        numbered = _NUMBERED.fullmatch(title)
        if numbered is not None:
            # a title alone, or wrapped onto a second line before the blank (OpenSSH's `2.2. connection: disallow
            # additional sessions extension` over `"no-more-sessions@openssh.com"`)
            size = 1 if i + 1 >= n or not lines[i + 1].strip() else \
                2 if (i + 2 >= n or not lines[i + 2].strip()) and not _is_rule(lines[i + 1]) else 0
            words = " ".join(" ".join(lines[i:i + size]).split())
            if size and len(words) <= 2 * MAX_TITLE_CHARS and _titled(words[numbered.start(2):]):
                level = min(under + numbered.group(1).count(".") + 1, _MAX_LEVEL)
                headings.append(Heading(i, i + size, level, words, body=True))
                i += size
                continue
        i += 1
    return Blocks(0, None, tuple(headings), ())


def _is_rule(line: str) -> bool:
    return _UNDERLINE.fullmatch(line.strip()) is not None if line[:1] in "=-~*^#+" else False


def _titled(words: str) -> bool:
    """True when the words after a number read as a title: a letter among them, and no sentence's end."""
    return any(c.isalpha() for c in words) and not words.rstrip().endswith(_SENTENCE_ENDS)
