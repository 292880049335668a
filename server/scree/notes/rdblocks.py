"""An R documentation file (`man/*.Rd`, what roxygen2 writes and `?name` shows) read as R's help shows it.

Pure, no I/O, never raises on any `str`, one pass over the characters. Rd is LaTeX-like: `\\command{argument}`,
`%` comments, `\\{` `\\}` `\\%` `\\\\` escapes. It yields the same `Blocks` record as `mdblocks`, and the page's
lines as a reader of the help page reads them (`ShownPage.text`, line for line: every chunk points at the file's lines):
- The page's title (`\\title{}`) is its first heading, the root of every trail (pkgdown's and R's help page title).
  It heads the page from its first line of header (`\\name{}`), so the names the page documents (each `\\alias{}`,
  shown as a code span on its line) are the title section's text: the page is where `?req_retry` lands.
- Each top-level block is a section titled as R's help titles it (`\\usage` is Usage, `\\seealso` See also); a
  `\\section{Name}{...}` is titled Name, a `\\subsection{Name}{...}` one level below the block holding it.
- `\\usage`, `\\examples` and `\\preformatted` hold code: verbatim. `\\code{x}` reads as a code span; an argument
  (`\\item{max_tries, max_seconds}{...}` in `\\arguments` or `\\value`) as a list item opened by its names in code
  spans; a `\\describe` item by its term; an `\\itemize` item as a bullet; `\\link[=a]{b}` as b, `\\href{url}{text}` as
  text, `\\method{print}{foo}` as print.
- What a reader never sees is left out: comments, `\\keyword`, `\\concept`, `\\docType`, raw `\\out{}` HTML, figures,
  `\\Sexpr` code, `\\dontshow` examples, `\\if{latex}{}` parts; `\\ifelse{html}{badge}{[Experimental]}` reads as its
  text alternative.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .mdblocks import MAX_HEADING_BYTES, Blocks, Heading, ShownPage
from .utf8 import cut_utf8

# R's help page section titles (tools::Rd2txt), for the top-level blocks; `\section` titles its own.
SECTIONS = {"description": "Description", "usage": "Usage", "arguments": "Arguments", "value": "Value",
            "details": "Details", "format": "Format", "source": "Source", "references": "References",
            "note": "Note", "author": "Author", "seealso": "See also", "examples": "Examples"}
_CODE_SECTIONS = ("usage", "examples")
TITLE_LEVEL = 1
SECTION_LEVEL = 2
_MAX_LEVEL = 6
# Argument modes: shown as text, shown as code (R-like: commands still read), verbatim (only escapes read),
# captured (a heading's, term's or alias's text, shown where it belongs), dropped.
_TEXT, _CODE, _VERB, _CAPTURE, _DROP = range(5)
# Commands whose arguments a reader never sees (Rd's own and roxygen's markup, conditional raw output, figures).
_DROPPED = {"keyword": 1, "concept": 1, "docType": 1, "encoding": 1, "Rdversion": 1, "RdOpts": 1, "Sexpr": 1,
            "out": 1, "figure": 2, "dontshow": 1, "testonly": 1, "newcommand": 2, "renewcommand": 2}
_BACKTICKED = ("code", "verb", "env", "option", "file", "samp", "kbd", "command", "pkg", "var")
_SYMBOLS = {"dots": "...", "ldots": "...", "R": "R", "cr": "", "tab": " | ", "lbrace": "{", "rbrace": "}"}
_LISTS_OF_TERMS = ("arguments", "value", "describe")
_LISTS_OF_ITEMS = ("itemize", "enumerate")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_SPECIAL = re.compile(r"[\\{}%\n]")
# An argument (`\item{max_tries, max_seconds}{...}` in `\arguments` or `\value`) is an entry of its own below its
# block, titled by its names, as a tag's entry is in Vim help. Measured (docs/benchmarks.md): ARGUMENT_ENTRIES.
ARGUMENT_ENTRIES = True
_MAX_FRAMES = 200  # nesting deeper than any real page reads further commands' braces as plain groups


@dataclass
class _Frame:
    """One command argument being read: the command, which argument, how it is shown, its open plain braces."""

    command: str
    arg: int
    mode: int
    line: int
    level: int = 0  # the heading level this argument's section opens (0: none)
    captured: list[str] = field(default_factory=list)
    braces: int = 0
    ticked: bool = False  # shown as a code span
    # Of this frame and those around it: the innermost list and heading level (kept here so no lookup walks the stack).
    inner_list: str = ""
    inner_level: int = 0


def parse_rd(lines: list[str]) -> ShownPage:
    """The sections, code and help-page text of an Rd file given as `mdblocks.split_lines` lines."""
    return _Reader(lines).read()


class _Reader:
    def __init__(self, lines: list[str]) -> None:
        self.src = "\n".join(lines)
        self.count = len(lines)
        self.out: list[list[str]] = [[] for _ in lines]
        self.line = 0
        self.stack: list[_Frame] = []
        self.heads: dict[int, tuple[int, str]] = {}  # line -> (level, text)
        self.unmarked: set[int] = set()  # heading lines that are text as they are (an argument's entry)
        self.verbatim: list[tuple[int, int]] = []
        self.title: str | None = None
        self.name = ""
        self.fmt = ""  # the format of the last \if or \ifelse read: which of its parts a reader sees
        self.header_line = -1  # the first line of the page's header (\name, \alias, \title)
        self.dropping = 0  # frames on the stack that drop what they hold
        self.capturing: list[_Frame] = []

    # ----- the pass ------------------------------------------------------------------------------------------

    def read(self) -> ShownPage:
        src, i, n = self.src, 0, len(self.src)
        while i < n:
            m = _SPECIAL.search(src, i)
            end = m.start() if m else n
            if end > i:
                self._emit(src[i:end])
                i = end
                if not m:
                    break
            c = src[i]
            if c == "\n":
                self._newline()
                i += 1
            elif c == "%":
                nl = src.find("\n", i)
                i = n if nl < 0 else nl
            elif c == "\\":
                i = self._backslash(i)
            elif c == "{":
                if self.stack:
                    self.stack[-1].braces += 1
                    if self.stack[-1].mode in (_CODE, _VERB):
                        self._emit("{")
                i += 1
            else:  # "}"
                i = self._close(i)
        return self._page()

    def _backslash(self, i: int) -> int:
        src = self.src
        nxt = src[i + 1] if i + 1 < len(src) else ""
        if nxt in ("\\", "{", "}", "%"):
            self._emit(nxt)
            return i + 2
        m = _NAME.match(src, i + 1)
        mode = self.stack[-1].mode if self.stack else _TEXT
        if m is None or mode == _VERB:
            self._emit("\\")
            return i + 1
        name, i = m.group(0), m.end()
        if name in _SYMBOLS:
            self._emit(_SYMBOLS[name])
            return i
        if name == "item":
            return self._item(i)
        if i < len(src) and src[i] == "[" and name in ("link", "Sexpr", "eqn", "deqn"):
            close = src.find("]", i)
            nl = src.find("\n", i)
            if close >= 0 and (nl < 0 or close < nl):
                i = close + 1
        if i < len(src) and src[i] == "{":
            self._open(name, 0)
            return i + 1
        return i  # a command without an argument that shows nothing (\cr-like), or an unknown one

    def _item(self, i: int) -> int:
        if self.stack and self.stack[-1].inner_list in _LISTS_OF_ITEMS:
            self._emit("- ")
            return i
        if i < len(self.src) and self.src[i] == "{":
            self._open("item", 0)
            return i + 1
        self._emit("- ")
        return i

    def _open(self, name: str, arg: int) -> None:
        if len(self.stack) >= _MAX_FRAMES:
            self.stack[-1].braces += 1
            return
        frame = _Frame(name, arg, self._mode(name, arg), self.line)
        if arg == 0 and not self.stack and name in SECTIONS:
            frame.level = SECTION_LEVEL
            self._head(self.line, SECTION_LEVEL, SECTIONS[name])
        elif name in ("section", "subsection") and arg == 1:
            frame.level = self._level_below()
        elif name in ("name", "alias", "title") and not self.stack and self.header_line < 0:
            self.header_line = self.line
        if name in _BACKTICKED and frame.mode in (_TEXT, _VERB):
            frame.ticked = True
            self._emit("`")
        self._push(frame)

    def _mode(self, name: str, arg: int) -> int:
        if self.dropping:
            return _DROP
        if name in _DROPPED and arg < _DROPPED[name]:
            return _DROP
        if name in ("name", "title", "alias", "section", "subsection") and arg == 0:
            return _CAPTURE
        if name == "item" and arg == 0:
            return _CAPTURE
        if name in ("if", "ifelse") and arg == 0:
            return _CAPTURE
        if name == "if" and arg == 1:  # \if{latex}{...} is for the PDF manual only
            return _TEXT if {"text", "html", "example"} & set(_words(self.fmt)) else _DROP
        if name == "ifelse" and arg in (1, 2):  # html's part is a badge (a figure), the other part its words
            return _TEXT if (arg == 1) == ("text" in _words(self.fmt)) else _DROP
        if name == "href" and arg == 0:
            return _DROP
        if name in ("method", "S3method", "S4method") and arg == 1:
            return _DROP
        if name == "enc" and arg == 1:
            return _DROP
        if name == "tabular" and arg == 0:
            return _DROP
        if name in ("eqn", "deqn") and arg == 0:
            return _CAPTURE  # shown only when no ASCII form follows
        if name in _CODE_SECTIONS and not self.stack:
            return _CODE
        if name in ("preformatted", "verb", "url"):
            return _VERB
        if name in ("dontrun", "donttest", "dontdiff") or (self.stack and self.stack[-1].mode == _CODE):
            return _CODE
        return _TEXT

    def _push(self, frame: _Frame) -> None:
        outer = self.stack[-1] if self.stack else None
        listed = frame.command in _LISTS_OF_TERMS or frame.command in _LISTS_OF_ITEMS
        frame.inner_list = frame.command if listed else outer.inner_list if outer else ""
        frame.inner_level = frame.level or (outer.inner_level if outer else 0)
        self.stack.append(frame)
        if frame.mode == _DROP:
            self.dropping += 1
        if frame.mode == _CAPTURE:
            self.capturing.append(frame)

    def _close(self, i: int) -> int:
        if not self.stack:
            return i + 1  # an unmatched brace: markup, not text
        frame = self.stack[-1]
        if frame.braces:
            frame.braces -= 1
            if frame.mode in (_CODE, _VERB):
                self._emit("}")
            return i + 1
        self.stack.pop()
        if frame.mode == _DROP:
            self.dropping -= 1
        if frame.mode == _CAPTURE:
            self.capturing.pop()
        i += 1
        following = i < len(self.src) and self.src[i] == "{"
        self._closed(frame, following)
        if following and frame.arg + 1 < _arity(frame.command):
            self._open(frame.command, frame.arg + 1)
            return i + 1
        return i

    def _closed(self, frame: _Frame, following: bool) -> None:
        """What an argument shows once it is read."""
        name, text = frame.command, _collapse("".join(frame.captured))
        if frame.ticked:
            self._emit("`")
        elif name in _CODE_SECTIONS and frame.level and self.line > frame.line + 1:
            self.verbatim.append((frame.line + 1, self.line))
        elif name == "preformatted":
            self.verbatim.append((frame.line, self.line + 1))
        elif name == "title" and frame.mode == _CAPTURE:
            if self.title is None:
                self.title = text
        elif name == "name" and frame.mode == _CAPTURE:
            self.name = self.name or text
        elif name == "alias" and frame.mode == _CAPTURE and text:
            self._emit(f"`{text}`")
        elif name in ("section", "subsection") and frame.arg == 0 and frame.mode == _CAPTURE:
            self._head(frame.line, self._level_below(), text or name)
        elif name == "item" and frame.mode == _CAPTURE:
            terms = [t.strip().strip("`") for t in text.split(",")] if self._in_arguments() else [text]
            shown = ", ".join(f"`{t}`" for t in terms if t) if self._in_arguments() else text
            if ARGUMENT_ENTRIES and self._in_arguments() and shown and following:
                self._head(frame.line, self._level_below(), shown, marked=False)
            self._emit(f"- {shown}: " if following else f"- {shown}")
        elif name in ("if", "ifelse") and frame.arg == 0:
            self.fmt = text
        elif name in ("eqn", "deqn") and frame.arg == 0 and not following and frame.mode == _CAPTURE:
            self._emit(text)

    def _in_arguments(self) -> bool:
        return bool(self.stack) and self.stack[-1].inner_list in ("arguments", "value")

    def _level_below(self) -> int:
        level = self.stack[-1].inner_level if self.stack else 0
        return min((level or TITLE_LEVEL) + 1, _MAX_LEVEL)

    def _head(self, line: int, level: int, text: str, marked: bool = True) -> None:
        if line not in self.heads and line < self.count:
            self.heads[line] = (level, cut_utf8(text, MAX_HEADING_BYTES).rstrip())
            if not marked:
                self.unmarked.add(line)

    def _emit(self, text: str) -> None:
        if self.dropping:
            return
        if self.capturing:
            self.capturing[-1].captured.append(text)
        elif self.line < self.count:
            self.out[self.line].append(text)

    def _newline(self) -> None:
        if self.capturing and not self.dropping:
            self.capturing[-1].captured.append(" ")
        self.line += 1

    # ----- the page ------------------------------------------------------------------------------------------

    def _page(self) -> ShownPage:
        if self.title is not None or self.header_line >= 0:
            line = self.header_line if self.header_line >= 0 else 0
            self.heads.pop(line, None)
            self.heads[line] = (TITLE_LEVEL, cut_utf8(self.title or self.name, MAX_HEADING_BYTES).rstrip())
        text = ["".join(parts).rstrip() for parts in self.out]
        headings: list[Heading] = []
        for line in sorted(self.heads):
            level, title = self.heads[line]
            if line in self.unmarked:
                headings.append(Heading(line, line + 1, level, title, body=True))
                continue
            rest = text[line].strip()
            marker = "#" * level + " " + title
            text[line] = f"{marker}: {rest}" if rest else marker
            headings.append(Heading(line, line + 1, level, title, body=bool(rest)))
        return ShownPage(Blocks(0, None, tuple(headings), tuple(sorted(self.verbatim))), text)


def _arity(command: str) -> int:
    if command in ("section", "subsection", "item", "href", "if", "method", "S3method", "S4method", "enc", "eqn",
                   "deqn", "tabular", "figure", "newcommand", "renewcommand"):
        return 2
    if command == "ifelse":
        return 3
    return 1


def _words(text: str) -> list[str]:
    return [part.strip() for part in text.split(",")]


def _collapse(text: str) -> str:
    return " ".join(text.split())
