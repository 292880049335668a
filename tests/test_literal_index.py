"""The literal (trigram) index beside the word index (issue 38): each chunk's punctuated tokens in
`chunks_literal`, so a name whose punctuation is the name (`path:`, `{{date}}`, `--callout-icon`) is found
without scanning every chunk. `queries.literal_search` answers exactly what the scan
(`verbatim_search(fold=True)`) answers. Real SQLite files; the fake embedder."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from conftest import write
from scree.config import load_config
from scree.db import invariants, literal, queries, schema
from scree.db.connect import connect
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from test_db_connect import alone

NOTES = {
    "search.md": "# Search\n\n## Operators\n\n`path:` limits results to files under a folder, e.g. `path:daily/`, "
                 "and PATH:Archive/ works too.\n\n## Comments\n\nText between %%comment%% markers is hidden; "
                 "so is %%COMMENT%% (the same).\n",
    "templates.md": "# Templates\n\nUse {{date}} and {{time}} in a template: {{date}} becomes today's date.\n\n"
                    "## Settings\n\nSet `key=\"value\"` or key='other' in the file. See [[Setup Guide]].\n",
    "css.md": "# --callout-icon\n\nThe variable --callout-icon sets a callout's icon (see `--callout-color`).\n\n"
              "## Server\n\nmax_connections = 100 limits clients; a.b.c is a dotted name, a.b.c.d another.\n",
    "prose.md": "# Plain words\n\nA path to the folder, a comment, a date (today), and \"quoted\" words, "
                "then --- and | alone. The path, the date.\n",
    "config/env.md": "# Environment\n\nPut secrets in .env and (.env.local) files; never commit .env!\n",
}
# Needles as the search passes them (case-folded): in a heading, in a backticked span, inside `path:daily/`,
# in other case in the notes, 2 characters, with `"`, with edge punctuation, with whitespace, words only.
NEEDLES = ["path:", "path:daily/", "daily/", "%%comment%%", "{{date}}", "--callout-icon", "callout-icon", "a.b.c",
           "max_connections", 'key="value"', '"value"', "[[setup guide]]", "[[setup", "a.", ".env", "(.env.local)",
           "env.local", "e.g.", "path", "date", "max_connections = 100", "nothing:here", "'s"]


def _index(root: Path, embedder):
    index = open_index(index_location(root, load_config()), root)
    sync(index, NotesPolicy.load(root), embedder)
    return index


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for path, text in NOTES.items():
        write(root, path, text)
    return root


# ----- the pure parts ------------------------------------------------------------------------------------


def test_a_row_keeps_the_raw_punctuated_tokens_once_and_drops_prose_punctuation():
    text = ("Use `path:` and `--flag` with {{date}}, [[Page]], a.b and x_y. A word, (word) and \"quoted\" "
            "--- | are prose; `path:` again.")
    assert literal.row("Notes > Setup", text, "") == "`path:` `--flag` {{date}}, [[Page]], a.b x_y."
    assert literal.row("a.b", "x", "alias:one\nalias:two") == "a.b alias:one alias:two"
    assert literal.row("Plain", "just words, (here) and \"there\".", "") == ""


def test_a_needle_is_searchable_when_a_token_holding_it_always_qualifies():
    for needle in ("path:", "{{date}}", "a.b", "max_connections", 'key="value"', "(.env.local)"):
        assert literal.searchable(needle), needle
    for needle in ("path", "a.", ".a", "---", "a b:c", "", '"ab"', "(x)", "12", ".env", '"value"'):
        assert not literal.searchable(needle), needle
    assert literal.match('key="value"') == '"key=""value"'  # the core: the closing quote is an edge
    assert literal.match("(.env.local)") == '"env.local"'


# ----- a real index ----------------------------------------------------------------------------------------


def test_literal_search_answers_what_the_scan_answers(repo, embedder):
    index = _index(repo, embedder)
    conn = index.conn
    assert index.meta()["literal"] == literal.version()
    searched = 0
    for needle in NEEDLES:
        for limit in (50, 1):
            assert queries.literal_search(conn, needle, limit) == \
                queries.verbatim_search(conn, needle, limit, fold=True), (needle, limit)
        searched += literal.searchable(needle)
    assert searched >= 12
    found = dict(queries.literal_search(conn, "path:", 50))
    assert sorted(found.values()) == [3.0]  # `path:`, `path:daily/` and PATH:Archive/ in one chunk
    assert len(queries.literal_search(conn, "{{date}}", 50)) == 1
    assert queries.literal_search(conn, "--callout-icon", 50)  # the heading and the text
    # A file filter narrows the candidates the same way.
    ids = [i for i, p in queries.file_paths(conn) if p == "css.md"]
    assert queries.literal_search(conn, "a.b.c", 50, ids) == queries.verbatim_search(conn, "a.b.c", 50, ids, fold=True)
    assert queries.literal_search(conn, "a.b.c", 50, [-1]) == []
    index.close()


def test_spelling_chunks_finds_the_chunks_the_scan_finds_and_stops_at_the_limit(repo, embedder):
    index = _index(repo, embedder)
    conn = index.conn
    for needle in NEEDLES:
        scanned = {cid for cid, _ in queries.verbatim_search(conn, needle, 1000, fold=True)}
        found = queries.spelling_chunks(conn, needle, 1000)
        if needle.isalnum():  # a word: the word index holds the chunks with that token, a subset of the substring's
            assert set(found) <= scanned and (found or not scanned), needle
        else:
            assert sorted(found) == sorted(scanned), needle
        assert len(queries.spelling_chunks(conn, needle, 1)) == min(1, len(found)), needle
    index.close()


def test_the_trigram_table_finds_the_candidates_without_a_scan(repo, embedder):
    index = _index(repo, embedder)
    rows = index.conn.execute("select rowid from chunks_literal where chunks_literal match ?",
                              [literal.match("%%comment%%")]).fetchall()
    assert len(rows) == 1  # the one chunk spelling it (either case)
    assert index.conn.execute("select count(*) from chunks_literal_docsize").fetchone()[0] == \
        queries.counts(index.conn).chunks
    index.close()


def test_edited_and_deleted_notes_leave_no_stale_literal_row(repo, embedder):
    index = _index(repo, embedder)
    policy = NotesPolicy.load(repo)
    write(repo, "templates.md", "# Templates\n\nUse {{today}} now.\n")
    (repo / "css.md").unlink()
    sync(index, policy, embedder)
    assert queries.literal_search(index.conn, "{{date}}", 50) == []
    assert queries.literal_search(index.conn, "--callout-icon", 50) == []
    assert len(queries.literal_search(index.conn, "{{today}}", 50)) == 1
    assert invariants.problems(index.conn) == [] and invariants.out_of_step(index.conn) is None
    assert invariants.fts_check(index.conn) is None
    # The stale rows' trigrams are gone from the table itself, not only filtered by the exact check.
    assert index.conn.execute("select count(*) from chunks_literal where chunks_literal match ?",
                              [literal.match("{{date}}")]).fetchone()[0] == 0
    index.close()


def test_an_index_from_before_the_literal_rows_gets_them_on_its_next_sync(repo, embedder):
    index = _index(repo, embedder)
    db = index.location.db
    index.close()
    # What a schema 7 file holds: no literal table, no rules in meta.
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        conn.execute("drop table chunks_literal")
        conn.execute("delete from meta where key = 'literal'")
        conn.execute("pragma user_version = 7")
    index = open_index(index_location(repo, load_config()), repo)
    assert schema.current_version(index.conn) == schema.SCHEMA_VERSION
    # Migrated, not synced: the table is empty, so the search scans (and still finds).
    assert "literal" not in index.meta() and invariants.out_of_step(index.conn) is None
    assert len(queries.literal_search(index.conn, "{{date}}", 50)) == 1
    report = sync(index, NotesPolicy.load(repo), embedder)
    assert not report.changed  # nothing re-read, nothing re-embedded: the rows are made from the chunks
    assert index.meta()["literal"] == literal.version()
    assert index.conn.execute("select count(*) from chunks_literal where chunks_literal match ?",
                              [literal.match("{{date}}")]).fetchone()[0] == 1
    assert invariants.problems(index.conn) == []
    index.close()


def test_a_literal_row_deleted_by_hand_is_damage_that_a_reindex_rebuilds(repo, embedder):
    index = _index(repo, embedder)
    db = index.location.db
    index.close()
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        conn.execute("delete from chunks_literal_docsize where id = (select min(id) from chunks)")
        assert "literal index is out of step" in (invariants.out_of_step(conn) or "")
    out = subprocess.run([sys.executable, "-m", "scree.cli", "reindex", "--json", "--notes", str(repo)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "was damaged" in out.stderr, out.stderr
    assert len(json.loads(out.stdout)["added"]) == len(NOTES)
    with closing(connect(db, readonly=True)) as conn:
        assert invariants.out_of_step(conn) is None and invariants.problems(conn, embedder.max_windows) == []


def test_the_schema_check_knows_the_literal_table(tmp_path):
    db = tmp_path / "index.db"
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        schema.migrate(conn)
        assert schema.untrusted_parts(conn, sqlite3) == []
        conn.execute("drop table chunks_literal")
        assert any("table chunks_literal" in p for p in schema.untrusted_parts(conn, sqlite3))


def test_an_sqlite_without_the_trigram_tokenizer_is_refused_with_what_it_needs():
    script = """
        from scree.db import connect
        from scree.errors import SqliteUnavailableError
        connect._has_trigram = lambda module: False  # as SQLite before 3.34
        try:
            connect.choose_driver()
        except SqliteUnavailableError as exc:
            print(exc)
    """
    said = alone(script, SCREE_SQLITE="sqlean")
    assert "has no FTS5 trigram tokenizer (the literal index needs SQLite 3.34 or newer)" in said, said
    assert said.startswith("the bundled SQLite ")
