"""Every write to the index. Each public function is one transaction (or runs inside the caller's)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np

from ..records import Chunk
from . import cjk, literal
from .schema import vec_table_sql
from .snapshot import transaction


def set_meta(conn: Any, values: dict[str, str]) -> None:
    """Upsert meta keys (caller's transaction, or autocommit)."""
    conn.executemany(
        "insert into meta(key, value) values (?, ?) on conflict(key) do update set value = excluded.value",
        list(values.items()),
    )


def reset_vectors(conn: Any, dimensions: int, meta: dict[str, str]) -> None:
    """Forget every chunk and vector and (re)create the vector table at `dimensions`.

    Used when the index was built by another embedder: vectors of two models must never be mixed.
    File rows stay with a NULL hash, so the next sync re-embeds every file.
    """
    with transaction(conn):
        conn.execute("drop table if exists chunks_vec")
        conn.execute(vec_table_sql(dimensions))
        conn.execute("insert into chunks_fts(chunks_fts) values('delete-all')")
        conn.execute("insert into chunks_cjk(chunks_cjk) values('delete-all')")
        conn.execute("insert into chunks_literal(chunks_literal) values('delete-all')")
        conn.execute("delete from chunks")
        conn.execute("update files set sha256 = null, chunks = 0")
        set_meta(conn, meta)


@dataclass(frozen=True)
class FileVersion:
    """What identifies the version of a note being written."""

    path: str
    sha256: str
    mtime_ns: int
    size: int
    title: str | None
    names: tuple[str, ...] = ()  # chunker.note_names: other names of the note (title, aliases)
    lang: str = "und"  # notes/language.py: the note's language, what decided it, the page it is a copy of
    lang_by: str = ""
    page: str = ""
    alias: str = ""  # the page its front matter names (translationKey, permalink), shared by its translations
    indexed: bool = True  # False: SCREE_LANGUAGES leaves its language out (the row keeps no chunks)


def _delete_file_rows(conn: Any, file_id: int, max_windows: int) -> None:
    rows = conn.execute("select id, windows from chunks where file_id = ?", (file_id,)).fetchall()
    if rows:
        conn.executemany(
            "delete from chunks_vec where rowid = ?",
            [(cid * max_windows + w,) for cid, n in rows for w in range(n)],
        )
        conn.execute(
            "insert into chunks_fts(chunks_fts, rowid, heading, text, names) "
            "select 'delete', id, heading, text, names from chunks where file_id = ?",
            (file_id,),
        )
        texts = conn.execute("select id, heading, text, names, cjk from chunks where file_id = ?", (file_id,)).fetchall()
        _delete_cjk_rows(conn, [(cid, heading, text, names) for cid, heading, text, names, marked in texts if marked])
        _delete_literal_rows(conn, [(cid, heading, text, names) for cid, heading, text, names, _ in texts])
        conn.execute("delete from chunks where file_id = ?", (file_id,))


def _delete_cjk_rows(conn: Any, chunks: Sequence[tuple[int, str, str, str]]) -> None:
    """Delete these chunks' `chunks_cjk` rows. The table is contentless: FTS5 deletes a row given the values
    it indexed, which `cjk.row` makes again from the chunk (its rules are the index's: `sync.follow_cjk`)."""
    rows = [(cid, *made) for cid, heading, text, names in chunks
            if (made := cjk.row(heading, text, names)) is not None]
    conn.executemany("insert into chunks_cjk(chunks_cjk, rowid, heading, text, names) "
                     "values ('delete', ?, ?, ?, ?)", rows)


def _delete_literal_rows(conn: Any, chunks: Sequence[tuple[int, str, str, str]]) -> None:
    """Delete these chunks' `chunks_literal` rows (every chunk has one). Contentless like `chunks_cjk`: the
    values are made again by `literal.row` (its rules are the index's: `sync.follow_literal`)."""
    conn.executemany("insert into chunks_literal(chunks_literal, rowid, tokens) values ('delete', ?, ?)",
                     [(cid, literal.row(heading, text, names)) for cid, heading, text, names in chunks])


def replace_file(
    conn: Any,
    version: FileVersion,
    chunks: Sequence[Chunk],
    vectors: Sequence[np.ndarray | None],
    max_windows: int,
    *,
    names_on_every_chunk: bool = True,
    keyword_only: bool = False,
) -> int:
    """Replace one file's chunks, FTS rows and vectors in one transaction; returns the file id.

    With `keyword_only` (a note in a language the embedder does not read) every chunk is stored with
    windows = -1: keyword-searchable, never embedded, not counted as missing vectors.

    The note's other names (`version.names`) are stored with the file (for stage two's embedding header)
    and in the keyword rows of every chunk, or of its first chunk only (`names_on_every_chunk`).

    A chunk whose vectors are None is stored with windows = 0: its text is searchable by keyword and
    its vectors are known to be missing (stage two of a sync adds them with `store_vectors`).
    The file's hash is written last: whatever happens before COMMIT, the stored hash never claims
    content whose chunks are not all there, so an interrupted sync redoes this file.
    """
    if len(chunks) != len(vectors):
        raise ValueError("one vector array per chunk is required")
    with transaction(conn):
        row = conn.execute("select id from files where path = ?", (version.path,)).fetchone()
        if row is None:
            file_id = conn.execute("insert into files(path, sha256) values (?, null)", (version.path,)).lastrowid
        else:
            file_id = row[0]
            conn.execute("update files set sha256 = null where id = ?", (file_id,))
            _delete_file_rows(conn, file_id, max_windows)
        names = "\n".join(version.names)
        conn.execute("update files set names = ? where id = ?", (names, file_id))
        _insert_chunks(conn, file_id, 0, chunks, vectors, max_windows, names, names_on_every_chunk,
                       KEYWORD_ONLY if keyword_only else 0)
        _set_version(conn, file_id, version, len(chunks))
    return int(file_id)


def begin_file(conn: Any, path: str, max_windows: int) -> int:
    """Start writing a big file in parts: its row with no hash, none of its old rows. Returns its id.

    From here until `finish_file` the index claims nothing about the file (no hash), so any prefix
    of its parts may be committed; a later sync finds those chunks' vectors and reuses them.
    """
    with transaction(conn):
        row = conn.execute("select id from files where path = ?", (path,)).fetchone()
        if row is None:
            return int(conn.execute("insert into files(path, sha256) values (?, null)", (path,)).lastrowid)
        conn.execute("update files set sha256 = null, chunks = 0 where id = ?", (row[0],))
        _delete_file_rows(conn, row[0], max_windows)
        return int(row[0])


def append_chunks(conn: Any, file_id: int, first_seq: int, chunks: Sequence[Chunk],
                  vectors: Sequence[np.ndarray], max_windows: int) -> None:
    """Commit one part of a big file's chunks (after `begin_file`), numbered from `first_seq`."""
    if len(chunks) != len(vectors):
        raise ValueError("one vector array per chunk is required")
    with transaction(conn):
        _insert_chunks(conn, file_id, first_seq, chunks, vectors, max_windows, "", False)


def finish_file(conn: Any, file_id: int, version: FileVersion, n_chunks: int) -> None:
    """Write a big file's hash once all its parts are committed: the file is complete from here."""
    with transaction(conn):
        _set_version(conn, file_id, version, n_chunks)


# `chunks.windows` of a keyword-only chunk (its note's language is not one the embedder reads).
KEYWORD_ONLY = -1


def _insert_chunks(conn: Any, file_id: int, first_seq: int, chunks: Sequence[Chunk],
                   vectors: Sequence[np.ndarray | None], max_windows: int, names: str, every: bool,
                   missing: int = 0) -> None:
    for seq, (chunk, vecs) in enumerate(zip(chunks, vectors), start=first_seq):
        n = missing if vecs is None else int(vecs.shape[0])
        if vecs is not None and not 1 <= n <= max_windows:
            raise ValueError(f"chunk has {n} windows; expected 1..{max_windows}")
        own = names if every or seq == 0 else ""
        second = cjk.row(chunk.heading, chunk.text, own)  # Chinese, Japanese, Korean: bigrams (db/cjk.py)
        cid = conn.execute(
            "insert into chunks(file_id, seq, heading, text, start_line, end_line, windows, names, cjk) "
            "values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (file_id, seq, chunk.heading, chunk.text, chunk.start_line, chunk.end_line, n, own, int(second is not None)),
        ).lastrowid
        conn.execute(
            "insert into chunks_fts(rowid, heading, text, names) values (?, ?, ?, ?)",
            (cid, chunk.heading, chunk.text, own),
        )
        if second is not None:
            conn.execute("insert into chunks_cjk(rowid, heading, text, names) values (?, ?, ?, ?)", (cid, *second))
        # Punctuated tokens, for names the word index drops (db/literal.py): every chunk has a row.
        conn.execute("insert into chunks_literal(rowid, tokens) values (?, ?)",
                     (cid, literal.row(chunk.heading, chunk.text, own)))
        if vecs is not None:
            _insert_vectors(conn, int(cid), file_id, vecs, max_windows)


def _insert_vectors(conn: Any, cid: int, file_id: int, vecs: np.ndarray, max_windows: int) -> None:
    conn.executemany(
        "insert into chunks_vec(rowid, embedding, file_id) values (?, ?, ?)",
        [(cid * max_windows + w, vecs[w].astype("<f4").tobytes(), file_id) for w in range(int(vecs.shape[0]))],
    )


@dataclass(frozen=True)
class EmbeddedChunk:
    """Stage two's result for one chunk: the text it embedded (to be sure it is still the stored text)."""

    chunk_id: int
    file_id: int
    heading: str
    text: str
    vectors: np.ndarray
    names: str = ""  # the file's names (newline-joined) its embedding header carried


def store_vectors(conn: Any, embedded: Sequence[EmbeddedChunk], max_windows: int) -> int:
    """Stage two: add the vectors of chunks stored without them, in one transaction. Returns how many
    were stored. A chunk that is gone, or whose id now holds other text or whose file has other names
    (its file was re-chunked while it was embedded), or that has vectors already, is left alone: a vector
    is never stored for text other than the one it was made from, nor twice."""
    stored = 0
    with transaction(conn):
        for e in embedded:
            n = int(e.vectors.shape[0])
            if not 1 <= n <= max_windows:
                raise ValueError(f"chunk has {n} windows; expected 1..{max_windows}")
            row = conn.execute("select 1 from chunks c join files f on f.id = c.file_id where c.id = ? "
                               "and c.file_id = ? and c.heading = ? and c.text = ? and c.windows = 0 "
                               "and f.names = ?", (e.chunk_id, e.file_id, e.heading, e.text, e.names)).fetchone()
            if row is None:
                continue
            _insert_vectors(conn, e.chunk_id, e.file_id, e.vectors, max_windows)
            conn.execute("update chunks set windows = ? where id = ?", (n, e.chunk_id))
            stored += 1
    return stored


def forget_vectors(conn: Any, chunk_ids: Sequence[int], max_windows: int) -> int:
    """Drop these chunks' vectors and mark them `windows = 0`, as stage one leaves a chunk whose
    vectors stage two has not made yet (its text, keyword rows and its file's hash stay). Returns how
    many chunks lost vectors. For measuring search mid stage two (benchmarks/quality.py) and its tests."""
    if not chunk_ids:
        return 0
    with transaction(conn):
        rows = [r for i in range(0, len(chunk_ids), 500) for r in conn.execute(
            f"select id, windows from chunks where windows > 0 and id in ({','.join('?' * len(chunk_ids[i:i + 500]))})",
            list(chunk_ids[i:i + 500])).fetchall()]
        conn.executemany("delete from chunks_vec where rowid = ?",
                         [(cid * max_windows + w,) for cid, n in rows for w in range(n)])
        conn.executemany("update chunks set windows = 0 where id = ?", [(cid,) for cid, _ in rows])
    return len(rows)


def _set_version(conn: Any, file_id: int, version: FileVersion, n_chunks: int) -> None:
    conn.execute(
        "update files set sha256 = ?, mtime_ns = ?, size = ?, title = ?, chunks = ?, indexed_at = ?, lang = ?, "
        "lang_by = ?, page = ?, alias = ?, indexed = ? where id = ?",
        (version.sha256, version.mtime_ns, version.size, version.title, n_chunks, time.time(), version.lang,
         version.lang_by, version.page, version.alias, int(version.indexed), file_id),
    )


def keep_vectors_for(conn: Any, unreadable: Sequence[str], max_windows: int) -> int:
    """Make which chunks are embedded follow the embedder's languages: the chunks of notes whose stored
    language is `unreadable` lose their vectors and become keyword-only (windows = -1); keyword-only chunks
    of every other note become chunks waiting for stage two (windows = 0). One transaction; returns how
    many chunks changed."""
    marks = ",".join("?" * len(unreadable))
    changed = 0
    with transaction(conn):
        if unreadable:
            rows = conn.execute(f"select c.id, c.windows from chunks c join files f on f.id = c.file_id "
                                f"where c.windows >= 0 and f.lang in ({marks})", list(unreadable)).fetchall()
            conn.executemany("delete from chunks_vec where rowid = ?",
                             [(cid * max_windows + w,) for cid, n in rows for w in range(n)])
            conn.executemany("update chunks set windows = ? where id = ?", [(KEYWORD_ONLY, cid) for cid, _ in rows])
            changed += len(rows)
        keep = f" and file_id not in (select id from files where lang in ({marks}))" if unreadable else ""
        changed += int(conn.execute(f"update chunks set windows = 0 where windows < 0{keep}", list(unreadable)).rowcount)
    return changed


def _chunk_texts_by_page(conn: Any, batch: int) -> Iterator[list[tuple[int, str, str, str]]]:
    """Every chunk's (id, heading, text, names), `batch` chunks at a time in id order: a second keyword row's
    values, made again without holding every chunk's text at once."""
    last = 0
    while True:
        page = conn.execute("select id, heading, text, names from chunks where id > ? order by id limit ?",
                            (last, batch)).fetchall()
        if not page:
            return
        last = int(page[-1][0])
        yield page


def remake_cjk_rows(conn: Any, rules: str, batch: int = 2000) -> int:
    """Make every chunk's `chunks_cjk` row again under the current `cjk` rules, and record `rules` in meta
    (one transaction). For an index made before the table (migration 7) or under other rules: a
    contentless row can only be deleted with the values it was made from. Returns the chunks with a row."""
    made = 0
    with transaction(conn):
        conn.execute("insert into chunks_cjk(chunks_cjk) values('delete-all')")
        conn.execute("update chunks set cjk = 0 where cjk = 1")
        for page in _chunk_texts_by_page(conn, batch):
            rows = [(cid, *second) for cid, heading, text, names in page
                    if (second := cjk.row(heading, text, names)) is not None]
            conn.executemany("insert into chunks_cjk(rowid, heading, text, names) values (?, ?, ?, ?)", rows)
            conn.executemany("update chunks set cjk = 1 where id = ?", [(r[0],) for r in rows])
            made += len(rows)
        set_meta(conn, {"cjk": rules})
    return made


def remake_literal_rows(conn: Any, rules: str, batch: int = 2000) -> int:
    """Make every chunk's `chunks_literal` row again under the current `literal` rules, and record `rules`
    in meta (one transaction). For an index made before the table (migration 8) or under other rules: a
    contentless row can only be deleted with the values it was made from. Returns the rows made."""
    made = 0
    with transaction(conn):
        conn.execute("insert into chunks_literal(chunks_literal) values('delete-all')")
        for page in _chunk_texts_by_page(conn, batch):
            conn.executemany("insert into chunks_literal(rowid, tokens) values (?, ?)",
                             [(cid, literal.row(heading, text, names)) for cid, heading, text, names in page])
            made += len(page)
        set_meta(conn, {"literal": rules})
    return made


def delete_file(conn: Any, path: str, max_windows: int) -> bool:
    """Remove a file and everything derived from it. Returns False when it was not indexed."""
    with transaction(conn):
        row = conn.execute("select id from files where path = ?", (path,)).fetchone()
        if row is None:
            return False
        _delete_file_rows(conn, row[0], max_windows)
        conn.execute("delete from files where id = ?", (row[0],))
    return True


def touch_file(conn: Any, path: str, mtime_ns: int, size: int) -> None:
    """Record a new mtime for a file whose content (hash) did not change."""
    conn.execute("update files set mtime_ns = ?, size = ? where path = ?", (mtime_ns, size, path))


# ----- the vocabulary (names from code and manifests) ---------------------------------------------


@dataclass(frozen=True)
class CodeFileVersion:
    """One code file or manifest read for names: what identifies the version read, and its names."""

    path: str
    kind: str
    source: str  # manifest | code
    sha256: str
    mtime_ns: int
    size: int
    names: frozenset[str]
    common: frozenset[str] = frozenset()  # the names that are also everyday words


def replace_code_files(conn: Any, versions: Sequence[CodeFileVersion]) -> None:
    """Replace the names of these files in one transaction (a batch: one commit per many small files)."""
    if not versions:
        return
    with transaction(conn):
        for v in versions:
            conn.execute(
                "insert into code_files(path, kind, sha256, mtime_ns, size) values (?, ?, ?, ?, ?) "
                "on conflict(path) do update set kind = excluded.kind, sha256 = excluded.sha256, "
                "mtime_ns = excluded.mtime_ns, size = excluded.size",
                (v.path, v.kind, v.sha256, v.mtime_ns, v.size),
            )
            (file_id,) = conn.execute("select id from code_files where path = ?", (v.path,)).fetchone()
            conn.execute("delete from names where file_id = ?", (file_id,))
            conn.executemany("insert into names(name, source, common, file_id) values (?, ?, ?, ?)",
                             [(n, v.source, int(n in v.common), file_id) for n in sorted(v.names)])


def touch_code_file(conn: Any, path: str, mtime_ns: int, size: int) -> None:
    """Record a new mtime/size for a code file whose content (hash) did not change."""
    conn.execute("update code_files set mtime_ns = ?, size = ? where path = ?", (mtime_ns, size, path))


def delete_code_files(conn: Any, paths: Sequence[str]) -> None:
    """Forget code files (deleted, ignored, over a cap) and their names, in one transaction."""
    if not paths:
        return
    with transaction(conn):
        conn.executemany("delete from code_files where path = ?", [(p,) for p in paths])
