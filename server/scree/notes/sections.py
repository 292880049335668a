"""Find one section of a Markdown text by its heading trail, or cut a line range out of it. Pure, no I/O.

A section runs from its heading line to the line before the next heading of the same or a higher
level (or to the end of the text). Headings come from `mdblocks.parse_blocks`, as the chunker's do
(CommonMark: ATX and setext, outside code and HTML blocks and front matter), and trails are built the
same way, so a `heading` taken from a search hit names the section it came from.

Lines end where CommonMark ends them ("\\n", "\\r\\n", a lone "\\r"), as the chunker's do, so line
numbers agree with search hits (and with `grep -n` and editors for "\\n" and "\\r\\n" notes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from collections.abc import Sequence

from . import formats, mdblocks
from .chunker import TRAIL_SEPARATOR
from ..errors import ScreeError
from ..records import Chunk
from .utf8 import cut_utf8, utf8_len

_WHITESPACE = re.compile(r"\s+")
_LEADING_HASHES = re.compile(r"^\s*#{1,6}\s+")


@dataclass(frozen=True)
class Section:
    """One heading's section: 1-based inclusive lines, its level and its trail (" > "-joined)."""

    trail: str
    level: int
    start_line: int
    end_line: int


@dataclass(frozen=True)
class SectionLookup:
    """The answer to a heading request.

    `matches` holds one section when the request is unambiguous, several when it is ambiguous at the
    best tier that matched anything, none when nothing matched. `how` names that tier
    ("exact", "case-insensitive", "trailing"), or is "" when nothing matched.
    """

    matches: tuple[Section, ...]
    how: str


def split_lines(text: str) -> list[str]:
    """The text's lines as the chunker numbers them (a final newline does not start a new line)."""
    lines = mdblocks.split_lines(text)
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def sections(text: str, kind: str = formats.MARKDOWN, changelog_sections: Sequence[str] = ()) -> list[Section]:
    """Every heading's section, in document order, for a note of format `kind` (`formats.kind_of`); a Sphinx
    changelog's as `chunker.chunk_note` reads it with `changelog_sections`."""
    lines = split_lines(text)
    heads: list[tuple[int, int, str]] = []  # (line index, level, trail)
    texts: list[str] = []
    stack: list[tuple[int, str]] = []
    for h in formats.structure(kind, lines, changelog_sections).blocks.headings:
        texts.append(h.text)
        while stack and stack[-1][0] >= h.level:
            stack.pop()
        stack.append((h.level, h.text))
        heads.append((h.start, h.level, TRAIL_SEPARATOR.join(p for _, p in stack if p)))
    # One pass: a heading closes every open section of its level or deeper (its line is their end).
    ends = [len(lines)] * len(heads)
    open_: list[int] = []  # indexes into heads, levels strictly increasing
    for n, (i, level, _) in enumerate(heads):
        while open_ and heads[open_[-1]][1] >= level:
            ends[open_.pop()] = i
        open_.append(n)
    # A heading without text (a lone `#`, the end of a reStructuredText object description) names nothing
    # a request could ask for: its lines stay in the sections around it.
    return [Section(trail=trail, level=level, start_line=i + 1, end_line=max(ends[n], i + 1))
            for n, (i, level, trail) in enumerate(heads) if texts[n]]


def find_section(text: str, heading: str, kind: str = formats.MARKDOWN) -> SectionLookup:
    """The section(s) `heading` names, trying in turn: the exact trail; the trail compared
    case-insensitively (whitespace collapsed, backticks ignored); the request as the trailing parts
    of a trail ("Tokens" or "Authentication > Tokens"), case-insensitively. The first tier that
    matches anything decides; several matches there make the lookup ambiguous."""
    return match_sections(sections(text, kind), heading)


def match_sections(candidates: list[Section], heading: str) -> SectionLookup:
    """`find_section` over sections already computed."""
    wanted = heading.strip()
    exact = tuple(s for s in candidates if s.trail == wanted)
    if exact:
        return SectionLookup(exact, "exact")
    parts = _parts(_LEADING_HASHES.sub("", wanted))
    if not parts:
        return SectionLookup((), "")
    folded = tuple(s for s in candidates if _parts(s.trail) == parts)
    if folded:
        return SectionLookup(folded, "case-insensitive")
    n = len(parts)
    trailing = tuple(s for s in candidates if _parts(s.trail)[-n:] == parts)
    if trailing:
        return SectionLookup(trailing, "trailing")
    return SectionLookup((), "")


@dataclass(frozen=True)
class Excerpt:
    """What `excerpt` cut out: its lines (1-based, inclusive), their text, and a remark when one is due."""

    heading: str | None  # the section's trail when a heading chose it
    start_line: int
    end_line: int
    text: str
    total_lines: int
    note: str | None = None


MAX_LISTED = 12  # candidates or headings named in one message


def joined_chunks(parts: Sequence[Chunk]) -> str:
    """One entry's chunks as one text, the line that ends each of them (whose docstring it is, which file it came
    from) once at the end."""
    closing = "\n\n" + parts[-1].text.rpartition("\n\n")[2]
    return "\n\n".join([*(c.text.removesuffix(closing) for c in parts[:-1]), parts[-1].text])


def chunks_excerpt(chunks: Sequence[Chunk], heading: str, text: str, max_bytes: int, note: str) -> Excerpt | None:
    """read_doc of a section that `chunks` make and the page's own lines do not hold (a docstring an autodoc
    directive shows, a heading a snippet brings): the chunks `heading` names, joined (`joined_chunks`), pointing at
    the lines that make them; None when no chunk has that heading."""
    lookup = match_sections([Section(c.heading, 0, c.start_line, c.end_line) for c in chunks], heading)
    if not lookup.matches:
        return None
    trail = lookup.matches[0].trail
    parts = [c for c in chunks if c.heading == trail]
    return Excerpt(heading=trail, start_line=parts[0].start_line, end_line=parts[0].end_line,
                   text=cut_utf8(joined_chunks(parts), max_bytes), total_lines=len(split_lines(text)), note=note)


def excerpt(text: str, *, heading: str | None = None, start_line: int | None = None,
            end_line: int | None = None, max_bytes: int = 100_000, kind: str = formats.MARKDOWN,
            changelog_sections: Sequence[str] = ()) -> Excerpt:
    """The whole text, one section (by heading trail, see `find_section`) or a line range, capped.

    With a heading, `start_line` only chooses among several sections of that name (the one holding
    it). Past `max_bytes` (UTF-8) the excerpt stops at a line boundary and `note` says how to read on.
    Raises ScreeError, naming what exists, when the heading matches nothing or several sections, or
    when the range is empty or starts past the end.
    """
    lines = split_lines(text)
    total = len(lines)
    note: str | None = None
    trail: str | None = None
    if heading is not None and heading.strip():
        candidates = sections(text, kind, changelog_sections)
        lookup = match_sections(candidates, heading)
        chosen = list(lookup.matches)
        if not chosen:
            raise ScreeError(f"no heading matches {heading!r}; " + _list_headings(candidates))
        if len(chosen) > 1 and start_line is not None:
            chosen = [s for s in chosen if s.start_line <= start_line <= s.end_line] or chosen
        if len(chosen) > 1:
            raise ScreeError(f"{heading!r} matches {len(chosen)} sections: " + _list_sections(chosen)
                             + "; give the full heading trail, or start_line inside the one you want")
        section = chosen[0]
        if (start_line is not None or end_line is not None) and len(lookup.matches) == 1:
            note = "start_line/end_line ignored: the heading chose the section"
        trail, start, end = section.trail, section.start_line, section.end_line
    else:
        start = 1 if start_line is None else start_line
        end = total if end_line is None else min(end_line, total)
        if start < 1:
            raise ScreeError(f"start_line must be 1 or more, not {start}")
        if start > total:
            raise ScreeError(f"start_line {start} is past the end: the file has {total} lines")
        if end < start:
            raise ScreeError(f"end_line {end_line} is before start_line {start}")
    body, last, cut = _capped(lines, start, end, max_bytes)
    if cut:
        parts = [f"cut at {max_bytes // 1000} KB: lines {start}-{last} of {start}-{end} shown"]
        if len(body) < len(lines[start - 1]) and last == start:
            parts.append(f"line {start} alone is longer than that and was cut")
        if last < end:
            parts.append(f"call again with start_line={last + 1} to read on")
        note = "; ".join(parts)
    return Excerpt(heading=trail, start_line=start, end_line=last, text=body, total_lines=total, note=note)


def _capped(lines: list[str], start: int, end: int, max_bytes: int) -> tuple[str, int, bool]:
    """Lines start..end joined, stopping before the line that would pass max_bytes (at least one
    line, itself cut to max_bytes when it alone is too big). Returns the text, its last line, and
    whether anything was left out."""
    size = 0
    last = start - 1
    for i in range(start - 1, end):
        n = utf8_len(lines[i]) + (1 if i > start - 1 else 0)
        if size + n > max_bytes:
            break
        size += n
        last = i + 1
    if last < start:
        return cut_utf8(lines[start - 1], max_bytes), start, True
    return line_slice(lines, start, last), last, last < end


def _list_sections(found: list[Section]) -> str:
    shown = "; ".join(f"{s.trail!r} (lines {s.start_line}-{s.end_line})" for s in found[:MAX_LISTED])
    return shown + (f"; and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else "")


def _list_headings(candidates: list[Section]) -> str:
    if not candidates:
        return "the file has no headings: read it whole or by start_line/end_line"
    return "its headings are: " + _list_sections(candidates)


def line_slice(lines: list[str], start_line: int, end_line: int) -> str:
    """Lines start_line..end_line (1-based, inclusive) joined with "\\n"; the caller clamps first."""
    return "\n".join(lines[start_line - 1 : end_line])


def _parts(trail: str) -> list[str]:
    """A trail as comparable parts: split on ">", backticks dropped, whitespace collapsed, case-folded."""
    out = []
    for part in trail.split(">"):
        norm = _WHITESPACE.sub(" ", part.replace("`", "")).strip().casefold()
        if norm:
            out.append(norm)
    return out

