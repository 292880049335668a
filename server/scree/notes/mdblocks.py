"""A Markdown note's block structure as a CommonMark renderer sees it: front matter, headings, verbatim blocks.

markdown-it-py (CommonMark, plus GFM tables) does the parsing and `token.map` gives each block's lines;
mdit-py-plugins' `front_matter` finds YAML front matter. Pure, no I/O, never raises on any `str`.
The chunker (`chunker.py`) and read_doc's section lookup (`sections.py`) both take their headings from
here, so a trail from a search hit always names a section read_doc can find.

What counts as a heading is exactly what renders as <h1>..<h6> (tests compare with markdown-it's own
HTML), so:
- ATX (`# x`, 0-3 spaces of indent, optional closing `#`s) and setext (a paragraph underlined with
  `===` for level 1 or `---` for level 2) headings. `---` under a paragraph is a setext heading; after
  a blank line it is a thematic break; as the first line, closed by a later `---`/`...`, front matter.
- `#` lines inside fenced or indented code, or inside an HTML block, are not headings.
- Headings inside list items and blockquotes *are* headings: renderers draw them as headings and list
  them in tables of contents, and the benchmark's labeller counts those inside list items too (step
  lists like "3. Build\n\n   #### Windows"). Nesting deeper than markdown-it's limit (20 containers) is
  not parsed and yields no heading, as in a renderer.
- A setext heading's text may span several lines; `Heading.start` is its first line and the section
  starts there (the benchmark's labeller uses the line above the underline: they differ only for
  multi-line setext headings).

Dialects (issue 19) are recognised per note by the markers it holds, and parsed with mdit-py-plugins:
- MyST (`myst_blocks`): `(label)=` target lines, `%` comments and `+++` breaks are markup, never text a
  reader sees; a target is reported in `Blocks.targets` so the chunker can keep it with the section it
  names. Turned on only when a target line or a ```` ```{directive} ````/`:::{directive}` fence is present
  (a plain note's `%` line stays a paragraph).
- Colon fences (`colon_fence`: MyST `:::{note}` and Docusaurus/MDX `:::note Title` admonitions): their body
  is one block, so a heading inside (a rendered example, an admonition's own title) is not a page heading.
  Turned on when the note has a bare closing `:::` line (mkdocstrings' unclosed `::: pkg.Name` lines
  must stay paragraphs).
- Navigation, not answers: a `{toctree}` directive's entries are reported in `Blocks.inert`.
- A ```` ```{literalinclude} path ```` fence, an autodoc fence and an `{eval-rst}` island are reported like
  reStructuredText's directives (`notes/mystdirectives.py`).
Hand-written rules, each for syntax no plugin parses (markdown-it sees paragraphs and HTML blocks):
- MDX ESM: a top-level paragraph that opens with an `import`/`export` statement is inert (MDX reads the
  whole paragraph as JavaScript: `export function X() {...}` spans several lines). When its code is
  unfinished at the paragraph's end (a template literal holding blank or `# ` lines), MDX reads on to the
  first blank line where it is finished: those lines are hidden from markdown-it and are code (`_esm_blocks`).
- JSX/HTML wrapper lines: a line of an HTML block that holds only tags (`<Tabs>`, `</TabItem>`,
  `<div align="center">`) is inert, unless a tag carries a `label`/`title` attribute (a tab label).
- README-style HTML headings: a line of an HTML block that is one `<h1>`..`<h6>` element labels its own lines
  (until the next heading) but never restructures the outline (issue 38): it sits one level below the Markdown
  heading around it (HTML_HEADING_LEVEL, deeper than any `#`), so the next Markdown heading closes it and is never
  its child. Obsidian's outline leaves HTML headings out (a vault page shows `<h1>`..`<h6>` as examples "to avoid
  cluttering the Outline", and every later section was their child), and the benchmark labeller does too. It
  used to be a heading of its own level, as GitHub draws it.

Front matter opens only on a first line that is exactly `---` (trailing blanks allowed) and must be
closed, by a `---` or `...` line; an unclosed one is an ordinary thematic break.

Line numbers are indexes into `split_lines`: the text split where CommonMark ends a line ("\\n", "\\r\\n",
or a lone "\\r": a classic-Mac or exporter note written with CR only is as many lines as its "\\n" twin,
not one), a leading byte-order mark ignored. markdown-it normalises line endings the same way, so its
maps and these lines agree; for "\\n" and "\\r\\n" notes they are also `grep -n`'s.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import cache

from markdown_it import MarkdownIt
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin

from .utf8 import cut_utf8

log = logging.getLogger(__name__)

# FAQ pages title each answer with the whole question (120-160 bytes in the mdx set's Docusaurus docs):
# at the old 120 the trail an agent reads ended mid-word ("...no TypeScript erro"). The cap only
# bounds a setext "heading" that is really a paragraph, whose text stays in the chunk anyway.
MAX_HEADING_BYTES = 200
MAX_RAW_HEADING_CHARS = 1024  # heading text looked at before cleaning

# Blocks whose blank lines are content, not paragraph breaks: a chunk is never split at them.
_VERBATIM = frozenset({"fence", "code_block", "html_block"})

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
# CommonMark's line endings (markdown-it's own `NEWLINES_RE`): other Unicode separators stay inside a line.
_LINE_END = re.compile(r"\r\n?|\n")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")
# Pandoc's attribute block on a code span (after `clean_heading` holds the span): `nanoplot_options()`{.qd-no-link}.
# A heading's own trailing `{#id}` stays: the benchmark's labels keep attr_list ids as written (fastapi, griffe).
_SPAN_ATTRIBUTES = re.compile(r"(\x00\d+\x00)\{[ \t]*[.#][^{}\n]*\}")
# A MyST role (`{term}`Binder``, `{ref}`the guide <guide>``) renders as its text, or the text before its `<target>`;
# `{dropdown}` inside a code span is not one.
_MYST_ROLE = re.compile(r"(?<!`)\{[A-Za-z][\w:.-]*\}`([^`]+)`")

# Markers that turn a dialect's plugin on (see the module docstring).
_MYST_MARKER = re.compile(r"^ {0,3}(?:\([^()\s]+\)=[ \t]*$|(?:`{3,}|~{3,}|:{3,})[ \t]*\{[\w:.-]+\})", re.MULTILINE)
# A bare closing `:::` line: mkdocstrings' one-line `::: pkg.Name` directives never close, and read as
# fences they would swallow the rest of the page (httpx's API pages).
_COLON_MARKER = re.compile(r"^ {0,3}:{3,}[ \t]*$", re.MULTILINE)
_NAVIGATION = frozenset({"{toctree}", "{tableofcontents}", "{contents}"})
_ESM_LINE = re.compile(r"^(?:import\s+(?:[\w*{}\s,$]+\s+from\s+)?['\"]|export\s+(?:default\s|const\s|let\s|function\s|\{))")
_TAG_ONLY = re.compile(r"^\s*(?:</?[A-Za-z][\w.:-]*(?:\s[^<>]*)?/?>\s*)+$")
_LABELLED_TAG = re.compile(r"\s(?:label|title)=")
HTML_HEADING_LEVEL = 40  # deeper than any Markdown heading (see the module docstring)
_HTML_HEADING = re.compile(r"^\s{0,3}<h([1-6])(?:\s[^<>]*)?>(.*)</h\1>\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Heading:
    """One heading: its lines [start, end) (0-based; a setext heading includes its underline), level, text."""

    start: int
    end: int
    level: int
    text: str  # cleaned by `clean_heading`; "" for a lone `#`
    # Its lines are also text: a setext "heading" of several lines is nearly always a paragraph its author
    # meant to follow with a rule (see chunker.py), so its lines must stay searchable.
    body: bool = False


@dataclass(frozen=True)
class Blocks:
    """What the chunker needs of a note's block structure."""

    body_start: int  # index of the first line after the front matter (0 when there is none)
    front_matter: str | None  # the front matter's raw YAML, None when there is none
    headings: tuple[Heading, ...]  # in document order, never overlapping
    verbatim: tuple[tuple[int, int], ...]  # [start, end) of fenced/indented code and HTML blocks
    targets: tuple[int, ...] = ()  # lines of MyST `(label)=` targets
    inert: tuple[int, ...] = ()  # lines of markup a reader never sees: ESM, tag-only JSX/HTML, toctree entries, comments


@dataclass(frozen=True)
class ShownPage:
    """A note's blocks and its lines as a reader of the rendered page reads them, as many as given (the readers of
    formats whose markup is no text: `rdblocks`, `roffblocks`, `podblocks`, `texiblocks`, `rdocblocks`)."""

    blocks: Blocks
    text: list[str]


# A heading a reader that writes its own lines found: (start, end, level, title, body), as `Heading`'s fields.
HeadRecord = tuple[int, int, int, str, bool]


def add_head(heads: list[HeadRecord], start: int, level: int, title: str, *, body: bool, end: int = -1) -> None:
    """Records a heading of lines [start, end) (one line when `end` is not past `start`), its title's whitespace
    folded and cut to MAX_HEADING_BYTES; none for an empty title."""
    title = " ".join(title.split())
    if title:
        heads.append((start, max(end, start + 1), level, cut_utf8(title, MAX_HEADING_BYTES).rstrip(), body))


def add_verbatim(verbatim: list[tuple[int, int]], lines: list[str], start: int, end: int) -> None:
    """Records lines [start, end) as verbatim: one block with the block before when only blank lines are between."""
    if verbatim and all(not lines[j].strip() for j in range(verbatim[-1][1], start)):
        verbatim[-1] = (verbatim[-1][0], end)
    else:
        verbatim.append((start, end))


def shown_page(heads: list[HeadRecord], verbatim: list[tuple[int, int]], text: list[str],
               front_matter: str | None = None) -> ShownPage:
    """The page of a reader that writes its own lines (`rdblocks`' kind: roff, POD, Texinfo, RDoc): its headings in
    order, none overlapping the one before, a heading of lines of its own (not `body`) shown as its Markdown line."""
    headings: list[Heading] = []
    last_end = 0
    for start, end, level, title, body in sorted(heads):
        if start < last_end:
            continue  # never overlapping
        if not body:
            text[start] = "#" * level + " " + title
            for i in range(start + 1, end):
                text[i] = ""
        headings.append(Heading(start, end, level, title, body=body))
        last_end = end
    return ShownPage(Blocks(0, front_matter, tuple(headings), tuple(verbatim)), text)


class PageWriter:
    """What a reader that writes its own lines keeps (roff, POD, Texinfo, RDoc): the lines given, the text it shows
    for each, and the headings and verbatim blocks found so far."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.text = [""] * len(lines)
        self.heads: list[HeadRecord] = []
        self.verbatim: list[tuple[int, int]] = []

    def _head(self, start: int, level: int, title: str, *, body: bool, end: int = -1) -> None:
        add_head(self.heads, start, level, title, body=body, end=end)

    def _page(self, front_matter: str | None = None) -> ShownPage:
        return shown_page(self.heads, self.verbatim, self.text, front_matter)


def split_lines(text: str) -> list[str]:
    """The text's lines as CommonMark sees them: split at "\\n", "\\r\\n" and a lone "\\r"; BOM ignored."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        return _LINE_END.split(text)
    return text.split("\n")


def parse_blocks(lines: list[str]) -> Blocks:
    """Front matter, headings and verbatim blocks of a note given as `split_lines` lines."""
    src = "\n".join(lines)
    divs = _pandoc_div_lines(lines) if ":::" in src and "{" in src else []
    if divs:  # markdown-it reads the page without them: what they hold is the page's own text
        lines = list(lines)
        for i in divs:
            lines[i] = ""
        src = "\n".join(lines)
    with_front_matter = bool(lines) and lines[0].rstrip(" \t") == "---"
    myst = ("(" in src or "{" in src) and _MYST_MARKER.search(src) is not None
    colon = ":::" in src and _COLON_MARKER.search(src) is not None
    parser = _parser(with_front_matter, myst, colon)
    try:
        tokens = parser.parse(src)
        # MDX reads an ESM block on past its paragraph while the code is unfinished (a multi-line
        # template literal): markdown-it must not see those lines, or a `# line` there is a heading.
        esm = _esm_blocks(lines, tokens) if "import" in src or "export" in src else []
        if esm:
            hidden = list(lines)
            for start, end in esm:
                hidden[start:end] = [""] * (end - start)
            tokens = parser.parse("\n".join(hidden))
        if colon:
            tokens = _without_stray_closers(parser, lines, tokens, esm)
    except Exception:  # noqa: BLE001 - a parser bug must cost structure, never the note
        log.warning("markdown-it failed on a note; it is indexed without headings", exc_info=True)
        return Blocks(0, None, (), ())
    body_start = 0
    front_matter: str | None = None
    headings: list[Heading] = []
    verbatim: list[tuple[int, int]] = []
    targets: list[int] = []
    inert: list[int] = []
    for n, tok in enumerate(tokens):
        if tok.map is None:
            continue
        kind = tok.type
        start, end = tok.map
        if kind == "heading_open":
            inline = tokens[n + 1] if n + 1 < len(tokens) else None
            raw = inline.content if inline is not None and inline.type == "inline" else ""
            headings.append(Heading(start, end, int(tok.tag[1:]), clean_heading(raw), body=end - start > 2))
        elif kind in _VERBATIM:
            verbatim.append((start, end))
            if kind == "html_block":
                _html_lines(lines, start, end, headings, inert)
            elif kind == "fence" and _directive(tok.info) in _NAVIGATION:
                inert.extend(range(start, end))
        elif kind == "colon_fence" and _directive(tok.info) in _NAVIGATION:
            inert.extend(range(start, end))
        elif kind == "myst_target":
            targets.append(start)
        elif kind in ("myst_line_comment", "myst_block_break"):
            inert.extend(range(start, end))
        elif kind == "paragraph_open" and tok.level == 0 and _ESM_LINE.match(lines[start]):
            inert.extend(range(start, end))
        elif kind == "front_matter":
            body_start, front_matter = end, tok.content
    for start, end in esm:  # code, whose blank lines are content: markup a reader never sees
        verbatim.append((start, end))
        inert.extend(range(start, end))
    inert.extend(divs)
    if esm or divs:
        verbatim.sort()
        inert.sort()
    return Blocks(body_start, front_matter, tuple(headings), tuple(verbatim), tuple(targets), tuple(inert))


# A Pandoc or Quarto fenced div opens with colons and an attribute block (`::: {.callout-note}`, `:::{#fig-x .grid}`,
# `::: {layout-ncol=2}`: `_pandoc_div`); MyST's `:::{note}` names a directive instead.
_COLON_LINE = re.compile(r"^ {0,3}:{3,}")
_CODE_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _pandoc_div(line: str) -> bool:
    """True for a Pandoc div's opening line (colons, then one attribute block); read by hand, in linear time."""
    rest = line.strip().lstrip(":").strip()
    if len(rest) < 2 or rest[0] != "{" or rest[-1] != "}" or "}" in rest[1:-1]:
        return False
    inner = rest[1:-1].strip()
    return inner[:1] in (".", "#") or "=" in inner


def _pandoc_div_lines(lines: list[str]) -> list[int]:
    """The lines that open and close a page's Pandoc fenced divs (Quarto's grids, callouts, layouts). Pandoc nests
    them (a bare `:::` closes the innermost) and reads what they hold as the page's own blocks, headings included, so
    those lines are markup, hidden from markdown-it, whose colon fence would make each div one opaque block. A MyST
    or Docusaurus fence inside (`:::{note}`, `:::tip`) keeps its lines and its closer; code fences are skipped."""
    out: list[int] = []
    stack: list[bool] = []  # per open colon fence: is it a Pandoc div?
    fence = ""
    for i, line in enumerate(lines):
        if fence:
            if line.lstrip().startswith(fence):
                fence = ""
            continue
        code = _CODE_FENCE.match(line)
        if code:
            fence = code.group(1)
            continue
        if not _COLON_LINE.match(line):
            continue
        if _pandoc_div(line):
            stack.append(True)
            out.append(i)
        elif line.strip().strip(":"):
            stack.append(False)  # a directive's or admonition's fence: markdown-it's own
        elif stack and stack.pop():
            out.append(i)
    return out


# Rounds of `_without_stray_closers`, each one more reading of the page: a page needs one, a run of stray closers one
# per closer it pairs up (a page of nothing but `:::` lines, log2 of them); past this it stays as markdown-it reads it.
_MAX_STRAY_ROUNDS = 4


def _without_stray_closers(parser: MarkdownIt, lines: list[str], tokens: list,
                           esm: list[tuple[int, int]]) -> list:
    """The tokens with each bare `:::` that opened a fence read as the stray closer it is. Pandoc and Quarto nest
    their fenced divs (`::: {.grid}` around `::: {.g-col-9}` ... `:::` ... `:::`); markdown-it's colon fence closes
    the outer div at the inner's closer, and the last `:::` then opened a fence with no name that ran to the page's
    end, hiding every later heading. No dialect opens a fence with a bare `:::`, so such a line is hidden and the
    page read again."""
    hidden: list[str] | None = None
    for _ in range(_MAX_STRAY_ROUNDS):
        strays = [t.map[0] for t in tokens if t.type == "colon_fence" and t.map and not t.info.strip()]
        if not strays:
            break
        if hidden is None:
            hidden = list(lines)
            for start, end in esm:
                hidden[start:end] = [""] * (end - start)
        for i in strays:
            hidden[i] = ""
        tokens = parser.parse("\n".join(hidden))
    return tokens


def _esm_blocks(lines: list[str], tokens: list) -> list[tuple[int, int]]:
    """[start, end) of each MDX ESM block that runs past its first paragraph: a top-level paragraph opening
    with `import`/`export` whose code is unfinished at the paragraph's end goes on, as MDX's parser does,
    to the first blank line where it is finished. One never finished is left to its paragraph (MDX
    would refuse the file; markdown-it's reading is the better guess)."""
    out: list[tuple[int, int]] = []
    for tok in tokens:
        if tok.type != "paragraph_open" or tok.level != 0 or tok.map is None:
            continue
        start, end = tok.map
        if out and start < out[-1][1] or not _ESM_LINE.match(lines[start]):
            continue
        scan = _CodeScan()
        for i in range(start, end):
            scan.feed(lines[i])
        if scan.finished():
            continue  # one paragraph, as before
        for i in range(end, len(lines)):
            if scan.finished() and not lines[i].strip():
                out.append((start, i))
                break
            scan.feed(lines[i])
        else:
            if scan.finished():
                out.append((start, len(lines)))
    return out


class _CodeScan:
    """Enough of a JavaScript lexer to tell whether the code fed so far is finished: no string, template
    literal, comment or bracket left open (`${...}` nests inside template literals). Not a parser: a
    regular-expression literal holding a quote is misread, at the cost of MDX's own reading of the file."""

    def __init__(self) -> None:
        self.depth = 0  # open brackets
        self.resume: list[int] = []  # for each open `${`, the depth at which its template literal resumes
        self.state = ""  # "" code, "'" or '"' string, "`" template literal, "*" block comment

    def finished(self) -> bool:
        return not self.state and self.depth <= 0 and not self.resume

    def feed(self, line: str) -> None:
        i, n = 0, len(line)
        while i < n:
            c = line[i]
            state = self.state
            if state == "*":
                if line.startswith("*/", i):
                    self.state = ""
                    i += 1
            elif state:
                if c == "\\":
                    i += 1
                elif c == state:
                    self.state = ""
                elif state == "`" and line.startswith("${", i):
                    self.resume.append(self.depth)
                    self.depth += 1
                    self.state = ""
                    i += 1
            elif line.startswith("//", i):
                break
            elif line.startswith("/*", i):
                self.state = "*"
                i += 1
            elif c in "'\"`":
                self.state = c
            elif c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth -= 1
                if self.resume and self.depth == self.resume[-1]:
                    self.resume.pop()
                    self.state = "`"
            i += 1
        if self.state in ("'", '"'):
            self.state = ""  # a quote never spans lines: a stray one in JSX text, not an open string


def _directive(info: str) -> str:
    """A fence's directive name as written (`{toctree}`), or "" for a plain code fence."""
    words = info.split(maxsplit=1)
    return words[0] if words else ""


def _html_lines(lines: list[str], start: int, end: int, headings: list[Heading], inert: list[int]) -> None:
    """An HTML block's one-line `<hN>` headings and its lines that hold only tags (see the module docstring)."""
    for i in range(start, min(end, len(lines))):
        line = lines[i]
        m = _HTML_HEADING.match(line) if "<h" in line or "<H" in line else None
        if m:
            # `body`: its line is also the section's text, so no chunk of it is dropped as heading-only.
            headings.append(Heading(i, i + 1, HTML_HEADING_LEVEL, clean_heading(m.group(2)), body=True))
        elif _TAG_ONLY.match(line) and not _LABELLED_TAG.search(line):
            inert.append(i)


@cache
def _parser(front_matter: bool, myst: bool = False, colon: bool = False) -> MarkdownIt:
    """A block-level CommonMark parser (plus GFM tables, which GitHub renders) with the dialect plugins a
    note's markers asked for. Inline parsing is off: only headings' text is needed, and `clean_heading`
    reads it the way the benchmark labels do."""
    md = MarkdownIt("commonmark").enable("table").disable("inline")
    if front_matter:
        md.use(front_matter_plugin)
    if myst:
        md.use(myst_block_plugin)
    if colon:
        md.use(colon_fence_plugin)
    return md


def clean_heading(raw: str) -> str:
    """Plain heading text for a trail: links, images and MyST roles become their text, HTML tags, emphasis
    markers, a code span's attribute block (`{.class}`) and backslash escapes go, code spans stay as written
    (backticks included), whitespace is collapsed, and the result is capped at MAX_HEADING_BYTES.

    Regexes rather than markdown-it's inline parser on purpose: they are the benchmark labeller's
    rules (entities stay as written, `[text][ref]` unwraps even without a definition), and labels
    are matched by exact heading text."""
    spans: list[str] = []

    def hold(m: re.Match[str]) -> str:
        spans.append(m.group(0))
        return f"\x00{len(spans) - 1}\x00"

    # A bound on the work the regexes below may do; far more than any real heading needs.
    text = raw[:MAX_RAW_HEADING_CHARS].replace("\x00", "")  # NUL marks the placeholders
    if "}`" in text:
        text = _MYST_ROLE.sub(_role_text, text)
    # Code spans hide behind placeholders so a link around one (`[`x`](u)`) still unwraps.
    if "`" in text:
        text = _CODE_SPAN.sub(hold, text)
    if spans and "{" in text:
        text = _SPAN_ATTRIBUTES.sub(r"\1", text)
    text = _plain(text)
    if spans:
        text = _PLACEHOLDER.sub(lambda m: spans[int(m.group(1))], text)
    text = _WHITESPACE.sub(" ", text).strip()
    return cut_utf8(text, MAX_HEADING_BYTES).rstrip()


def _role_text(m: re.Match[str]) -> str:
    body = m.group(1)
    lt = body.rfind("<")
    return body[:lt].strip() if lt > 0 and body.endswith(">") and body[:lt].strip() else body


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

