"""The docstrings a page's autodoc directives show, as sections of that page: search's chunks (`autodoc_chunks`,
which the sync indexes) and read_doc's excerpts (`docstring_excerpt`, `with_own_docstrings`). What each directive
shows is `notes/autodoc.py`'s; how a docstring's reStructuredText divides it, `notes/docstringrst.py`'s. Pure but for
`find`."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace

from . import docstringrst, modapi, rstblocks
from .autodoc import MAX_OBJECTS_PER_PAGE, MKDOCSTRINGS, Documented, ModuleFinder, Resolver, summary_name
from .autodocdefaults import with_defaults
from .chunker import TRAIL_SEPARATOR, chunk_lines
from .docstringrst import docstring_sections, opening_title
from .sectiontext import HEADING_DIRECTIVE, MKDOCSTRINGS_MARK
from ..records import AutodocRef, Chunk, ChunkedNote
from .sections import Excerpt, chunks_excerpt, joined_chunks, split_lines
from .utf8 import cut_utf8

log = logging.getLogger(__name__)


def autodoc_chunks(note: ChunkedNote, find: ModuleFinder, summary_members: bool = False,
                   defaults: Mapping[str, str] | None = None) -> list[Chunk]:
    """The chunks of every docstring `note`'s autodoc directives show, in the directives' order (`summary_members`:
    the project's autosummary template shows a listed class's members, `ModuleFiles.summary_members`; `defaults`: its
    conf.py's `autodoc_default_options`, `ModuleFiles.autodoc_defaults`)."""
    if not note.autodoc:
        return []
    resolver = Resolver(find, summary_members=summary_members)
    out: list[Chunk] = []
    budget = [MAX_OBJECTS_PER_PAGE]  # objects still shown on this page
    # a member the page also lists by name has its own entry there: not shown twice
    listed = {summary_name(ref) for ref in note.autodoc if ref.directive == rstblocks.AUTOSUMMARY}
    pairs = ((with_defaults(one, defaults or {}), trail) for ref, trail in zip(note.autodoc, note.autodoc_trails)
             for one in (modapi.expanded(ref, find) if ref.directive == modapi.DIRECTIVE else (ref,)))
    for ref, trail in pairs:
        if ref.directive in rstblocks.NOT_DOCSTRINGS:  # a file's lines (`notes/includes.py`), a parser's options
            continue
        shown = resolver.documented(ref)
        if ref.directive == rstblocks.AUTOSUMMARY:
            shown = [obj for obj in shown if not (obj.member and obj.name in listed)]
        module_title = ""
        # an automodule's first object is the module's own docstring when it has one
        own = ref.directive == "automodule" and bool(shown) and shown[0].name == ref.target.strip().lstrip("~")
        if docstringrst.MODULE_TITLES and own:
            module_title, doc = opening_title(shown[0].doc)
            if module_title:  # the module's docstring opens with a title: its section, the members under it
                trail = f"{trail}{TRAIL_SEPARATOR}{module_title}" if trail else module_title
                shown[0] = replace(shown[0], doc=doc)
        for obj in shown:
            title = trail.rsplit(TRAIL_SEPARATOR, 1)[-1]
            if module_title and obj is shown[0]:
                heading = trail  # the module's own text is its title's section
            elif rstblocks.SAME_SUBJECT_MERGED and ref.directive != rstblocks.AUTOSUMMARY \
                    and rstblocks.same_subject(title.removeprefix(HEADING_DIRECTIVE), obj.name):
                # the section titled by the object holds its docstring (`rstblocks.same_subject`), and so does a
                # heading that is a mkdocstrings directive (`# ::: griffe.Class`); not a name an autosummary lists,
                # whose docstring is a page of its own ("PageRank" lists `pagerank` and `google_matrix`)
                heading = trail
            else:
                heading = f"{trail}{TRAIL_SEPARATOR}{obj.name}" if trail else obj.name
            if not _emit(obj, heading, ref, out, budget):
                return out
            if INNER_DIRECTIVES and own and obj is shown[0]:
                # the autodoc directives the module's docstring holds, read in that module (werkzeug's middleware)
                for inner in rstblocks.parse_rst(split_lines(obj.doc)).autodoc:
                    if inner.directive in rstblocks.NOT_DOCSTRINGS or inner.directive == "automodule":
                        continue
                    inner = replace(inner, line=ref.line, end=ref.end, module=inner.module or obj.name)
                    for member in resolver.documented(inner):
                        if not _emit(member, f"{heading}{TRAIL_SEPARATOR}{member.name}", ref, out, budget):
                            return out
    return out


def _emit(obj: Documented, heading: str, ref: AutodocRef, out: list[Chunk], budget: list[int]) -> bool:
    """Appends `obj`'s docstring chunks under `heading`, pointing at `ref`'s lines; False once the page's budget of
    objects is spent."""
    budget[0] -= 1
    if budget[0] < 0:
        log.info("autodoc: more than %d objects on one page; the rest are left out", MAX_OBJECTS_PER_PAGE)
        return False
    note_line = f"({docstring_note(obj, generated=ref.directive == MKDOCSTRINGS)})"
    text = f"{obj.signature}\n\n{obj.doc}"
    # A long docstring takes several chunks: each ends with the note, so each says whose it is (added
    # after the split: split with the text, the note was once a chunk of its own)
    for trail_of, lines in docstring_sections(text.split("\n"), heading):
        chunks = chunk_lines(lines, trail_of, ref.line + 1, max(ref.end, ref.line + 1))
        out.extend(replace(c, text=f"{c.text}\n\n{note_line}") for c in chunks)
    return True


# Sphinx reads a docstring as reStructuredText in its module, so an autodoc directive in a module's docstring shows
# that object there (werkzeug's middleware modules each end their docstring with `.. autoclass:: ProxyFix`): its entry
# is a section of the module's. Measured (docs/benchmarks.md): INNER_DIRECTIVES.
INNER_DIRECTIVES = True


def docstring_note(obj: Documented, generated: bool = False) -> str:
    """What ends each chunk of `obj`'s docstring, in parentheses: whose it is (`search.ranking.docstring_of` reads
    that), where it was read (`db.queries.files_citing` reads it back), and whether only a `:members:` option shows
    it (and, for a name an automodule's `__all__` re-exports, which module shows it), and whether a mkdocstrings
    directive shows it (`generated`: `search.ranking.GUIDES_BEFORE_MKDOCSTRINGS` reads that)."""
    member = f", a member of {obj.name.rpartition('.')[0]}" if obj.member else ""
    shown = f", re-exported by {obj.reexported_by}" if obj.reexported_by else ""
    by = MKDOCSTRINGS_MARK if generated else ""
    return f"docstring of {obj.name}{member}{shown}{by}: {obj.where}"



def docstring_excerpt(text: str, kind: str, heading: str, find: ModuleFinder, max_bytes: int,
                      summary_members: bool = False, defaults: Mapping[str, str] | None = None) -> Excerpt | None:
    """read_doc of a section that only an autodoc directive makes (`API > flask.Flask`): the docstring, as
    search showed it, with the directive's lines. None when no directive of the page shows that heading."""
    from .chunker import chunk_note  # the chunker imports nothing of this module; kept local to say so

    note = chunk_note(text, kind)
    if not note.autodoc:
        return None
    remark = "a docstring this page's autodoc directive shows (lines start_line-end_line hold the directive)"
    return chunks_excerpt(autodoc_chunks(note, find, summary_members, defaults), heading, text, max_bytes, remark)


def with_own_docstrings(ex: Excerpt, text: str, kind: str, find: ModuleFinder, max_bytes: int,
                        summary_members: bool = False, defaults: Mapping[str, str] | None = None) -> Excerpt:
    """read_doc of a section titled by the object an autodoc directive in it shows (`capteesys` holding
    `.. autofunction:: _pytest.capture.capteesys`): its lines, then that docstring, as search showed them
    under the section's own trail (`rstblocks.same_subject`). Any other excerpt is returned as it is."""
    from .chunker import chunk_note  # the chunker imports nothing of this module; kept local to say so

    if ex.heading is None or (".. auto" not in ex.text and "::: " not in ex.text):
        return ex
    note = chunk_note(text, kind)
    own = [c for c in autodoc_chunks(note, find, summary_members, defaults) if c.heading == ex.heading]
    if not own:
        return ex
    head = ex.text.rstrip("\n")
    body = cut_utf8(f"{head}\n\n{joined_chunks(own)}", max_bytes)
    remark = "after the section's lines, the docstring its autodoc directive shows"
    return replace(ex, text=body, note=f"{ex.note}; {remark}" if ex.note else remark)
