"""Every read query against the index. Nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass
import re
from typing import Any, Sequence

from . import literal
from .schema import FTS_WEIGHTS
from ..records import FileScope, FilesExcept


def get_meta(conn: Any) -> dict[str, str]:
    try:
        return dict(conn.execute("select key, value from meta").fetchall())
    except Exception:
        return {}


def has_vec_table(conn: Any) -> bool:
    return conn.execute("select 1 from sqlite_master where name = 'chunks_vec'").fetchone() is not None


@dataclass(frozen=True)
class StoredFile:
    id: int
    path: str
    sha256: str | None
    mtime_ns: int
    size: int
    chunks: int
    lang: str | None = "und"  # None: indexed before languages were decided (the next sync decides)
    indexed: bool = True  # False: SCREE_LANGUAGES left its language out


def stored_files(conn: Any) -> dict[str, StoredFile]:
    """Every file row by path (sha256 None = its rows were never completely committed)."""
    rows = conn.execute("select id, path, sha256, mtime_ns, size, chunks, lang, indexed from files").fetchall()
    return {r[1]: StoredFile(int(r[0]), r[1], r[2], int(r[3]), int(r[4]), int(r[5]), r[6], bool(r[7])) for r in rows}


def indexed_paths(conn: Any) -> list[str]:
    """The paths of the notes the index holds (not those SCREE_LANGUAGES leaves out)."""
    try:
        return [str(p) for (p,) in conn.execute("select path from files where indexed != 0").fetchall()]
    except Exception:  # an index from before languages (schema 5)
        return [str(p) for (p,) in conn.execute("select path from files").fetchall()]


def file_paths(conn: Any) -> list[tuple[int, str]]:
    return [(int(i), str(p)) for i, p in conn.execute("select id, path from files order by path").fetchall()]


@dataclass(frozen=True)
class Counts:
    files: int  # notes indexed (a note whose language SCREE_LANGUAGES leaves out is not)
    chunks: int
    incomplete_files: int
    left_out: int = 0  # notes whose language SCREE_LANGUAGES leaves out


def counts(conn: Any) -> Counts:
    try:
        files, incomplete, left_out = conn.execute(
            "select count(*), coalesce(sum(sha256 is null), 0), coalesce(sum(indexed = 0), 0) from files"
        ).fetchone()
    except Exception:  # an index from before languages (schema 5), read as it is
        files, incomplete = conn.execute("select count(*), coalesce(sum(sha256 is null), 0) from files").fetchone()
        left_out = 0
    (chunks,) = conn.execute("select count(*) from chunks").fetchone()
    return Counts(int(files) - int(left_out), int(chunks), int(incomplete), int(left_out))


@dataclass(frozen=True)
class LanguageCount:
    """How many notes of one language the index holds, and how they are searched."""

    lang: str  # a code, 'und' (cannot tell), or '' (not decided yet: an index from before languages)
    files: int  # notes indexed
    keyword_only: int  # of those, notes whose chunks are keyword-only (the embedder does not read them)
    left_out: int  # notes SCREE_LANGUAGES leaves out (not indexed)


def language_counts(conn: Any) -> list[LanguageCount]:
    """Per language, most notes first; [] for an index from before languages."""
    try:
        rows = conn.execute(
            "select coalesce(f.lang, ''), sum(f.indexed = 1), sum(f.indexed = 1 and exists (select 1 from chunks c "
            "where c.file_id = f.id and c.windows < 0)), sum(f.indexed = 0) from files f group by 1 "
            "order by 2 desc, 1").fetchall()
    except Exception:
        return []
    return [LanguageCount(str(r[0]), int(r[1]), int(r[2]), int(r[3])) for r in rows]


def indexed_languages(conn: Any) -> dict[str, int]:
    """Language -> notes indexed in it (`und`: cannot tell, or not decided yet)."""
    rows = conn.execute("select coalesce(lang, 'und'), count(*) from files where indexed = 1 group by 1").fetchall()
    return {str(lang): int(n) for lang, n in rows}


def stored_languages(conn: Any) -> list[str]:
    """The distinct languages of the stored notes (not those not decided yet)."""
    return [str(r[0]) for r in conn.execute("select distinct lang from files where lang is not null").fetchall()]


def embedded_chunks(conn: Any, batch: int = 512):  # -> Iterator[tuple[str, str, str, str]]
    """(path, heading, text, file names) of every chunk with vectors, in batches (what stage two read)."""
    cur = conn.execute("select f.path, c.heading, c.text, f.names from chunks c join files f on f.id = c.file_id "
                       "where c.windows > 0")
    while True:
        rows = cur.fetchmany(batch)
        if not rows:
            return
        yield from rows


def files_with_marks(conn: Any, marks: Sequence[str]) -> list[tuple[int, str]]:
    """(id, path) of the indexed notes whose path, after a "/", holds one of `marks` (`notes.secondary`: a Docusaurus
    versioned folder, a test folder: "/t/" is in "/t/README"), case-folded."""
    if not marks:
        return []
    held = " or ".join("instr('/' || lower(path), ?) > 0" for _ in marks)
    rows = conn.execute(f"select id, path from files where indexed = 1 and ({held})", [m.casefold() for m in marks])
    return [(int(i), str(p)) for i, p in rows.fetchall()]


def file_ids_in_languages(conn: Any, langs: Sequence[str], among: bool = True) -> list[int]:
    """Ids of the indexed notes whose language is one of `langs` (`among=False`: is none of them)."""
    marks = ",".join("?" * len(langs)) or "null"
    neg = "" if among else "not "
    rows = conn.execute(f"select id from files where indexed = 1 and coalesce(lang, 'und') {neg}in ({marks})",
                        list(langs)).fetchall()
    return [int(r[0]) for r in rows]


@dataclass(frozen=True)
class PageCopy:
    path: str
    lang: str
    page: str


def page_copies(conn: Any, paths: Sequence[str]) -> dict[str, list[PageCopy]]:
    """For each of `paths`: every indexed note of the same page (itself included, first): the same page key
    (its path without the language marker), or the same page named by front matter (`alias`)."""
    if not paths:
        return {}
    marks = ",".join("?" * len(paths))
    rows = conn.execute(
        "select a.path, b.path, coalesce(b.lang, 'und'), b.page from files a join files b on b.page = a.page "
        f"and b.indexed = 1 where a.path in ({marks}) and a.page != '' union "
        "select a.path, b.path, coalesce(b.lang, 'und'), b.page from files a join files b on b.alias = a.alias "
        f"and b.indexed = 1 where a.path in ({marks}) and a.alias != ''",
        list(paths) * 2).fetchall()
    out: dict[str, list[PageCopy]] = {}
    for src, path, lang, page in rows:
        out.setdefault(str(src), []).append(PageCopy(str(path), str(lang), str(page)))
    return out


@dataclass(frozen=True)
class VectorProgress:
    """Stage two's progress: chunks with their vectors, of all chunks (keyword search covers all)."""

    embedded: int
    total: int

    @property
    def complete(self) -> bool:
        return self.embedded >= self.total


def vector_progress(conn: Any) -> VectorProgress:
    """Chunks with vectors, of the chunks that will have them: a keyword-only chunk (windows < 0, its
    note's language is not one the embedder reads) is never embedded and not counted."""
    (total,) = conn.execute("select count(*) from chunks").fetchone()
    (missing,) = conn.execute("select count(*) from chunks where windows = 0").fetchone()
    (never,) = conn.execute("select count(*) from chunks where windows < 0").fetchone()
    return VectorProgress(int(total) - int(missing) - int(never), int(total) - int(never))


@dataclass(frozen=True)
class PendingChunk:
    """A chunk stored by stage one whose vectors stage two has yet to make."""

    id: int
    file_id: int
    path: str
    heading: str
    text: str
    names: str = ""  # the file's other names, newline-joined (its embedding header carries them)


def pending_files(conn: Any) -> list[tuple[int, str, int]]:
    """(file id, path, mtime_ns) of every file with chunks still lacking vectors, most recently modified first."""
    rows = conn.execute(
        "select f.id, f.path, f.mtime_ns from files f where exists "
        "(select 1 from chunks c where c.file_id = f.id and c.windows = 0) order by f.mtime_ns desc, f.path"
    ).fetchall()
    return [(int(i), str(p), int(m)) for i, p, m in rows]


def pending_chunks(conn: Any, file_id: int) -> list[PendingChunk]:
    rows = conn.execute(
        "select c.id, c.file_id, f.path, c.heading, c.text, f.names from chunks c join files f on f.id = c.file_id "
        "where c.file_id = ? and c.windows = 0 order by c.seq", (file_id,)).fetchall()
    return [PendingChunk(int(r[0]), int(r[1]), r[2], r[3], r[4], r[5]) for r in rows]


def unembedded(conn: Any, ids: Sequence[int]) -> set[int]:
    """Which of these chunks have no vectors yet (stored by stage one, not reached by stage two)."""
    if not ids:
        return set()
    rows = conn.execute(f"select id from chunks where windows = 0 and id in ({','.join('?' * len(ids))})",
                        list(ids)).fetchall()
    return {int(r[0]) for r in rows}


def has_chunks(conn: Any) -> bool:
    """True when at least one chunk is indexed (a search's cheap emptiness check, no count)."""
    return conn.execute("select 1 from chunks limit 1").fetchone() is not None


def _in_clause(column: str, ids: FileScope | None) -> tuple[str, list[int]]:
    if ids is None:
        return "", []
    if isinstance(ids, FilesExcept):  # all but these: the short list is bound
        left_out = sorted(ids.ids)
        return (f" and {column} not in ({','.join('?' * len(left_out))})", left_out) if left_out else ("", [])
    return f" and {column} in ({','.join('?' * len(ids))})", list(ids)


def keyword_search(conn: Any, match: str, limit: int, file_ids: FileScope | None = None, *,
                   table: str = "chunks_fts", without_cjk: bool = False,
                   per_section: int | None = None) -> list[tuple[int, float]]:
    """(chunk id, bm25 score as a positive number, higher is better), best first.

    `per_section` keeps at most that many chunks of one section (file and heading trail), the best ones, before
    the `limit` cut: a huge section whose chunks all match cannot fill the candidates (issue 36, item 3).

    `table` is `chunks_fts` (every chunk, as unicode61 reads it) or `chunks_cjk` (the chunks holding
    Chinese, Japanese or Korean text, their runs as bigrams: db/cjk.py); `without_cjk` leaves out of a
    `chunks_fts` search the chunks that have a `chunks_cjk` row (a query in those scripts ranks them there)."""
    if table not in ("chunks_fts", "chunks_cjk"):
        raise ValueError(f"no keyword table {table!r}")
    clause, params = _in_clause("c.file_id", file_ids)
    if without_cjk:
        clause += " and c.cjk = 0"
    weights = ", ".join(str(w) for w in FTS_WEIGHTS)
    if per_section is None:
        sql = (
            f"select c.id, -bm25({table}, {weights}) as score "
            f"from {table} join chunks c on c.id = {table}.rowid "
            f"where {table} match ?{clause} order by bm25({table}, {weights}) limit ?"
        )
        return [(int(i), float(s)) for i, s in conn.execute(sql, [match, *params, limit]).fetchall()]
    # bm25() is only callable in the query that matches: scores are materialised first, then numbered.
    sql = (
        f"with matched as materialized (select c.id as id, c.file_id as file_id, c.heading as heading, "
        f"-bm25({table}, {weights}) as score from {table} join chunks c on c.id = {table}.rowid "
        f"where {table} match ?{clause}), "
        "numbered as (select id, score, row_number() over (partition by file_id, heading order by score desc) "
        "as nth from matched) "
        "select id, score from numbered where nth <= ? order by score desc limit ?"
    )
    return [(int(i), float(s)) for i, s in conn.execute(sql, [match, *params, per_section, limit]).fetchall()]


def verbatim_search(conn: Any, needle: str, limit: int, file_ids: FileScope | None = None, *,
                    fold: bool = False) -> list[tuple[int, float]]:
    """(chunk id, times `needle` occurs in its heading and text), most first: for a query of symbols
    (an emoji) that the FTS5 tokenizer drops, so no MATCH can find it, and for a name whose punctuation is
    the name (`%%comment%%`, `path:`). `fold`: ASCII letters compared without case (`needle` folded)."""
    clause, params = _in_clause("file_id", file_ids)
    hay = "lower(heading || char(10) || text)" if fold else "(heading || char(10) || text)"
    sql = (f"select id, (length({hay}) - length(replace({hay}, ?, ''))) / length(?) as n from chunks "
           f"where instr({hay}, ?) > 0{clause} order by n desc, id limit ?")
    return [(int(i), float(n)) for i, n in conn.execute(sql, [needle, needle, needle, *params, limit]).fetchall()]


# A chunk's heading and text as a case-folded needle is looked for in; a chunk the literal index offers for a needle.
_FOLDED = "lower(heading || char(10) || text)"
_LITERAL_CANDIDATE = "id in (select rowid from chunks_literal where chunks_literal match ?)"


def literal_search(conn: Any, needle: str, limit: int,
                   file_ids: FileScope | None = None) -> list[tuple[int, float]]:
    """What `verbatim_search(..., fold=True)` answers ((chunk id, times the case-folded `needle` occurs in its
    heading and text), most first, then by id), its candidates found by the literal index instead of a scan:
    `chunks_literal` MATCH the needle's core as one quoted string (db/literal.py), then the same exact count
    on those chunks (the trigram match folds case wider than `lower` and a phrase of trigrams is not yet the
    string: every candidate is checked). `needle` comes case-folded. A needle the table cannot answer
    (`literal.searchable`: whitespace, under 3 characters, letters and digits only), or an index whose
    literal rows are not made yet (an older schema, or migrated and not synced since), is scanned."""
    if not literal.searchable(needle) or not _literal_rows_made(conn):
        return verbatim_search(conn, needle, limit, file_ids, fold=True)
    clause, params = _in_clause("file_id", file_ids)
    hay = _FOLDED
    sql = (f"select id, (length({hay}) - length(replace({hay}, ?, ''))) / length(?) as n from chunks "
           f"where {_LITERAL_CANDIDATE} and instr({hay}, ?) > 0{clause} order by n desc, id limit ?")
    rows = conn.execute(sql, [needle, needle, literal.match(needle), needle, *params, limit]).fetchall()
    return [(int(i), float(n)) for i, n in rows]


def spelling_chunks(conn: Any, needle: str, limit: int, file_ids: FileScope | None = None) -> list[int]:
    """Ids of up to `limit` chunks whose heading and text hold the case-folded `needle`, in no order, found
    without counting or ranking them so the search stops at `limit`: by the literal index when it can
    answer (`literal_search`'s rules), by the word index for a needle of letters and digits (a token of its
    own: what the index finds is what the chunk holds; words apart, the chunks holding them as a phrase, which
    the caller checks for the needle as spelled), else by a scan."""
    needle = needle.casefold()  # a one-letter flag comes as written (`-L`): its case is the caller's to check
    hay = _FOLDED
    words = needle.split()
    if words and all(w.isalnum() for w in words):
        # Words alone (`compute`, `pdm fix`): the word index's phrase holds every chunk spelling them, and more
        # (`pdm-fix`), which the caller's own check sorts out.
        clause, params = _in_clause("c.file_id", file_ids)
        sql = ("select c.id from chunks_fts join chunks c on c.id = chunks_fts.rowid "
               f"where chunks_fts match ?{clause} limit ?")
        args: list[Any] = ['"' + " ".join(words) + '"', *params, limit]
    elif literal.searchable(needle) and _literal_rows_made(conn):
        clause, params = _in_clause("file_id", file_ids)
        sql = f"select id from chunks where {_LITERAL_CANDIDATE} and instr({hay}, ?) > 0{clause} limit ?"
        args = [literal.match(needle), needle, *params, limit]
    else:
        clause, params = _in_clause("file_id", file_ids)
        sql = f"select id from chunks where instr({hay}, ?) > 0{clause} limit ?"
        args = [needle, *params, limit]
    return [int(r[0]) for r in conn.execute(sql, args).fetchall()]


def _literal_rows_made(conn: Any) -> bool:
    """The literal rows are made under this scree's rules (meta `literal`, written with them by
    `writes.remake_literal_rows`)."""
    try:
        row = conn.execute("select value from meta where key = 'literal'").fetchone()
    except Exception:  # noqa: BLE001 - no meta: not an index this answers from
        return False
    return row is not None and row[0] == literal.version()


def vector_search(
    conn: Any, query: bytes, limit: int, file_ids: FileScope | None = None
) -> list[tuple[int, float]]:
    """(window rowid, cosine distance), nearest first; `file_ids` narrows before the top-k is taken."""
    clause, params = _in_clause("file_id", file_ids)
    sql = f"select rowid, distance from chunks_vec where embedding match ? and k = ?{clause} order by distance"
    return [(int(r), float(d)) for r, d in conn.execute(sql, [query, limit, *params]).fetchall()]


def section_keys(conn: Any, ids: Sequence[int]) -> dict[int, tuple[int, str]]:
    """(file id, heading trail) per chunk id: the chunks of one section share it."""
    if not ids:
        return {}
    rows = conn.execute(
        f"select id, file_id, heading from chunks where id in ({','.join('?' * len(ids))})", list(ids)
    ).fetchall()
    return {int(r[0]): (int(r[1]), str(r[2])) for r in rows}


def section_chunks(conn: Any, keys: Sequence[tuple[int, str]]) -> dict[tuple[int, str], list[tuple[int, str]]]:
    """(chunk id, text) of every chunk of each section ((file id, heading trail), as `section_keys` gives them), in
    order."""
    out: dict[tuple[int, str], list[tuple[int, str]]] = {}
    for file_id, heading in keys:
        rows = conn.execute("select id, text from chunks where file_id = ? and heading = ? order by seq",
                            (file_id, heading)).fetchall()
        out[(file_id, heading)] = [(int(r[0]), str(r[1])) for r in rows]
    return out


def chunk_paths(conn: Any, ids: Sequence[int]) -> dict[int, str]:
    """The note's path per chunk id, without the chunks' texts."""
    if not ids:
        return {}
    rows = conn.execute(
        f"select c.id, f.path from chunks c join files f on f.id = c.file_id "
        f"where c.id in ({','.join('?' * len(ids))})", list(ids)
    ).fetchall()
    return {int(r[0]): str(r[1]) for r in rows}


def headed_chunks(conn: Any, words: Sequence[str], limit: int,
                  file_ids: FileScope | None = None) -> list[tuple[int, int, str]]:
    """(chunk id, file id, heading trail) of up to `limit` chunks whose heading trail holds `words` (letters and
    digits, as the word index splits them) as a phrase: the candidates for a section titled by a name."""
    if not words or not all(w.isalnum() for w in words):
        return []
    clause, params = _in_clause("c.file_id", file_ids)
    match = 'heading : "' + " ".join(words) + '"'
    sql = (f"select c.id, c.file_id, c.heading from chunks_fts join chunks c on c.id = chunks_fts.rowid "
           f"where chunks_fts match ?{clause} limit ?")
    return [(int(i), int(f), str(h)) for i, f, h in conn.execute(sql, [match, *params, limit]).fetchall()]


def spelling_rows(conn: Any, needle: str, limit: int,
                  file_ids: FileScope | None = None) -> list[tuple[int, int, str, str]]:
    """(chunk id, file id, heading trail, text) of up to `limit` chunks that hold the case-folded `needle`
    (`spelling_chunks`), in id order."""
    found = spelling_chunks(conn, needle, limit, file_ids)
    if not found:
        return []
    rows = conn.execute(f"select id, file_id, heading, text from chunks where id in ({','.join('?' * len(found))}) "
                        "order by id", found).fetchall()
    return [(int(i), int(f), str(h), str(t)) for i, f, h, t in rows]


# A page's text under no heading of its own (a Docusaurus, Hugo or Jekyll page's top text, the whole of a Hugo function's
# or an ESLint rule's page) is headed by the page's front-matter title, which the built page draws as its first
# heading: the ranking reads that title as the section's trail (`search.names.names_first`'s titled tier). Hits and
# labels keep the trail the source writes. Measured (docs/benchmarks.md): TITLES_HEAD_TOPS.
TITLES_HEAD_TOPS = True


def chunk_texts(conn: Any, ids: Sequence[int]) -> dict[int, str]:
    """Heading trail and text per chunk id, joined by a newline, then the note's other names when the
    chunk's keyword row holds them (what a verbatim name is looked for in). A chunk under no heading is headed
    by its page's title (TITLES_HEAD_TOPS)."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    names = "case when c.names != '' then char(10) || c.names else '' end"
    if TITLES_HEAD_TOPS:
        sql = (f"select c.id, coalesce(nullif(c.heading, ''), f.title, '') || char(10) || c.text || {names} "
               f"from chunks c join files f on f.id = c.file_id where c.id in ({marks})")
    else:
        sql = f"select c.id, c.heading || char(10) || c.text || {names} from chunks c where c.id in ({marks})"
    rows = conn.execute(sql, list(ids)).fetchall()
    return {int(r[0]): str(r[1]) for r in rows}


def data_version(conn: Any) -> tuple[int, int]:
    """Changes whenever the index may have changed: another connection committed (data_version) or
    this one wrote (total_changes)."""
    return int(conn.execute("pragma data_version").fetchone()[0]), int(conn.total_changes)


def vector_table_size(conn: Any) -> tuple[int, int]:
    """(vector rows, dimensions), (0, 0) when there is no vector table yet."""
    if not has_vec_table(conn):
        return 0, 0
    (rows,) = conn.execute("select count(*) from chunks_vec").fetchone()
    dims = conn.execute("select value from meta where key = 'dimensions'").fetchone()
    return int(rows), int(dims[0]) if dims else 0


def vector_rows(conn: Any, batch: int = 4096):  # -> Iterator[list[tuple[int, int, bytes]]]
    """Every vector row as (rowid, file id, float32 blob), in batches: a caller filling its own arrays
    never holds more than one batch of blobs (at 100k chunks the whole table is 400+ MB)."""
    cur = conn.execute("select rowid, file_id, embedding from chunks_vec")
    while True:
        rows = cur.fetchmany(batch)
        if not rows:
            return
        yield rows


def stored_chunk_vectors(conn: Any, path: str, max_windows: int,
                         names: str | None = None):  # -> dict[tuple[str, str], np.ndarray]
    """The vectors already stored for a file's chunks, keyed by (heading, text): an edit re-embeds
    only the chunks whose text changed. With `names` (newline-joined), only while the file's stored
    names are those: its embedding headers carried them, so other names mean other vectors."""
    import numpy as np

    rows = conn.execute(
        "select c.id, c.heading, c.text, c.windows from chunks c join files f on f.id = c.file_id "
        "where f.path = ? and (? is null or f.names = ?)", (path, names, names)).fetchall()
    out = {}
    for cid, heading, text, n in rows:
        vecs = conn.execute(
            "select rowid, embedding from chunks_vec where rowid >= ? and rowid < ? order by rowid",
            (cid * max_windows, cid * max_windows + n)).fetchall()
        if n and len(vecs) == n:  # windows = 0: stored by stage one, vectors not made yet
            out[(heading, text)] = np.stack([np.frombuffer(v, dtype="<f4") for _, v in vecs])
    return out


@dataclass(frozen=True)
class ChunkRow:
    id: int
    path: str
    heading: str
    text: str
    start_line: int
    end_line: int


def chunk_rows(conn: Any, ids: Sequence[int]) -> dict[int, ChunkRow]:
    if not ids:
        return {}
    rows = conn.execute(
        "select c.id, f.path, c.heading, c.text, c.start_line, c.end_line from chunks c "
        f"join files f on f.id = c.file_id where c.id in ({','.join('?' * len(ids))})",
        list(ids),
    ).fetchall()
    return {int(r[0]): ChunkRow(int(r[0]), r[1], r[2], r[3], int(r[4]), int(r[5])) for r in rows}


def files_citing(conn: Any, sources: Sequence[str]) -> list[str]:
    """The notes holding a docstring or lines read from one of `sources` (code files' paths): an autodoc chunk ends
    with `(docstring of NAME: PATH, line N)` (notes/autodocpage.py), a parser's options with `(options of NAME: PATH,
    line N)` (notes/argparsepage.py), an included file's with `(included from PATH)`
    (notes/includes.py). One pass over the chunks that hold one."""
    wanted = set(sources)
    found: set[str] = set()
    rows = conn.execute("select f.path, c.text from chunks c join files f on f.id = c.file_id "
                        "where c.text like '%(docstring of %' or c.text like '%(included from %' "
                        "or c.text like '%(options of %'")
    for path, text in rows:
        m = _CITED.search(text)
        if m and (m.group(1) or m.group(2)) in wanted:
            found.add(str(path))
    return sorted(found)


def included_sources(conn: Any) -> set[str]:
    """Every file some note's chunk shows lines of (`(included from PATH)`, notes/includes.py): one pass over the
    chunks that name one (36 ms at 100,000 chunks: docs/benchmarks.md)."""
    rows = conn.execute("select c.text from chunks c where c.text like '%(included from %'")
    return {m.group(2) for (text,) in rows if (m := _CITED.search(text)) and m.group(2)}


_CITED = re.compile(r"\((?:(?:docstring|options) of [^\n:]+: (.+), line \d+|included from ([^\n]+))\)$")


def chunks_of_file(conn: Any, path: str) -> list[ChunkRow]:
    rows = conn.execute(
        "select c.id, f.path, c.heading, c.text, c.start_line, c.end_line from chunks c "
        "join files f on f.id = c.file_id where f.path = ? order by c.seq",
        (path,),
    ).fetchall()
    return [ChunkRow(int(r[0]), r[1], r[2], r[3], int(r[4]), int(r[5])) for r in rows]


# ----- the vocabulary ---------------------------------------------------------------------------------


INCLUDED_KIND = "included"  # a code_files row for a file a page shows (literalinclude) that is no code: no names


@dataclass(frozen=True)
class StoredCodeFile:
    path: str
    sha256: str | None
    mtime_ns: int
    size: int
    kind: str = ""


def stored_code_files(conn: Any) -> dict[str, StoredCodeFile]:
    """Every code file or manifest read for names, by path."""
    rows = conn.execute("select path, sha256, mtime_ns, size, kind from code_files").fetchall()
    return {r[0]: StoredCodeFile(r[0], r[1], int(r[2]), int(r[3]), str(r[4])) for r in rows}


def names_among(conn: Any, words: Sequence[str]) -> dict[str, bool]:
    """Which of these lowercased words are vocabulary names, each with whether it is also an everyday
    word (one indexed lookup, not the whole table)."""
    words = sorted(set(words))
    if not words:
        return {}
    sql = f"select name, max(common) from names where name in ({','.join('?' * len(words))}) group by name"
    return {str(n): bool(c) for n, c in conn.execute(sql, words).fetchall()}


@dataclass(frozen=True)
class NameCounts:
    manifest: int  # distinct names from manifests
    code: int  # distinct names from code
    total: int  # distinct names from either
    files: int  # code files and manifests read


def name_counts(conn: Any) -> NameCounts:
    manifest, code, total = conn.execute(
        "select count(distinct case when source = 'manifest' then name end), "
        "count(distinct case when source = 'code' then name end), count(distinct name) from names"
    ).fetchone()
    (files,) = conn.execute("select count(*) from code_files where kind != ?", (INCLUDED_KIND,)).fetchone()
    return NameCounts(int(manifest), int(code), int(total), int(files))


def vocabulary_names(conn: Any) -> list[tuple[str, bool]]:
    """Every distinct name, sorted, with whether a manifest declares it (for doctor's count)."""
    rows = conn.execute(
        "select name, max(source = 'manifest') from names group by name order by name"
    ).fetchall()
    return [(str(n), bool(m)) for n, m in rows]


def chunk_texts_matching(conn: Any, match: str, limit: int) -> list[str]:
    """Heading trail and text of up to `limit` chunks an FTS5 MATCH finds (a name's candidates)."""
    rows = conn.execute(
        "select c.heading || char(10) || c.text from chunks_fts join chunks c on c.id = chunks_fts.rowid "
        "where chunks_fts match ? limit ?", (match, limit)).fetchall()
    return [str(r[0]) for r in rows]
