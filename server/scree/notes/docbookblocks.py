"""DocBook (the XML of systemd's and shadow's manual pages and KDE's manuals, the SGML of PostgreSQL's and pgpool's)
read as its built page shows it.

Pure, no I/O, never raises on any `str`, one pass over the page's markup (a tag, comment, CDATA section, processing
instruction or doctype is one token; what lies between is text). It yields the same `Blocks` record as `mdblocks`,
and the page's lines as a reader of the built page reads them (`ShownPage.text`, line for line: every chunk points at
the file's lines):
- A section (`refsect1`, `sect2`, `section`, `chapter`, ...) with a `<title>` is a heading one level below the section
  holding it; a manual page (`refentry`) is titled as `man` shows its header, `USERADD(8)`, and its name and synopsis
  parts are NAME and SYNOPSIS when they have no title.
- A variable list's entry (`varlistentry`) is an entry titled by its terms as printed, joined by ", " (`-b`,
  `--base-dir` BASE_DIR), one level below what holds it, as an option or a setting is defined there; a glossary's
  entry likewise, by its term.
- Inline names (`<option>`, `<command>`, `<varname>`, `<literal>`, `<filename>`, ...) read as code spans, the rest
  of the inline markup as its words, `<citerefentry>` as `crypt(5)`; `&lt;` and the other entities as the characters
  they stand for, an entity the page's doctype defines as its text, one it leaves to a DTD (KDE's `&konsole;`) as its
  name.
- `programlisting`, `screen`, `literallayout` and `synopsis` are verbatim, their lines as written but for the markup.
- SGML's shorthand: `</>` ends the innermost open element, an element that holds nothing (`<xref linkend="x">`) needs
  no end tag, a marked section's brackets are markup (an IGNORE section's text too).
- Metadata (`refentryinfo`, `refmeta`, `info` but its title, index terms, remarks), comments, processing
  instructions, the doctype and an entity that names a file (it brings that file in: the file is read as a page of its
  own) are markup.
"""

from __future__ import annotations

import html
import re

from .mdblocks import PageWriter, ShownPage, add_verbatim

_MAX_LEVEL = 6
_MAX_DEPTH = 256  # open elements; a start tag deeper is read as text
_HEAD_CHARS = 4096  # how much of a file `is_docbook` looks at
# One token of markup; each alternative also ends at the text's end, so an unclosed one costs one scan, not one per
# later `<`.
_MARKUP = re.compile(r"<!--.*?(?:-->|\Z)|<!\[CDATA\[.*?(?:\]\]>|\Z)|<\?.*?(?:\?>|\Z)"
                     r"|<!DOCTYPE(?:[^\[>]*\[.*?(?:\]\s*>|\Z)|[^>]*(?:>|\Z))"
                     r"|<!\[\s*IGNORE\s*\[.*?(?:\]\]>|\Z)|<!\[[^\[\]<>]{0,200}\[|\]\]>|</>"
                     r"|<(/?)([A-Za-z_][\w.:-]*)((?:\s[^<>]*)?)>", re.S | re.I)
_CDATA = "<![CDATA["
_SHORT_END = "</>"  # SGML's end tag of the innermost open element (PostgreSQL's and pgpool's `<literal>x</>`)
# SGML's shorthand read as SGML means it: `</>` ends the innermost element and an empty element's start tag stands
# alone. Off, `</>` is text and `<xref linkend=x>` stays open until what holds it closes, as an XML reader has them.
# Measured (docs/benchmarks.md): SGML_SHORTHAND.
SGML_SHORTHAND = True
_ENTITY_DECL = re.compile(r"<!ENTITY\s+(?!%)([\w.:-]+)\s+(?:\"([^\"]*)\"|'([^']*)'|(SYSTEM|PUBLIC)\b)", re.I)
_ENTITY = re.compile(r"&(#[xX][0-9A-Fa-f]{1,8}|#[0-9]{1,10}|[A-Za-z_][\w.:-]*);")
_ANY_TAG = re.compile(r"<[^<>]*>")

SECTIONS = frozenset({
    "set", "book", "part", "reference", "article", "chapter", "appendix", "preface", "colophon", "dedication",
    "glossary", "glossdiv", "bibliography", "bibliodiv", "index", "partintro", "simplesect", "section", "topic",
    "sect1", "sect2", "sect3", "sect4", "sect5", "refentry", "refnamediv", "refsynopsisdiv", "refsect1", "refsect2",
    "refsect3", "refsection", "qandaset", "qandadiv"})
# The parts of a manual page `man` shows under a header of its own though the source gives them no title.
_DEFAULT_TITLES = {"refnamediv": "NAME", "refsynopsisdiv": "SYNOPSIS"}
ENTRIES = frozenset({"varlistentry", "glossentry"})
_TERMS = frozenset({"term", "glossterm"})
VERBATIM = frozenset({"programlisting", "screen", "literallayout", "synopsis", "funcsynopsisinfo", "address"})
HIDDEN = frozenset({"refentryinfo", "refmeta", "indexterm", "remark", "annotation", "titleabbrev", "docinfo",
                    "prolog"})
# Metadata, hidden but for the title it may hold: DocBook 5's `info` and DocBook 4's `bookinfo`, `sect1info`, ...
INFOS = frozenset({"info", "bookinfo", "articleinfo", "chapterinfo", "appendixinfo", "prefaceinfo", "partinfo",
                   "setinfo", "referenceinfo", "glossaryinfo", "sectioninfo", "sect1info", "sect2info", "sect3info",
                   "sect4info", "sect5info", "refsect1info", "refsect2info", "refsect3info", "refsectioninfo"})
CODE = frozenset({"option", "command", "varname", "literal", "code", "filename", "envar", "function", "parameter",
                  "constant", "classname", "methodname", "type", "systemitem", "userinput", "computeroutput",
                  "prompt", "property", "tag", "sgmltag", "markup", "symbol", "token", "errorname", "errorcode",
                  "returnvalue", "structname", "structfield", "interfacename", "exceptionname", "uri", "database",
                  "varargs", "package"})
# Inline markup: no space is shown where it starts or ends (any other tag parts words, as a block's edge does).
_INLINE = CODE | frozenset({"replaceable", "emphasis", "link", "ulink", "olink", "xref", "citerefentry",
                            "refentrytitle", "manvolnum", "quote", "phrase", "acronym", "abbrev", "firstterm",
                            "glossterm", "foreignphrase", "wordasword", "citetitle", "subscript", "superscript",
                            "trademark", "productname", "application", "email", "span"})
# Elements that hold nothing, which SGML writes as a start tag alone (`<xref linkend="x">`): never open.
EMPTY = frozenset({"xref", "anchor", "colspec", "spanspec", "co", "coref", "area", "sbr", "void", "varargs",
                   "footnoteref", "imagedata", "graphic", "inlinegraphic", "audiodata", "videodata", "textdata",
                   "beginpage"})
# Root elements that make an XML file a DocBook page: its document types, and the fragments a page brings in as
# entities (shadow's `login.defs.d/*.xml` are a `varlistentry` each).
ROOTS = SECTIONS | ENTRIES | frozenset({"variablelist", "para", "itemizedlist", "orderedlist", "refentry"})
_DOCBOOK_MARK = re.compile(r"DocBook|docbook\.org|<(?:refentry|refentrytitle|varlistentry|refsect1|sect1)\b")
_QUICK_WORDS = ("ocbook", "ocBook", "<ref", "<varlistentry", "<sect")  # one of them is in any head `_DOCBOOK_MARK` finds
_DOCTYPE = re.compile(r"<!DOCTYPE\s+([A-Za-z_][\w.:-]*)[^\[>]{0,300}", re.I)  # SGML's may be `<!doctype`


def is_docbook(head: str, *, sgml: bool = False) -> bool:
    """True when the start of an XML file (its first few kB) is a DocBook page or fragment: a doctype naming DocBook or
    one of its roots, or a first element DocBook names (`refentry`, `book`, `varlistentry`, ...) on a page that
    speaks DocBook's markup or namespace. An SGML file (`sgml`) needs no such mark: SGML in a docs folder is DocBook
    or another doctype (LinuxDoc's `<!doctype linuxdoc system>`), and a chapter of PostgreSQL's manual names neither
    DocBook nor any of its reference elements in its first kB."""
    head = head[:_HEAD_CHARS]
    if not sgml and (not any(word in head for word in _QUICK_WORDS) or _DOCBOOK_MARK.search(head) is None):
        return False
    doctype = _DOCTYPE.search(head)
    if doctype is not None:  # its internal subset may fill the first kB (shadow's login.defs(5) declares 70 entities)
        return _local(doctype.group(1)) in ROOTS or "docbook" in doctype.group(0).lower()
    for m in _MARKUP.finditer(head):
        name = m.group(2)
        if name is not None and not m.group(1):
            return _local(name) in ROOTS or "docbook" in (m.group(3) or "").lower()
    return False


def parse_docbook(lines: list[str]) -> ShownPage:
    """The sections, entries, verbatim blocks and printed text of a DocBook page given as `mdblocks.split_lines`
    lines."""
    return _Reader(lines).read()


def _local(name: str) -> str:
    return name.rsplit(":", 1)[-1].lower()


class _Open:
    """An open element: its name, the line it starts on, the level of the section or entry it is (0 for any other),
    whether it hides what it holds, and for a section or entry its title's parts and lines."""

    __slots__ = ("name", "start", "level", "under", "hides", "titled", "title_line", "title_end", "parts")

    def __init__(self, name: str, start: int, under: int) -> None:
        self.name, self.start = name, start
        self.level = 0
        self.under = under  # the level of the section or entry it is or is inside
        self.hides = self.titled = False
        self.title_line = self.title_end = -1
        self.parts: list[str] = []


class _Reader(PageWriter):
    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines)
        self.pieces: list[list[str]] = [[] for _ in lines]
        self.stack: list[_Open] = []
        self.open_names: dict[str, int] = {}  # how many elements of each name are open
        self.entities: dict[str, str] = {}
        self.hidden = 0  # open elements that hide what they hold
        self.verbatim_from = -1  # the line the outermost open verbatim element starts on
        self.verbatim_depth = 0
        self.code: list[str] | None = None  # the text of the open inline name
        self.code_depth = 0
        self.code_line = 0
        self.capture: _Open | None = None  # the section or entry whose title (or term) is being read
        self.capture_depth = 0
        self.meta: str | None = None  # the refmeta field being read
        self.refmeta: dict[str, list[str]] = {}
        self.refentry: _Open | None = None
        self.cite = 0  # open citerefentry elements

    def read(self) -> ShownPage:
        src = "\n".join(self.lines)
        line, at = 0, 0
        for m in _MARKUP.finditer(src):
            if m.start() > at:
                line = self._text(src[at:m.start()], line)
            token = m.group(0)
            if m.group(2) is not None:
                self._tag(m.group(2), bool(m.group(1)), token.endswith("/>"), line)
            elif token == _SHORT_END and not SGML_SHORTHAND:
                line = self._text(token, line)
            elif token == _SHORT_END:
                if self.stack:
                    self._tag(self.stack[-1].name, True, False, line)
            elif token.startswith(_CDATA):
                body = token[len(_CDATA):]
                self._text(body[:-3] if body.endswith("]]>") else body, line, raw=True)
            elif token[:9].upper() == "<!DOCTYPE":
                for decl in _ENTITY_DECL.finditer(token):
                    value = decl.group(2) if decl.group(2) is not None else decl.group(3)
                    shown = "" if value is None else html.unescape(_ANY_TAG.sub("", value))  # a file's: read as itself
                    self.entities.setdefault(decl.group(1), shown)
            line += token.count("\n")
            at = m.end()
        if at < len(src):
            line = self._text(src[at:], line)
        while self.stack:
            self._close(self.stack.pop(), line)
        self._title_refentry()
        verbatim = {i for start, end in self.verbatim for i in range(start, end)}
        for i, parts in enumerate(self.pieces):
            joined = "".join(parts)
            self.text[i] = joined.rstrip() if i in verbatim else " ".join(joined.split())
        return self._page()

    # -- text

    def _text(self, text: str, line: int, raw: bool = False) -> int:
        """Shows `text` from `line` on; returns the line it ends on."""
        if not raw and "&" in text:
            text = _ENTITY.sub(self._entity, text)
        if self.meta is not None:
            self.refmeta[self.meta].append(text)
        if self.hidden or self.code is not None:
            if self.code is not None and not self.hidden:
                self.code.append(text)
            return line + text.count("\n")
        for k, piece in enumerate(text.split("\n")):
            if k:
                line += 1
                if self.capture is not None:
                    self.capture.parts.append(" ")  # a line's end parts a title's words as a space does
            if piece and line < len(self.pieces):
                self._emit(line, piece)
        return line

    def _emit(self, line: int, piece: str) -> None:
        self.pieces[line].append(piece)
        if self.capture is not None:
            self.capture.parts.append(piece)
            if piece.strip():
                if self.capture.title_line < 0:
                    self.capture.title_line = line
                self.capture.title_end = line

    def _entity(self, m: re.Match[str]) -> str:
        value = self.entities.get(m.group(1))
        if value is not None:
            return value
        known = html.unescape(m.group(0))
        # One the page never declares comes from a DTD it names (KDE's `&konsole;`, `&Ctrl;&Shift;`): its name says
        # most of it, a word of its own.
        return known if known != m.group(0) else f" {m.group(1)} "

    # -- tags

    def _tag(self, raw: str, closing: bool, empty: bool, line: int) -> None:
        name = _local(raw)
        if name not in _INLINE and not self.hidden and line < len(self.pieces):  # its edge parts the words beside it
            if self.code is not None:
                self.code.append(" ")
            else:
                self._emit(line, " ")
        if closing:
            self._end(name, line)
        elif not empty and not (SGML_SHORTHAND and name in EMPTY):  # <xref/>, <sbr/>: nothing shown
            self._start(name, line)

    def _start(self, name: str, line: int) -> None:
        if len(self.stack) >= _MAX_DEPTH:
            return  # read as text: a page nested this deep was written to cost the reader, not to be read
        parent = self.stack[-1] if self.stack else None
        node = _Open(name, line, parent.under if parent is not None else 0)
        self.stack.append(node)
        self.open_names[name] = self.open_names.get(name, 0) + 1
        if parent is not None and parent.name == "refmeta" and name in ("refentrytitle", "manvolnum"):
            self.meta = name
            self.refmeta.setdefault(name, [])
        if name in HIDDEN or (parent is not None and parent.name in INFOS and name != "title"):
            node.hides = True
            self.hidden += 1
            return
        if self.hidden:
            return
        if name in SECTIONS or name in ENTRIES:
            node.level = node.under = min(node.under + 1, _MAX_LEVEL)
            if name == "refentry" and self.refentry is None:
                self.refentry = node
        elif name == "title" and self.capture is None:
            owner = self._title_owner()
            if owner is not None:
                self.capture, self.capture_depth = owner, len(self.stack)
        elif name in _TERMS and self.capture is None and parent is not None and parent.name in ENTRIES:
            if parent.parts:
                parent.parts.append(", ")
            self.capture, self.capture_depth = parent, len(self.stack)
        elif name in VERBATIM:
            if not self.verbatim_depth:
                self.verbatim_from = line
            self.verbatim_depth += 1
        elif name == "citerefentry":
            self.cite += 1
        elif name == "manvolnum" and self.cite:
            self._text("(", line)
        elif name in CODE and not self.verbatim_depth:
            if self.code is None:
                self.code, self.code_line = [], line
            self.code_depth += 1

    def _end(self, name: str, line: int) -> None:
        """Closes the innermost open element so named and what it holds; a tag that closes nothing open is ignored
        (counted, so it costs no walk down the stack)."""
        if not self.open_names.get(name):
            return
        while self.stack:
            node = self.stack.pop()
            self.open_names[node.name] -= 1
            self._close(node, line)
            if node.name == name:
                return

    def _close(self, node: _Open, line: int) -> None:
        name = node.name
        if self.meta == name:
            self.meta = None
        if node.hides:
            self.hidden -= 1
            return
        if self.hidden:
            return
        if self.capture is not None and len(self.stack) + 1 == self.capture_depth:
            owner, self.capture = self.capture, None
            if name == "title":
                owner.titled = True
                self._head_for(owner)
            return
        if name in ENTRIES:
            self._head_for(node)
        elif name in _DEFAULT_TITLES and not node.titled:
            self._head(node.start, node.level, _DEFAULT_TITLES[name], body=True)
        elif name in VERBATIM and self.verbatim_depth:
            self.verbatim_depth -= 1
            if not self.verbatim_depth:
                add_verbatim(self.verbatim, self.lines, self.verbatim_from, min(line + 1, len(self.lines)))
        elif name == "citerefentry" and self.cite:
            self.cite -= 1
        elif name == "manvolnum" and self.cite:
            self._text(")", line)
        elif name in CODE and self.code is not None and self.code_depth:
            self.code_depth -= 1
            if not self.code_depth:
                words = " ".join("".join(self.code).split())
                self.code = None
                if words:
                    self._emit(self.code_line, f"`{words}`")

    # -- structure

    def _title_owner(self) -> _Open | None:
        """The section whose title a `<title>` just opened is: the element holding it, or the one holding its
        `info`; none for a table's, a figure's or an admonition's title, or a section's second."""
        holder = self.stack[-2] if len(self.stack) > 1 else None
        if holder is not None and holder.name in INFOS and len(self.stack) > 2:
            holder = self.stack[-3]
        if holder is None or holder.name not in SECTIONS or holder.titled:
            return None
        return holder

    def _head_for(self, node: _Open) -> None:
        title = " ".join("".join(node.parts).split()).replace(" , ", ", ")
        if title and node.title_line >= 0:
            self._head(node.title_line, node.level, title, body=True, end=node.title_end + 1)
        node.parts = []

    def _title_refentry(self) -> None:
        """A manual page's header, `USERADD(8)` from its refmeta, at its first line."""
        if self.refentry is None or self.refentry.titled:
            return
        title = " ".join("".join(self.refmeta.get("refentrytitle", [])).split())
        volume = " ".join("".join(self.refmeta.get("manvolnum", [])).split())
        if title:
            self._head(self.refentry.start, self.refentry.level,
                       f"{title.upper()}({volume})" if volume else title.upper(), body=True)
