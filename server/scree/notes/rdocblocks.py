"""Ruby's RDoc markup (a `.rdoc` page: `README.rdoc`, Rake's `doc/command_line_usage.rdoc`, Ruby's own `doc/`) read as
`rdoc` and `ri` show it.

Pure, no I/O, never raises on any `str`, one pass over the lines and one over each line's characters. It yields the
same `Blocks` record as `mdblocks`, and the page's lines as a reader of the built page reads them (`ShownPage.text`,
line for line: every chunk points at the file's lines):
- `= Title` at a line's start opens a section of level one, `==` ... `======` one level each further down.
- A labelled list's item (`[--all (-A)]` over its indented text, or `name:: text`) is an entry titled by its label as
  printed, one level below what holds it, as a command-line option or a method is defined there; a bullet (`*`, `-`)
  or numbered item (`1.`, `a.`) is text.
- A line indented past the text it follows (the page's margin, or the text of the list item it is in) is verbatim
  (blocks separated only by blank lines are one), as RDoc reads code.
- Inline markup reads as the words it prints: `+code+`, `<tt>code</tt>` and `<code>code</code>` as code spans,
  `*bold*`, `_em_` and the other tags as their words, `{text}[url]` and `word[url]` as the text, `rdoc-ref:Name` and
  `link:path` as the name; a backslash escapes what follows.
- Directives (`:include: file`, `:title:`, `:call-seq:`), rules (`---`) and what lies between a `--` line and a `++`
  line (RDoc's private text) are markup.
"""

from __future__ import annotations

import re

from .mdblocks import PageWriter, ShownPage, add_verbatim

# A labelled list's item as an entry of its own, titled by its label. Measured (docs/benchmarks.md): LABEL_ENTRIES.
LABEL_ENTRIES = True
_MAX_LEVEL = 6
_HEADING = re.compile(r"(={1,6})(?!=)[ \t]*(.*)")
_LABEL = re.compile(r"\[([^\]]+)\](?:[ \t]+(.*))?")
_NOTE = re.compile(r"([^\s:][^:]*?)::(?:[ \t]+(.*))?")
_BULLET = re.compile(r"(?:[*-]|\d+\.|[a-zA-Z]\.)[ \t]+(\S.*)")
_DIRECTIVE = re.compile(r":[\w-]+:(?:[ \t].*)?")
_RULE = re.compile(r"-{3,}[ \t]*")
# Inline markup, one line at a time.
_TAG = re.compile(r"(\\?)<(/?)(tt|code|b|em|i|strong|s|strike|del)>", re.IGNORECASE)
_CODE_TAGS = ("tt", "code")
# Tags nested deeper are read as text: each level copies what it holds, so an unbounded nest of them is quadratic.
_MAX_DEPTH = 32
_TT = re.compile(r"(?<![\w\\+])\+([^\s+](?:[^+]*?[^\s+])?)\+(?![\w+])")
# Bold and em over a word: what they hold never holds their own mark, so each is looked for up to the next one only.
_BOLD = re.compile(r"(?<![\w\\*])\*([\w:#.?!=@$/-]*[\w?!=/])\*(?![\w*])")
_EM = re.compile(r"(?<![\w\\])_([^\s_](?:[^\s_]*[^\W_])?)_(?!\w)")
_BRACED_LINK = re.compile(r"\{([^{}]+)\}\[([^\[\]\s]+)\]")
_WORD_LINK = re.compile(r"(?<![\w.:#\\-])([\w.:#-]+)\[((?:https?|ftp|mailto|link|rdoc-ref|irc|www)[^\[\]\s]*)\]")
_REF = re.compile(r"\b(?:rdoc-ref|link):([^\s,;)]+)")
_ESCAPE = re.compile(r"\\([*_+<{\\:#A-Za-z])")


def parse_rdoc(lines: list[str]) -> ShownPage:
    """The sections, entries, verbatim blocks and printed text of an RDoc page given as `mdblocks.split_lines`
    lines."""
    return _Reader(lines).read()


class _Item:
    """An open list item: where its marker stands, where its text stands (None before its first line), and whether it
    is an entry (a labelled item)."""

    __slots__ = ("at", "margin", "entry")

    def __init__(self, at: int, margin: int | None, entry: bool) -> None:
        self.at, self.margin, self.entry = at, margin, entry


class _Reader(PageWriter):
    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines)
        self.level = 0  # the level of the heading the line is under
        self.items: list[_Item] = []
        self.entries = 0  # open items that are entries

    def read(self) -> ShownPage:
        private = False
        for i, line in enumerate(self.lines):
            bare = line.rstrip()
            if private:
                private = bare != "++"
                continue
            if bare == "--":
                private = True
                continue
            if not bare.strip():
                continue
            self._line(i, bare)
        return self._page()

    def _line(self, i: int, line: str) -> None:
        flat = line.expandtabs(8)
        at = len(flat) - len(flat.lstrip(" "))
        body = flat[at:]
        while self.items and at <= self.items[-1].at:
            self._close()
        if self.items and self.items[-1].margin is None:
            self.items[-1].margin = at  # an item's first line of text says where its text stands
        margin = self.items[-1].margin if self.items else 0
        if margin is not None and at > margin:
            self._verbatim(i, line)
            return
        if at == 0 and (heading := _HEADING.fullmatch(body)) is not None and heading.group(2).strip():
            while self.items:
                self._close()
            self.level = min(len(heading.group(1)), _MAX_LEVEL)
            self._head(i, self.level, _title(heading.group(2)), body=False, end=i + 1)
            return
        if _DIRECTIVE.fullmatch(body) or _RULE.fullmatch(body):
            return
        label = _LABEL.fullmatch(body) or _NOTE.fullmatch(body)
        if label is not None:
            self._item(i, at, label.group(1), label.group(2))
            return
        bullet = _BULLET.fullmatch(body)
        if bullet is not None:
            self.items.append(_Item(at, None, False))
            marker = body.split(None, 1)[0]
            self.text[i] = ("- " if marker in ("*", "-") else marker + " ") + render(bullet.group(1))
            return
        self.text[i] = render(body)

    def _item(self, i: int, at: int, label: str, rest: str | None) -> None:
        title = _title(label)
        entry = LABEL_ENTRIES and bool(title)
        self.items.append(_Item(at, None, entry))
        self.text[i] = title if rest is None else f"{title}: {render(rest)}" if entry else f"- {title}: {render(rest)}"
        if entry:
            self.entries += 1
            self._head(i, min(self.level + self.entries, _MAX_LEVEL), title, body=True, end=i + 1)

    def _close(self) -> None:
        item = self.items.pop()
        if item.entry:
            self.entries -= 1

    def _verbatim(self, i: int, line: str) -> None:
        self.text[i] = line
        add_verbatim(self.verbatim, self.lines, i, i + 1)


def _title(text: str) -> str:
    return " ".join(render(text).split())


def render(line: str) -> str:
    """One line with its inline markup read as the words it prints."""
    if not any(c in line for c in "*_+<{[\\:"):
        return line
    if "<" in line:
        line = _tags(line)
    line = _BRACED_LINK.sub(r"\1", line)
    line = _WORD_LINK.sub(r"\1", line)
    line = _REF.sub(r"\1", line)
    line = _TT.sub(r"`\1`", line)
    line = _BOLD.sub(r"\1", line)
    line = _EM.sub(r"\1", line)
    return _ESCAPE.sub(r"\1", line)


def _tags(line: str) -> str:
    """`<tt>x</tt>` as a code span, `<b>x</b>` and the other tags as x, nested or not; a tag never closed as written.
    One pass: a regex pairing each tag with its close would rescan the rest of the line from every unclosed one."""
    stack: list[tuple[str, str, list[str]]] = []  # open tags: name, as written, what they hold so far
    top: list[str] = []
    at = 0
    for m in _TAG.finditer(line):
        (stack[-1][2] if stack else top).append(line[at:m.start()])
        at = m.end()
        escaped, closing, name = m.group(1), m.group(2), m.group(3).lower()
        if escaped:
            (stack[-1][2] if stack else top).append(m.group(0))  # the escape's backslash goes later
        elif not closing and len(stack) < _MAX_DEPTH:
            stack.append((name, m.group(0), []))
        elif not closing:
            (stack[-1][2] if stack else top).append(m.group(0))
        elif stack and stack[-1][0] == name:
            _, _, parts = stack.pop()
            held = "".join(parts)
            (stack[-1][2] if stack else top).append(f"`{held}`" if name in _CODE_TAGS else held)
        else:
            (stack[-1][2] if stack else top).append(m.group(0))
    (stack[-1][2] if stack else top).append(line[at:])
    while stack:  # never closed: as written
        _, written, parts = stack.pop()
        (stack[-1][2] if stack else top).append(written + "".join(parts))
    return "".join(top)
