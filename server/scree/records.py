"""Records that cross module boundaries (walk -> read -> chunk -> embed -> store -> search)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Chunk:
    """One retrievable piece of a note: a heading trail and the text under it.

    `heading` is the trail joined with " > " (empty for text before the first heading).
    Lines are 1-based and point at the first and last non-blank source line of `text`.
    """

    heading: str
    text: str
    start_line: int
    end_line: int


@dataclass(frozen=True)
class AutodocRef:
    """A Sphinx autodoc directive (`.. autoclass:: flask.Flask`): the page's text for it lives in the named
    object's docstring, which `notes/autodoc.py` reads from the repository's source."""

    line: int  # 0-based line of the directive
    end: int  # the line after its option lines
    directive: str  # "autoclass", "autofunction", "automodule", ...
    target: str  # the name as written (a signature in parentheses may follow)
    module: str  # the module in effect (`.. currentmodule::`), "" when none
    options: frozenset[str] = frozenset()  # option names: "members", "undoc-members", ...
    members: tuple[str, ...] = ()  # the names `:members: a, b` lists (none: every public member)
    values: tuple[tuple[str, str], ...] = ()  # every option with its value (`:lines: 3-9` of a literalinclude)


@dataclass(frozen=True)
class ChunkedNote:
    """What the chunker makes of one note, whatever its format."""

    title: str | None
    chunks: list[Chunk]
    aliases: tuple[str, ...] = ()  # front matter `aliases:` (Obsidian): other names of the note
    front_matter_error: str | None = None  # why the front matter is not YAML scree could read (None: it is, or none)
    lang: str | None = None  # front matter `lang:`/`language:`/`locale:` as written (notes/language.py checks it)
    page_key: str | None = None  # front matter `translationKey:`/`permalink:`: the page its translations share
    autodoc: tuple[AutodocRef, ...] = ()  # reStructuredText autodoc and literalinclude directives, in order
    autodoc_trails: tuple[str, ...] = ()  # the section trail of each `autodoc` entry
    # The note's text as its reader shows it, where the reader writes its own lines (a module's POD without its Perl
    # code, a manual page without its macros); None when it is the note's own text.
    shown: str | None = None


@dataclass(frozen=True)
class NoteText:
    """A note read from disk under the policy: its text and what identifies this version of it."""

    rel_path: str  # POSIX path relative to the notes folder
    text: str
    sha256: str  # of the raw bytes
    mtime_ns: int
    size: int
    warnings: tuple[str, ...] = ()  # e.g. "invalid UTF-8 replaced"


@dataclass(frozen=True)
class Skipped:
    """A path the walker or reader passed over, and why (reported, never silent)."""

    rel_path: str
    reason: str
    # True for a folder that could not be listed: the index keeps what it has under it, since
    # "cannot see" is not "was emptied" (a sync must not delete those notes' rows).
    keep_rows: bool = False


@dataclass(frozen=True)
class Hit:
    """One search result, in the shape of the benchmark's JSON contract."""

    path: str
    heading: str
    start_line: int
    end_line: int
    score: float
    text: str
    also_in: tuple[str, ...] = ()  # copies of this page in other languages, folded into this hit (issue 27)


@dataclass
class SearchResult:
    """The answer to one query: ranked hits plus the mode that was really used."""

    hits: list[Hit]
    mode: str
    notes: list[str] = field(default_factory=list)  # human-readable remarks (filter selected nothing...)
    names: list[str] = field(default_factory=list)  # query words taken as names (identifiers, vocabulary)


@dataclass(frozen=True)
class FilesExcept:
    """Every indexed note but `ids`: a search's file scope written by what it leaves out, where that is the short side
    (all notes but the test folders' and the versioned copies: a list of the others bound one SQL variable per note,
    8 ms at 13,000 notes, and SQLite refuses more than 32,766). `file_id in scope` reads as for a list."""

    ids: frozenset[int]

    def __contains__(self, file_id: object) -> bool:
        return file_id not in self.ids


# The notes a search may answer from (`search.search`'s `within`, the queries' `file_ids`): these, or all but these.
FileScope = Sequence[int] | FilesExcept
