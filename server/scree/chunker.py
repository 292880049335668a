"""Split one Markdown note into retrievable chunks, each with its heading trail and source lines.

A pure function over lines: no I/O, no global state, and it never raises on any `str`.

Choices worth knowing (the rules themselves are in `chunk_markdown`'s docstring):
- Lines are split on "\\n" only, and one trailing "\\r" per line is dropped (CRLF files chunk
  like LF files). Chunk text joins lines with "\\n". Line numbers therefore match `grep -n`
  and editors; other Unicode line separators stay inside their line.
- A leading byte-order mark is ignored (it would hide a first-line heading or front matter).
- Front matter must be closed: a first line `---` with no later `---`/`...` line is an
  ordinary thematic break and the file is chunked from line 1.
- Text before the first heading has the trail "" (not the front-matter title): the title is
  returned as `ChunkedNote.title` and callers may show it, but a trail only names headings.
- A heading line is dropped with any chunk that holds nothing else; this includes a heading
  whose first text line is too big to share its chunk (the trail still names the heading).
- A heading whose cleaned text is empty (a lone `#`) still closes sections and pops the
  stack at its level, but contributes no part to the trail (no "A >  > B").
- Heading cleaning turns `[text](url)`, `[text][ref]` and `![alt](src)` into their text, and
  also drops HTML tags (`<a id="x">`), emphasis markers and backslash escapes, as the
  benchmark's labeller does; code spans stay verbatim (backticks included).
- Fences may be indented by any spaces/tabs (the benchmark's labeller does the same, and a
  fence nested in a list item is often indented 4+); headings follow CommonMark (0-3 spaces).
- Sizes are UTF-8 bytes; lone surrogates (never produced by a strict or replacing decoder)
  count as 3 bytes instead of raising.
"""

from __future__ import annotations

import logging
import re
from typing import Iterator

import yaml

from .records import Chunk, ChunkedNote

log = logging.getLogger(__name__)

MAX_HEADING_BYTES = 120
SOFT_CHUNK_BYTES = 2500
HARD_CHUNK_BYTES = 3500

TRAIL_SEPARATOR = " > "
MAX_RAW_HEADING_CHARS = 1024  # heading text looked at before cleaning
MAX_FRONT_MATTER_CHARS = 65536  # bigger blocks are still skipped, but not parsed for a title

# Same results as yaml.safe_load; the libyaml loader is about 4x faster when PyYAML has it.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?$")
_FENCE_OPEN = re.compile(r"[ \t]*(`{3,}|~{3,})(.*)$")
_FENCE_CLOSE = re.compile(r"[ \t]*(`{3,}|~{3,})[ \t]*$")
_CODE_SPAN = re.compile(r"(`+).+?(?<!`)\1(?!`)")
# Link destinations may hold one level of balanced parentheses (Wikipedia-style URLs).
_DEST = r"\((?:[^()]|\([^()]*\))*\)"
_IMAGE = re.compile(r"!\[([^\]]*)\]" + _DEST)
_LINK = re.compile(r"\[([^\]]*)\](?:" + _DEST + r"|\[[^\]]*\])")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EM_STAR = re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])")
_EM_UNDER = re.compile(r"(?<![\w_])_(?=\S)(.+?)(?<=\S)_(?![\w_])")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_WHITESPACE = re.compile(r"\s+")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")


def embed_header(path: str, heading: str) -> str:
    """The header put in front of every embedded chunk: the note's path, then its heading trail."""
    return f"{path}\n{heading}"


def embed_text(path: str, heading: str, text: str) -> str:
    """What is embedded for one chunk: `path\\nTrail\\n\\ntext`."""
    return f"{path}\n{heading}\n\n{text}"


def utf8_len(s: str) -> int:
    """UTF-8 byte length of `s`, never raising (a lone surrogate counts as 3 bytes)."""
    if s.isascii():
        return len(s)
    return len(s.encode("utf-8", "surrogatepass"))


def cut_utf8(s: str, max_bytes: int) -> str:
    """The longest prefix of `s` whose UTF-8 form fits in `max_bytes`, cut on a character boundary."""
    if s.isascii():
        return s[:max_bytes]
    data = s.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return s
    return data[: _char_boundary(data, max_bytes)].decode("utf-8", "surrogatepass")


def clean_heading(raw: str) -> str:
    """Plain heading text for a trail: links and images become their text, HTML tags, emphasis
    markers and backslash escapes go, code spans stay as written (backticks included),
    whitespace is collapsed, and the result is capped at MAX_HEADING_BYTES."""
    spans: list[str] = []

    def hold(m: re.Match[str]) -> str:
        spans.append(m.group(0))
        return f"\x00{len(spans) - 1}\x00"

    # A bound on the work the regexes below may do; far more than any real heading needs.
    text = raw[:MAX_RAW_HEADING_CHARS].replace("\x00", "")  # NUL marks the placeholders
    # Code spans hide behind placeholders so a link around one (`[`x`](u)`) still unwraps.
    if "`" in text:
        text = _CODE_SPAN.sub(hold, text)
    text = _plain(text)
    if spans:
        text = _PLACEHOLDER.sub(lambda m: spans[int(m.group(1))], text)
    text = _WHITESPACE.sub(" ", text).strip()
    return cut_utf8(text, MAX_HEADING_BYTES).rstrip()


def chunk_markdown(text: str) -> ChunkedNote:
    """Split a Markdown note into chunks.

    - YAML front matter (first line `---` up to the next `---`/`...` line) is skipped; its
      string `title:` becomes `ChunkedNote.title`. Broken YAML is skipped too, without a title.
    - ATX headings (CommonMark: 0-3 spaces, 1-6 `#`, then space/tab or end of line; optional
      closing `#`s) outside fenced code start sections. Setext headings are plain text.
    - Each chunk carries the trail of enclosing headings joined with " > ".
    - A section's first chunk starts with its heading line; a chunk is closed at a blank line
      outside a fence once it has SOFT_CHUNK_BYTES, and always before it would pass
      HARD_CHUNK_BYTES (at a line boundary; a longer single line becomes pieces of its own).
    - Chunks holding nothing but their heading line are dropped.
    - Chunk text has no leading/trailing blank lines; start/end lines are its first and last
      source lines (1-based, counted in the original file).
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if "\r" in text:
        lines = [line[:-1] if line.endswith("\r") else line for line in lines]

    body_start, title = _front_matter(lines)
    chunks: list[Chunk] = []
    in_fence = [False] * len(lines)
    stack: list[tuple[int, str]] = []  # (level, cleaned text) of the enclosing headings
    trail = ""
    section_start = body_start
    heading_idx = -1  # line index of the current section's heading, -1 for the preamble
    for i, level, part in scan_headings(lines, body_start, in_fence):
        _chunk_section(lines, in_fence, section_start, i, heading_idx, trail, chunks)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, part))
        trail = TRAIL_SEPARATOR.join(part for _, part in stack if part)
        section_start = heading_idx = i

    _chunk_section(lines, in_fence, section_start, len(lines), heading_idx, trail, chunks)
    return ChunkedNote(title=title, chunks=chunks)


def scan_headings(lines: list[str], start: int = 0,
                  in_fence: list[bool] | None = None) -> Iterator[tuple[int, int, str]]:
    """ATX headings outside fenced code, in order: (line index, level, cleaned heading text).

    When `in_fence` is given, every line inside a fence (its fence lines included) is marked True in
    it; the flags for lines before a yielded heading are set by the time it is yielded. Used by the
    chunker and by `sections.py`, so both agree on what a heading is.
    """
    fence_char = ""
    fence_len = 0
    for i in range(start, len(lines)):
        line = lines[i]
        if fence_char:
            if in_fence is not None:
                in_fence[i] = True
            if fence_char in line:
                m = _FENCE_CLOSE.match(line)
                if m and m.group(1)[0] == fence_char and len(m.group(1)) >= fence_len:
                    fence_char = ""
            continue
        if "``" in line or "~~" in line:
            m = _FENCE_OPEN.match(line)
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                fence_char, fence_len = m.group(1)[0], len(m.group(1))
                if in_fence is not None:
                    in_fence[i] = True
                continue
        if "#" not in line[:4]:
            continue
        m = _ATX.match(line)
        if m is None:
            continue
        yield i, len(m.group(1)), clean_heading(_atx_content(m.group(2) or ""))


def _front_matter(lines: list[str]) -> tuple[int, str | None]:
    """Index of the first line after the front matter (0 if none), and the front matter's title."""
    if not lines or lines[0].rstrip() != "---":
        return 0, None
    for j in range(1, len(lines)):
        if lines[j].rstrip() in ("---", "..."):
            break
    else:
        return 0, None
    block = "\n".join(lines[1:j])
    if len(block) > MAX_FRONT_MATTER_CHARS:
        log.debug("front matter of %d characters not parsed for a title", len(block))
        return j + 1, None
    try:
        data = yaml.load(block, Loader=_YAML_LOADER)  # noqa: S506 - a safe loader
    except Exception:  # noqa: BLE001 - any broken YAML (a bad date raises ValueError) means no title
        return j + 1, None
    title = data.get("title") if isinstance(data, dict) else None
    if isinstance(title, str) and title.strip():
        return j + 1, title.strip()
    return j + 1, None


def _chunk_section(
    lines: list[str],
    in_fence: list[bool],
    start: int,
    end: int,
    heading_idx: int,
    trail: str,
    out: list[Chunk],
) -> None:
    """Append the chunks of lines[start:end] (one section) to `out`."""
    first = -1  # index of the current chunk's first line, -1 when the chunk is empty
    last = -1
    size = 0  # bytes of lines[first:last+1] joined with "\n"
    pending = 0  # bytes the blank lines after `last` would add
    has_body = False  # the chunk holds a non-blank line besides the heading

    def flush() -> None:
        nonlocal first, size, pending, has_body
        if first >= 0 and has_body:
            out.append(Chunk(trail, "\n".join(lines[first : last + 1]), first + 1, last + 1))
        first, size, pending, has_body = -1, 0, 0, False

    for i in range(start, end):
        line = lines[i]
        if not line or line.isspace():
            if first < 0:
                continue
            if has_body and size >= SOFT_CHUNK_BYTES and not in_fence[i]:
                flush()
            else:
                pending += utf8_len(line) + 1
            continue
        n = utf8_len(line)
        if n > HARD_CHUNK_BYTES:
            flush()
            if i != heading_idx:  # a heading's pieces would be heading-only chunks
                out.extend(Chunk(trail, piece, i + 1, i + 1) for piece in _pieces(line))
            continue
        if first >= 0 and size + pending + 1 + n > HARD_CHUNK_BYTES:
            flush()
        if first < 0:
            first, size = i, n
        else:
            size += pending + 1 + n
        pending = 0
        last = i
        if i != heading_idx:
            has_body = True
    flush()


def _pieces(line: str) -> list[str]:
    """A line longer than HARD_CHUNK_BYTES cut into non-blank pieces that each fit."""
    data = line.encode("utf-8", "surrogatepass")
    pieces = []
    pos = 0
    while pos < len(data):
        cut = pos + HARD_CHUNK_BYTES
        if cut < len(data):
            cut = _char_boundary(data, cut)
        piece = data[pos:cut].decode("utf-8", "surrogatepass")
        if piece and not piece.isspace():
            pieces.append(piece)
        pos = cut
    return pieces


def _char_boundary(data: bytes, cut: int) -> int:
    """The largest index <= cut that does not split a UTF-8 sequence (cut < len(data))."""
    while cut > 0 and data[cut] & 0xC0 == 0x80:
        cut -= 1
    return cut


def _atx_content(s: str) -> str:
    """An ATX heading's text without its optional closing `#` sequence (string ops: a regex
    here is quadratic on a huge line of spaces)."""
    s = s.rstrip(" \t")
    bare = s.rstrip("#")
    if bare != s and (not bare or bare[-1] in " \t"):
        s = bare.rstrip(" \t")
    return s


def _plain(s: str) -> str:
    """Heading text outside code spans with its inline markup removed."""
    if "[" in s:
        s = _LINK.sub(r"\1", _IMAGE.sub(r"\1", s))
    if "<" in s:
        s = _TAG.sub("", s)
    if "*" in s or "_" in s:
        s = _EM_UNDER.sub(r"\1", _EM_STAR.sub(r"\1", _STRONG.sub(r"\2", s)))
    if "\\" in s:
        s = _ESCAPE.sub(r"\1", s)
    return s
