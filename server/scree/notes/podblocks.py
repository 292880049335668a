"""Perl's documentation (POD: a `.pod` page, the POD of a `.pm` module) read as `perldoc` shows it.

Pure, no I/O, never raises on any `str`, one pass over the lines and one over each paragraph's characters. POD is
paragraphs: a command (`=head2 query`), a verbatim one (its first line indented) or ordinary text. It yields the same
`Blocks` record as `mdblocks`, and the page's lines as a reader of the formatted page reads them (`ShownPage.text`,
line for line: every chunk points at the file's lines):
- POD runs from a line opening with `=` and a letter to `=cut`; the Perl around it is no text (a module's code is
  what `perldoc` leaves out).
- The page's title is the name its `=head1 NAME` section gives (`Mojo::URL - Uniform Resource Locator` titles it
  `Mojo::URL`), the root of every trail, from that heading's line: the name and its summary are the title section's
  text. `=head1` opens a section one level below, `=head2` ... `=head6` one level each further down.
- An `=item` of a list whose items are tagged (`=item B<--verbose>`, `=item max_redirects`) is an entry titled by its
  tag as printed, one level below what holds it, as a command-line option or a configuration key is defined there;
  tags with no text between them are one entry, titled by the first, and a list of tags with no text at all (names
  listed, not defined) has none. A bullet (`=item *`) or numbered item is text.
- Verbatim paragraphs are verbatim (those separated only by blank lines are one block); `=begin html` ... `=end`,
  `=for` paragraphs and the other commands (`=over`, `=encoding`, `=pod`, `=cut`) are markup.
- Formatting codes read as the words they print: `C<x>` as a code span, `B<x>` `I<x>` `F<x>` `S<x>` as x,
  `L<text|target>` as text (`L<Mojo::URL/"query">` as "query" in Mojo::URL), `E<gt>` as >, `X<>` and `Z<>` as
  nothing; `C<< $a <=> $b >>` with doubled brackets.
"""

from __future__ import annotations

import html.entities
import re

from .mdblocks import PageWriter, ShownPage, add_verbatim

TITLE_LEVEL = 1
# A tagged `=item` as an entry of its own, titled by its tag. Measured (docs/benchmarks.md): ITEM_ENTRIES.
ITEM_ENTRIES = True
_MAX_LEVEL = 6
_COMMAND = re.compile(r"=([a-zA-Z]\w*)[ \t]*(.*)")
_CODES = frozenset("BICLEFSXZ")
# Codes nested deeper are read as text: each level copies what it holds, so an unbounded nest of them is quadratic.
_MAX_DEPTH = 32
_NUMBERED = re.compile(r"\d+\.?")
_BULLETS = {"", "*", "-", "o", "\u2022"}
_URL = re.compile(r"\w[\w+.-]*:[^\s:][^\s|]*")
_ESCAPES = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/", "quot": '"', "amp": "&", "apos": "'", "nbsp": " "}


def is_pod_start(line: str) -> bool:
    """True when a line opens POD: `=` and a letter at its start."""
    return len(line) > 1 and line[0] == "=" and line[1].isalpha()


def parse_pod(lines: list[str]) -> ShownPage:
    """The sections, entries, verbatim blocks and formatted text of a POD page (or a Perl file's POD) given as
    `mdblocks.split_lines` lines."""
    return _Reader(lines).read()


class _Reader(PageWriter):
    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines)
        self.level = TITLE_LEVEL  # the level of the heading the paragraph is under
        self.titled = False  # the first `=head1 NAME` titled the page
        self.lists: list[bool | None] = []  # open `=over` lists: True when its items are entries, None before one
        self.entry_lists = 0
        self.begin: list[str] = []  # open `=begin` blocks, by format
        # Tagged items read so far with no text of their own (start, end, level, title): one entry when text follows.
        self.run: tuple[int, int, int, str] | None = None

    def read(self) -> ShownPage:
        lines, n = self.lines, len(self.lines)
        i, pod = 0, False
        while i < n:
            line = lines[i]
            if not pod:
                if not is_pod_start(line):
                    i += 1
                    continue
                pod = True
            if not line.strip():
                i += 1
                continue
            end = i + 1
            while end < n and lines[end].strip():
                end += 1
            if is_pod_start(line):
                if line.startswith("=cut") and not line[4:5].strip(" \t"):
                    pod = False
                    i += 1
                    continue
                self._command(i, end)
            elif self.begin:
                pass  # a `=begin html` block's content: markup
            elif line[:1] in (" ", "\t"):
                self._settle()
                self._verbatim(i, end)
            else:
                self._settle()
                self._ordinary(i, end)
            i = end
        return self._page()

    # ----- paragraphs ----------------------------------------------------------------------------------------

    def _ordinary(self, start: int, end: int) -> None:
        for i, shown in enumerate(render(self.lines[start:end]), start):
            self.text[i] = shown.rstrip()

    def _verbatim(self, start: int, end: int) -> None:
        for i in range(start, end):
            self.text[i] = self.lines[i].rstrip()
        add_verbatim(self.verbatim, self.lines, start, end)

    def _command(self, start: int, end: int) -> None:
        m = _COMMAND.match(self.lines[start])
        name = m.group(1) if m else ""
        rest = [m.group(2) if m else "", *self.lines[start + 1:end]]
        if name == "begin":
            self.begin.append(rest[0].split(" ", 1)[0])
            return
        if name == "end":
            if self.begin:
                self.begin.pop()
            return
        if self.begin or name in ("for", "encoding", "pod"):
            return
        if name.startswith("head") and name[4:].isdigit():
            self._settle(drop=True)
            self.lists, self.entry_lists = [], 0
            self._heading(start, end, int(name[4:]), rest)
        elif name == "over":
            self._settle()
            self.lists.append(None)
        elif name == "back":
            self._settle(drop=True)
            if self.lists and self.lists.pop():
                self.entry_lists -= 1
        elif name == "item":
            self._item(start, end, rest)

    def _heading(self, start: int, end: int, depth: int, rest: list[str]) -> None:
        title = " ".join(" ".join(render(rest)).split())
        if depth == 1 and not self.titled and title.casefold() == "name":
            self.titled = True
            title = self._page_name(end) or title
            self._head(start, TITLE_LEVEL, title, body=False, end=end)
            self.level = TITLE_LEVEL
            return
        self.level = min(TITLE_LEVEL + depth, _MAX_LEVEL)
        self._head(start, self.level, title, body=False, end=end)

    def _page_name(self, after: int) -> str:
        """The name the NAME section's first paragraph gives (`Mojo::URL - Uniform Resource Locator`), "" when the
        section opens with no ordinary paragraph."""
        lines, n, i = self.lines, len(self.lines), after
        while i < n and not lines[i].strip():
            i += 1
        if i >= n or is_pod_start(lines[i]) or lines[i][:1] in (" ", "\t"):
            return ""
        end = i + 1
        while end < n and lines[end].strip():
            end += 1
        summary = " ".join(" ".join(render(lines[i:end])).split())
        return re.split(r"\s+(?:-+|\u2013|\u2014)\s+", summary, maxsplit=1)[0].strip()

    def _item(self, start: int, end: int, rest: list[str]) -> None:
        shown = render(rest)
        first = shown[0].strip()
        head = first.split(" ", 1)[0]
        bullet = head if head in _BULLETS or _NUMBERED.fullmatch(head) else None
        if self.lists and self.lists[-1] is None:  # a list's first item says what its items are
            self.lists[-1] = bullet is None and ITEM_ENTRIES
            self.entry_lists += bool(self.lists[-1])
        if bullet is not None or not (self.lists and self.lists[-1]):
            self._settle()
            marker = bullet if bullet and bullet[0].isdigit() else "-"
            words = first[len(bullet):].strip() if bullet is not None else first
            self.text[start] = f"{marker} {words}".rstrip()
            for i, line in enumerate(shown[1:], start + 1):
                self.text[i] = line.rstrip()
            return
        for i, line in enumerate(shown, start):
            self.text[i] = line.strip()
        tag = " ".join(" ".join(shown).split())
        level = min(self.level + self.entry_lists, _MAX_LEVEL)
        if self.run is None or self.run[2] != level:
            self.run = (start, end, level, tag)
        else:
            self.run = (self.run[0], end, level, self.run[3])

    def _settle(self, drop: bool = False) -> None:
        """Text (or a list) follows a run of tags: they are one entry, titled by the first; none when the list or the
        section ends first (`drop`)."""
        if self.run is not None:
            start, end, level, title = self.run
            self.run = None
            if not drop:
                self._head(start, level, title, body=True, end=end)



# ----- formatting codes ----------------------------------------------------------------------------------------


def render(lines: list[str]) -> list[str]:
    """A paragraph's lines with their formatting codes read as the words they print, as many lines as given (a code
    over several lines keeps its line breaks; what it drops leaves its breaks at its end)."""
    text = "\n".join(lines)
    if "<" not in text:
        return list(lines)
    out = _render(text).split("\n")
    if len(out) != len(lines):  # never expected: each code keeps its breaks
        return list(lines)
    return out


class _Code:
    """A formatting code being read: its letter, what closes it and what it holds so far."""

    __slots__ = ("letter", "closer", "parts", "breaks")

    def __init__(self, letter: str, closer: int) -> None:
        self.letter = letter
        self.closer = closer  # how many `>` close it; more than one: after whitespace
        self.parts: list[str] = []
        self.breaks = 0  # line breaks in its delimiters' whitespace


def _render(text: str) -> str:
    stack: list[_Code] = []
    top: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _CODES and i + 1 < n and text[i + 1] == "<" and len(stack) < _MAX_DEPTH:
            j = i + 1
            while j < n and text[j] == "<":
                j += 1
            count = j - i - 1
            if count > 1 and j < n and text[j] in " \t\n":
                code = _Code(c, count)
                k = j
                while k < n and text[k] in " \t\n":
                    k += 1
                code.breaks += text.count("\n", j, k)
                stack.append(code)
                i = k
                continue
            stack.append(_Code(c, 1))
            i += 2
            continue
        if c == ">" and stack:
            code = stack[-1]
            if code.closer == 1:
                stack.pop()
                (stack[-1].parts if stack else top).append(_finish(code))
                i += 1
                continue
            j = i
            while j < n and text[j] == ">" and j - i < code.closer:
                j += 1
            if j - i == code.closer and code.parts and code.parts[-1][-1:] in (" ", "\t", "\n"):
                body = "".join(code.parts)
                stripped = body.rstrip(" \t\n")
                code.breaks += body.count("\n", len(stripped))
                code.parts = [stripped]
                stack.pop()
                (stack[-1].parts if stack else top).append(_finish(code))
                i = j
                continue
        (stack[-1].parts if stack else top).append(c)
        i += 1
    while stack:  # unclosed: its words as written
        code = stack.pop()
        (stack[-1].parts if stack else top).append("".join(code.parts) + "\n" * code.breaks)
    return "".join(top)


def _finish(code: _Code) -> str:
    body = "".join(code.parts)
    shown = _shown(code.letter, body)
    return shown + "\n" * (code.breaks + body.count("\n") - shown.count("\n"))


def _shown(letter: str, body: str) -> str:
    if letter == "C":
        return f"`{body}`" if body.strip() else body
    if letter in "BIFS":
        return body
    if letter in "XZ":
        return ""
    if letter == "E":
        return _escape(body.strip())
    return _link(body)


def _escape(name: str) -> str:
    if name in _ESCAPES:
        return _ESCAPES[name]
    try:
        if name.startswith(("0x", "0X")):
            return chr(int(name[2:], 16))
        if name.isdigit():
            return chr(int(name, 8) if name.startswith("0") and len(name) > 1 else int(name))
    except (ValueError, OverflowError):
        return f"E<{name}>"
    point = html.entities.name2codepoint.get(name)
    return chr(point) if point is not None else f"E<{name}>"


def _link(body: str) -> str:
    """`L<...>` as perldoc prints it: its text before `|`, a URL as itself, `name/"section"` as "section" in name."""
    flat = " ".join(body.split())
    if "|" in flat:
        return body.split("|", 1)[0].strip()
    if _URL.fullmatch(flat) and "::" not in flat:
        return flat
    if "/" in flat:
        page, _, section = flat.partition("/")
        section = section.strip().strip('"')
        return f'"{section}" in {page.strip()}' if page.strip() else f'"{section}"'
    return flat  # a page's name, or a section's in quotes (`L<"SEE ALSO">`)
