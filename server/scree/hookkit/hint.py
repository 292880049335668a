"""The hint's text, and the read-only SQLite layer that finds the sections it names.

`NotesIndex.rank` ranks by the literal pattern first (the phrase or identifier as written, checked
verbatim in the section's text), then by all of its words, then by any of them; one entry per
section (chunks of one section merge into one line range). `render` writes the hint: absolute
paths with line ranges the Read tool opens directly, and one instruction.
"""

from __future__ import annotations

import os
import _sqlite3 as sqlite3  # `sqlite3` itself also imports datetime, which the hooks never need
from collections import namedtuple

from ..notes.secondary import VERSIONED_COPIES_LATER, later, versioned
from ..notes.sectiontext import defines, mostly_list, named_only_by_directives, titled_by
from . import SEARCH_TOOL, VIA_CLI, VIA_NONE, VIA_TOOL
from .grepparse import GrepCall
from .patterns import asks_for_guess, pattern_words

MAX_HINT_CHARS = 700
# search_docs' expected_answer, as the hint shows it for a query in plain words.
EXPECT_ARG = ', expected_answer="<a sentence the answer might say>"'
MAX_SECTIONS = 3
RANK_CAP = 500  # most matches worth ranking by bm25 within the hook's time budget
# bm25 column weights (heading, text, names), as scree.db.schema.FTS_WEIGHTS; not imported to keep the hook light.
FTS_WEIGHTS = (3.0, 1.0, 3.0)
# `man/` holds manual pages, roff or DocBook (`notes/formats.py DOCBOOK_DIRS`), which scree reads there.
DOC_DIRS = frozenset({"doc", "docs", "documentation", "notes", "note", "adr", "adrs", "decisions", "wiki",
                      "rfc", "rfcs", "runbooks", "handbook", "design", "man", "manual"})
# The formats scree reads (notes/formats.py SUFFIX_KINDS, held equal by a test; not imported: the hook is
# stdlib only). `.txt` is left out: a grep of `*.txt` is mostly logs and requirement lists; `.pdf` too: grep
# cannot read one; `.ipynb` too: a grep of notebooks looks for their code. `.qmd` is Quarto's Markdown, `.Rmd` R's,
# `.Rd` an R package's help pages.
DOC_TYPES = frozenset({"md", "markdown", "mkd", "mdx", "rst", "asciidoc", "adoc", "org", "pod", "texinfo", "rdoc"})
# Plain-text docs by name (notes/formats.py PLAIN_DOC_NAMES, held equal by a test): a grep of `PROTOCOL*` or `INSTALL`
# reads docs scree holds. Upper case, as the convention writes them: `install/` is a folder of code.
PLAIN_DOC_NAMES = frozenset({"README", "INSTALL", "NEWS", "CHANGES", "HISTORY", "HACKING", "CONTRIBUTING", "PORTING",
                             "PROTOCOL", "FAQ", "BUGS", "NOTES", "USAGE", "BUILDING", "SECURITY", "UPGRADING"})
_DOC_EXTS = ("md", "markdown", "mdx", "mdown", "mkd", "mkdn", "rst", "rest", "adoc", "asciidoc", "org", "pod", "texi", "texinfo", "txi", "rdoc", "docbook", "dbk", "sgml", "qmd", "rmd", "rd")

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Sequence

    from .aim import Aim


class Section(namedtuple("Section", "path start_line end_line trail literal", defaults=("",))):
    """One indexed section of a note: `path:start-end  trail`; `literal`: the pattern text it holds
    verbatim ("" when none)."""

    __slots__ = ()
    path: str
    start_line: int
    end_line: int
    trail: str
    literal: str


class Hint(namedtuple("Hint", "key reason text sections")):
    """A hint to show: its text, the key that makes it once-per-pattern, and why it was given."""

    __slots__ = ()
    key: str
    reason: str  # "mention" (a section holds the pattern verbatim), "words", "docs", "prose"
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
    if target.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].rstrip("*").split(".", 1)[0] in PLAIN_DOC_NAMES:
        return True  # `PROTOCOL.agent`, `PROTOCOL*`, `src/INSTALL`
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
    """True when the search is aimed at docs (Markdown, reStructuredText, AsciiDoc) or at a docs/notes/ADR
    folder or a README."""
    if any(t.lower() in DOC_TYPES for t in call.types):
        return True
    targets = [*call.paths, *call.globs, *([call.cd] if call.cd else [])]
    if any(_doc_like(t, folder) for t in targets):
        return True
    if cwd and cwd != folder and cwd.startswith(folder.rstrip("/") + "/"):
        return _doc_like(cwd, folder)  # the session itself runs inside docs/
    return False


# ---------------------------------------------------------------- the text


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _clip_trail(trail: str, limit: int) -> str:
    """A heading trail cut from the left: its last heading is the one that tells sections apart."""
    trail = " ".join(trail.split())
    return trail if len(trail) <= limit else "…" + trail[len(trail) - limit + 1:].lstrip()


CLI_EXPECT_ARG = ' --expect "<a sentence the answer might say>"'


def _suggested_call(q: str, plain: bool, via: str) -> str | None:
    if via == VIA_NONE:
        return None
    if via == VIA_CLI:  # single-quoted: a pattern's `$` or backquote must not reach the shell
        quoted = "'" + q.replace("'", "'\\''") + "'"
        return f'`scree search{CLI_EXPECT_ARG if plain else ""} {quoted}` (in Bash)'
    return f'{SEARCH_TOOL}(query="{q}"' + (EXPECT_ARG if plain else "") + ")"


def render(query: str, reason: str, sections: Sequence[Section], folder: str, shown: str | None = None,
           via: str = VIA_TOOL) -> str:
    """The hint text (at most MAX_HINT_CHARS). `query` is the suggested search_docs query; `shown`
    the pattern as the agent wrote it (defaults to the query); `via` how the search is named (VIA_*)."""
    q = _clip(query, 80).replace('"', "'")
    x = _clip(shown or query, 80).replace('"', "'")
    # A question in plain words gets the agent's guess at the answer too (the skill's rule); a name or a
    # short keyword phrase does not (search would not use it).
    call = _suggested_call(q, asks_for_guess(query), via)
    verbatim = any(s.literal for s in sections)
    if sections and verbatim:
        head = f'scree: the indexed notes mention "{x}":'
        tail = "Read those lines first (the Read tool opens path:start-end)" + (
            f"; {call} finds notes worded differently." if call else ".")
    elif sections:
        head = f'scree: indexed notes related to "{x}" (not verbatim):'
        tail = (f"Call {call} for the sections that answer it, ranked by meaning and keyword." if call
                else "Read those lines (the Read tool opens path:start-end).")
    else:
        what = "searches the repo's docs" if reason == "docs" else "reads like a question for the notes"
        head = f"scree: this {what}, which scree has indexed."
        tail = (f"Call {call} to get the sections that answer it, with path:lines." if call
                else "Grep its docs with words the answer would use.")
    root = folder.rstrip("/")
    for trail_limit in (70, 40, 0):
        lines = []
        for s in sections:
            trail = _clip_trail(s.trail, trail_limit) if trail_limit else ""
            path = _clip(f"{root}/{s.path}", 200)
            # Under "mention", a section that does not hold the pattern as grep would match it says so
            # (issue 38): the agent reads the lines expecting the pattern there.
            near = "  (related, not verbatim)" if verbatim and not s.literal else ""
            lines.append(f"  {path}:{s.start_line}-{s.end_line}" + (f"  {trail}" if trail else "") + near)
        text = "\n".join([head, *lines, tail])
        if len(text) <= MAX_HINT_CHARS:
            return text
    return _clip("\n".join([head, tail]), MAX_HINT_CHARS)


# ---------------------------------------------------------------- the index, read-only


def phrase(literal: str) -> str:
    """An FTS5 phrase query for `literal` (its tokens, adjacent and in order); no FTS5 syntax survives."""
    return '"' + literal.replace('"', '""') + '"'


class NotesIndex:
    """A read-only view of one scree index through the stdlib sqlite3 (no sqlite-vec needed)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def has_notes(self) -> bool:
        """True when at least one section is indexed."""
        return self.conn.execute("select exists(select 1 from chunks)").fetchone()[0] == 1

    def covers(self, aim: Aim) -> bool:
        """True when an indexed note lies under what the search reads (one indexed query, LIMIT 1)."""
        cond, params = aim.sql("path")
        sql = f"select exists(select 1 from files where sha256 is not null and {cond})"
        return self.conn.execute(sql, params).fetchone()[0] == 1

    def count(self, match: str, cap: int) -> int:
        """How many chunks match, counting no further than `cap` (cheap: no ranking)."""
        sql = "select count(*) from (select 1 from chunks_fts where chunks_fts match ? limit ?)"
        return int(self.conn.execute(sql, (match, cap)).fetchone()[0])

    def _rows(self, match: str, scope: Aim | None, limit: int) -> list[tuple]:
        """The best chunks for an FTS5 MATCH, best first.

        bm25 scores every matching row, about 3 us each: a word found in thousands of chunks would
        eat the hook's budget. Past RANK_CAP matches only chunks whose heading matches are ranked,
        and when even those are too many (or none), the words are too common to point anywhere.
        """
        if self.count(match, RANK_CAP + 1) > RANK_CAP:
            match = "{heading} : (" + match + ")"
            if not 0 < self.count(match, RANK_CAP + 1) <= RANK_CAP:
                return []
        cond, params = scope.sql("f.path") if scope is not None else ("1", [])
        return self.conn.execute(
            "select f.path, c.start_line, c.end_line, c.heading, coalesce(f.title, ''), c.text "
            "from chunks_fts join chunks c on c.id = chunks_fts.rowid join files f on f.id = c.file_id "
            f"where chunks_fts match ? and f.sha256 is not null and {cond} "
            f"order by bm25(chunks_fts, {', '.join(map(str, FTS_WEIGHTS))}) limit ?",
            (match, *params, limit),
        ).fetchall()

    def rank(self, tiers: Sequence[tuple[str, bool]], literals: Sequence[str], scope: Aim | None,
             limit: int = MAX_SECTIONS) -> list[Section]:
        """Up to `limit` sections, one per (path, heading), taking tiers in order: each tier is an FTS5
        MATCH and whether only sections holding a literal verbatim count. With a `scope` (the search
        names part of the notes) every tier runs inside it first, then over all notes."""
        folded = [lit.casefold() for lit in literals]
        found: dict[tuple[str, str], list] = {}
        order: list[tuple[str, str]] = []
        passes: list[tuple[str, bool, Aim | None]] = [(m, v, scope) for m, v in tiers] if scope is not None else []
        passes += [(m, v, None) for m, v in tiers]
        for match, verbatim_only, where in passes:
            if len(order) >= limit:
                break
            rows = self._rows(match, where, limit * 4)
            if verbatim_only:  # titled by the pattern (its reference entry) first, then the entry that
                # defines it (a table row, list item or term opening with it), autodoc lines and lists last, as
                # search does
                rows.sort(key=lambda r: (not titled_by(str(r[3] or r[4]), literals),
                                         not defines(str(r[5]), literals),
                                         named_only_by_directives(str(r[5]), literals), mostly_list(str(r[5]))))
            # a Docusaurus copy for a past release and a test folder's note after the others, as search has them
            rows.sort(key=lambda r: later(str(r[0])))
            for path, start, end, heading, title, text in rows:
                trail = str(heading or title)
                key = (str(path), trail)
                if VERSIONED_COPIES_LATER and key not in found and _copy_listed(key, order):
                    continue
                body = (trail + "\n" + str(text)).casefold()
                literal = next((lit for lit, f in zip(literals, folded) if f in body), "")
                if verbatim_only and not literal:
                    continue
                entry = found.get(key)
                if entry is None:
                    if len(order) >= limit:
                        continue
                    found[key] = [int(start), int(end), literal]
                    order.append(key)
                else:  # another chunk of a listed section: one line, one range
                    entry[0], entry[1] = min(entry[0], int(start)), max(entry[1], int(end))
                    entry[2] = entry[2] or literal
        return [Section(p, found[(p, t)][0], found[(p, t)][1], t, found[(p, t)][2]) for p, t in order]

    def close(self) -> None:
        self.conn.close()


def _copy_listed(key: tuple[str, str], listed: Sequence[tuple[str, str]]) -> bool:
    """True when `key` (path, trail) is a versioned copy of a section already `listed`: the current one (its path
    ending with the copy's path below the version folder) or another version's copy."""
    copy = versioned(key[0])
    if copy is None:
        return False
    rest = copy[1]
    for path, trail in listed:
        if trail == key[1] and (path == rest or path.endswith("/" + rest) or (versioned(path) or ("", ""))[1] == rest):
            return True
    return False


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
