"""A Texinfo manual (`doc/make.texi`, GNU's manuals) read as its Info and HTML output show it.

Pure, no I/O, never raises on any `str`, one pass over the lines and one over each paragraph's characters. Texinfo
is line-based: a line opening with `@command` is a command, any other is text in which `@command{...}` marks words.
It yields the same `Blocks` record as `mdblocks`, and the manual's lines as its reader reads them (`ShownPage.text`,
line for line: every chunk points at the file's lines):
- `@chapter`, `@unnumbered`, `@appendix`, `@top` and `@majorheading` / `@chapheading` open a section; `@section`,
  `@subsection`, `@subsubsection` (and their unnumbered, appendix and heading kinds) one level each further down.
  `@settitle` is the note's title (handed over as front matter, as Org's `#+title:`).
- An `@item` of a `@table` (`@vtable`, `@ftable`) is an entry titled by its tag as printed (`$(subst from,to,text)`,
  `-j [jobs]`), one level below what holds it; `@itemx` lines and items with no text between them are one entry,
  titled by the first, and a table of tags with no text at all has none. A definition (`@deffn Command name args`,
  `@defun`, `@deftypefun`, `@defvar`, `@defopt`, ...) is an entry titled by the name it defines, its `x` lines
  (`@deffnx`) one entry with it. `@itemize` and `@enumerate` items are text, a `@multitable` row its cells.
- `@example`, `@smallexample`, `@lisp`, `@display`, `@format` and `@verbatim` blocks are verbatim.
- What a reader of the Info or HTML manual never sees is markup: comments, `@node` lines, index entries (`@cindex`),
  menus, `@iftex` / `@tex` / `@html` / `@ignore` / `@macro` blocks, the title page and the copying notice, header
  and layout commands.
- Inline commands read as the words they print: `@code{x}`, `@samp{x}`, `@option{x}`, `@env{x}`, `@file{x}`,
  `@command{x}`, `@kbd{x}` as code spans; `@var{x}`, `@emph{x}` and the like as x; `@xref{node}` as "See node";
  `@uref{url, text}` as text; `@dots{}` as "..."; `@@`, `@{`, `@}` as the character.
"""

from __future__ import annotations

import json
import re

from .mdblocks import PageWriter, ShownPage

# A `@table` item as an entry of its own, titled by its tag. Measured (docs/benchmarks.md): TABLE_ENTRIES.
TABLE_ENTRIES = True
_MAX_LEVEL = 6
_MAX_DEPTH = 32  # braces nested deeper are read as text: each level copies what it holds
_COMMAND = re.compile(r"@([a-zA-Z]+)")
_HEADINGS = {
    **dict.fromkeys(("top", "chapter", "unnumbered", "appendix", "majorheading", "chapheading"), 1),
    **dict.fromkeys(("section", "unnumberedsec", "appendixsec", "appendixsection", "heading"), 2),
    **dict.fromkeys(("subsection", "unnumberedsubsec", "appendixsubsec", "subheading"), 3),
    **dict.fromkeys(("subsubsection", "unnumberedsubsubsec", "appendixsubsubsec", "subsubheading"), 4),
}
_TABLES = {"table", "vtable", "ftable"}
_LISTS = {"itemize", "enumerate", "multitable"}
_VERBATIM = {"example", "smallexample", "lisp", "smalllisp", "display", "smalldisplay", "format", "smallformat"}
# Blocks no Info or HTML reader sees: their lines are markup to their `@end`.
_HIDDEN = {"iftex", "tex", "ifdocbook", "docbook", "ifxml", "xml", "iflatex", "latex", "html", "ignore", "macro",
           "rmacro", "titlepage", "copying", "direntry", "menu", "detailmenu", "documentdescription", "ifplaintext",
           "displaymath"}
# Where the name a definition defines stands among its words (`@deffn Command name args`: the second).
_DEF_NAME = {"deffn": 1, "defvr": 1, "deftp": 1, "defop": 2, "defcv": 2, "defun": 0, "defmac": 0, "defspec": 0,
             "defvar": 0, "defopt": 0, "defmethod": 1, "defivar": 1, "deftypefn": 2, "deftypefun": 1,
             "deftypevr": 2, "deftypevar": 1, "deftypeop": 3, "deftypemethod": 2, "deftypeivar": 2, "deftypecv": 3}
# Inline commands shown as code, as their Info output quotes them.
_CODE = {"code", "samp", "option", "env", "file", "command", "kbd", "verb", "key"}
_GLYPHS = {"dots": "...", "enddots": "...", "minus": "-", "result": "\u21d2", "expansion": "\u21a6",
           "equiv": "\u2261", "error": "error\u2192", "print": "-|", "point": "\u2217", "copyright": "\u00a9",
           "registeredsymbol": "\u00ae", "TeX": "TeX", "LaTeX": "LaTeX", "bullet": "\u2022", "comma": ",", "tie": " ",
           "lbracechar": "{", "rbracechar": "}", "atchar": "@", "backslashchar": "\\", "hashchar": "#",
           "arrow": "\u2192", "geq": "\u2265", "leq": "\u2264", "pounds": "\u00a3", "euro": "\u20ac",
           "textdegree": "\u00b0", "exclamdown": "\u00a1", "questiondown": "\u00bf", "quotedblleft": "\u201c",
           "quotedblright": "\u201d", "quoteleft": "\u2018", "quoteright": "\u2019", "guillemetleft": "\u00ab",
           "guillemetright": "\u00bb", "ss": "\u00df", "aa": "\u00e5", "AA": "\u00c5", "ae": "\u00e6", "AE": "\u00c6",
           "o": "\u00f8", "O": "\u00d8", "oe": "\u0153", "OE": "\u0152", "l": "\u0142", "L": "\u0141"}
_HIDDEN_INLINE = {"anchor", "image", "value", "today", "indexterm", "sortas", "seeentry", "seealso", "errormsg",
                  "inlinefmt", "inlineraw", "inlinefmtifelse", "inlineifset", "inlineifclear", "U"}
_PUNCT = {"@": "@", "{": "{", "}": "}", ".": ".", "!": "!", "?": "?", ":": "", "*": "", "-": "", "/": "",
          " ": " ", "\t": " ", "\n": "\n", "&": "&"}
_ACCENTS = set("'`^~=\",")


def parse_texinfo(lines: list[str]) -> ShownPage:
    """The sections, entries, verbatim blocks and shown text of a Texinfo file given as `mdblocks.split_lines`
    lines."""
    return _Reader(lines).read()


class _Reader(PageWriter):
    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines)
        self.title = ""
        self.level = 0  # the level of the heading the line is under
        self.blocks: list[str] = []  # open environments scree follows, innermost last
        self.open: dict[str, int] = {}  # how many of each are open (an `@end` of none open is read in one step)
        self.lists: list[tuple[str, str]] = []  # the open tables and lists: (name, a table's formatter)
        self.tables = 0  # how many of them are tables (their items entries)
        self.hidden: tuple[str, int] | None = None  # a hidden block's name, and its nested openings
        self.raw = -1  # the first line of an open `@verbatim`, -1 when none is open
        self.example = -1  # the first line of an open example block, -1 when none is open
        self.paragraph = -1  # the first line of the text being read, -1 when none
        # Tags read so far with no text of their own (start, end, level, title): one entry when text follows.
        self.run: tuple[int, int, int, str] | None = None

    def read(self) -> ShownPage:
        for i, line in enumerate(self.lines):
            if self.hidden is not None:
                self._in_hidden(line)
                continue
            if self.raw >= 0:
                if line.strip() == "@end verbatim":
                    self.verbatim.append((self.raw, i))
                    self.raw = -1
                else:
                    self.text[i] = line.rstrip()
                continue
            stripped = line.lstrip()
            if stripped.startswith("\\input"):  # `\input texinfo`: TeX's first line
                self._flush(i)
                continue
            m = _COMMAND.match(stripped)
            if m is None or stripped[m.end():m.end() + 1] == "{":  # text, perhaps opening with `@code{make}`
                if not stripped.strip():
                    self._flush(i)
                elif self.paragraph < 0:
                    self._settle()
                    self.paragraph = i
                continue
            self._flush(i)
            self._command(i, m.group(1), stripped[m.end():].strip())
        self._flush(len(self.lines))
        if self.raw >= 0:
            self.verbatim.append((self.raw, len(self.lines)))
        if self.example >= 0:
            self.verbatim.append((self.example, len(self.lines)))
        return self._page(f"title: {json.dumps(self.title)}" if self.title else None)

    # ----- lines ---------------------------------------------------------------------------------------------

    def _flush(self, end: int) -> None:
        """The text lines read since `paragraph`, rendered together (an inline command may run over lines)."""
        if self.paragraph >= 0:
            for i, shown in enumerate(render(self.lines[self.paragraph:end]), self.paragraph):
                self.text[i] = shown.rstrip()
            self.paragraph = -1

    def _in_hidden(self, line: str) -> None:
        assert self.hidden is not None
        name, depth = self.hidden
        stripped = line.strip()
        if stripped == "@end " + name or (stripped.startswith("@end ") and stripped[5:].strip() == name):
            self.hidden = (name, depth - 1) if depth else None
        elif name != "ignore" and stripped.startswith("@" + name) and not stripped[len(name) + 1:][:1].isalpha():
            self.hidden = (name, depth + 1)

    def _command(self, i: int, name: str, rest: str) -> None:
        if name in _HEADINGS:
            self._settle(drop=True)
            self._close_all(i)  # no environment runs past a heading
            self.level = _HEADINGS[name]
            self._head(i, self.level, " ".join(render([rest])[0].split()), body=False)
        elif name == "settitle":
            self.title = " ".join(render([rest])[0].split())
        elif name in _HIDDEN:
            self.hidden = (name, 0)
        elif name == "verbatim":
            self._settle()
            self.raw = i + 1
        elif name == "end":
            self._end(i, rest.split(" ", 1)[0] if rest else "")
        elif name in _VERBATIM:
            self._settle()
            if self.example < 0:
                self.example = i + 1
            self._open(name)
        elif name in _TABLES:
            self._settle()
            self._open(name, rest.split(" ", 1)[0].lstrip("@"))
            self.tables += 1
        elif name in _LISTS:
            self._settle()
            self._open(name)
        elif name in ("item", "itemx", "headitem"):
            self._item(i, name, rest)
        elif name == "tab":
            self.text[i] = "| " + render([rest])[0].strip()
        elif name in _DEF_NAME or (name.endswith("x") and name[:-1] in _DEF_NAME):
            self._definition(i, name.removesuffix("x") if name not in _DEF_NAME else name, rest)
        elif name in ("center", "exdent", "author", "subtitle", "title", "quotation", "smallquotation"):
            self.text[i] = render([rest])[0].strip()
        # any other line command is markup, and a block scree has no rule for (`@cartouche`, `@ifinfo`) its text

    def _open(self, name: str, formatter: str = "") -> None:
        self.blocks.append(name)
        self.open[name] = self.open.get(name, 0) + 1
        if name in _TABLES or name in _LISTS:
            self.lists.append((name, formatter))

    def _end(self, i: int, name: str) -> None:
        while self.open.get(name):  # close it, and what it holds that was never closed
            closed = self.blocks.pop()
            self.open[closed] -= 1
            if closed in _TABLES or closed in _LISTS:
                self.tables -= self.lists.pop()[0] in _TABLES
            if closed == name:
                break
        if name in _VERBATIM and self.example >= 0 and not any(self.open.get(v) for v in _VERBATIM):
            self.verbatim.append((self.example, i))
            self.example = -1
        elif name in _TABLES:
            self._settle(drop=True)
        elif name in _DEF_NAME:
            self._settle()  # a definition defines its name, whether or not text follows

    def _close_all(self, i: int) -> None:
        self.blocks, self.open, self.lists, self.tables = [], {}, [], 0
        if self.example >= 0:
            self.verbatim.append((self.example, i))
            self.example = -1

    def _item(self, i: int, name: str, rest: str) -> None:
        top = self.lists[-1] if self.lists else ("", "")
        if top[0] not in _TABLES or not TABLE_ENTRIES:
            shown = render([rest.replace("@tab", "|")])[0].strip()
            self._settle()
            self.text[i] = ("- " + shown if top[0] != "multitable" else shown).rstrip()
            return
        tag = " ".join(render([rest])[0].split())
        self.text[i] = f"`{tag}`" if top[1] in _CODE and tag else tag
        self._tagged(i, tag)

    def _definition(self, i: int, name: str, rest: str) -> None:
        words = _words(render([rest])[0])
        at = _DEF_NAME[name]
        defined = words[at] if len(words) > at else (words[-1] if words else "")
        self.text[i] = (f"{words[0]}: " + " ".join(words[1:]) if at else " ".join(words)) if words else ""
        self._tagged(i, defined)

    def _tagged(self, i: int, tag: str) -> None:
        """A tag read (an item's, a definition's): it joins the run of tags waiting for their text."""
        level = self._below()
        if self.run is None or self.run[2] != level:
            self.run = (i, i + 1, level, tag)
        else:
            self.run = (self.run[0], i + 1, level, self.run[3])

    def _settle(self, drop: bool = False) -> None:
        """Text follows a run of tags: they are one entry, titled by the first; none when the table or section ends
        first (`drop`)."""
        if self.run is not None:
            start, end, level, title = self.run
            self.run = None
            if not drop:
                self._head(start, level, title, body=True, end=end)

    # ----- headings ------------------------------------------------------------------------------------------

    def _below(self) -> int:
        return min(max(self.level, 0) + max(self.tables, 1), _MAX_LEVEL)


def _words(text: str) -> list[str]:
    """A definition line's words, a braced group one word (`{Interactive Command} magit-status`)."""
    return [w.strip("{}") for w in re.findall(r"\{[^{}]*\}|\S+", text)]


# ----- inline commands -------------------------------------------------------------------------------------------


def render(lines: list[str]) -> list[str]:
    """Lines with their inline commands read as the words they print, as many lines as given (a command over lines
    keeps its line breaks; what it drops leaves its breaks at its end)."""
    text = "\n".join(lines)
    if "@" not in text and "{" not in text:
        return list(lines)
    out = _render(text).split("\n")
    return out if len(out) == len(lines) else list(lines)


def _render(text: str) -> str:
    stack: list[tuple[str, list[str]]] = []  # (command, what it holds so far)
    top: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        out = stack[-1][1] if stack else top
        if c == "@" and i + 1 < n:
            m = _COMMAND.match(text, i)
            if m is None:
                nxt = text[i + 1]
                if nxt in _ACCENTS:
                    i += 2  # an accent over the next letter: the letter
                    continue
                out.append(_PUNCT.get(nxt, ""))
                i += 2
                continue
            name, j = m.group(1), m.end()
            if j < n and text[j] == "{" and len(stack) < _MAX_DEPTH:
                stack.append((name, []))
                i = j + 1
                continue
            out.append(" | " if name == "tab" else _GLYPHS.get(name, "") if j < n and text[j] != "{" else "")
            i = j
            continue
        if c == "{" and len(stack) < _MAX_DEPTH:
            stack.append(("", []))
            i += 1
            continue
        if c == "}" and stack:
            name, parts = stack.pop()
            (stack[-1][1] if stack else top).append(_finish(name, "".join(parts)))
            i += 1
            continue
        out.append(c)
        i += 1
    while stack:  # unclosed: its words as written
        _, parts = stack.pop()
        (stack[-1][1] if stack else top).append("".join(parts))
    return "".join(top)


def _finish(name: str, body: str) -> str:
    shown = _shown(name, body)
    return shown + "\n" * (body.count("\n") - shown.count("\n"))


def _shown(name: str, body: str) -> str:
    if name in _GLYPHS and not body.strip():
        return _GLYPHS[name]
    if name in _CODE:
        return f"`{body}`" if body.strip() else body
    if name in _HIDDEN_INLINE:
        return ""
    args = [a.strip() for a in body.split(",")]
    if name in ("xref", "pxref", "ref", "inforef"):
        target = next((a for a in (args[2:3] or []) if a), args[0])
        return {"xref": "See ", "pxref": "see "}.get(name, "") + target
    if name in ("uref", "url", "email"):
        return args[1] if len(args) > 1 and args[1] else args[0]
    if name in ("acronym", "abbr"):
        return args[0]
    return body
