"""What a section's heading trail and text say about it: pure predicates shared by search's ranking
(`scree.search.ranking`) and the grep hint (`scree.hookkit.hint`).

This module imports nothing at run time: the hook loads it on every grep, where `typing` or `re`
alone would cost milliseconds, and one definition keeps the hint ordering the way search does.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator, Sequence

TRAIL_SEPARATOR = " > "
# A heading written as a mkdocstrings directive (`# ::: griffe.Class`) opens with this.
HEADING_DIRECTIVE = "::: "
# In a docstring's note (`notes.autodocpage.docstring_note`), before its source: a mkdocstrings directive shows it.
MKDOCSTRINGS_MARK = ", shown by mkdocstrings"
_LIST_MARKS = ("- ", "* ", "+ ", "|")
# A one-letter flag's case is its name: `-L` and `-l` are two options to getopt (ssh's local forward and ssh-add's
# key list), so such a name is compared as written, never case-folded. Measured (docs/benchmarks.md): FLAG_CASE.
FLAG_CASE = True


def is_short_flag(name: str) -> bool:
    """True for a one-letter flag: `-L`, `-x`."""
    return len(name) == 2 and name[0] == "-" and name[1].isalpha() and name[1].isascii()


def cased_name(name: str) -> bool:
    """True when `name` is compared in its own case, never folded: a one-letter flag (FLAG_CASE)."""
    return FLAG_CASE and is_short_flag(name)


def fold_name(name: str) -> str:
    """A name as names are compared: case-folded, except a one-letter flag (`cased_name`)."""
    return name if cased_name(name) else name.casefold()



def titled_by(trail: str, names: Sequence[str]) -> bool:
    """True when one heading of `trail` (" > "-joined) is one of `names`, ignoring case and backticks:
    "Settings > `CACHE_DIR`" is titled by CACHE_DIR; "Moving CACHE_DIR and LOG_DIR" is not (it is about
    more than the name). A heading that is an option's spellings is titled by each (`heading_flags`)."""
    wanted = {_bare(n) for n in names}
    flags = FLAG_LISTS and any(w.startswith("-") for w in wanted)  # only an option is titled by a list of them
    return any(_bare(h) in wanted or (flags and any(fold_name(f) in wanted for f in heading_flags(h)))
               for h in trail.split(TRAIL_SEPARATOR))


# A heading that is an option's spellings, each with its argument (`-k, --keep-going`, `-J destination`,
# `` `-v`, `--verbose` ``, `-j [jobs], --jobs[=jobs]`: a CLI reference's entry, a manual page's tagged paragraph) is
# titled by each spelling. Measured (docs/benchmarks.md): FLAG_LISTS.
FLAG_LISTS = True
# Its other spellings in parentheses after it are the option's too (`--jobs number (-j)`, as Rake's reference titles
# its entries). Measured (docs/benchmarks.md): FLAG_ALIASES.
FLAG_ALIASES = True


def heading_flags(heading: str) -> list[str]:
    """The options a heading lists, their arguments aside (`-k, --keep-going`: -k and --keep-going; `-J destination`:
    -J; `--jobs number (-j)`: --jobs and -j); none for a heading that is not a list of options."""
    text = heading.replace("`", "").strip()
    if not text.startswith("-"):
        return []
    opens = text.rfind("(")
    if FLAG_ALIASES and text.endswith(")") and opens > 0 and (inner := heading_flags(text[opens + 1:-1])):
        outer = heading_flags(text[:opens])
        return outer + inner if outer else []
    flags: list[str] = []
    for part in text.split(","):
        word = part.strip()
        dashes = 2 if word.startswith("--") else 1 if word.startswith("-") else 0
        end = dashes
        while end < len(word) and (word[end].isalnum() or word[end] in "-_"):
            end += 1
        rest = word[end:].strip()
        if not dashes or end == dashes or not word[dashes].isalnum() or (rest and (
                rest[0] == "-" or (rest[0] not in "[=<" and " " in rest))):
            return []  # an argument is one word or a bracket: "`--frozen` and `--locked`" is prose
        flags.append(word[:end])
    return flags


def _bare(heading: str) -> str:
    """A heading (or a name) as the name it may be, case-folded: backticks off, HTML's escapes read (`&lt;scalar&gt;`
    is how Markdown spells the heading `<scalar>`), and a placeholder's angle brackets off (textual's `<scalar>` page
    is the type `scalar`, which the query may spell either way)."""
    h = heading.strip().strip("`").strip()
    if h.startswith(HEADING_DIRECTIVE):  # a heading that is a mkdocstrings directive: titled by the object it names
        h = h[len(HEADING_DIRECTIVE):].strip()
    if "&" in h:
        h = h.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    if h.startswith("<") and h.endswith(">") and len(h) > 2:
        h = h[1:-1].strip()
    return fold_name(h)


def _outside_fences(lines: list[str]) -> Iterator[tuple[int, str]]:
    """(index, stripped line) of each line outside fenced code (the fences' own lines left out too). A line of
    tildes right under a line of text as long is a reStructuredText title's underline, not a fence: read as one,
    it hid the rest of the section (Jinja's `For` and its table of `loop.index`)."""
    fence = ""
    for i, raw in enumerate(lines):
        line = raw.strip()
        if fence:
            if line.startswith(fence):
                fence = ""
            continue
        if line.startswith("~~~") and line.strip("~") == "" and i > 0 and 0 < len(lines[i - 1].strip()) <= len(line):
            continue  # as long as its title at least, as docutils requires: a fence after a paragraph line is shorter
        if line.startswith(("```", "~~~")):
            fence = line[:3]
            continue
        yield i, line


def mostly_list(text: str) -> bool:
    """True when more than half of a section's lines are list items or table rows (blank lines, headings
    and fenced code aside): the section lists things rather than explains one."""
    items = lines = 0
    for _, line in _outside_fences(text.split("\n")):
        if not line or line.startswith("#"):
            continue
        lines += 1
        digits = len(line) - len(line.lstrip("0123456789"))
        if line.startswith(_LIST_MARKS) or (0 < digits < 10 and line[digits:digits + 2] in (". ", ") ")):
            items += 1
    return 2 * items > lines


# A section that spells a lookup only in autodoc directive lines (`.. autofunction:: anyio.fail_after`, or MkDocs'
# `::: httpx.ReadTimeout` of mkdocstrings and mkautodoc) says nothing of it: the line is markup naming what the built
# page shows there, and scree indexes a Sphinx docstring as a section of its own when it can find it. Such a section
# follows the others that spell the name as often, and a docstring does not yield its place to it as to the docs' own
# section (`search.names`). Measured (docs/benchmarks.md): anyio identifier top1 47 -> 53, attrs top3 87 -> 90, click
# top3 93 -> 97, httpx top1 88 -> 92 (the `:::` lines), none lower.
DIRECTIVE_MENTIONS_LAST = True


def named_only_by_directives(text: str, names: Sequence[str]) -> bool:
    """True when `text` spells one of `names` (case-folded) and every line that does is an autodoc directive's
    (`.. autofunction:: anyio.fail_after`, `.. py:autoclass::`, MkDocs' `::: httpx.ReadTimeout`)."""
    if ".. " not in text and "::: " not in text:  # no directive at all: most sections, answered without folding
        return False
    folded = text.casefold()
    seen = False
    for name in {n.casefold() for n in names if n}:
        at = folded.find(name)
        while at >= 0:
            start = folded.rfind("\n", 0, at) + 1
            end = folded.find("\n", at)
            end = len(folded) if end < 0 else end
            line = folded[start:end].lstrip()
            if not ((line.startswith(".. ") and "::" in line
                     and line[3:].split("::", 1)[0].rsplit(":", 1)[-1].startswith("auto"))
                    or (line.startswith("::: ") and " " not in line[4:].strip())):  # one path, no title
                return False
            seen = True
            at = folded.find(name, end)
    return seen


# A term in double backticks (reStructuredText's inline literal, ``use_uvloop``) opens an entry as a code span does.
# Measured (docs/benchmarks.md): anyio identifier top1 53 -> 57, no other cell moved.
DOUBLE_TICKS = True
_TERM_MARKUP = "`*"
_TERM_SEPARATORS = (":", " -", " –", " —", " =", " (")
# Between the aliases an entry opens with: "`-n N`, `--limit N` — ...".
_ALIAS_SEPARATORS = (", ", " / ", " | ", " or ")
# How far into a line an entry's term may start (list marks, a table's bar, markup, aliases before it): checked
# before a line is parsed.
_ENTRY_REACH = 48
# What may follow a name inside its own code span: an argument ("`--limit N`", "`--color=WHEN`", "`f(x)`").
_ARGUMENT_MARKS = (" ", "=", "[", "<", "(")


# A list item's term marked by a role is set off as a code span is: Sphinx's `:class:`Result``, MyST's
# `{class}`CliRunner`` ("- {class}`CliRunner` - used to invoke commands", click's testing guide). Not a line of
# prose: reStructuredText wraps its sentences at a role as often as not ("... similar to\n:meth:`TaskGroup.start()`:").
# Measured (docs/benchmarks.md): ROLE_TERMS.
ROLE_TERMS = True
_ROLE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789:-_")
# Roles that link to another section ("* :ref:`usefixtures <usefixtures>` - use fixtures on a test"): the entry is
# there, as "see [[#Callbacks]]" points there.
_LINK_ROLES = frozenset(("ref", "doc", "numref", "term", "download", "any", "external"))


def _role(text: str) -> int:
    """The length of the role `text` opens with (`:py:class:`, `{meth}`), its backtick next; 0 when it opens with
    none."""
    if text[:1] == "{":
        end = text.find("}`", 1, 32)
        inner = text[1:end]
    elif text[:1] == ":":
        end = text.find(":`", 1, 32)
        inner = text[1:end]
    else:
        return 0
    if end <= 1 or not set(inner.casefold()) <= _ROLE_CHARS or inner.rpartition(":")[2] in _LINK_ROLES:
        return 0
    return end + 1


def _term(text: str) -> str:
    """`text` without the code or emphasis markup around a term: "**`--why`**" is "--why"."""
    return text.strip().strip(_TERM_MARKUP).strip()


# A list item's term may be a link: "* [`model_construct()`][pydantic.main.BaseModel.model_construct]: Creates models
# without running validation. See [Creating models ...](#creating-models-without-validation)". Such an item sums the
# name up and points at its entry elsewhere (`points_at_entry`): `links._entry_links` follows its links, and it
# defines nothing itself (read as a definition, pydantic's list of one-line summaries beat the guide sections).
# Measured (docs/benchmarks.md): LINKED_TERMS.
LINKED_TERMS = True


def _unlinked(rest: str) -> str:
    """`rest` with the link around the marked-up term it opens with (`[`x`](url)`, `[`x`][ref]`, `[**x**][]`) taken
    off, so the term is read as if it stood alone; `rest` itself when it opens with none."""
    if not rest.startswith(("[`", "[**")):
        return rest
    close = rest.find("]", 2, 2 + _ENTRY_REACH * 2)
    if close < 0 or rest[close - 1] not in _TERM_MARKUP:
        return rest
    closer = {"(": ")", "[": "]"}.get(rest[close + 1:close + 2])
    end = rest.find(closer, close + 2) if closer else -1
    if end < 0 or "\n" in rest[close:end]:
        return rest
    return rest[1:close] + rest[end + 1:]


def points_at_entry(line: str, names: Sequence[str]) -> bool:
    """True when `line` is a list item whose term, a link, is one of `names` followed by a separator ("- [`--reload`](#reload):
    restart on changes"): it points at the name's entry."""
    item = line.lstrip()
    if not (LINKED_TERMS and item.startswith(_LIST_MARKS[:3])):
        return False
    rest = item[2:].lstrip()
    return rest.startswith(("[`", "[**")) and _opens_entry(rest, {n.casefold() for n in names if n}, marked=True,
                                                           linked=True)


def _spans(rest: str, roles: bool = False, linked: bool = False) -> tuple[list[str], str]:
    """The marked-up terms `rest` opens with (code spans, bold, bold code, and with `roles` a role's term; aliases
    joined by `_ALIAS_SEPARATORS`; with `linked` each may be the text of a link), and what follows them."""
    terms: list[str] = []
    roles = roles and ROLE_TERMS
    while True:
        if linked:
            rest = _unlinked(rest)
        role = _role(rest) if roles else 0
        if not role and not rest.startswith(("`", "**")):
            break
        stars = 0 if role else len(rest) - len(rest.lstrip("*"))
        body = rest[role or stars:]
        # reStructuredText's inline literal is double backticks (``--fast``), as is a Markdown span holding one.
        ticks = 2 if DOUBLE_TICKS and body.startswith("``") else 1 if body.startswith("`") else 0
        mark = "`" * ticks or "*" * stars
        close = body.find(mark, ticks)
        if close <= 0:
            break
        term = body[ticks:close].strip()
        if role:  # what the role shows: `~pkg.Class` shows `Class`, `.meth` finds `meth` anywhere
            term = term.rpartition(".")[2] if term.startswith("~") else term.lstrip("!.")
        terms.append(term)
        rest = body[close + len(mark):]
        if ticks and stars and rest.startswith("*" * stars):
            rest = rest[stars:]
        sep = next((a for a in _ALIAS_SEPARATORS if rest.startswith(a)), "")
        if not sep:
            break
        rest = rest[len(sep):]
    return terms, rest


def _names_term(term: str, wanted: set[str]) -> bool:
    """`term` (an entry's code span or bold text) is one of `wanted`, alone or with its argument."""
    folded = term.casefold()
    return any(folded == n or (folded.startswith(n) and folded[len(n):len(n) + 1] in _ARGUMENT_MARKS)
               for n in wanted)


# A list item that gives its term a value and says nothing else ("- **force_sort_within_sections**: `True`", a
# profile's settings; "- `line_length`: `88`") sets the name, it does not explain it. Measured (docs/benchmarks.md):
# VALUES_SET.
VALUES_SET = True
_LITERALS = frozenset(("true", "false", "none", "null", "yes", "no", "on", "off"))


def _only_a_value(said: str) -> bool:
    """`said` (what follows an entry's separator) is one value and nothing else: a code span, a number, a boolean."""
    said = said.strip().rstrip(",;")
    if len(said) > 2 and said[0] == said[-1] == "`" and said.count("`") == 2:
        return True
    return said.casefold() in _LITERALS or said.replace(".", "", 1).isdigit()


def _separated(after: str) -> bool:
    """`after` (what follows an entry's term) opens with a separator, and the entry does not point elsewhere
    ("`x-success` (optional) see [[#Callbacks]]" defines nothing) nor only set a value (`VALUES_SET`)."""
    for sep in _TERM_SEPARATORS:
        if after.startswith(sep):
            said = after[len(sep):].split(")", 1)[-1] if sep == " (" else after[len(sep):]
            if sep == " (" and WORD_PARENS and said[:1].isalnum():
                return False  # "`make_filtering_bound_logger()` (re-)uses ...": a word's parenthesis, no annotation
            if VALUES_SET and sep == ":" and _only_a_value(said):
                return False
            return not said.strip(" :-–—").casefold().startswith(("see ", "see:"))
    return False


# A parenthesis glued to the word after it is part of that word ("(re-)uses", "(un)set"), not an annotation after the
# term such as "(optional)". Measured (docs/benchmarks.md): WORD_PARENS.
WORD_PARENS = True


# An entry's separator may be written inside its markup: "- **site-url:** The url ..." defines `site-url` as
# "- **site-url**: The url ..." does. Measured (docs/benchmarks.md): COLON_IN_TERM.
COLON_IN_TERM = True


# A list item whose marked-up term is followed by a sentence of its own ("- `:focus-within` Matches widgets with a
# focused child widget.", Textual's list of pseudo classes) is an entry without a separator: a sentence that goes on
# from the term would go on in lower case ("- `session.run` runs ..."). Measured (docs/benchmarks.md):
# CAPITAL_AFTER_TERM.
CAPITAL_AFTER_TERM = True


def _opens_sentence(after: str) -> bool:
    """`after` (what follows an entry's term) is a space and a capitalized word: "` Matches widgets ...`"."""
    return after[:1] == " " and after[1:2].isupper() and after[2:3].islower()


def _opens_entry(rest: str, wanted: set[str], marked: bool, linked: bool = False) -> bool:
    """True when `rest` (a list item's or a line's text) opens with one of `wanted` as its term, followed by
    a separator (`--why`: ..., **name** - ..., `-n N`, `--limit N` — ...). Unless `marked` (a list item), the
    term must be set off by markup. (A paragraph opening with the name in a code span and going on in prose
    is no entry: measured, guides open paragraphs that way as often as references do.)"""
    terms, after = _spans(rest, roles=marked, linked=linked)
    if terms and COLON_IN_TERM and terms[-1].endswith(":") and after[:1] in (" ", "\t") and after.strip():
        # "- **site-url:** The url where ..." (mdBook's references): the separator written inside the markup
        terms, after = [*terms[:-1], terms[-1][:-1].rstrip()], ":" + after
    if terms:
        return any(_names_term(t, wanted) for t in terms) and (
            _separated(after) or (marked and CAPITAL_AFTER_TERM and _opens_sentence(after)))
    if not marked:
        return False
    folded = rest.casefold()
    return any(folded.startswith(n) and _separated(rest[len(n):]) for n in wanted)


# A docstring's parameter entry defines the parameter: a reStructuredText field (`:param enable_async: ...`,
# `:keyword str name:`, `:ivar x:`) or a Google-style one with its type (`weakref_slot (bool): ...`).
FIELD_ENTRIES = True
_FIELD_KINDS = ("param", "parameter", "arg", "argument", "key", "keyword", "kwarg", "kwparam", "ivar", "cvar", "var")


# A field that names the keys its block describes (`:keys: allowlist_externals`, `:key: min_version`): tox's config
# reference describes each setting in a directive whose options name it, the heading above holding dozens of them.
KEY_FIELDS = True
_KEY_FIELDS = ("key", "keys")


def _field_entry(line: str, wanted: set[str]) -> bool:
    """`line` (stripped) is a parameter's entry for one of `wanted`: `:param [type] name: ...` or `name (type): ...`,
    or a field naming keys: `:keys: name, other`."""
    if line.startswith(":"):
        field, colon, value = line[1:].partition(":")
        if KEY_FIELDS and colon and field.strip().casefold() in _KEY_FIELDS:
            return any(v.strip(" `").casefold() in wanted for v in value.split(","))
        words = field.split()
        return (bool(colon) and len(words) >= 2 and words[0].casefold() in _FIELD_KINDS
                and words[-1].casefold() in wanted)
    head, paren, rest = line.partition(" (")
    return bool(paren) and head.casefold() in wanted and ")" in rest and rest.split(")", 1)[1].startswith(":")


# A section whose paragraphs mostly open with a code span is a reference written in paragraphs ("`SIGIL_OFFLINE` set
# to `1` has the same effect as ...", "`SIGIL_NO_DAEMON` set to `1` stops ..."): a paragraph opening with the name
# there is its entry. One paragraph opening so in a guide is not (`_opens_entry`).
# Measured (docs/benchmarks.md): PARAGRAPH_ENTRIES.
PARAGRAPH_ENTRIES = True
_PARAGRAPH_ENTRIES_MIN = 3


def _opens_paragraph_entry(line: str, wanted: set[str]) -> bool:
    if not line.startswith("`"):
        return False
    terms, _ = _spans(line)
    return bool(terms) and _names_term(terms[0], wanted)


def _paragraph_entries(lines: list[str]) -> bool:
    """True when most of the paragraphs of `lines` (fenced code, headings, lists and tables aside) open with a code
    span, and at least _PARAGRAPH_ENTRIES_MIN do."""
    opened = paragraphs = 0
    previous = ""
    for _, line in _outside_fences(lines):
        if line and not previous and not line.startswith(("#", *_LIST_MARKS)):
            paragraphs += 1
            opened += line.startswith("`") and bool(_spans(line)[0])
        previous = line
    return opened >= _PARAGRAPH_ENTRIES_MIN and 2 * opened > paragraphs


# An AsciiDoc table may write one cell per line, a blank line between rows ("|fallbacks" / "|Array" / "|[source]..."):
# the cell that opens a row is its first cell, the name a reference table defines. Its text may be a cross reference
# (`<<prepress-margins,margin-inner>>`, `xref:images.adoc#bg[background-image]`): the reader sees the link's text.
# Measured (docs/benchmarks.md): ADOC_CELL_ROWS.
ADOC_CELL_ROWS = True


def _opens_adoc_row(lines: list[str], i: int) -> bool:
    """Line `i`, one cell alone, opens a table row written one cell per line: a blank line (or the table's
    delimiter) before it, the row's next cell on the line after."""
    before = lines[i - 1].strip() if i > 0 else ""
    after = lines[i + 1].strip() if i + 1 < len(lines) else ""
    return (not before or before == "|===") and after.startswith("|") and after != "|==="


def _cell_term(cell: str) -> str:
    """A table cell's term: markup off, and an AsciiDoc cross reference within the page read as its text
    (`<<id,text>>`). A reference to another page (`xref:title-page.adoc#background[title-page-background-image]`)
    points at the entry there, as a linked list item does (`LINKED_TERMS`)."""
    cell = cell.strip()
    if cell.startswith("<<") and cell.endswith(">>") and "," in cell:
        cell = cell[2:-2].split(",", 1)[1]
    return _term(cell)


# A reStructuredText `list-table` writes each row as a list of lists: "* - ``PIPX_HOME``" opens the row with its first
# cell, the row's other cells follow as items one level in ("  - Root directory for ..."). The first cell is the name
# the table defines, as a pipe table's is. pipx lists its environment variables so; read as a list item opening with
# a mark, the row defined nothing.
# Measured (docs/benchmarks.md): LIST_TABLE_ROWS.
LIST_TABLE_ROWS = True


def _opens_list_table_row(lines: list[str], i: int, line: str, wanted: set[str]) -> bool:
    """Line `i` (`line`, stripped, a list item) opens a list-table row whose first cell is one of `wanted`, another
    cell after."""
    cell = line[2:].lstrip()
    if cell[:1] not in ("-", "*", "+") or cell[1:2] != " " or _term(cell[2:]).casefold() not in wanted:
        return False
    after = next((n.strip() for n in lines[i + 1:] if n.strip()), "")
    return after.startswith(("- ", "* ", "+ ")) and bool(after[2:].strip())


# A line that carries on the sentence of the line above opens no entry, whatever it starts with: reStructuredText and
# wrapped Markdown break a sentence anywhere, so "... links each under\n``PIPX_COMPLETION_DIR`` (default ...):" is
# prose that happens to put the name first on a line. The line above ends mid-sentence (a word, a comma, a code span).
# Measured (docs/benchmarks.md): WRAPPED_NO_ENTRY.
WRAPPED_NO_ENTRY = True
# Nor is such a line a table row when it opens with a reStructuredText substitution reference: "by calling\n
# |send_with_options| on actors and ..." (dramatiq's guide) read as a row whose first cell is the name. A table's rows
# follow a blank line, a delimiter or another row. Measured (docs/benchmarks.md): SUBSTITUTIONS_NO_ROW.
SUBSTITUTIONS_NO_ROW = True
# A table row whose first cells are empty holds its term in the first filled one: the cell to its left spans rows (a
# category, as arrow's token table writes "Timezone" once over `ZZZ`, `ZZ` and `Z`). Measured (docs/benchmarks.md):
# SPANNED_CELLS.
SPANNED_CELLS = True


def _continues_sentence(lines: list[str], i: int) -> bool:
    """Line `i` carries on a sentence: the line before it is prose (not a list item, a table row, a heading or a
    directive) that ends with a word, a comma or markup rather than a sentence's or a label's end."""
    before = lines[i - 1].strip() if i > 0 else ""
    if not before or before.startswith((*_LIST_MARKS, "#", "..", ":")):
        return False
    return before[-1].isalnum() or before[-1] in ",;`*_"


# An AsciiDoc description list writes its term bare, set off by two colons (or `:::`, `;;`): "nobreak:: The `nobreak`
# role prevents ...", or the term alone with its description on the next line. A reStructuredText paragraph ending
# in "::" introduces a literal block after a blank line, so a bare "term::" counts only with text right under it.
# Measured (docs/benchmarks.md): ADOC_TERMS.
ADOC_TERMS = True
_ADOC_TERM_MARKS = ("::::", ":::", "::", ";;")


def _adoc_term(lines: list[str], i: int, line: str, wanted: set[str]) -> bool:
    """Line `i` (`line`, stripped) opens an AsciiDoc description-list entry whose term is one of `wanted`."""
    for mark in _ADOC_TERM_MARKS:
        head, found, rest = line.partition(mark + " ") if not line.endswith(mark) else (line[:-len(mark)], mark, "")
        if not found or not head or head.endswith(":") or " " in head.strip(_TERM_MARKUP).strip():
            continue
        if _term(head).casefold() not in wanted:
            return False
        if rest.strip():
            return True
        return i + 1 < len(lines) and bool(lines[i + 1].strip())
    return False


# A reStructuredText definition-list term may carry classifiers after " : ": "enqueue : |bool|, optional", the form
# of every NumPy-style parameter ("x, y : int", several names sharing one), as loguru's `Logger.add` documents its
# options. The term is the part before them.
# Measured (docs/benchmarks.md): CLASSIFIED_TERMS.
CLASSIFIED_TERMS = True


def _definition_term(line: str, wanted: set[str]) -> bool:
    """`line` (stripped) is a definition-list term naming one of `wanted`: the whole line, or (CLASSIFIED_TERMS) its
    names before " : " and a classifier."""
    if _term(line).casefold() in wanted:
        return True
    term, colon, _ = line.partition(" : ")
    return CLASSIFIED_TERMS and bool(colon) and any(_term(t).casefold() in wanted for t in term.split(", "))


def defines(text: str, names: Sequence[str]) -> bool:
    """True when a section's text holds an entry that defines one of `names` (ignoring case and markup): a
    table row whose first cell is the name, a list item or line opening with the name set off by markup and a
    separator ("* `--why`: When showing ..."), or a definition-list term (the name alone on a line, its
    definition on the next line after `: ` or indented). A mention elsewhere in a line is no definition."""
    wanted = {n.casefold() for n in names if n}
    folded = text.casefold()
    # An entry's line spells the name near its start (after a list mark, a table's bar, markup or an alias or
    # two): find those lines by the name's occurrences, so a section that only mentions it is not read line by
    # line (casefold keeps the newlines: line i of the folded text is line i of the text).
    near: set[int] = set()
    for name in wanted:
        at = folded.find(name)
        while at >= 0:
            start = folded.rfind("\n", 0, at) + 1
            if len(folded[start:at].lstrip()) <= _ENTRY_REACH:
                near.add(folded.count("\n", 0, start))
            at = folded.find(name, at + 1)
    if not near:
        return False
    lines = text.split("\n")
    entries: bool | None = None  # whether the section's paragraphs are entries, read once when needed
    for i, line in _outside_fences(lines):
        if i not in near:
            continue
        if line.startswith("|"):
            if WRAPPED_NO_ENTRY and SUBSTITUTIONS_NO_ROW and _continues_sentence(lines, i):
                continue  # a reST substitution carrying on a sentence ("calling\n|send_with_options| on actors")
            cells = line.strip("|").split("|")
            if SPANNED_CELLS and len(cells) > 2 and not cells[0].strip():
                cells = cells[next(j for j, c in enumerate(cells) if c.strip() or j == len(cells) - 1):]
            if len(cells) > 1 and _cell_term(cells[0]).casefold() in wanted and any(c.strip(" -:") for c in cells[1:]):
                return True
            if ADOC_CELL_ROWS and len(cells) == 1 and _opens_adoc_row(lines, i) \
                    and _cell_term(cells[0]).casefold() in wanted:
                return True
            continue
        if line.startswith(("- ", "* ", "+ ")):
            if LIST_TABLE_ROWS and _opens_list_table_row(lines, i, line, wanted):
                return True
            if _opens_entry(line[2:].lstrip(), wanted, marked=True):
                return True
            continue
        if _opens_entry(line, wanted, marked=False) and not (WRAPPED_NO_ENTRY and _continues_sentence(lines, i)):
            return True
        if PARAGRAPH_ENTRIES and (i == 0 or not lines[i - 1].strip()) and _opens_paragraph_entry(line, wanted):
            if entries is None:
                entries = _paragraph_entries(lines)
            if entries:
                return True
        if FIELD_ENTRIES and _field_entry(line, wanted):
            return True
        if ADOC_TERMS and _adoc_term(lines, i, line, wanted):
            return True
        if lines[i][:1] not in (" ", "\t") and _definition_term(line, wanted):
            after = next((n for n in lines[i + 1:] if n.strip()), "")
            if after.lstrip().startswith(": ") or after[:1] in (" ", "\t"):
                return True
    return False
