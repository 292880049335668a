"""The index schema as numbered migrations, plus the vector table, whose width depends on the embedder.

Migration N brings `user_version` from N-1 to N. Never edit a released migration: add the next one.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from .snapshot import read_snapshot, transaction

SCHEMA_VERSION = 8

# FTS5 column weights for bm25(): the heading trail counts above the body, since a trail that names
# the subject ("Configuration > Retention") is stronger evidence than one mention in a paragraph. The
# third column holds the note's other names (front-matter title and aliases, migration 5): a heading's peers.
FTS_WEIGHTS = (3.0, 1.0, 3.0)

MIGRATIONS: dict[int, list[str]] = {
    1: [
        """create table meta (
               key text primary key,
               value text not null
           ) without rowid""",
        # sha256 is NULL until the file's chunks and vectors are committed: see writes.replace_file.
        """create table files (
               id integer primary key,
               path text not null unique,
               sha256 text,
               mtime_ns integer not null default 0,
               size integer not null default 0,
               title text,
               chunks integer not null default 0,
               indexed_at real
           )""",
        """create table chunks (
               id integer primary key,
               file_id integer not null references files(id) on delete cascade,
               seq integer not null,
               heading text not null,
               text text not null,
               start_line integer not null,
               end_line integer not null,
               windows integer not null
           )""",
        "create index chunks_by_file on chunks(file_id)",
        # External-content FTS: the text lives once, in `chunks`; writes.py keeps both in step.
        """create virtual table chunks_fts using fts5(
               heading, text, content='chunks', content_rowid='id',
               tokenize='unicode61 remove_diacritics 2'
           )""",
    ],
    # The vocabulary (scree.index.vocab): code files and manifests are read for names only. Their text is
    # never stored; mtime and size say whether a file must be read again. sha256 is NULL until the
    # file's names are committed, like files.sha256. names.common is 1 for a name that is also an
    # everyday word (`class Proxy`): a query must capitalise it for it to count as the name.
    2: [
        """create table code_files (
               id integer primary key,
               path text not null unique,
               kind text not null,
               sha256 text,
               mtime_ns integer not null default 0,
               size integer not null default 0
           )""",
        """create table names (
               name text not null,
               source text not null check (source in ('manifest', 'code')),
               common integer not null default 0,
               file_id integer not null references code_files(id) on delete cascade,
               primary key (name, file_id)
           ) without rowid""",
        "create index names_by_file on names(file_id)",
    ],
    # Content-addressed embeddings (db/embedcache.py): the vectors of one passage (header + body, the
    # exact text) under one embedder id, so a text embedded before, in any file, is not embedded again.
    # `used` (unix time) orders the pruning: least recently used goes first once the cache outgrows the index.
    3: [
        """create table embed_cache (
               model text not null,
               key blob not null,
               windows integer not null,
               vectors blob not null,
               used real not null,
               primary key (model, key)
           ) without rowid""",
        "create index embed_cache_by_use on embed_cache(used)",
    ],
    # Two stages (sync.py): stage one commits a file's chunks and keyword rows with windows = 0 (its
    # vectors known missing); stage two embeds them and sets windows. This index finds that work
    # (and counts it for the status) without scanning every chunk.
    4: [
        "create index chunks_unembedded on chunks(file_id) where windows = 0",
    ],
    # A note's other names (chunker.note_names: its front-matter title when no heading carries it, its
    # aliases), newline-joined: `files.names` is what stage two puts in every chunk's embedding header;
    # `chunks.names` is what the keyword index reads in its third column. The FTS table is made again
    # with that column (rebuilt from `chunks`); the chunker version bumped with it fills the names in.
    5: [
        "alter table files add column names text not null default ''",
        "alter table chunks add column names text not null default ''",
        "drop table chunks_fts",
        """create virtual table chunks_fts using fts5(
               heading, text, names, content='chunks', content_rowid='id',
               tokenize='unicode61 remove_diacritics 2'
           )""",
        "insert into chunks_fts(chunks_fts) values('rebuild')",
    ],
    # A note's language (notes/language.py, issue 27), decided when it is indexed: `lang` is a code or
    # 'und'; NULL on files indexed before this migration, which the next sync reads again to decide it.
    # `page` names the page the note is a copy of (its path without the language marker), and `alias`
    # the page its front matter names (Hugo's translationKey, Jekyll Polyglot's permalink), so copies in
    # other languages fold into one search result. `indexed` is 0 for a note whose language
    # SCREE_LANGUAGES leaves out: its row remembers the language, it has no chunks. A chunk of a note in a
    # language the embedder does not read is keyword-only: windows = -1, never embedded, and not counted
    # as missing vectors (the second index finds and counts them).
    6: [
        "alter table files add column lang text",
        "alter table files add column lang_by text not null default ''",
        "alter table files add column page text not null default ''",
        "alter table files add column indexed integer not null default 1",
        "alter table files add column alias text not null default ''",  # front matter translationKey/permalink
        "create index files_by_page on files(page)",
        "create index files_by_alias on files(alias) where alias != ''",
        "create index chunks_keyword_only on chunks(file_id) where windows < 0",
        # The embedding cache as a rowid table: in a WITHOUT ROWID table a row over about 1 KB spills to an
        # overflow page of its own, so a one-window entry (1.5 KB of vectors) took 5 KB of pages and the
        # cache 58% of FastAPI's English index; a rowid table keeps rows up to 4 KB in the leaf.
        """create table embed_cache_rows (
               id integer primary key,
               model text not null,
               key blob not null,
               windows integer not null,
               vectors blob not null,
               used real not null
           )""",
        "insert into embed_cache_rows(model, key, windows, vectors, used) "
        "select model, key, windows, vectors, used from embed_cache order by used",
        "drop table embed_cache",
        "alter table embed_cache_rows rename to embed_cache",
        "create unique index embed_cache_by_key on embed_cache(model, key)",
        "create index embed_cache_by_use on embed_cache(used)",
    ],
    # Keyword rows for text in Chinese, Japanese and Korean scripts (db/cjk.py, issue 27): unicode61 keeps a
    # run of those characters as one token, so a chunk holding any gets a second row, its columns with each
    # run written as overlapping bigrams, in `chunks_cjk`; `chunks_fts` stays as it was, so English BM25 does
    # not move. Contentless: the rows are made from the chunk's own columns (`cjk.row`), so nothing is stored
    # twice, and a row is deleted by making it again (FTS5's 'delete' needs the values indexed: cjk.row is
    # pure, and meta `cjk` names its rules: other rules make every row again before any write).
    # `chunks.cjk` is 1 for a chunk that has such a row: which rows to delete, and the count every sync
    # checks (invariants.out_of_step). Existing chunks get their rows from the next sync (sync.follow_cjk).
    7: [
        "alter table chunks add column cjk integer not null default 0",
        "create index chunks_with_cjk on chunks(id) where cjk = 1",
        """create virtual table chunks_cjk using fts5(
               heading, text, names, content='',
               tokenize='unicode61 remove_diacritics 2'
           )""",
    ],
    # The literal index (db/literal.py, issue 38): a name whose punctuation is the name (`path:`, `{{date}}`,
    # `--callout-icon`) is dropped by unicode61; its chunks were found by a scan of every chunk. Each chunk has
    # exactly one row here, rowid = chunk id, holding its punctuated whitespace tokens ('' when none), which a
    # trigram phrase finds by any substring. Contentless like chunks_cjk (a row is deleted by making it again
    # with `literal.row`; meta `literal` names the rules); `detail=full`: a phrase of trigrams needs positions.
    # Existing chunks get their rows from the next sync (sync.follow_literal). The trigram tokenizer needs
    # SQLite 3.34 (connect.choose_driver refuses older ones).
    8: [
        """create virtual table chunks_literal using fts5(
               tokens, content='', detail='full', tokenize='trigram'
           )""",
    ],
}


def current_version(conn: Any) -> int:
    return int(conn.execute("pragma user_version").fetchone()[0])


def migrate(conn: Any) -> int:
    """Apply pending migrations, each in its own transaction. Returns the resulting version.

    Raises ValueError when the file was written by a newer scree (we must not guess at its schema).
    """
    version = current_version(conn)
    if version > SCHEMA_VERSION:
        raise ValueError(f"index schema version {version} is newer than this scree ({SCHEMA_VERSION})")
    for target in range(version + 1, SCHEMA_VERSION + 1):
        with transaction(conn):
            # Another process may have migrated between our read and our write lock: re-read under it.
            if current_version(conn) >= target:
                continue
            for stmt in MIGRATIONS[target]:
                conn.execute(stmt)
            conn.execute(f"pragma user_version = {target}")
    return SCHEMA_VERSION


def untrusted_parts(conn: Any, module: Any) -> list[str]:
    """What in the file disagrees with the schema its `user_version` claims; [] when they agree.

    Every migration commits with its version, so scree never leaves such a file; one edited by hand can
    lack a table, column or index its version makes (a dropped column: reads fail on "no such column"),
    or hold one only a later version makes (a lowered or zeroed version: migrating fails on "already
    exists", for ever). Either way scree cannot trust the file: its owner treats a non-empty answer as a
    damaged index (a cache: rebuilt), and readers name it instead of failing mid-query. Tables scree makes
    outside the migrations (the vector table) and anything no migration makes are not compared. A file of
    a newer scree is `migrate`'s and the reader's to refuse. `module` is the connection's DB-API module:
    the expected schema is made by the same SQLite.
    """
    # One snapshot: each migration commits its objects with its number, so a process migrating the file
    # meanwhile (a writer upgrading it, a second first open) never reads as a mismatch.
    with read_snapshot(conn):
        return _untrusted_parts(conn, module)


def _untrusted_parts(conn: Any, module: Any) -> list[str]:
    version = current_version(conn)
    if version > SCHEMA_VERSION:
        return []
    full = _expected_schema(module, SCHEMA_VERSION)
    if not full.tables:
        return []  # an SQLite without FTS5: nothing to compare against (connect() refuses it anyway)
    claimed = _expected_schema(module, version)
    names = {str(r[0]): str(r[1]) for r in conn.execute(
        "select name, type from sqlite_master where type in ('table', 'index') and name not like 'sqlite%'")}
    missing: list[str] = []
    later: list[str] = []
    for table, columns in full.tables.items():
        if table not in names:
            if table in claimed.tables:
                missing.append(f"table {table}")
            continue
        if table not in claimed.tables:
            later.append(f"table {table}")
            continue
        try:
            have = {str(row[1]) for row in conn.execute(f'pragma table_info("{table}")').fetchall()}
        except Exception:  # noqa: BLE001 - a table that cannot even be read is the damage checks' business
            continue
        missing.extend(f"column {table}.{c}" for c in claimed.tables[table] if c not in have)
        later.extend(f"column {table}.{c}" for c in columns if c in have and c not in claimed.tables[table])
    for name in sorted(full.indexes):
        if name in claimed.indexes and name not in names:
            missing.append(f"index {name}")
        elif name not in claimed.indexes and name in names:
            later.append(f"index {name}")
    out = [f"schema version {version} without {_listed(missing)}"] if missing else []
    if later:
        out.append(f"schema version {version} but with {_listed(later)} of a later version")
    return out


def _listed(parts: list[str], shown: int = 4) -> str:
    more = len(parts) - shown
    return ", ".join(parts[:shown]) + (f" and {more} more" if more > 0 else "")


@dataclass(frozen=True)
class _Schema:
    tables: dict[str, tuple[str, ...]]  # every table (FTS5 tables and their shadow tables included): its columns
    indexes: frozenset[str]


@functools.lru_cache(maxsize=2 * (SCHEMA_VERSION + 1))
def _expected_schema(module: Any, version: int) -> _Schema:
    """The tables, columns and indexes migrations 1..version make in a new file."""
    conn = module.connect(":memory:")
    try:
        for v in range(1, version + 1):
            for stmt in MIGRATIONS[v]:
                conn.execute(stmt)
        rows = conn.execute("select name, type from sqlite_master where name not like 'sqlite%'").fetchall()
        tables = {n: tuple(r[1] for r in conn.execute(f'pragma table_info("{n}")')) for n, t in rows if t == "table"}
        return _Schema(tables, frozenset(n for n, t in rows if t == "index"))
    except module.OperationalError:  # an SQLite without FTS5
        return _Schema({}, frozenset())
    finally:
        conn.close()


def vec_table_sql(dimensions: int) -> str:
    """The vector table: cosine distance, one row per embedded window.

    rowid = chunk_id * max_windows + window, so a chunk's windows are found without another table;
    file_id is a sqlite-vec metadata column so a path filter narrows the KNN before top-k is taken.
    """
    return (
        "create virtual table chunks_vec using vec0("
        f"embedding float[{int(dimensions)}] distance_metric=cosine, file_id integer)"
    )
