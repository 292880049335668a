"""A Vim help file's block structure (`doc/*.txt` of a Vim or Neovim plugin), read line by line as `:help` shows it.

Pure, no I/O, never raises on any `str`, one pass. It yields the same `Blocks` record as `mdblocks`. Vim help has
no spec; these are the rules of Vim's `:help help-writing`, its syntax file and its outline (`gO`):
- The first line names the file and says what it is about (`*fugitive.txt*  A Git wrapper ...`): the title, the
  root of every trail.
- A line of `=` opens a section, titled by the next non-blank line, as Vim's outline reads it. A title's tags
  (`INTRODUCTION   *telescope.nvim*`) are left out of it, as the outline leaves them out. A line of `-` is a rule
  (below a table's header, between paragraphs), or the underline of the title above it (`Properties` over
  `----------`): a subsection.
- A "yelling" line, in capitals (`COMMANDS   *fugitive-commands*`, `SPECIFYING OBJECTS`), is a headline one level
  below; a column heading (`Staging maps ~`, `enabled~` at the start of a line, one phrase) one more below.
- A tag (`*:Gdiffsplit*`, `*'tabstop'*`, `*telescope.builtin.live_grep()*`) written at the right end of a line that
  opens in the first column (a definition's, not an indented table row's), or alone on its lines, defines the name
  `:help` jumps to: each such line opens an entry titled by its tags, the deepest level, as a Sphinx `.. function::`
  entry is. So does a tag opening a line (indented or not) over its description indented deeper, as a term does
  (`*cmp.setup* (config)`, `  *cmp.mapping.close* ()`); a run of one-line terms (`*:Gmove*   Superseded by
  |:GMove|.`) is a table, its section's text, as a table's rows are. Tag lines right above a headline or column
  heading name that heading instead.
- An example block runs from a line ending in `>` (Neovim: `>lua`, `>vim`) to a line opening with `<` or the
  next line that starts in the first column: verbatim, no title looked for inside.
- Section rules, the `<` lines that close examples and the closing modeline (`vim:tw=78:ts=8:ft=help:norl:`) are
  markup a reader never sees.
"""

from __future__ import annotations

import re

from .mdblocks import Blocks, Heading
from .rstblocks import clean_rst_title

# Levels, the title 1: Vim's outline has sections, subsections, headlines and column headings; entries are ours.
SECTION_LEVEL = 2
SUBSECTION_LEVEL = 3
HEADLINE_LEVEL = 4
COLUMN_LEVEL = 5
ENTRY_LEVEL = 6

# A tag as Vim's syntax file defines one (helpHyperTextEntry): printable, no blank, `"` or `*`, ending the line
# or followed by a blank.
_TAG = r"\*[^\s\"*]+\*"
_TAG_BODY = re.compile(r"[^\s\"*]+")
_TAG_NAME = re.compile(rf"{_TAG}")
# A term may open an indented line too, over a deeper description (nvim-cmp's list of mapping helpers).
# Measured (docs/benchmarks.md): INDENTED_TERMS.
INDENTED_TERMS = True
_LEADING_TAGS = re.compile(rf"^{_TAG}(?:[ \t]+{_TAG})*(?=\s)")
_RULE = re.compile(r"^(={3,}|-{3,})\s*$")
# Vim's outline takes "any line that's yelling": capitals, digits and a little punctuation, its tags after it.
_HEADLINE = re.compile(r"^[A-Z0-9][-A-Z0-9 .,():_'/&]*[A-Z)]$")
# panvimdoc, which writes many plugins' help from their README, keeps a heading's emoji: `✨ FEATURES   *x-features*`.
_SYMBOLS = re.compile(r"^(?:[^\x00-\x7f]\S*\s+)+")
_EXAMPLE_OPEN = re.compile(r"(?:^|\s)>[a-z0-9]*$")
_MODELINE = re.compile(r"^\s*vim?:.*(?:ft|filetype)=help")


def parse_vimhelp(lines: list[str]) -> Blocks:
    """Title, sections, headlines, column headings, tagged entries, examples and markup lines of a Vim help file
    given as `mdblocks.split_lines` lines."""
    headings: list[Heading] = []
    verbatim: list[tuple[int, int]] = []
    inert: list[int] = []
    example = -1  # first line of the open example block, -1 when none is open
    rule_level = 0  # the level a section rule gives the next non-blank line, 0 when none is pending
    rule_line = -1
    tag_start = -1  # the first of the tag-only lines right above this one, -1 when the line above is not one
    tag_names: list[str] = []
    for i, line in enumerate(lines):
        stripped = line.rstrip()
        if example >= 0:
            if not stripped:
                continue
            if stripped.lstrip().startswith("<"):
                verbatim.append((example, i))
                example = -1
                if stripped.strip() == "<":
                    inert.append(i)
                continue
            if line[0] in " \t":
                continue
            verbatim.append((example, i))  # a line in the first column ends the example and is read as text
            example = -1
        if i == 0 and stripped.startswith("*"):
            headings.append(Heading(0, 1, 1, _title(_TAG_NAME.sub(lambda m: m.group(0)[1:-1], stripped))))
            if _EXAMPLE_OPEN.search(stripped):
                example = 1
            continue
        if not stripped:
            if tag_start >= 0:  # a blank line after tag lines: they name an entry of their own
                headings.append(Heading(tag_start, i, ENTRY_LEVEL, " ".join(tag_names)))
                tag_start, tag_names = -1, []
            continue
        if _RULE.match(stripped):
            if tag_start >= 0:
                headings.append(Heading(tag_start, i, ENTRY_LEVEL, " ".join(tag_names)))
                tag_start, tag_names = -1, []
            inert.append(i)
            if stripped[0] == "=":
                rule_level, rule_line = SECTION_LEVEL, i
            elif _underlines(lines, i, headings):
                if headings and headings[-1].start == i - 1:  # `New interfaces   *interfaces-5.2*`: a title, tagged
                    headings.pop()
                text = _split_tags(lines[i - 1].rstrip())[0]
                headings.append(Heading(i - 1, i + 1, SUBSECTION_LEVEL, _title(text)))
            continue
        if _MODELINE.match(stripped):
            inert.append(i)
            continue
        text, tags = _split_tags(stripped)
        start = tag_start if tag_start >= 0 else i
        if rule_level:
            title = _title(text) or " ".join(tags)
            headings.append(Heading(min(rule_line, start), i + 1, rule_level, title))
            rule_level, tag_start, tag_names = 0, -1, []
        elif not text.strip() and tags:  # a tag-only line: its entry or the heading below names it
            if tag_start < 0:
                tag_start = i
            tag_names.extend(tags)
            continue
        elif _HEADLINE.match(_SYMBOLS.sub("", text)) and sum(c.isalpha() for c in text) >= 2:
            headings.append(Heading(start, i + 1, HEADLINE_LEVEL, _title(text)))
            tag_start, tag_names = -1, []
        elif _column(stripped):
            headings.append(Heading(start, i + 1, COLUMN_LEVEL, _title(_column(stripped))))
            tag_start, tag_names = -1, []
        elif tags and _entry_line(stripped, text) and stripped[:1] not in (" ", "\t"):
            headings.append(Heading(start, i + 1, ENTRY_LEVEL, " ".join((*tag_names, *tags))))
            tag_start, tag_names = -1, []
        elif _LEADING_TAGS.match(term := stripped.lstrip() if INDENTED_TERMS else stripped) and _deeper(lines, i):
            # `*cmp.setup* (config)` over its text, or a list of them (`  *cmp.mapping.close* ()` over `    Same as`)
            lead = _TAG_NAME.findall(_LEADING_TAGS.match(term).group(0))  # type: ignore[union-attr]
            headings.append(Heading(start, i + 1, ENTRY_LEVEL, " ".join((*tag_names, *(t[1:-1] for t in lead)))))
            tag_start, tag_names = -1, []
        elif tag_start >= 0:  # tag lines over a definition line (`'tabstop' 'ts'  number`): their entry
            headings.append(Heading(tag_start, i, ENTRY_LEVEL, " ".join(tag_names)))
            tag_start, tag_names = -1, []
        if _EXAMPLE_OPEN.search(stripped):
            example = i + 1
    if tag_start >= 0:
        headings.append(Heading(tag_start, len(lines), ENTRY_LEVEL, " ".join(tag_names)))
    if example >= 0 and example < len(lines):
        verbatim.append((example, len(lines)))
    return Blocks(0, None, tuple(headings), tuple(verbatim), (), tuple(inert))


def _split_tags(line: str) -> tuple[str, list[str]]:
    """A line's text before its trailing tags, and those tags' names (without the asterisks). Read word by word from
    the end, by index: a regex searched from every blank for a run of tags up to the end, quadratic on a long line
    of tags that ends in something else."""
    tags: list[str] = []
    end = len(line)
    while True:
        while end > 0 and line[end - 1] in " \t":
            end -= 1
        start = end
        while start > 0 and line[start - 1] not in " \t":
            start -= 1
        if end - start > 2 and line[start] == "*" and line[end - 1] == "*" and _TAG_BODY.fullmatch(line, start + 1,
                                                                                                   end - 1):
            tags.append(line[start + 1:end - 1])
            end = start
        else:
            break
    if not tags:
        return line, []
    return line[:end].rstrip(), tags[::-1]


def _underlines(lines: list[str], i: int, headings: list[Heading]) -> bool:
    """True when the rule of `-` at line `i` underlines the line above: a title in the first column, one phrase no
    longer than the rule, after a blank line, not already a heading but a tagged line (`Properties` over `----`)."""
    if i < 1 or headings and headings[-1].end > i - 1 and headings[-1].start != i - 1:
        return False
    above = lines[i - 1].rstrip()
    if not above or above[0] in " \t" or (i >= 2 and lines[i - 2].strip()):
        return False
    text = _split_tags(above)[0]
    if "\t" in text or "  " in text or text.endswith("~"):  # a table's header row (`tag   action ~`)
        return False
    return 0 < len(text) <= len(lines[i].rstrip()) + 1


def _deeper(lines: list[str], i: int) -> bool:
    """True when the line after `i` holds text indented deeper than line `i`: the description of the term there."""
    if i + 1 >= len(lines) or not lines[i + 1].strip():
        return False
    return _indent(lines[i + 1]) > _indent(lines[i])


def _indent(line: str) -> int:
    return len(line.expandtabs(8)) - len(line.expandtabs(8).lstrip())


def _entry_line(line: str, text: str) -> bool:
    """True when a line's trailing tags stand apart from its text (a tab or two blanks), as a definition's do,
    rather than ending a sentence."""
    rest = line[len(text):]
    return "\t" in rest or rest.startswith("  ")


def _column(line: str) -> str:
    """A column heading's text (`Staging maps ~` in the first column, one phrase), "" for any other line."""
    # Vim's syntax file takes the blank before the `~` as optional (helpHeader): nvim-cmp writes `enabled~`. Read by
    # hand: a regex's lazy text before `\s*~$` retried every run of blanks, quadratic on a long line of them.
    if not line.endswith("~") or line[:1] in (" ", "\t", ""):
        return ""
    text = line[:-1].rstrip()
    if not text or "\t" in text or "  " in text:
        return ""
    return text


def _title(text: str) -> str:
    """A heading's text as the outline shows it: blanks collapsed, markup as `clean_rst_title` reads it."""
    return clean_rst_title(" ".join(text.split()))
