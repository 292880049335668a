"""Split one Markdown note into retrievable chunks, each with its heading trail and source lines.

A pure function: no I/O, no global state, and it never raises on any `str`. The block structure
(front matter, headings, code and HTML blocks) comes from `mdblocks` (markdown-it-py, CommonMark);
this module assembles chunks from it. The rules are in `chunk_markdown`'s docstring.

Choices worth knowing:
- Lines end where CommonMark ends them: at "\\n", "\\r\\n" or a lone "\\r" (`mdblocks.split_lines`), so
  a CRLF, CR-only or mixed note chunks exactly as its "\\n" twin, with the same line numbers. Chunk
  text joins lines with "\\n". For "\\n" and "\\r\\n" notes the numbers match `grep -n` and editors;
  other Unicode line separators stay inside their line.
- A leading byte-order mark is ignored (it would hide a first-line heading or front matter).
- Text before the first heading has the trail "" (not the front-matter title): the title is
  returned as `ChunkedNote.title` and callers may show it, but a trail only names headings. A note
  whose first heading is `##` or deeper gets its trail from its own headings (no invented level 1).
- A heading's lines (a setext heading's text and underline) are dropped with any chunk that holds
  nothing else; this includes a heading whose first text line is too big to share its chunk (the
  trail still names the heading). Not so a setext heading of several text lines: that is nearly
  always a paragraph its author meant to follow with a rule, and its text must stay searchable (the
  trail keeps only 200 bytes of it), so its lines count as the section's text.
- A heading whose cleaned text is empty (a lone `#`) still closes sections and pops the
  stack at its level, but contributes no part to the trail (no "A >  > B").
- Blank lines inside fenced or indented code and HTML blocks are content: a chunk is only split
  there at the hard cap.
- Sizes are UTF-8 bytes; lone surrogates (never produced by a strict or replacing decoder)
  count as 3 bytes instead of raising.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import yaml

from . import formats
from .language import front_matter_language
from .mdblocks import MAX_HEADING_BYTES, Blocks, clean_heading, split_lines
from ..records import Chunk, ChunkedNote
from .utf8 import char_boundary, cut_utf8, utf8_len

__all__ = [
    "CHUNKER_VERSION", "HARD_CHUNK_BYTES", "MAX_HEADING_BYTES", "SOFT_CHUNK_BYTES", "TRAIL_SEPARATOR",
    "chunk_lines", "chunk_markdown", "chunk_note", "clean_heading", "cut_utf8", "embed_header", "embed_text", "note_names", "utf8_len",
]

log = logging.getLogger(__name__)

# Bump whenever the same note would chunk differently (boundaries, trails or texts): an index
# records the version it was built with, and the next sync re-chunks every file when it differs.
# 1: regex ATX chunker; 2: markdown-it (CommonMark: setext headings, headings in lists and quotes);
# 3: chunks close at 2,000 bytes (was 2,500) and never pass 3,000 (was 3,500); 4: dialects (issue 19):
# MyST targets open the section they name, markup-only lines (ESM, JSX tags, toctrees) are no chunk's body,
# colon fences hide their headings, one-line HTML headings count.
# 5: a note's front-matter title (when no heading carries it) and aliases are stored with its chunks
# (`note_names`), so every file is written again to fill them in.
# 6: headings are kept to 200 bytes, not 120 (MAX_HEADING_BYTES): a long FAQ question is its whole trail.
# 7 (issue 26): a lone "\r" ends a line, as CommonMark says (a CR-only note was one line, often one
# heading-only chunk that was dropped); an MDX ESM block runs on while its code is unfinished (a `# ` line
# in a multi-line template literal was a heading).
# 8 (issue 34): reStructuredText, AsciiDoc and plain text are read by their own readers (a `.rst` note was
# not a note before; a `.txt` one in a Sphinx source folder was plain); autodoc directives add docstrings.
# 9 (issue 38): an HTML heading labels its own lines but never parents the Markdown headings after it.
# 10 (issue 38): a reStructuredText object description or autodoc docstring right under a title naming the same
# object is that section's text, not a subsection repeating the title (`rstblocks.same_subject`).
# 11 (issue 38): each chunk of a docstring ends with whose it is, and a docstring only `:members:` shows says so
# (`autodocpage.docstring_note`); a `:members: a, b` list shows those members, in its order (all public ones before).
# 12: autodoc finds names a package re-exports with `from .x import *`; a docstring's last chunk is never its note
# alone.
# 13: autodoc shows an assignment's docstring (the string after it, or its `#:` comment: `.. autodata::`), and an
# object rebound after its definition (`Factory = _add_hash(Factory)`, `ib = attr = attrib`) as that definition.
# 14: a reStructuredText `literalinclude` of a code file shows that file's lines in its section (`notes/includes.py`).
# 15: so does MyST's ```` ```{literalinclude} ```` fence.
# 16: `code-tab` (sphinx-tabs) is code; `.. version-added::` (Sphinx 7.3) reads as `versionadded` does.
# 17 (issue 38): a reStructuredText reference to a `replace::` substitution of its page is written out (`rstsubst`).
# 18: an autodoc directive with `:inherited-members:` and no `:members:` shows the members, as Sphinx does.
# 19: an `automethod`, `autoattribute` or `autoproperty` in an `autoclass` (or `.. class::`) body documents that class's
# member; autodoc finds names bound in a module's `if` and `try` blocks, a property's docstring is its getter's, a member
# without one shows its base class's, an instance attribute's `#:` comment in `__init__` is its docstring, and a
# module in Python 3.12 syntax is read on an older Python (`pysource`).
# 20: a MyST page's autodoc fences (```` ```{autoclass} ````) and `{eval-rst}` islands show their docstrings.
# 21: an object that is an instance of a class of the folder (`pytest.fail`) shows the class's docstring.
# 22: an object description written in an `autoclass` body, or in a docstring, is a subsection of the object's entry;
# a module docstring's opening title titles what automodule shows, and the autodoc directives in it are shown; an
# overloaded member shows its definition's docstring.
# 23 (issue 38): `:members:` shows the attributes Sphinx finds documented (`autodoc.ATTRIBUTE_MEMBERS`).
# 24: an automodule's `:members:` shows the names its `__all__` re-exports, each docstring's note saying so
# (`autodoc.REEXPORTED_MEMBERS`).
# 25: `:undoc-members:` shows the members without a docstring, each its signature alone (`autodoc.UNDOC_MEMBERS`).
# 26 (issue 38): an AsciiDoc two-line title (`OPTIONS` over `-------`, Git's manual pages) is a section title
# (`adocblocks.SETEXT_TITLES`), not a paragraph over a listing block.
# 27 (issue 38): each name an `autosummary` with `:toctree:` lists shows its docstring as an entry
# (`rstblocks.AUTOSUMMARY_PAGES`), as the page Sphinx generates for it does; an `automodapi` line shows its module's
# API (`notes/modapi.py`).
# 28 (issue 38): a `literalinclude` shows any file the policy admits, not only code (`notes/includes.py`): a YAML file
# of defaults whose comments are the only words on each key.
# 29 (issue 38): an `include` directive of a file that is no note shows its text, as a literalinclude does; one with
# `:literal:` or `:code:` is a literalinclude (`notes/includes.py`).
# 30 (issue 38): an mdBook include line (`{{#include ../listings/main.rs:2:9}}`) shows the file's lines as an `include`
# of a file that is no note does (`notes/mdbookincludes.py`).
# 31 (issue 38): a PyMdown snippet line (`--8<-- "docs/examples/app.py"`) shows the file's lines the same way
# (`notes/mkdocssnippets.py`).
# 32 (issue 38): a Sphinx changelog directive's release is a section, titled by its version, and its changes are in
# sections by kind as conf.py's `changelog_sections` divides them (`notes/sphinxchangelog.py`); a `build` folder holding
# a conf.py is a Sphinx source, indexed (`policy.BUILT_DIRS`); autodoc shows a class's methods written in its `if` blocks
# (`autodoc._public`).
# 33: a Vim plugin's help files (`doc/*.txt` beside `plugin/`, `lua/`, ...) are read as Vim help (`notes/vimhelp.py`),
# no longer as plain text when `.txt` is listed.
# 34: a Jupyter notebook is its cells' Markdown and fenced code (`notes/notebook.py`), no longer its JSON when `.ipynb`
# is listed; a MyST role in a Markdown heading reads as its text (`{term}`Binder`` is "Binder").
# 35: an R help page (`man/*.Rd`) is read as R's help shows it (`notes/rdblocks.py`), no longer as Markdown when `.rd`
# is listed.
# 36: a manual page (`ssh.1`, roff) is read as `man` shows it (`notes/roffblocks.py`), no longer as Markdown when its
# suffix is listed.
# 37: an Org file is read as Emacs shows it (`notes/orgblocks.py`), no longer as Markdown when `.org` is listed.
# 38: Perl's POD (`.pod`, a Perl distribution's `.pm` modules) is read as perldoc shows it (`notes/podblocks.py`), no
# longer as Markdown when `.pod` is listed.
# 39: a Texinfo manual (`.texi`) is read as its Info and HTML output show it (`notes/texiblocks.py`), no longer as
# Markdown when `.texi` is listed.
# 40: Ruby's RDoc pages (`.rdoc`) are read as rdoc shows them (`notes/rdocblocks.py`), no longer as Markdown when
# `.rdoc` is listed.
# 41: DocBook (`.docbook`, an `.xml` file that is DocBook) is read as its built page shows it (`notes/docbookblocks.py`),
# no longer as Markdown when `.xml` or `.docbook` is listed.
# 42: plain text has titles where its writer underlined or numbered one (`notes/textblocks.py`), and SGML's shorthand
# (`</>`, an empty element's start tag alone) is read in a DocBook page, no longer as text or an open element.
# `formats.MKDOCSTRINGS_DIRECTIVES`, `autodocdefaults.DEFAULT_OPTIONS` (conf.py's `autodoc_default_options` applied
# to the directives that do not set the option) and `argparsepage.ARGPARSE_PAGES` (a sphinx-argparse directive shows its
# parser's options) are off, and with them off the chunks are 42's; turning one on sets the next version here.
CHUNKER_VERSION = "42"

# Smaller chunks are less context for the agent to read and a less blurred vector: 2,000/3,000 against
# 2,500/3,500 took queries_dev.json's median context from 6.6 KB to 5.9 KB and paraphrase top1 from
# 55% to 65%, httpx unchanged; 1,500/2,500 and 1,200/2,000 cost answers (docs/benchmarks.md).
SOFT_CHUNK_BYTES = 2000
HARD_CHUNK_BYTES = 3000

TRAIL_SEPARATOR = " > "
MAX_FRONT_MATTER_CHARS = 65536  # bigger blocks are still skipped, but not parsed for a title

# Same results as yaml.safe_load; the libyaml loader is about 4x faster when PyYAML has it.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def embed_header(path: str, heading: str, aliases: tuple[str, ...] = ()) -> str:
    """The header put in front of every embedded chunk: the note's path (with its front-matter aliases,
    the other names a reader knows it by), then its heading trail."""
    if aliases:
        return f"{path} ({'; '.join(aliases)})\n{heading}"
    return f"{path}\n{heading}"


def embed_text(path: str, heading: str, text: str) -> str:
    """What is embedded for one chunk: `path\\nTrail\\n\\ntext`."""
    return f"{path}\n{heading}\n\n{text}"


def chunk_markdown(text: str) -> ChunkedNote:
    """Split a Markdown note into chunks (`chunk_note` for a note of any format)."""
    return chunk_note(text, formats.MARKDOWN)


def chunk_note(text: str, kind: str = formats.MARKDOWN, changelog_sections: Sequence[str] = ()) -> ChunkedNote:
    """Split a note of format `kind` (`formats.kind_of`) into chunks. Its reader (`formats.structure`)
    finds the headings, verbatim blocks and markup lines; from there every format is chunked alike:

    - YAML front matter (see `mdblocks`) is skipped; its string `title:` becomes
      `ChunkedNote.title`. Broken YAML is skipped too, without a title.
    - Every heading a CommonMark renderer shows (ATX and setext, also inside list items and
      blockquotes; never inside code or HTML blocks) starts a section.
    - Each chunk carries the trail of enclosing headings joined with " > ".
    - A section's first chunk starts with its heading line(s); a chunk is closed at a blank line
      outside code and HTML blocks once it has SOFT_CHUNK_BYTES, and always before it would pass
      HARD_CHUNK_BYTES (at a line boundary; a longer single line becomes pieces of its own).
    - Chunks holding nothing but their heading lines and markup a reader never sees (MyST targets and
      comments, MDX import/export lines, lines of bare JSX/HTML tags, toctree entries: `mdblocks`) are
      dropped; such lines stay in the text of any chunk that holds something else.
    - MyST `(label)=` target lines directly above a heading (blank lines or other targets between) open
      that heading's section, so the label is searchable with the section it names.
    - Chunk text has no leading/trailing blank lines; start/end lines are its first and last
      source lines (1-based, counted in the original file).

    `changelog_sections` is the page's conf.py's (`ModuleFiles.changelog_sections`): the kinds of change a Sphinx
    changelog directive's release is divided into (`notes/sphinxchangelog.py`).
    """
    lines = split_lines(text)
    parsed = formats.structure(kind, lines, changelog_sections)
    blocks = parsed.blocks
    if parsed.text is not None:  # the lines as the built page reads them (reStructuredText substitutions)
        lines = parsed.text
    chunks: list[Chunk] = []
    no_split = _verbatim_lines(blocks, len(lines))
    markup = [False] * len(lines)
    for i in (*blocks.targets, *blocks.inert):
        if i < len(markup):
            markup[i] = True
    targets = frozenset(blocks.targets)
    stack: list[tuple[int, str]] = []  # (level, cleaned text) of the enclosing headings
    trail = ""
    section_start = blocks.body_start
    head = range(0)  # the current section's heading lines; empty for the preamble
    refs = iter(parsed.autodoc)
    ref = next(refs, None)
    autodoc_trails: list[str] = []
    for h in blocks.headings:
        while ref is not None and ref.line < h.start:
            autodoc_trails.append(trail)
            ref = next(refs, None)
        if h.start < section_start:  # cannot happen with markdown-it's maps; never emit overlapping chunks
            continue
        top = _section_top(lines, targets, section_start, h.start)
        _chunk_section(lines, no_split, markup, section_start, top, head, trail, chunks)
        while stack and stack[-1][0] >= h.level:
            stack.pop()
        stack.append((h.level, h.text))
        trail = TRAIL_SEPARATOR.join(part for _, part in stack if part)
        section_start = top
        # A heading's own lines (ATX, setext, an RST title with its adornment), unless they are also text.
        head = range(0) if h.body else range(h.start, min(h.end, len(lines)))

    _chunk_section(lines, no_split, markup, section_start, len(lines), head, trail, chunks)
    while ref is not None:
        autodoc_trails.append(trail)
        ref = next(refs, None)
    data, error = _front_matter(blocks.front_matter)
    lang, page_key = front_matter_language(data)
    return ChunkedNote(title=_title(data), chunks=chunks, aliases=_aliases(data), front_matter_error=error,
                       lang=None if lang is None else str(lang), page_key=None if page_key is None else str(page_key),
                       autodoc=parsed.autodoc, autodoc_trails=tuple(autodoc_trails),
                       shown=None if parsed.text is None else "\n".join(parsed.text))


def chunk_lines(lines: list[str], trail: str, start_line: int, end_line: int) -> list[Chunk]:
    """Text that is not a file's own lines (a docstring shown under an autodoc directive) chunked as one
    section under `trail`, every chunk pointing at the file's lines start_line..end_line."""
    out: list[Chunk] = []
    _chunk_section(lines, [False] * len(lines), [False] * len(lines), 0, len(lines), range(0), trail, out)
    return [Chunk(c.heading, c.text, start_line, end_line) for c in out]


def note_names(note: ChunkedNote) -> tuple[str, ...]:
    """The names a note is known by that none of its headings carries, for its keyword rows and its
    embedding header: the front-matter `title:` (a Docusaurus or Jekyll page draws it as its heading and
    often has no `#` line of its own), then its `aliases:`; each once, case-folded, in that order."""
    seen = {part.casefold() for c in note.chunks for part in c.heading.split(TRAIL_SEPARATOR) if part}
    out: list[str] = []
    for raw in (note.title or "", *note.aliases):
        name = cut_utf8(" ".join(raw.split()), MAX_HEADING_BYTES).rstrip()  # one line: stored newline-joined
        if name and name.casefold() not in seen:
            seen.add(name.casefold())
            out.append(name)
    return tuple(out)


def _section_top(lines: list[str], targets: frozenset[int], floor: int, heading: int) -> int:
    """Where the section of the heading on line `heading` starts: at the first of the MyST targets
    right above it (blank lines between allowed), else at the heading itself; never above `floor`."""
    if not targets:
        return heading
    top = i = heading
    while i > floor:
        i -= 1
        if i in targets:
            top = i
        elif lines[i] and not lines[i].isspace():
            break
    return top


def _verbatim_lines(blocks: Blocks, n: int) -> list[bool]:
    """True for every line inside a code or HTML block, where a blank line is content."""
    flags = [False] * n
    for start, end in blocks.verbatim:
        for i in range(start, min(end, n)):
            flags[i] = True
    return flags


def _front_matter(front_matter: str | None) -> tuple[dict[object, object], str | None]:
    """The front matter as a mapping ({} when there is none, it is broken YAML or not a mapping), and
    what is wrong with it when it is not YAML (the caller, who knows the file, logs it)."""
    if front_matter is None:
        return {}, None
    if len(front_matter) > MAX_FRONT_MATTER_CHARS:
        log.debug("front matter of %d characters not parsed for a title", len(front_matter))
        return {}, None
    try:
        data = yaml.load(front_matter, Loader=_YAML_LOADER)  # noqa: S506 - a safe loader
    except Exception as exc:  # noqa: BLE001 - any broken YAML (a bad date raises ValueError) means no title
        return {}, _yaml_problem(exc)
    return (data if isinstance(data, dict) else {}), None


def _yaml_problem(exc: Exception) -> str:
    """A one-line account of a YAML error, its line counted in the note (the front matter opens on line 2)."""
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc).split("\n", 1)[0]
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f"line {mark.line + 2}: " if mark is not None else ""
    return cut_utf8(f"{where}{' '.join(str(problem).split())}", 200)


def _title(data: dict[object, object]) -> str | None:
    """The front matter's string `title:`, or None (no front matter, broken YAML, no usable title)."""
    title = data.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    return None


MAX_ALIASES = 16  # a longer list is a data field, not names for the note


def _aliases(data: dict[object, object]) -> tuple[str, ...]:
    """Obsidian's `aliases:` (or `alias:`), a list or one string, as clean non-empty names."""
    raw = data.get("aliases", data.get("alias"))
    items = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    names = [" ".join(x.split()) for x in items if isinstance(x, str) and x.strip()]
    return tuple(cut_utf8(n, MAX_HEADING_BYTES).rstrip() for n in names[:MAX_ALIASES])


def _chunk_section(
    lines: list[str],
    no_split: list[bool],
    markup: list[bool],
    start: int,
    end: int,
    head: range,
    trail: str,
    out: list[Chunk],
) -> None:
    """Append the chunks of lines[start:end] (one section, its heading on lines `head`) to `out`."""
    first = -1  # index of the current chunk's first line, -1 when the chunk is empty
    last = -1
    size = 0  # bytes of lines[first:last+1] joined with "\n"
    pending = 0  # bytes the blank lines after `last` would add
    has_body = False  # the chunk holds a non-blank line besides the heading

    def flush() -> None:
        nonlocal first, size, pending, has_body
        if first >= 0 and has_body:
            out.append(Chunk(trail, "\n".join(lines[first : last + 1]), first + 1, last + 1))
        first, size, pending, has_body = -1, 0, 0, False

    for i in range(start, end):
        line = lines[i]
        if not line or line.isspace():
            if first < 0:
                continue
            if has_body and size >= SOFT_CHUNK_BYTES and not no_split[i]:
                flush()
            else:
                pending += utf8_len(line) + 1
            continue
        n = utf8_len(line)
        if n > HARD_CHUNK_BYTES:
            flush()
            if i not in head:  # a heading's pieces would be heading-only chunks
                out.extend(Chunk(trail, piece, i + 1, i + 1) for piece in _pieces(line))
            continue
        if first >= 0 and size + pending + 1 + n > HARD_CHUNK_BYTES:
            flush()
        if first < 0:
            first, size = i, n
        else:
            size += pending + 1 + n
        pending = 0
        last = i
        if i not in head and not markup[i]:
            has_body = True
    flush()


def _pieces(line: str) -> list[str]:
    """A line longer than HARD_CHUNK_BYTES cut into non-blank pieces that each fit."""
    data = line.encode("utf-8", "surrogatepass")
    pieces = []
    pos = 0
    while pos < len(data):
        cut = pos + HARD_CHUNK_BYTES
        if cut < len(data):
            cut = char_boundary(data, cut)
        piece = data[pos:cut].decode("utf-8", "surrogatepass")
        if piece and not piece.isspace():
            pieces.append(piece)
        pos = cut
    return pieces
