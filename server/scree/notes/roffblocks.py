"""A manual page (`ssh.1`, `sshd_config.5`: roff with the man or the mdoc macros) read as `man` shows it.

Pure, no I/O, never raises on any `str`, one pass over the lines (roff is line-based: a line opening with `.` or `'` is
a request or macro, any other is text). It yields the same `Blocks` record as `mdblocks`, and the page's lines as a
reader of the formatted page reads them (`ShownPage.text`, line for line, so every chunk points at the file's lines):
- The page's title is its header, as `man` prints it: `.TH SSH 1` or mdoc's `.Dt SSH 1` is `SSH(1)`, the root of every
  trail, as Git's AsciiDoc pages are titled `git-add(1)`.
- `.SH` / `.Sh` open a section, `.SS` / `.Ss` a subsection, titled as written (`DESCRIPTION`, `OPTIONS`).
- A tagged paragraph is an entry titled by its tag as the page shows it, one level below what holds it: the line
  after `.TP`, an `.IP` tag that is a word, an `.It` of an mdoc `-tag` (`-hang`, `-ohang`, `-inset`, `-diag`) list
  (`.It Fl J Ar destination` is `-J destination`, `.It Cm ProxyJump` is `ProxyJump`; `.It Xo` runs to `.Xc`), as
  a command line option or a configuration keyword is defined there; in man's indented block (`.RS` ... `.RE`) one
  level below the entry it follows, as `ip route add`'s parameters are. Tags with no text between them are one
  entry, titled by the first (`-L` in four forms over one description); an mdoc list of tags with no text at all
  (scp's list of ssh_config keywords) has none. Bullet, numbered and column lists are text.
- mdoc's semantic macros read as mandoc renders them (`Fl x` -x, `Xr ssh 1` ssh(1), `Op` [...], `Dq` "...", `Ns`
  and `Sm off` join words, `Nm` the page's name); man's font macros (`.B`, `.BR`, ...) as their words; escapes as
  the characters they print (`\\-` -, `\\(em` —, `\\fB` nothing).
- `.nf`/`.fi`, `.EX`/`.EE` and mdoc's `.Bd -literal`/`-unfilled` displays are verbatim; comments, macro
  definitions (`.de` ... `..`), conditionals and layout requests (`.RS`, `.in`, `.ft`, `.if`, ...) are markup.
"""

from __future__ import annotations

import re

from .mdblocks import PageWriter, ShownPage

TITLE_LEVEL = 1
SECTION_LEVEL = 2
SUBSECTION_LEVEL = 3
_MAX_LEVEL = 6
_SECTIONS = {"SH": SECTION_LEVEL, "Sh": SECTION_LEVEL, "SS": SUBSECTION_LEVEL, "Ss": SUBSECTION_LEVEL}
_BREAKS = {"PP", "P", "LP", "Pp", "Lp", "sp", "br", "HP"}
_TAG_LISTS = {"-tag", "-hang", "-ohang", "-inset", "-diag"}
# Requests and macros that only lay the page out (indents, fonts, fill, hyphenation, registers, strings, includes,
# conditionals, mdoc's prologue): a reader sees none of them.
_LAYOUT = {"in", "ti", "ft", "ad", "na", "hy", "nh", "ne", "ta", "ll", "ps", "vs", "so", "ds", "nr",
           "if", "ie", "el", "tr", "cs", "bp", "ns", "rs", "pc", "ce", "ul", "cu", "ss", "fam", "mso", "do", "PD",
           "DT", "UC", "AT", "Dd", "Os", "El", "Ed", "Xc", "YS", "UE", "ME", "hw", "lf", "ev", "rm", "rn", "as",
           "am", "wh", "ch", "it", "fc", "lc", "cc", "c2", "ec", "eo", "em", "ig", "tm", "ab", "pl", "po", "mk",
           "rt", "fl", "Bk", "Ek", "Ud", "Rs", "Re", "Bf", "Ef", "TS", "TE", "T{", "T}", "Db", "Ex", "Rv", "cp", "hc", "sv", "os", "nm", "nn", "pm", "PDF", "pdfhref", "URL"}
_FONTS_SPACED = {"B", "I", "R", "SM", "SB"}
_FONTS_ALTERNATING = {"BR", "BI", "IB", "IR", "RB", "RI"}
# mdoc's callable macros and what each prints around the words it takes (see `_render_mdoc`).
_ENCLOSE = {"Op": ("[", "]"), "Oo": ("[", ""), "Oc": ("", "]"), "Bq": ("[", "]"), "Bo": ("[", ""), "Bc": ("", "]"),
            "Brq": ("{", "}"), "Bro": ("{", ""), "Brc": ("", "}"), "Pq": ("(", ")"), "Po": ("(", ""), "Pc": ("", ")"),
            "Aq": ("<", ">"), "Ao": ("<", ""), "Ac": ("", ">"), "Dq": ("\u201c", "\u201d"), "Do": ("\u201c", ""),
            "Dc": ("", "\u201d"), "Qq": ('"', '"'), "Qo": ('"', ""), "Qc": ("", '"'), "Sq": ("\u2018", "\u2019"),
            "So": ("\u2018", ""), "Sc": ("", "\u2019"), "Ql": ("`", "`")}
_SYSTEMS = {"Bx": "BSD", "Ox": "OpenBSD", "Nx": "NetBSD", "Fx": "FreeBSD", "Dx": "DragonFly", "Ux": "UNIX",
            "Bsx": "BSD/OS", "At": "AT&T UNIX"}
_WORD_MACROS = {"Ar", "Cm", "Ic", "Pa", "Ev", "Va", "Dv", "Er", "Li", "Em", "Sy", "No", "Tn", "Ad", "Fa", "Ft", "Cd",
                "An", "Ms", "Mt", "Lk", "St", "Ot", "Vt", "Lb", "In", "Fd", "Fn", "Fo", "Fc", "Xr", "Fl", "Nm", "Ns",
                "Ta", "Xo", "Pf", "Ap", "Sx", "Hf", "Ek", "Bk", "Es", "En", "Eo", "Ec", *_ENCLOSE, *_SYSTEMS}
_CLOSING = {".", ",", ";", ":", ")", "]", "?", "!", "}"}
_OPENING = {"(", "["}
# Escapes, each of bounded length (a line of 200 KB of `\[` is read in one linear pass).
_ESCAPE = re.compile(r"\\(?:f(?:\[[^\]\n]{0,20}\]|\(..|.)|\((..)|\[([^\]\n\\]{0,40})\]|\*(?:\[[^\]\n]{0,40}\]|\(..|.)"
                     r"|s(?:[-+]?\d{1,2}|\([-+]?\d\d|\[[^\]\n]{0,10}\])|[nkgmM](?:\[[^\]\n]{0,40}\]|\(..|.)"
                     r"|[hvwlLxbDoSNRXYZ]'[^'\n]{0,80}'|(.)|$)")
_GLYPHS = {"em": "\u2014", "en": "\u2013", "bu": "\u2022", "aq": "'", "dq": '"', "lq": "\u201c", "rq": "\u201d",
           "oq": "\u2018", "cq": "\u2019", "hy": "-", "mi": "-", "ti": "~", "ha": "^", "rs": "\\", "co": "\u00a9",
           "rg": "\u00ae", "tm": "\u2122", "de": "\u00b0", ">=": "\u2265", "<=": "\u2264", "->": "\u2192",
           "<-": "\u2190", "mu": "\u00d7", "pl": "+", "eq": "=", "ba": "|", "sl": "/", "lh": "", "rh": "",
           "Fo": "\u00ab", "Fc": "\u00bb", "fo": "\u2039", "fc": "\u203a", "sq": "\u25a1", "at": "@", "sh": "#"}
_SIMPLE = {"-": "-", "e": "\\", "\\": "\\", " ": " ", "~": " ", "0": " ", "'": "\u00b4", "`": "`", ".": ".",
           "t": "\t", "_": "_"}
_QUOTED = re.compile(r'"((?:[^"]|"")*)"?|(\S+)')


def is_roff(lines: list[str]) -> bool:
    """True when the text is a manual page: a `.TH` or mdoc `.Dd`/`.Dt` request among its first requests, past the
    comments, or a `.so` that makes it another page's alias (a licence file named `COPYING.1` is not one)."""
    seen = 0
    for line in lines:
        if not line.strip() or line.startswith(('.\\"', "'\\\"", '.\\#', '\\"')) or line.strip() == ".":
            continue
        if line[:1] not in (".", "'"):
            return False
        name = line[1:].lstrip().split(" ", 1)[0]
        if name in ("TH", "Dd", "Dt", "so"):
            return True
        seen += 1
        if seen > 20:
            return False
    return False


def parse_roff(lines: list[str]) -> ShownPage:
    """The sections, entries, displays and formatted text of a manual page given as `mdblocks.split_lines` lines."""
    return _Reader(lines).read()


class _Reader(PageWriter):
    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines)
        self.name = ""  # mdoc's `.Nm` name, shown where `.Nm` stands alone
        self.section = 0  # the level of the section or subsection the line is in (0: before any)
        self.lists: list[bool] = []  # open mdoc lists: True for one whose items are entries
        self.entry_lists = 0  # how many of them are
        self.indents = 0  # man's open `.RS` blocks
        self.pending = ""  # "head" (a bare `.SH`: the next line is its title) or "tag" (the line after `.TP`)
        self.pending_level = 0
        self.literal = -1  # the first line of an open `.nf` / `.EX` / literal display, -1 when none is open
        self.xo: tuple[int, int, list[str]] | None = None  # an `.It Xo` entry whose tag runs to `.Xc`
        self.skip_to = ""  # a `.de` or `.ig` block runs to this line
        # Tagged items read so far with no text of their own: they become one entry, titled by the first, when text
        # follows (ssh's four `-L` forms over one description), and none when the list ends first (scp's `-o` list
        # of ssh_config's keywords names them, it does not define them). (start, end, level, title)
        self.run: tuple[int, int, int, str] | None = None
        self.spaced = True  # mdoc's `.Sm off` joins the words of the macro lines that follow, until `.Sm on`

    def read(self) -> ShownPage:
        for i, line in enumerate(self.lines):
            if self.skip_to:
                if line.rstrip() == self.skip_to:
                    self.skip_to = ""
                continue
            if line[:1] in (".", "'"):
                self._request(i, line)
            else:
                self._text_line(i, line)
        if self.literal >= 0:
            self.verbatim.append((self.literal, len(self.lines)))
        return self._page()

    # ----- text and requests ---------------------------------------------------------------------------------

    def _text_line(self, i: int, line: str) -> None:
        shown = _escapes(line).rstrip()
        self.text[i] = shown
        self._shown(i, shown)

    def _shown(self, i: int, shown: str) -> None:
        """A line that prints `shown`: a tag `.TP` waits for, a bare `.SH`'s title, or text after a run of tags."""
        if self.xo is not None:
            self.xo[2].append(shown if self.spaced else "\x00" + shown)
        elif not shown.strip():
            return
        elif self.pending == "head":
            self._head(i, self.pending_level, shown, body=False)
            self.pending = ""
        elif self.pending == "tag":
            self._tagged(i, i + 1, shown)
            self.pending = ""
        elif self.run is not None:
            self._settle()

    def _request(self, i: int, line: str) -> None:
        body = line[1:].lstrip(" \t")
        if body.startswith(('\\"', "\\#")) or not body:
            return
        name, _, rest = body.partition(" ")
        name, rest = name.rstrip("\t"), rest.strip()
        if name in ("de", "de1", "am", "ig"):  # a definition (`.de XX [end]`) or ignored block (`.ig [end]`): to `..`
            args = rest.split()
            end = args[0] if name == "ig" and args else args[1] if name != "ig" and len(args) > 1 else "."
            self.skip_to = "." + end
            return
        if name in ("nf", "EX") or (name == "Bd" and ("-literal" in rest or "-unfilled" in rest)):
            if self.literal < 0:
                self.literal = i + 1
            return
        if name in ("fi", "EE") or (name == "Ed" and self.literal >= 0):
            if self.literal >= 0:
                self.verbatim.append((self.literal, i))
                self.literal = -1
            return
        if name in ("TH", "Dt"):
            words = _words(rest)
            if words:
                title = f"{_escapes(words[0])}({_escapes(words[1])})" if len(words) > 1 else _escapes(words[0])
                self._head(i, TITLE_LEVEL, title, body=False)
                self.section, self.lists, self.entry_lists, self.indents = TITLE_LEVEL, [], 0, 0
            return
        if name in _SECTIONS:
            level = _SECTIONS[name]
            self.lists, self.run, self.entry_lists, self.indents = [], None, 0, 0
            self.section = level
            title = self._render(name, rest)
            if title.strip():
                self._head(i, level, title, body=False)
            else:
                self.pending, self.pending_level = "head", level
            return
        if name == "Nm" and not self.name and rest:
            self.name = _words(rest)[0]
        if name == "Bl":
            if self.run is not None:  # a list opening an item's text
                self._settle()
            self.lists.append(bool(set(rest.split()) & _TAG_LISTS))
            self.entry_lists += self.lists[-1]
            return
        if name == "El":
            if self.lists:
                self.entry_lists -= self.lists.pop()
            self.run = None
            return
        if name == "It":
            self._item(i, rest)
            return
        if name == "Xc" and self.xo is not None:
            start, _, parts = self.xo
            self.xo = None
            self._tagged(start, i + 1, _joined_tag(parts))
            return
        if name in ("RS", "RE"):  # man's indented block: the tagged paragraphs in it belong to the one above
            if name == "RS" and self.run is not None:  # the block is the text of the tags before it
                self._settle()
            self.indents = self.indents + 1 if name == "RS" else max(self.indents - 1, 0)
            return
        if name == "Sm":
            self.spaced = rest.split()[:1] != ["off"] if rest else not self.spaced
            return
        if name in ("TP", "TQ"):
            self.pending = "tag"
            return
        if name == "IP":
            words = _words(rest)
            tag = _escapes(words[0]).strip() if words else ""
            if tag and not _is_bullet(tag):
                self.text[i] = tag
                self._head(i, self._below(), tag, body=True)
            elif tag:
                self.text[i] = "- "
            return
        if name in _BREAKS or name in _LAYOUT:
            return
        shown = self._render(name, rest)
        self.text[i] = shown
        self._shown(i, shown)

    def _item(self, i: int, rest: str) -> None:
        entries = bool(self.lists) and self.lists[-1]
        if not entries:
            shown = self._render("It", rest)
            self.text[i] = "- " + shown if shown else "- "
            return
        words = _words(rest)
        if "Xo" in words:  # `.It Fl L Xo` or `.It Xo Ic new-session`: the tag runs on to `.Xc`
            self.xo = (i, i, [self._render("It", rest)])
            self.text[i] = self.xo[2][0]
            return
        tag = self._render("It", rest)
        self.text[i] = tag
        if tag.strip():
            self._tagged(i, i + 1, tag)

    def _tagged(self, start: int, end: int, tag: str) -> None:
        """A tagged item's tag read: it joins the run of tags waiting for their text."""
        level = self._below()
        if self.run is None or self.run[2] != level:
            self.run = (start, end, level, tag)
        else:
            self.run = (self.run[0], end, level, self.run[3])

    def _settle(self) -> None:
        """Text follows a run of tags: they are one entry, titled by the first."""
        if self.run is not None:
            start, end, level, title = self.run
            self.run = None
            self._head(start, level, title, body=True, end=end)

    def _render(self, name: str, rest: str) -> str:
        if name in _FONTS_SPACED:
            return " ".join(_escapes(w) for w in _words(rest))
        if name in _FONTS_ALTERNATING:
            return "".join(_escapes(w) for w in _words(rest))
        if name in ("SH", "SS"):
            return _escapes(" ".join(_words(rest)))
        if name in ("UR", "MT", "SY", "OP"):
            words = [_escapes(w) for w in _words(rest)]
            return "" if name in ("UR", "MT") else f"[{' '.join(words)}]" if name == "OP" else " ".join(words)
        if name == "It" or name in _WORD_MACROS or name in ("Sh", "Ss", "Nd", "Dl", "D1"):
            words = _words(rest)
            if name in _WORD_MACROS:
                words = [name, *words]
            shown = _render_mdoc(words, self.name, self.spaced)
            return ("\u2014 " + shown) if name == "Nd" else shown
        return ""  # an unknown request: the page's own macros, a formatter's extension

    # ----- headings ------------------------------------------------------------------------------------------

    def _below(self) -> int:
        return min(max(self.section, TITLE_LEVEL) + max(self.entry_lists, 1) + self.indents, _MAX_LEVEL)


def _joined_tag(parts: list[str]) -> str:
    """An `.It Xo` ... `.Xc` tag's lines joined: blank-separated, but lines read under `.Sm off` (marked with a
    leading NUL) join the one before them when it was read so too."""
    out = ""
    joined_before = False
    for part in parts:
        joined = part.startswith("\x00")
        part = part.lstrip("\x00")
        if part:
            out += part if (joined and joined_before) or not out else " " + part
            joined_before = joined
    return out


def _words(rest: str) -> list[str]:
    """A request's arguments: blank-separated, a double-quoted one may hold blanks (`""` is a quote)."""
    out: list[str] = []
    for m in _QUOTED.finditer(rest):
        if m.group(1) is not None:
            out.append(m.group(1).replace('""', '"'))
        else:
            out.append(m.group(2))
    return out


def _is_bullet(tag: str) -> bool:
    return tag in ("\u2022", "*", "-", "o", "\u2013", "\u2014") or tag.rstrip(".)").isdigit()


def _escapes(text: str) -> str:
    """Text with roff's escapes written as the characters they print (fonts, sizes, motions: nothing)."""
    if "\\" not in text:
        return text
    cut = text.find('\\"')
    if cut >= 0 and (cut == 0 or text[cut - 1] != "\\"):
        text = text[:cut]  # a comment
    return _ESCAPE.sub(_escaped, text)


def _escaped(m: re.Match[str]) -> str:
    """What one escape prints: a glyph (`\\(em`, `\\[u00E9]`), a character (`\\-`), or nothing."""
    glyph, named, other = m.group(1), m.group(2), m.group(3)
    if glyph is not None:
        return _GLYPHS.get(glyph, "")
    if named is not None:
        if named.startswith("u") and len(named) in (5, 6):
            try:
                return chr(int(named[1:], 16))
            except ValueError:
                return ""
        return _GLYPHS.get(named, "")
    if other is not None:
        return _SIMPLE.get(other, "" if other in "&|^c%:/,)!{}dru" else other)
    return ""  # fonts, sizes, strings, registers, motions


def _render_mdoc(words: list[str], page_name: str, spaced: bool = True) -> str:
    """mdoc macro words as mandoc prints them: `Fl J Ar destination` is `-J destination`, `Xr ssh 1` is `ssh(1)`."""
    out: list[str] = []
    glue = False  # the next word joins the last one (Ns, an opening bracket, Sm off)
    closers: list[tuple[str, int]] = []  # an enclosing macro's closer and the depth of `out` it opened at
    i, n = 0, len(words)

    def put(piece: str, *, joined: bool = False, word: bool = False) -> None:
        nonlocal glue
        if not piece:
            return
        if out and not glue and not joined and spaced and (word or piece not in _CLOSING):
            out.append(" ")
        out.append(piece)
        glue = piece in _OPENING and not word

    while i < n:
        word = words[i]
        i += 1
        if word == "Ns":
            glue = True
            continue
        if word == "Sm":
            if i < n and words[i] in ("on", "off"):
                spaced = words[i] == "on"
                i += 1
            continue
        if word in ("Xo", "Xc", "Pf", "Ap", "Ta", "Bk", "Ek", "Hf"):
            if word == "Ta":
                put("|")
            elif word == "Ap":
                put("'", joined=True)
            continue
        if word == "Fl":
            flag = "-"
            if i < n and words[i] not in _WORD_MACROS and words[i] not in _CLOSING:
                flag += _escapes(words[i])
                i += 1
            put(flag)
            continue
        if word == "Xr":
            if i + 1 < n:
                put(f"{_escapes(words[i])}({_escapes(words[i + 1])})")
                i += 2
            continue
        if word == "Nm":
            if i < n and words[i] not in _WORD_MACROS and words[i] not in _CLOSING:
                put(_escapes(words[i]))
                i += 1
            else:
                put(page_name)
            continue
        if word in _SYSTEMS:
            put(_SYSTEMS[word])
            continue
        if word in _ENCLOSE:
            opener, closer = _ENCLOSE[word]
            if opener:
                put(opener)
                glue = True
            if closer and not opener:  # Oc, Pc, ...: closes what an Oo opened
                out.append(closer)
                glue = False
            elif closer:
                closers.append((closer, len(out)))
            continue
        if word in _WORD_MACROS:
            continue  # a macro that prints its words as they are (Ar, Cm, Ic, Pa, Ev, ...)
        put(_escapes(word), word=word.startswith("\\&"))  # `\&.` is a word, not punctuation
    trailing: list[str] = []
    while out and out[-1] in _CLOSING:  # trailing punctuation goes after an enclosure's closer
        trailing.insert(0, out.pop())
    for closer, _ in reversed(closers):
        out.append(closer)
    return "".join(out + trailing).strip()
