"""A note's other names (front-matter `aliases:`, and a `title:` no heading carries) are searchable:
stored per file and in the keyword rows, and carried in every embedding header (issue 19). Real SQLite,
the fake embedder."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from conftest import write
from scree.notes.chunker import MAX_HEADING_BYTES, chunk_markdown, note_names
from scree.config import load_config
from scree.db import queries
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.search.search import Query, search
from scree.index.store import open_index
from scree.index.sync import sync

ALIASED = """---
aliases: [Kubernetes cheatsheet, k8s]
---
# Cluster commands

Scale a deployment with the rollout tool.

## Pods

List what runs where.
"""

OTHER = "# Gardening\n\nWater the tomatoes every morning; a cheatsheet of seeds is pinned above the bench.\n"


class Recording:
    """The fake embedder, remembering every passage it was given (pieces included)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.id, self.dimensions, self.max_windows = inner.id, inner.dimensions, inner.max_windows
        self.seen: list[Any] = []

    def embed_passages(self, passages: Sequence[Any]) -> list[np.ndarray]:
        self.seen.extend(passages)
        return self.inner.embed_passages(passages)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def close(self) -> None:
        pass


def _setup(tmp_path: Path, embedder: Any, notes: dict[str, str]):
    root = tmp_path / "notes"
    for rel, text in notes.items():
        write(root, rel, text)
    index = open_index(index_location(root, load_config()), root)
    rec = Recording(embedder)
    sync(index, NotesPolicy.load(root), rec)
    return root, index, rec


def _keyword(root: Path, index: Any, embedder: Any, text: str) -> list[tuple[str, str]]:
    hits = search(index, NotesPolicy.load(root), embedder, Query(text, mode="keyword")).hits
    return [(h.path, h.heading) for h in hits]


def test_a_keyword_search_for_an_alias_finds_the_note(tmp_path, embedder):
    root, index, _ = _setup(tmp_path, embedder, {"k.md": ALIASED, "g.md": OTHER})
    assert _keyword(root, index, embedder, "k8s")[0][0] == "k.md"
    # every chunk carries the names, as a heading's words are carried by the chunks under it
    assert {h for p, h in _keyword(root, index, embedder, "k8s") if p == "k.md"} == {
        "Cluster commands", "Cluster commands > Pods"}
    assert _keyword(root, index, embedder, "Kubernetes")[0][0] == "k.md"
    # an alias word is a heading's peer: it outweighs a passing mention in another note's body
    assert _keyword(root, index, embedder, "cheatsheet")[0][0] == "k.md"
    index.close()


def test_the_embedded_header_carries_the_aliases_and_the_text_stays_verbatim(tmp_path, embedder):
    root, index, rec = _setup(tmp_path, embedder, {"k.md": ALIASED})
    headers = {p.header for p in rec.seen}
    assert headers == {"k.md (Kubernetes cheatsheet; k8s)\nCluster commands",
                       "k.md (Kubernetes cheatsheet; k8s)\nCluster commands > Pods"}
    rows = queries.chunks_of_file(index.conn, "k.md")
    assert [(r.heading, r.start_line, r.end_line) for r in rows] == [
        ("Cluster commands", 4, 6), ("Cluster commands > Pods", 8, 10)]
    assert "aliases" not in rows[0].text and rows[0].text.startswith("# Cluster commands")
    index.close()


def test_an_edit_of_the_aliases_is_picked_up_by_the_next_sync(tmp_path, embedder):
    root, index, rec = _setup(tmp_path, embedder, {"k.md": ALIASED})
    write(root, "k.md", ALIASED.replace("k8s", "kube"))
    rec.seen.clear()
    report = sync(index, NotesPolicy.load(root), rec)
    assert report.updated == ["k.md"]
    # the text of both chunks is unchanged, but their headers are not: both are embedded again
    assert {p.header for p in rec.seen} == {"k.md (Kubernetes cheatsheet; kube)\nCluster commands",
                                            "k.md (Kubernetes cheatsheet; kube)\nCluster commands > Pods"}
    assert queries.vector_progress(index.conn).complete
    assert _keyword(root, index, embedder, "kube")[0][0] == "k.md"
    assert _keyword(root, index, embedder, "k8s") == []
    write(root, "k.md", "# Cluster commands\n\nScale a deployment with the rollout tool.\n")  # names gone
    sync(index, NotesPolicy.load(root), rec)
    assert _keyword(root, index, embedder, "kube") == []
    index.close()


def test_a_note_without_front_matter_is_unchanged(tmp_path, embedder):
    root, index, rec = _setup(tmp_path, embedder, {"g.md": OTHER})
    assert {p.header for p in rec.seen} == {"g.md\nGardening"}
    assert index.conn.execute("select names from files").fetchall() == [("",)]
    assert index.conn.execute("select distinct names from chunks").fetchall() == [("",)]
    assert _keyword(root, index, embedder, "tomatoes")[0] == ("g.md", "Gardening")
    index.close()


def test_a_title_no_heading_carries_is_a_name_and_one_a_heading_carries_is_not(tmp_path, embedder):
    docusaurus = "---\ntitle: Getting Started\nslug: /start/\n---\n\n## Installation\n\nRun the installer.\n"
    jekyll = "---\ntitle: Backups\naliases: [backups, Snapshots]\n---\n# Backups\n\nNightly copies.\n"
    assert note_names(chunk_markdown(docusaurus)) == ("Getting Started",)
    assert note_names(chunk_markdown(jekyll)) == ("Snapshots",)  # each name once, none a heading repeats
    root, index, rec = _setup(tmp_path, embedder, {"d.mdx": docusaurus, "j.md": jekyll})
    assert {p.header for p in rec.seen} == {"d.mdx (Getting Started)\nInstallation", "j.md (Snapshots)\nBackups"}
    assert _keyword(root, index, embedder, "getting started")[0] == ("d.mdx", "Installation")
    index.close()


def test_note_names_are_one_line_each_and_capped():
    text = "---\ntitle: |\n  Two\n  lines\naliases: [' spaced   out ', 7, '', " + ", ".join(["x" * 300] * 2) + "]\n---\nBody\n"
    names = note_names(chunk_markdown(text))
    assert names[:2] == ("Two lines", "spaced out")
    assert len(names) == 3 and all("\n" not in n for n in names) and len(names[2].encode()) <= MAX_HEADING_BYTES


def test_an_index_from_before_names_is_migrated_and_rechunked_with_them(tmp_path, embedder):
    """Schema 4 (two FTS columns, no names) with chunker 4 rows: opening migrates, the next sync fills the names."""
    import sqlite3

    from scree.db import schema

    root, index, _ = _setup(tmp_path, embedder, {"k.md": ALIASED})
    db = index_location(root, load_config()).dir / "index.db"
    index.close()
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("drop table chunks_literal")  # what migration 8 (the literal rows) added
    conn.execute("delete from meta where key = 'literal'")
    conn.execute("drop table chunks_cjk")  # what migration 7 (CJK keyword rows) added
    conn.execute("drop index chunks_with_cjk")
    conn.execute("alter table chunks drop column cjk")
    conn.execute("drop table chunks_fts")
    conn.execute(schema.MIGRATIONS[1][-1])  # the FTS table as migration 1 made it: heading, text
    conn.execute("alter table chunks drop column names")
    conn.execute("alter table files drop column names")
    conn.execute("drop index files_by_page")  # and what migration 6 (languages) added
    conn.execute("drop index chunks_keyword_only")
    conn.execute("drop index files_by_alias")
    for column in ("lang", "lang_by", "page", "indexed", "alias"):
        conn.execute(f"alter table files drop column {column}")
    conn.execute("drop table embed_cache")  # the cache as migration 3 made it (6 made it a rowid table)
    for stmt in schema.MIGRATIONS[3]:
        conn.execute(stmt)
    conn.execute("insert into chunks_fts(chunks_fts) values('rebuild')")
    conn.execute("update meta set value = '4' where key = 'chunker'")
    conn.execute("pragma user_version = 4")
    conn.close()

    index = open_index(index_location(root, load_config()), root)
    assert schema.current_version(index.conn) == schema.SCHEMA_VERSION
    assert _keyword(root, index, embedder, "rollout")[0][0] == "k.md"  # rebuilt from the chunks
    assert _keyword(root, index, embedder, "k8s") == []  # no names until the files are chunked again
    report = sync(index, NotesPolicy.load(root), embedder)
    assert report.rechunked and report.updated == ["k.md"]
    assert _keyword(root, index, embedder, "k8s")[0][0] == "k.md"
    assert index.conn.execute("insert into chunks_fts(chunks_fts) values('integrity-check')") is not None
    index.close()


def test_invalid_yaml_front_matter_gets_one_warning_naming_the_file_and_is_otherwise_indexed(tmp_path, embedder, caplog):
    """Issue 26: it was ignored without a word. The note is still indexed (no title, no aliases); the
    warning comes when the note is read, not on every no-op sync."""
    import logging

    broken = "---\ntitle: Cluster guide\naliases: [k8s\n---\n# Cluster commands\n\nScale with the rollout tool.\n"
    with caplog.at_level(logging.WARNING, logger="scree"):
        root, index, _ = _setup(tmp_path, embedder, {"docs/broken.md": broken, "other.md": OTHER})
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1 and warned[0].startswith("docs/broken.md: its front matter is not valid YAML (line 4: "), warned
    assert sorted(queries.stored_files(index.conn)) == ["docs/broken.md", "other.md"]
    assert _keyword(root, index, embedder, "rollout")[0][0] == "docs/broken.md"
    assert _keyword(root, index, embedder, "k8s") == []  # as before: no aliases from broken YAML
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="scree"):
        sync(index, NotesPolicy.load(root), embedder)
    assert not [r for r in caplog.records if r.levelno == logging.WARNING]
    index.close()


FUNCTION_PAGE = """---
title: truncate
---

Returns the given string cut to at most the given length, never in the middle of a word. The length counts
characters, not bytes; an ellipsis, when one is given, is added after the cut and is not counted. HTML in the
string is kept whole: an element the cut would split is closed. Give the length first and the string last, so
that the function reads well at the end of a pipeline of other functions.
"""

STRINGS_GUIDE = """# Templates

## Strings

Shorten a summary with truncate: truncate it, truncate a title.
"""


def test_a_page_titled_only_in_front_matter_is_the_entry_a_lookup_of_its_title_finds_first(
        tmp_path, embedder, monkeypatch):
    # Hugo's and ESLint's pages of one function or rule: no heading, the front-matter title drawn as the page's own.
    root, index, _ = _setup(tmp_path, embedder, {"functions/truncate.md": FUNCTION_PAGE, "guide.md": STRINGS_GUIDE})
    assert _keyword(root, index, embedder, "truncate")[0] == ("functions/truncate.md", "")
    monkeypatch.setattr(queries, "TITLES_HEAD_TOPS", False)  # BM25 alone prefers the guide that says it three times
    assert _keyword(root, index, embedder, "truncate")[0] == ("guide.md", "Templates > Strings")
