"""Decide whether a search is one the notes can answer, and write the hint that says where.

`decide` is pure: it gets the parsed call and a `lookup(match, limit)` function, so tests can
drive it without a database; `open_notes` / `NotesIndex` are the thin read-only SQLite layer.
"""

from __future__ import annotations

import os
import sqlite3
from collections import namedtuple

from ..ftsquery import to_match
from . import SEARCH_TOOL
from .grepparse import GrepCall
from .patterns import all_words_match, is_plain_language, pattern_words

MAX_HINT_CHARS = 600
MAX_SECTIONS = 3
RANK_CAP = 500  # most matches worth ranking by bm25 within the hook's time budget
# bm25 column weights (heading, text), as scree.db.schema.FTS_WEIGHTS; not imported to keep the hook light.
FTS_WEIGHTS = (3.0, 1.0)
DOC_DIRS = frozenset({"doc", "docs", "documentation", "notes", "note", "adr", "adrs", "decisions", "wiki",
                      "rfc", "rfcs", "runbooks", "handbook", "design"})
DOC_TYPES = frozenset({"md", "markdown", "mkd", "mdx"})
_DOC_EXTS = ("md", "markdown", "mdx", "mdown", "mkd", "mkdn")

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Callable, Sequence

    Lookup = Callable[[str, int], Sequence["Section"]]


class Section(namedtuple("Section", "path start_line end_line trail")):
    """One indexed section of a note: `path:start-end  trail`."""

    __slots__ = ()
    path: str
    start_line: int
    end_line: int
    trail: str


class Hint(namedtuple("Hint", "key reason text sections")):
    """A hint to show: its text, the key that makes it once-per-pattern, and why it was given."""

    __slots__ = ()
    key: str
    reason: str  # "match" (the notes hold the words), "docs" (the call targets notes), "prose"
    text: str
    sections: tuple[Section, ...]


def choose_call(calls: Sequence[GrepCall]) -> GrepCall | None:
    """The first call that searches files for a pattern (not a `ps | grep x` filter, not `-f patterns`)."""
    for call in calls:
        if call.patterns and any(p.strip() for p in call.patterns) and not (call.reads_stdin and not call.paths):
            return call
    return None


def hint_key(call: GrepCall) -> str:
    """What makes two searches "the same pattern" for the once-per-pattern rule (case and regex syntax aside)."""
    words = pattern_words(call.patterns, call.syntax)
    if words:
        return " ".join(sorted({w.lower() for w in words}))
    return "\n".join(sorted(p.strip().lower() for p in call.patterns))


def _doc_like(target: str, folder: str) -> bool:
    if not target or target.startswith("!"):
        return False
    if os.path.isabs(target):
        if target != folder and not target.startswith(folder.rstrip("/") + "/"):
            return False  # outside the project: this index does not cover it
        target = target[len(folder):]
    low = target.lower().replace("\\", "/")
    for ext in _DOC_EXTS:  # *.md, x.md, *.{md,txt}, \.md$
        for lead in (".", "{", ","):
            at = low.find(lead + ext)
            while at >= 0:
                end = at + 1 + len(ext)
                if end == len(low) or not low[end].isalnum():
                    return True
                at = low.find(lead + ext, at + 1)
    parts = [p for p in low.split("/") if p not in ("", ".", "..", "**", "*")]
    return any(p in DOC_DIRS or p.startswith("readme") for p in parts)


def targets_docs(call: GrepCall, folder: str, cwd: str | None = None) -> bool:
    """True when the search is aimed at Markdown or at a docs/notes/ADR folder or a README."""
    if any(t.lower() in DOC_TYPES for t in call.types):
        return True
    targets = [*call.paths, *call.globs, *([call.cd] if call.cd else [])]
    if any(_doc_like(t, folder) for t in targets):
        return True
    if cwd and cwd != folder and cwd.startswith(folder.rstrip("/") + "/"):
        return _doc_like(cwd, folder)  # the session itself runs inside docs/
    return False


def decide(call: GrepCall, folder: str, cwd: str | None, lookup: Lookup) -> Hint | None:
    """The hint for this search, or None when the notes cannot help.

    Suggest when the notes hold every word of the pattern (the sections are then named), when the
    call targets Markdown/docs paths, or when the pattern reads as a phrase of prose; stay quiet
    otherwise (say a regex over source files whose words the notes never mention).
    """
    words = pattern_words(call.patterns, call.syntax)
    prose = next((p.strip() for p in call.patterns if is_plain_language(p)), "")
    query = prose or " ".join(words)
    sections: Sequence[Section] = ()
    reason = ""
    strong = all_words_match(call.patterns, call.syntax) if sum(len(w) for w in words) >= 3 else None
    if strong:
        sections = lookup(strong, MAX_SECTIONS)
        reason = "match" if sections else ""
    if not reason:
        if prose:
            reason = "prose"
        elif words and targets_docs(call, folder, cwd):
            reason = "docs"
        else:
            return None
        loose = to_match(" ".join(words)) if words else None
        sections = lookup(loose, MAX_SECTIONS) if loose else ()
    return Hint(key=hint_key(call), reason=reason, text=render(query, reason, sections),
                sections=tuple(sections))


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def render(query: str, reason: str, sections: Sequence[Section]) -> str:
    """The hint text (at most MAX_HINT_CHARS): what the notes hold, and the tool that searches them."""
    q = _clip(query, 80).replace('"', "'")
    if sections and reason == "match":
        head = f'scree: the indexed notes mention "{q}":'
    elif sections:
        head = f'scree: indexed notes related to "{q}":'
    elif reason == "docs":
        head = "scree: this search targets the repo's Markdown notes, which scree has indexed."
    else:
        head = "scree: this reads like a question for the repo's Markdown notes, which scree has indexed."
    tail = (f'{SEARCH_TOOL}(query="{q}") ranks sections by meaning and keyword and returns their text'
            + (", including notes worded differently." if sections else " with path:lines."))
    for trail_limit in (70, 40, 0):
        lines = []
        for s in sections:
            trail = _clip(s.trail, trail_limit) if trail_limit else ""
            lines.append(f"  {_clip(s.path, 120)}:{s.start_line}-{s.end_line}" + (f"  {trail}" if trail else ""))
        text = "\n".join([head, *lines, tail])
        if len(text) <= MAX_HINT_CHARS:
            return text
    return _clip("\n".join([head, tail]), MAX_HINT_CHARS)


# ---------------------------------------------------------------- the index, read-only


class NotesIndex:
    """A read-only view of one scree index through the stdlib sqlite3 (no sqlite-vec needed)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def has_notes(self) -> bool:
        """True when at least one section is indexed."""
        return self.conn.execute("select exists(select 1 from chunks)").fetchone()[0] == 1

    def count(self, match: str, cap: int) -> int:
        """How many sections match, counting no further than `cap` (cheap: no ranking)."""
        sql = "select count(*) from (select 1 from chunks_fts where chunks_fts match ? limit ?)"
        return int(self.conn.execute(sql, (match, cap)).fetchone()[0])

    def sections(self, match: str, limit: int) -> list[Section]:
        """The best `limit` sections for an FTS5 MATCH string, best first (one per path:lines).

        bm25 scores every matching row, about 3 us each: a word found in thousands of sections
        would eat the hook's budget. Past RANK_CAP matches only sections whose heading matches
        are ranked, and when even those are too many (or none), the words are too common to
        point anywhere: no sections.
        """
        if self.count(match, RANK_CAP + 1) > RANK_CAP:
            match = "{heading} : (" + match + ")"
            if not 0 < self.count(match, RANK_CAP + 1) <= RANK_CAP:
                return []
        rows = self.conn.execute(
            "select f.path, c.start_line, c.end_line, c.heading, coalesce(f.title, '') "
            "from chunks_fts join chunks c on c.id = chunks_fts.rowid join files f on f.id = c.file_id "
            "where chunks_fts match ? and f.sha256 is not null "
            f"order by bm25(chunks_fts, {FTS_WEIGHTS[0]}, {FTS_WEIGHTS[1]}) limit ?",
            (match, limit * 2),
        ).fetchall()
        out: list[Section] = []
        seen: set[tuple[str, int]] = set()
        for path, start, end, heading, title in rows:
            if (path, start) in seen:
                continue
            seen.add((path, start))
            out.append(Section(str(path), int(start), int(end), str(heading or title)))
            if len(out) == limit:
                break
        return out

    def close(self) -> None:
        self.conn.close()


def open_notes(db_path: str, timeout: float = 0.25) -> NotesIndex | None:
    """Open the index read-only, or None when there is no index file. Raises sqlite3.Error on a bad file."""
    if not os.path.isfile(db_path):
        return None
    uri = "file:" + db_path.replace("%", "%25").replace("?", "%3f").replace("#", "%23") + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("select count(*) from sqlite_master").fetchone()  # a garbage file fails here
    except BaseException:
        conn.close()
        raise
    return NotesIndex(conn)
