"""A reStructuredText note's block structure, read line by line: section titles, literal and code blocks,
markup a reader never sees, and the autodoc directives whose text lives in docstrings.

Pure, no I/O, never raises on any `str`, linear in the text (one pass; each indented construct is opened
and closed once, so 10,000 nested directives cost 10,000 steps). It yields the same `Blocks` record as
`mdblocks`, so the chunker, read_doc's section lookup and everything after them never ask which format a
note was written in.

Why a line-based reader and not docutils: docutils (and Sphinx on top of it) refuses or warns on what a
plain docutils run cannot resolve: every Sphinx role and directive (`:func:`, `.. versionadded::`,
`.. autoclass::`) is "unknown" without Sphinx and its extensions loaded, and `include` reads other files.
Structure is all the chunker needs, and a section title, an indented block and an explicit-markup line
are line-level facts. A reader that only looks at lines cannot fail on a file, and it is several times
faster (docs/benchmarks.md, "reStructuredText"). What it does not model it leaves as text: a misread
costs at most a chunk boundary, never a lost line.

The rules (docutils' own, where they decide what a reader sees):
- A section title is a line at column 0 with an underline, or an overline and an underline, of one
  repeated punctuation character at least as long as the title. Its level is the order in which each
  adornment style (character, overlined or not) first appears in the file; the first title is the
  trail's root (the document title). Titles are only looked for outside indented blocks.
- Explicit markup (`.. `) opens a block that runs over the following lines indented deeper than it:
  - code directives (`code-block`, `code`, `sourcecode`, `literalinclude`, `doctest`, `testcode`,
    `parsed-literal`, `math`, ...) and a paragraph ending in `::` open verbatim blocks (blank lines in them
    are content; a chunk is not split there);
  - `toctree`, `raw`, `include` (its file is indexed on its own), `only`'s marker line, `index`, `meta`,
    `highlight`, `module`/`currentmodule`, comments and substitution definitions are inert: markup that
    never becomes a chunk on its own;
  - explicit targets (`.. _label:`) are targets: one right above a title opens that title's section, so
    the label is searchable with the section it names;
  - object descriptions (`.. confval:: html_theme`, `.. option:: --keep-going`, `.. py:function:: send_file`,
    `.. envvar::`, `.. describe::`, `.. event::`, any domain's) are headings one level below the title they
    sit under (ENTRY_LEVEL): Sphinx lists them in the page's table of contents, and a page of fifty settings
    is fifty entries a reader finds by name, not one section. A description inside another (`py:method`
    in `py:class`) is one level deeper. A description right under a title naming the same object (pytest's
    reference: a `pytest.mark.usefixtures` title, then `.. py:function:: pytest.mark.usefixtures(*names)`) is
    that section's text: a subsection repeating its parent would be a second hit for one entry;
  - other directives (admonitions, `versionadded`, `deprecated`, `only`'s body) are text.
- A field list at the top of the file or right under the document title (`:orphan:`, `:tocdepth: 2`) is
  metadata, inert.
- `autoclass`/`autofunction`/`automodule`/... directives are reported with the module in effect
  (`.. module::`, `.. currentmodule::`, an enclosing `automodule`), so the caller can index the named
  object's docstring as a section under the page (`notes/autodoc.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from . import sphinxchangelog
from .mdblocks import MAX_HEADING_BYTES, MAX_RAW_HEADING_CHARS, Blocks, Heading
from ..records import AutodocRef
from .utf8 import cut_utf8

# A line of one repeated punctuation character (docutils' adornment characters are all printable ASCII
# punctuation), at least two long.
_ADORN = re.compile(r"^([!-/:-@\[-`{-~])\1+[ \t]*$")
_EXPLICIT = re.compile(r"^([ \t]*)\.\.(?:[ \t]+(.*))?$")
_DIRECTIVE = re.compile(r"^(?:\|[^|]+\|[ \t]+)?([\w][\w:+.-]*)[ \t]*::(?:[ \t]+(.*))?$")
_TARGET = re.compile(r"^_(?:`[^`]*`|[^:`][^:]*):(?:[ \t].*)?$")
_FIELD = re.compile(r"^:[\w -]+:(?:[ \t].*)?$")
_ROLE = re.compile(r":[\w:.+-]+:`([^`]*)`")
_LITERAL = re.compile(r"``(.+?)``")
_REF = re.compile(r"`([^`<]*?)\s*<[^`>]*>`_{1,2}")
_INTERPRETED = re.compile(r"`([^`]*)`_{0,2}")
_EMPHASIS = re.compile(r"\*\*(.+?)\*\*|\*(.+?)\*")
_WHITESPACE = re.compile(r"\s+")

CODE_DIRECTIVES = frozenset(
    "code code-block sourcecode literalinclude doctest testcode testoutput testsetup testcleanup parsed-literal "
    "math highlight-block ipython jupyter-execute prompt program-output command-output graphviz digraph graph "
    "mermaid csv-table code-tab".split()
)
INERT_DIRECTIVES = frozenset(
    "toctree raw include index meta highlight module currentmodule py:module py:currentmodule default-role "
    "default-domain tabularcolumns contents sectnum sectionauthor codeauthor moduleauthor spelling:word-list "
    "image figure-image only ifconfig title rst-class role".split()
)
AUTODOC_DIRECTIVES = frozenset(
    "automodule autoclass autoexception autofunction automethod autoattribute autodata autodecorator "
    "autoproperty autosummary automodapi".split()
)
# Sphinx object descriptions (any domain: `py:function`, `c:macro`, `std:confval`; matched by the name after
# the last colon), which Sphinx lists in the page's table of contents (`toc_object_entries`).
OBJECT_DIRECTIVES = frozenset(
    "function class method staticmethod classmethod attribute property data exception decorator decoratormethod "
    "confval option cmdoption envvar describe object event directive role directive:option setting macro member "
    "type var struct union enum enumerator concept module-option".split()
)
ENTRY_LEVEL = 50  # deeper than any section title, so the next title (or entry) closes it
# A changelog directive's release and its kinds of change (`notes/sphinxchangelog.py`): deeper than any title, above
# any object description.
RELEASE_LEVEL = ENTRY_LEVEL - 2
CHANGE_KIND_LEVEL = ENTRY_LEVEL - 1
# An object description (or autodoc directive) right under a title naming the same object is that section's own
# text rather than a subsection repeating its title (`same_subject`).
SAME_SUBJECT_MERGED = True
_MODULE_DIRECTIVES = frozenset("module currentmodule py:module py:currentmodule".split())
# An autodoc member directive in an `autoclass` body names a member of that class (`.. autoattribute:: shield` under
# `.. autoclass:: trio.CancelScope`), as Sphinx resolves it; read against the module alone it named nothing, and the
# page lost the member's docstring. Measured (docs/benchmarks.md): NESTED_MEMBERS.
NESTED_MEMBERS = True
_CLASS_DIRECTIVES = frozenset({"autoclass", "autoexception"})
# An object description written by hand in an `autoclass` body (`.. attribute:: cancelled_caught` under `.. autoclass::
# trio.CancelScope`) is a subsection of the class's entry, as Sphinx's table of contents nests it and as a `.. class::`
# body's descriptions already were here: "... > trio.CancelScope > cancelled_caught", not a sibling of the class.
# Measured (docs/benchmarks.md): AUTOCLASS_ENTRIES_NESTED.
AUTOCLASS_ENTRIES_NESTED = True
_CLASS_OBJECTS = frozenset({"class", "exception"})
_MEMBER_DIRECTIVES = frozenset({"automethod", "autoattribute", "autoproperty"})


@dataclass(frozen=True)
class RstBlocks:
    """What `parse_rst` reads: the block structure every format shares, plus the autodoc directives."""

    blocks: Blocks
    autodoc: tuple[AutodocRef, ...] = ()


def clean_rst_title(raw: str) -> str:
    """A title as a reader sees it, by the benchmark labeller's rules: ``x`` -> x, :role:`text <target>` ->
    text, :role:`~a.b` -> b, `text <url>`_ -> text, emphasis markers dropped; capped at MAX_HEADING_BYTES."""
    s = raw[:MAX_RAW_HEADING_CHARS]
    if ":`" in s:
        s = _ROLE.sub(_role_text, s)
    if "`" in s:
        s = _INTERPRETED.sub(r"\1", _REF.sub(r"\1", _LITERAL.sub(r"\1", s)))
    if "*" in s:
        s = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), s)
    return cut_utf8(_WHITESPACE.sub(" ", s).strip(), MAX_HEADING_BYTES).rstrip()


def render_roles(text: str) -> str:
    """`text` with each role written as the built page shows it: :class:`~a.Logger` -> Logger,
    :func:`print() <builtins.print>` -> print(), :data:`sys.stdout` -> sys.stdout."""
    return _ROLE.sub(_role_text, text) if ":`" in text else text


def _role_text(m: re.Match[str]) -> str:
    body = m.group(1)
    lt = body.rfind("<")
    if lt > 0 and body.endswith(">") and body[:lt].strip():
        return body[:lt].strip()
    return body.rsplit(".", 1)[-1] if body.startswith("~") else body.lstrip("!")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _blank(line: str) -> bool:
    return not line or line.isspace()


@dataclass
class _Open:
    """An indented construct still open: its marker's indent and what its lines are."""

    indent: int
    kind: str  # "text" (directive body read as text), "entry" (an object description's), "code", "inert"
    owner: str = ""  # an autoclass's (or autoexception's) name as written: its body's autodoc members are its own
    entitled: str = ""  # an autoclass's full name, the heading its body's object descriptions nest under
    headed: bool = False  # that heading was emitted (at the body's first object description)
    release: bool = False  # a changelog directive's, whose section ends with its body


def parse_rst(lines: list[str], changelog_sections: Sequence[str] = ()) -> RstBlocks:
    """Section titles, verbatim and inert lines, targets and autodoc directives of a reStructuredText note
    given as `mdblocks.split_lines` lines; `changelog_sections` is conf.py's list of the kinds of change a changelog
    directive's release is divided into (`notes/sphinxchangelog.py`)."""
    n = len(lines)
    headings: list[Heading] = []
    verbatim: list[tuple[int, int]] = []
    targets: list[int] = []
    inert: list[int] = []
    autodoc: list[AutodocRef] = []
    styles: list[tuple[str, bool]] = []
    stack: list[_Open] = []
    code_start = -1  # first line of the verbatim block being read, -1 when none is open
    literal_next = -1  # indent of a paragraph that ended in "::": the next deeper block is literal
    module = ""  # the module autodoc names are relative to (`.. module::`, `.. currentmodule::`, automodule)
    metadata = True  # still at the top, where a field list is the document's metadata
    entries = 0  # object descriptions open on `stack`
    kinds: dict[int, str] = {}  # the open changelog release's changes: line -> the section it goes under
    change_kind = ""  # the section the release's last change went under
    in_release = False  # a changelog directive's body is open (one inside it is its text: each body is read once)
    i = 0
    while i < n:
        line = lines[i]
        if _blank(line):
            i += 1
            continue
        ind = _indent(line)
        closed_entry = -1  # the level of the outermost object description this line closes
        while stack and ind <= stack[-1].indent:
            popped = stack.pop()
            if popped.release:  # the text after a release is the page's again, as after a description
                closed_entry = RELEASE_LEVEL
                kinds, in_release = {}, False
            closed = "entry" if popped.headed else popped.kind
            if closed == "code":  # code never nests: nothing inside it is parsed
                verbatim.append((code_start, _last_text(lines, code_start, i)))
                code_start = -1
            elif closed == "entry":
                entries -= 1
                closed_entry = min(closed_entry, ENTRY_LEVEL + entries) if closed_entry >= 0 else ENTRY_LEVEL + entries
        if closed_entry >= 0 and not (ind == 0 and _title(lines, i) is not None) and not _opens_release(line):
            # The text after a description belongs to the section around it again: an untitled heading
            # closes the entry (the chunker starts a section there under the enclosing trail; read_doc
            # lists no section for a heading without text).
            headings.append(Heading(i, i, closed_entry, ""))
        top = stack[-1].kind if stack else ""
        if top == "code":
            i += 1
            continue
        if top == "inert":
            inert.append(i)
            i += 1
            continue
        if literal_next >= 0:
            literal, literal_next = literal_next, -1
            if ind > literal:  # a literal block: the paragraph's `::` made it one
                stack.append(_Open(literal, "code"))
                code_start = i
                i += 1
                continue
        m = _EXPLICIT.match(line)
        if m:
            metadata = False
            rest = (m.group(2) or "").strip()
            if sphinxchangelog.CHANGELOG_SECTIONS and not entries:
                release = None if in_release else _release(lines, i, ind, rest, changelog_sections)
                if release is not None:  # its version's section (the body's directives are read as usual)
                    (version, kinds), in_release = release, True
                    change_kind = ""
                    headings.append(Heading(i, i + 1, RELEASE_LEVEL, version))
                    stack.append(_Open(ind, "text", release=True))
                    i += 1
                    continue
                if kinds.get(i, change_kind) != change_kind:  # a change of another kind than the one before
                    change_kind = kinds[i]
                    headings.append(Heading(i, i, CHANGE_KIND_LEVEL, change_kind))
            kind = _explicit(lines, i, ind, rest, stack, inert, targets, autodoc, module)
            if kind == "code":
                code_start = i
            elif kind == "entry":
                name = _entry_name(rest)
                if SAME_SUBJECT_MERGED and not entries and headings and same_subject(headings[-1].text, name):
                    # The description of what the title above already names (`pytest.mark.usefixtures` then
                    # `.. py:function:: pytest.mark.usefixtures(*names)`) is that section's text, not a
                    # subsection of it: one entry, found once.
                    stack[-1].kind = "text"
                else:
                    holder = next((o for o in reversed(stack[:-1]) if o.owner), None)
                    if AUTOCLASS_ENTRIES_NESTED and holder is not None and holder.entitled and not holder.headed:
                        # the class's own entry (its docstring's section) holds it, as a `.. class::` body's does
                        headings.append(Heading(i, i, ENTRY_LEVEL + entries, holder.entitled))
                        holder.headed = True
                        entries += 1
                    headings.append(Heading(i, i + 1, ENTRY_LEVEL + entries, name))
                    entries += 1
            module = _module_of((m.group(2) or "").strip(), module)
            i += 1
            continue
        if ind == 0:
            title = _title(lines, i)
            if title is not None:
                start, end, style, text = title
                if style not in styles:
                    styles.append(style)
                headings.append(Heading(start, end, styles.index(style) + 1, clean_rst_title(text)))
                metadata = len(headings) == 1  # docinfo may follow the document title
                i = end
                continue
        if metadata and ind == 0 and _FIELD.match(line):
            inert.append(i)
            i += 1
            continue
        metadata = False
        i = _paragraph(lines, i, ind)
        if lines[i - 1].rstrip().endswith("::"):
            literal_next = ind
    if code_start >= 0:
        verbatim.append((code_start, _last_text(lines, code_start, n)))
    return RstBlocks(Blocks(0, None, tuple(headings), tuple(verbatim), tuple(targets), tuple(inert)),
                     tuple(autodoc))


def _qualified(target: str, module: str) -> str:
    """An autodoc target's full name as autodoc's section titles it: relative to the current module unless it
    already names a module (`.. currentmodule:: jinja2` then `.. autoclass:: Environment` is `jinja2.Environment`)."""
    target = target.lstrip("~")
    if not target or not module or "." in target:
        return target
    return f"{module}.{target}"


def same_subject(title: str, name: str) -> bool:
    """True when a section titled `title` is about the object `name` names: the same name, or one is the
    other's dotted tail (`record_testsuite_property` and `_pytest.junitxml.record_testsuite_property`)."""
    a, b = title.strip().casefold(), name.strip().casefold()
    if not a or not b:
        return False
    short, long = sorted((a, b), key=len)
    return short == long or long.endswith("." + short)


def _entry_name(rest: str) -> str:
    """An object description's heading: the described name as its directive gives it, without a signature's
    arguments (`send_file(path, mimetype=None)` is `send_file`; an option keeps its whole spelling)."""
    d = _DIRECTIVE.match(rest)
    arg = (d.group(2) if d else "") or ""
    paren = arg.find("(")
    if paren > 0 and not arg.lstrip().startswith("-"):
        arg = arg[:paren]
    return clean_rst_title(arg)


def _last_text(lines: list[str], start: int, end: int) -> int:
    """End (exclusive) of a block running from `start` up to `end`: trailing blank lines are not in it."""
    while end > start + 1 and _blank(lines[end - 1]):
        end -= 1
    return end


def _title(lines: list[str], i: int) -> tuple[int, int, tuple[str, bool], str] | None:
    """The section title starting on line i (column 0) as (start, end, style, raw text), or None."""
    line = lines[i]
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    over = _ADORN.match(line)
    if over:
        if i + 2 < len(lines) and not _blank(nxt) and _ADORN.match(lines[i + 2]):
            under = lines[i + 2].strip()
            if under[0] == line.strip()[0] and len(under) >= len(nxt.strip()):
                return i, i + 3, (under[0], True), nxt.strip()
        return None
    if line.startswith(".. ") or not _ADORN.match(nxt):
        return None
    under = nxt.strip()
    if len(under) < len(line.strip()):
        return None
    return i, i + 2, (under[0], False), line.strip()


def _paragraph(lines: list[str], i: int, ind: int) -> int:
    """The line after the paragraph (or other text block) starting on line i: the next blank line, or a
    line that starts explicit markup or a title."""
    n = len(lines)
    j = i + 1
    while j < n and not _blank(lines[j]):
        if _EXPLICIT.match(lines[j]) or (_indent(lines[j]) == 0 and ind == 0 and _title(lines, j) is not None):
            break
        j += 1
    return j


def _explicit(lines: list[str], i: int, ind: int, rest: str, stack: list[_Open], inert: list[int],
              targets: list[int], autodoc: list[AutodocRef], module: str) -> str:
    """Read the explicit-markup construct on line i and open its block on `stack`; returns its kind."""
    d = _DIRECTIVE.match(rest)
    if d:
        name = d.group(1).lower()
        short = name.split(":", 1)[1] if name.startswith(("py:", "rst:")) and name not in INERT_DIRECTIVES else name
        if rest.startswith("|") or name in INERT_DIRECTIVES:
            inert.append(i)
            target = (d.group(2) or "").strip()
            if name == "include" and target and not rest.startswith("|"):  # its file's text (`notes/includes.py`)
                end = _options_end(lines, i + 1)
                values = _option_values(lines[i + 1:end])
                autodoc.append(AutodocRef(i, end, include_kind(values), target, "", frozenset(values), (),
                                          tuple(values.items())))
            # `only`'s body is the page's text, shown in some builds: only its marker is markup.
            kind = "text" if name in ("only", "ifconfig", "rst-class") else "inert"
            stack.append(_Open(ind, kind))
            return kind
        if short in CODE_DIRECTIVES:
            stack.append(_Open(ind, "code"))
            target = (d.group(2) or "").strip()
            if short == "literalinclude" and target:  # the lines it shows live in another file (`notes/includes.py`)
                end = _options_end(lines, i + 1)
                values = _option_values(lines[i + 1:end])
                autodoc.append(AutodocRef(i, end, short, target, "", frozenset(values), (), tuple(values.items())))
            return "code"
        if name.rsplit(":", 1)[-1] in OBJECT_DIRECTIVES and (d.group(2) or "").strip():
            # a class described by hand is its body's autodoc members' owner too (`.. class:: StandaloneHTMLBuilder`
            # then `.. autoattribute:: name`), as Sphinx's `py:class` context makes it
            owner = (d.group(2) or "").split("(", 1)[0].strip() if name.rsplit(":", 1)[-1] in _CLASS_OBJECTS else ""
            stack.append(_Open(ind, "entry", owner))
            return "entry"
        if short in AUTODOC_DIRECTIVES:
            target = (d.group(2) or "").strip()
            if NESTED_MEMBERS and short in _MEMBER_DIRECTIVES and "." not in target.split("(", 1)[0]:
                # `.. automethod:: cancel()` in `.. autoclass:: trio.CancelScope`'s body documents
                # `trio.CancelScope.cancel`, as Sphinx reads it (the class is the member's context)
                owner = next((o.owner for o in reversed(stack) if o.owner), "")
                target = f"{owner}.{target}" if owner else target
            owned = target.split("(", 1)[0].strip() if short in _CLASS_DIRECTIVES else ""
            stack.append(_Open(ind, "text", owned, _qualified(owned, module)))
            end = _options_end(lines, i + 1)
            values = _option_values(lines[i + 1:end])
            if target and short != AUTOSUMMARY:
                autodoc.append(AutodocRef(i, end, short, target, module, frozenset(values), listed_members(values),
                                          tuple(values.items())))
            elif short == AUTOSUMMARY and AUTOSUMMARY_PAGES and "toctree" in values:
                autodoc.extend(autosummary_items(lines, end, ind, module))
            return "text"
        if short in ARGPARSE_DIRECTIVES:  # the CLI reference it renders is read from the code (`notes/argparsepage.py`)
            end = _options_end(lines, i + 1)
            values = _option_values(lines[i + 1:end])
            target = (values.get("ref") or values.get("module") or "").strip()
            if target:
                autodoc.append(AutodocRef(i, end, short, target, "", frozenset(values), (), tuple(values.items())))
        stack.append(_Open(ind, "text"))
        return "text"
    if _TARGET.match(rest) or rest.startswith("__ "):
        if ind == 0:
            targets.append(i)
        else:
            inert.append(i)
        stack.append(_Open(ind, "inert"))
        return "inert"
    if rest.startswith("[") and "]" in rest:  # a footnote or citation: text
        stack.append(_Open(ind, "text"))
        return "text"
    inert.append(i)  # a comment, with its indented body; an empty one ("..") ends at the blank line
    if rest or (i + 1 < len(lines) and not _blank(lines[i + 1])):
        stack.append(_Open(ind, "inert"))
    return "inert"


_OPTION = re.compile(r"^([ \t]+):([\w-]+):(.*)$")


def _opens_release(line: str) -> bool:
    """True when the line is a changelog directive's (whose own section follows)."""
    m = _EXPLICIT.match(line)
    d = _DIRECTIVE.match((m.group(2) or "").strip()) if m else None
    return d is not None and d.group(1).lower() == sphinxchangelog.CHANGELOG


def _release(lines: list[str], i: int, ind: int, rest: str,
             sections: Sequence[str]) -> tuple[str, dict[int, str]] | None:
    """For a changelog directive on line i (at indent `ind`) with a `:version:`, the version and the section each
    change of its body goes under, by the change directive's line; None for any other line."""
    d = _DIRECTIVE.match(rest)
    if d is None or d.group(1).lower() != sphinxchangelog.CHANGELOG:
        return None
    end = _options_end(lines, i + 1)
    version = clean_rst_title(_option_values(lines[i + 1:end]).get("version", ""))
    if not version:
        return None
    changes: list[int] = []
    tags: list[list[str]] = []
    j = end
    while j < len(lines) and (_blank(lines[j]) or _indent(lines[j]) > ind):
        m = _EXPLICIT.match(lines[j])
        c = _DIRECTIVE.match((m.group(2) or "").strip()) if m else None
        if c is not None and c.group(1).lower() == sphinxchangelog.CHANGE:
            stop = _options_end(lines, j + 1)
            changes.append(j)
            tags.append(sphinxchangelog.tags_of(_option_values(lines[j + 1:stop]).get("tags", "")))
            j = stop
        else:
            j += 1
    return version, dict(zip(changes, sphinxchangelog.release_kinds(tags, sections)))


# An `autosummary` with `:toctree:` makes a page for each name it lists (`autosummary_generate`, on in every project
# that writes one), its title the full name and its text the object's docstring, as `.. autofunction::` or
# `.. autoclass::` would show it: the API reference of most scientific Python projects (NumPy-style docstrings,
# shapely's and geopandas' reference pages) is nothing but these lists. scree had read the names as a paragraph and
# indexed no docstring of theirs. Each name is an entry of the section the list sits in, pointing at its own line.
# Without `:toctree:` the table only links to pages documented elsewhere. Measured (docs/benchmarks.md):
# AUTOSUMMARY_PAGES.
AUTOSUMMARY_PAGES = True
AUTOSUMMARY = "autosummary"
# sphinx-argparse's and sphinx-argparse-cli's directives: a CLI reference rendered from a parser in the code.
ARGPARSE_DIRECTIVES = frozenset({"argparse", "sphinx_argparse_cli"})
# The directives showing another file's lines (`notes/includes.py`): with the argparse ones, the `AutodocRef`s that
# are no docstring.
FILE_DIRECTIVES = frozenset({"literalinclude", "include"})
NOT_DOCSTRINGS = FILE_DIRECTIVES | ARGPARSE_DIRECTIVES


def include_kind(values: dict[str, str]) -> str:
    """What an `include` (reStructuredText's or MyST's) with these options is: one shown as code (`:literal:`,
    `:code:`) is a literalinclude."""
    return "literalinclude" if "literal" in values or "code" in values else "include"
_ITEM = re.compile(r"^~?[A-Za-z_][\w.]*(?:\(.*\))?$")


# A listed class's page is what the project's `autosummary/class.rst` template makes of it (Sphinx's own shows the
# class docstring, its members only as a table of names): pooch's documents every method with `.. automethod::`,
# shapely's gives `:members:`, networkx's lists them in an autosummary with `:toctree:`, a page each. Then the class's
# members are entries beside it, as `:members:` makes them. Measured (docs/benchmarks.md): AUTOSUMMARY_MEMBERS.
AUTOSUMMARY_MEMBERS = True
CLASS_TEMPLATE = "_templates/autosummary/class.rst"  # under the Sphinx source folder (the quickstart's templates_path)
_SHOWS_MEMBERS = re.compile(r"^[ \t]*(?::members:|\.\. (?:py:)?automethod::|\.\. (?:py:)?autoattribute::|:toctree:)",
                            re.MULTILINE)


def template_shows_members(template: str) -> bool:
    """True when a class template documents the class's members: a `:members:` option, a member directive, or a
    nested autosummary generating a page each (`:toctree:`)."""
    return AUTOSUMMARY_MEMBERS and _SHOWS_MEMBERS.search(template) is not None


def autosummary_items(lines: list[str], j: int, ind: int, module: str) -> list[AutodocRef]:
    """The names an `autosummary` body lists from line j (after its options) to its end (a line at the directive's
    indent `ind` or less), each as the `AutodocRef` of the page it generates."""
    out: list[AutodocRef] = []
    while j < len(lines) and (_blank(lines[j]) or _indent(lines[j]) > ind):
        item = lines[j].strip()
        if _ITEM.match(item):
            out.append(AutodocRef(j, j + 1, AUTOSUMMARY, item.lstrip("~"), module))
        j += 1
    return out


def _options_end(lines: list[str], j: int) -> int:
    """The line after a directive's option lines (`:members:`, `:noindex:`) starting at line j, a value's
    continuation lines (indented deeper than its option) included."""
    indent = -1
    while j < len(lines):
        option = _OPTION.match(lines[j])
        if option:
            indent = _indent(lines[j])
        elif indent < 0 or _blank(lines[j]) or _indent(lines[j]) <= indent:
            break
        j += 1
    return j


def listed_members(values: dict[str, str]) -> tuple[str, ...]:
    """The members a `:members: a, b` option names, in its order (none: every public member, or no option)."""
    return option_names(values.get("members", ""))


def option_names(value: str) -> tuple[str, ...]:
    """The names an option's value lists, in order: `a, b` or `a b` (`:members:`, `:exclude-members:`)."""
    return tuple(n for n in re.split(r"[\s,]+", value) if n)


def _option_values(block: list[str]) -> dict[str, str]:
    """A directive's options, lowercased names to values (continuation lines joined): `:members: a, b`."""
    pieces: dict[str, list[str]] = {}  # joined once: a value of many lines must not be copied once per line
    name = ""
    for line in block:
        option = _OPTION.match(line)
        if option:
            name = option.group(2).lower()
            if name in pieces:  # automodapi's `:skip:` may be given once per name
                pieces[name].append(",")
            pieces.setdefault(name, []).append(option.group(3).strip())
        elif name:
            pieces[name].append(line.strip())
    return {key: " ".join(parts).strip() for key, parts in pieces.items()}


def _module_of(rest: str, module: str) -> str:
    """The module autodoc names are relative to after an explicit-markup line: `.. module:: m`,
    `.. currentmodule:: m` and `.. automodule:: m` set it (automodule's output declares the module for
    the rest of the page, as Sphinx does); `None` clears it."""
    d = _DIRECTIVE.match(rest)
    if not d:
        return module
    name = d.group(1).lower()
    arg = (d.group(2) or "").split()
    if arg and (name in _MODULE_DIRECTIVES or name in ("automodule", "py:automodule")):
        return "" if arg[0] == "None" else arg[0]
    return module
