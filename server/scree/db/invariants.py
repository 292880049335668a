"""The crash-safety invariant of an index, as a check anyone can run (tests after every kill,
`scree doctor --deep`).

Every file with a recorded hash has all its chunks, each chunk its FTS row and either all its vectors
or none (windows = 0: stage one stored its text, stage two has not embedded it yet; known missing,
never half there; windows = -1: keyword-only, its note's language is not one the embedder reads); no chunk, FTS row or vector belongs to nothing, and a chunk marked as lacking
vectors has none (a vector left from older text would be stale). A chunk holding Chinese, Japanese or Korean
text has its second keyword row (`chunks_cjk`, marked `chunks.cjk`), and no other chunk has one. Every chunk
has its literal row (`chunks_literal`, its punctuated tokens: db/literal.py), and no other row is there. A file without a hash (its rows were being written
when the writer stopped) may hold any part of its new rows: the next sync redoes it.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from . import cjk
from .connect import is_damage
from .snapshot import read_snapshot

log = logging.getLogger(__name__)

MAX_LISTED = 5


# Indexes written before the vector rowid stride was recorded in meta used 64 windows per chunk.
LEGACY_STRIDE = 64


def problems(conn: Any, max_windows: int | None = None) -> list[str]:
    """What breaks the invariant, in words (empty when the index is consistent). Reads only, in one
    snapshot: a writer's commit landing between two of its reads (stage two storing a chunk's vectors
    after its row was read) would look like vectors belonging to no chunk.

    `max_windows` is the vector rowid stride; by default the one the index recorded."""
    with read_snapshot(conn):
        return _problems(conn, max_windows)


def _problems(conn: Any, max_windows: int | None) -> list[str]:
    if max_windows is None:
        row = conn.execute("select value from meta where key = 'max_windows'").fetchone()
        max_windows = int(row[0]) if row else LEGACY_STRIDE
    out: list[str] = []
    rows = conn.execute("select id, file_id, windows from chunks").fetchall()
    files = {int(i): (str(p), sha, int(n)) for i, p, sha, n in
             conn.execute("select id, path, sha256, chunks from files").fetchall()}
    per_file: dict[int, int] = {}
    expected: dict[int, int] = {}  # vector rowid -> file id
    orphans = []
    for cid, fid, windows in rows:
        per_file[fid] = per_file.get(fid, 0) + 1
        if fid not in files:
            orphans.append(cid)
        for w in range(int(windows)):
            expected[int(cid) * max_windows + w] = int(fid)
    if orphans:
        out.append(f"{len(orphans)} chunks belong to no file (ids {orphans[:MAX_LISTED]})")
    short = [p for fid, (p, sha, n) in files.items() if sha is not None and per_file.get(fid, 0) != n]
    if short:
        out.append(f"{len(short)} files with a recorded hash lack some of their chunks: {sorted(short)[:MAX_LISTED]}")
    if conn.execute("select 1 from sqlite_master where name = 'chunks_vec'").fetchone() is not None:
        stored = {int(r): int(f) for r, f in conn.execute("select rowid, file_id from chunks_vec").fetchall()}
        missing = [r for r in expected if r not in stored]
        extra = [r for r in stored if r not in expected]
        wrong = [r for r, f in stored.items() if r in expected and expected[r] != f]
        hashed_missing = [r for r in missing if files.get(expected[r], ("", None, 0))[1] is not None]
        if hashed_missing:
            out.append(f"{len(hashed_missing)} vectors of fully indexed files are missing "
                       f"(rowids {hashed_missing[:MAX_LISTED]})")
        if extra:
            out.append(f"{len(extra)} vectors belong to no chunk (rowids {extra[:MAX_LISTED]})")
        if wrong:
            out.append(f"{len(wrong)} vectors name the wrong file (rowids {wrong[:MAX_LISTED]})")
    elif expected:
        out.append(f"{len(rows)} chunks but no vector table")
    # An external-content FTS5 table keeps one docsize row per indexed chunk: compare the ids.
    fts_ids = {int(r[0]) for r in conn.execute("select id from chunks_fts_docsize").fetchall()}
    chunk_ids = {int(r[0]) for r in rows}
    if fts_ids != chunk_ids:
        out.append(f"the keyword index is out of step: {len(chunk_ids - fts_ids)} chunks without a keyword row, "
                   f"{len(fts_ids - chunk_ids)} keyword rows without a chunk")
    if _has_cjk_table(conn):
        out.extend(_cjk_problems(conn))
    if _has_literal_rows(conn):
        have = {int(r[0]) for r in conn.execute("select id from chunks_literal_docsize").fetchall()}
        if have != chunk_ids:
            out.append(f"the literal index is out of step: {len(chunk_ids - have)} chunks without their literal row, "
                       f"{len(have - chunk_ids)} literal rows without a chunk")
    return out


def _has_cjk_table(conn: Any) -> bool:
    """The CJK keyword rows exist from schema 7 on (a reader may open an older file as it is)."""
    return conn.execute("select 1 from sqlite_master where name = 'chunks_cjk_docsize'").fetchone() is not None


def _has_literal_table(conn: Any) -> bool:
    """The literal rows' table exists from schema 8 on."""
    return conn.execute("select 1 from sqlite_master where name = 'chunks_literal_docsize'").fetchone() is not None


def _has_literal_rows(conn: Any) -> bool:
    """The literal table holds every chunk's row: it exists and meta `literal` names the rules it was made by
    (from migration 8 until the next sync's `follow_literal`, the table is there and empty)."""
    return _has_literal_table(conn) and conn.execute(
        "select 1 from meta where key = 'literal'").fetchone() is not None


def _cjk_problems(conn: Any) -> list[str]:
    """The CJK keyword rows against the chunks: a chunk holding CJK text has one (`cjk.row`, its rules the
    index's), marked `chunks.cjk`, and no other chunk has one."""
    rows = conn.execute("select id, heading, text, names, cjk from chunks").fetchall()
    should = {int(cid) for cid, heading, text, names, _ in rows if cjk.row(heading, text, names) is not None}
    marked = {int(r[0]) for r in rows if r[4]}
    have = {int(r[0]) for r in conn.execute("select id from chunks_cjk_docsize").fetchall()}
    out: list[str] = []
    rules = conn.execute("select value from meta where key = 'cjk'").fetchone()
    if rules is not None and rules[0] == cjk.version() and should != marked:
        out.append(f"{len(should ^ marked)} chunks marked wrongly as holding CJK text (ids {sorted(should ^ marked)[:MAX_LISTED]})")
    if have != marked:
        out.append(f"the CJK keyword index is out of step: {len(marked - have)} chunks without their CJK row, "
                   f"{len(have - marked)} CJK rows without a chunk")
    return out


def out_of_step(conn: Any) -> str | None:
    """The cheap half of `problems`, for every sync, `scree status` and doctor: what the row counts
    prove wrong, in words, or None. Reads only, a few ms for 10,000 files (benchmarks/damage_check.py).

    Every transaction keeps `chunks`, the keyword index's docsize rows (one per chunk) and each hashed
    file's `chunks` count in step, so in any committed state: as many keyword rows as chunks, up to the
    same id, as many CJK keyword rows as chunks marked as holding CJK text (`chunks.cjk`), up to the same
    id, as many literal rows as chunks, up to the same id (once they are made: meta `literal`), and the chunks of hashed files number what those files record (a file without a hash may
    hold any part of its rows: the next sync redoes it). Rows deleted by hand, from `chunks` or from the
    FTS5 shadow tables, break one of these; `quick_check` sees neither, and a sync would otherwise call
    such an index "unchanged" for ever. Vectors are not counted here (their chunks' `windows` need a scan
    of every chunk's text): `problems` (`doctor --deep`) checks them.
    """
    # One snapshot for every count: a reader (status, doctor) must not see a writer's commit land between two.
    try:
        with read_snapshot(conn):
            (chunks,) = conn.execute("select count(*) from chunks").fetchone()  # counted on its smallest index
            (top,) = conn.execute("select coalesce(max(id), 0) from chunks").fetchone()
            (keyword,) = conn.execute("select count(*) from chunks_fts_docsize").fetchone()
            (keyword_top,) = conn.execute("select coalesce(max(id), 0) from chunks_fts_docsize").fetchone()
            (recorded,) = conn.execute("select coalesce(sum(chunks), 0) from files where sha256 is not null").fetchone()
            (unhashed,) = conn.execute("select count(*) from chunks where file_id in "
                                       "(select id from files where sha256 is null)").fetchone()
            cjk_counts: tuple[int, int] | None = None
            cjk_rows: tuple[int, int] = (0, 0)
            if _has_cjk_table(conn):  # one row per chunk marked as holding CJK text, up to the same id
                cjk_counts = tuple(conn.execute("select count(*), coalesce(max(id), 0) from chunks where cjk = 1").fetchone())
                cjk_rows = tuple(conn.execute("select count(*), coalesce(max(id), 0) from chunks_cjk_docsize").fetchone())
            literal_rows: tuple[int, int] | None = None
            if _has_literal_rows(conn):  # one row per chunk, up to the same id
                literal_rows = tuple(conn.execute("select count(*), coalesce(max(id), 0) from chunks_literal_docsize").fetchone())
    except Exception as exc:  # noqa: BLE001 - the driver's error classes vary (stdlib, sqlean)
        if "no such table" in str(exc).lower():
            return f"a table is missing ({exc})"
        raise
    if (keyword, keyword_top) != (chunks, top):
        return (f"the keyword index is out of step with the chunks: {keyword:,} keyword rows for {chunks:,} "
                "chunks")
    if cjk_counts is not None and cjk_counts != cjk_rows:
        return (f"the CJK keyword index is out of step with the chunks: {cjk_rows[0]:,} rows for {cjk_counts[0]:,} "
                "chunks in CJK scripts")
    if literal_rows is not None and literal_rows != (chunks, top):
        return (f"the literal index is out of step with the chunks: {literal_rows[0]:,} literal rows for {chunks:,} "
                "chunks")
    if chunks - unhashed != recorded:
        return (f"fully indexed notes record {recorded:,} chunks but {chunks - unhashed:,} are stored "
                "(rows deleted or added by hand)")
    return None


def damage_found(conn: Any, seconds: float, *, keyword_rows: bool = False) -> str | None:
    """What is wrong with an open index, in words, or None: a `quick_check` bounded to `seconds` (skipped
    at 0) for damaged pages, the row counts (`out_of_step`) for rows deleted by hand, which pages never
    show, and with `keyword_rows` (a connection that may write) FTS5's own check of every keyword row
    against its chunk (`fts_check`, bounded the same). A read that meets the damage says so too."""
    try:
        found = quick_check(conn, seconds) if seconds > 0 else None
        found = found or out_of_step(conn)
        if found is None and keyword_rows and seconds > 0:
            found = fts_check(conn, seconds)
        return found
    except Exception as exc:  # noqa: BLE001 - the driver's error classes vary (stdlib, sqlean)
        if is_damage(exc):
            return str(exc)
        raise


def fts_check(conn: Any, seconds: float | None = None) -> str | None:
    """FTS5's integrity-check of the keyword index against the chunks it was made from (rank 1: each row's
    tokens and sizes recomputed from `chunks`): finds keyword rows garbled or deleted in the shadow tables
    (`chunks_fts_docsize`, `chunks_fts_idx`) that `quick_check` and the counts pass, and on which every
    search matching them fails. Bounded to `seconds` (None: not bounded; running out is not damage), 0.6 s
    for 40,000 chunks (benchmarks/damage_check.py). The command is an INSERT that writes nothing, but a
    read-only connection refuses it: the caller must be a writer."""
    if seconds is not None:
        deadline = time.monotonic() + seconds
        conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10_000)
    try:
        conn.execute("insert into chunks_fts(chunks_fts, rank) values ('integrity-check', 1)")
        if _has_cjk_table(conn):  # contentless: its own structure only (the rows are checked by `problems`)
            conn.execute("insert into chunks_cjk(chunks_cjk) values ('integrity-check')")
        if _has_literal_table(conn):  # the same
            conn.execute("insert into chunks_literal(chunks_literal) values ('integrity-check')")
    except Exception as exc:  # noqa: BLE001 - the driver's error classes vary (stdlib, sqlean)
        if "interrupt" in str(exc).lower():
            return None
        if is_damage(exc):
            return f"the keyword index does not match the chunks ({exc})"
        raise
    finally:
        if seconds is not None:
            conn.set_progress_handler(None, 0)
    return None


# Row-level messages of `PRAGMA quick_check` that older SQLites also give for healthy rows: 3.40
# reports "NULL value in names.source" for every row of a WITHOUT ROWID table whose NOT NULL column
# follows the key. Such a message condemns the file only when re-reading the rows agrees.
_NULL_VALUE = re.compile(r"NULL value in ([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)")


def _confirmed(conn: Any, message: str) -> bool:
    """False when the rows themselves disprove a check message (a known false positive), else True.

    A structural message (a bad page, a wrong entry count) is always believed; reading a damaged
    table to disprove it raises, which is damage too."""
    null = _NULL_VALUE.fullmatch(message)
    if null is None:
        return True
    table, column = null.groups()
    # typeof(), not `is null`: SQLite answers `is null` on a NOT NULL column from the schema alone.
    row = conn.execute(f'select 1 from "{table}" where typeof("{column}") = \'null\' limit 1').fetchone()
    return row is not None


def quick_check(conn: Any, seconds: float = 2.0) -> str | None:
    """`PRAGMA quick_check` bounded in time: None when the file is sound (or the check ran out of
    time: unknown is not damaged), else what SQLite found, each message once. Reads only; a damaged
    file may also raise while being read, which is reported the same way. A message the rows
    disprove (`_confirmed`) is not damage."""
    # The connection's page cache outlives its read transactions while the WAL does not change, so a
    # page damaged on disk after it was cached would pass for ever: drop the cache and read the file.
    conn.execute("pragma shrink_memory")
    deadline = time.monotonic() + seconds
    conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10_000)
    try:
        found = [str(r[0]) for r in conn.execute("pragma quick_check(20)").fetchall()]
        if found == ["ok"]:
            return None
        found = list(dict.fromkeys(found))  # one message per row of a table says the same thing
        damage = [m for m in found if _confirmed(conn, m)]
    except Exception as exc:  # noqa: BLE001 - the driver's error classes vary (stdlib, sqlean)
        if "interrupt" in str(exc).lower():
            return None
        return str(exc)
    finally:
        conn.set_progress_handler(None, 0)
    if not damage:
        log.info("quick_check reported %s, which the rows disprove (a known false positive of older "
                 "SQLites, e.g. 3.40 on WITHOUT ROWID tables): the index is sound", "; ".join(found[:5]))
        return None
    return "; ".join(damage[:5])
