"""A note's line endings never change what is indexed (issue 26): a CR-only note (classic Mac, some
exporters) and one mixing "\\r\\n" and "\\r" are stored, searched, read and hinted exactly as their "\\n"
twin, with the same line numbers, as CommonMark (and markdown-it) sees the lines."""

from __future__ import annotations

from pathlib import Path

from conftest import write
from scree.config import load_config
from scree.hookkit.hint import open_notes
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.mcpserver import read_output
from scree.notes.policy import NotesPolicy
from scree.search.search import Query, search

LF = ("# Release steps\n\nRun the deploy script crword.\n\n```sh\n# not a heading\n\ndeploy --now\n```\n\n"
      "## Rollback\n\nUse rollbackword.\n\nThen tell\nthe team.\n")
TWINS = {
    "lf.md": LF,
    "cr.md": LF.replace("\n", "\r"),
    "mixed.md": "".join(line + ("\r", "\r\n", "\n")[i % 3] for i, line in enumerate(LF.split("\n")[:-1])),
}


def _rows(index, path: str) -> list[tuple]:
    return index.conn.execute(
        "select c.heading, c.text, c.start_line, c.end_line, c.names from chunks c join files f on f.id = c.file_id "
        "where f.path = ? order by c.seq", (path,)).fetchall()


def test_cr_only_and_mixed_notes_are_indexed_searched_read_and_hinted_as_their_lf_twin(tmp_path: Path, embedder):
    root = tmp_path / "notes"
    for name, text in TWINS.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text.encode("utf-8"))
    write(root, "other.md", "# Other\n\nplain note.\n")
    loc = index_location(root, load_config())
    index = open_index(loc, root)
    try:
        policy = NotesPolicy.load(root)
        report = sync(index, policy, embedder)
        assert sorted(report.added) == ["cr.md", "lf.md", "mixed.md", "other.md"]
        want = _rows(index, "lf.md")
        assert [r[0] for r in want] == ["Release steps", "Release steps > Rollback"]
        assert (want[0][2], want[0][3], want[1][2], want[1][3]) == (1, 9, 11, 16)
        for name in ("cr.md", "mixed.md"):
            assert _rows(index, name) == want, name
        # Keyword search (the path `auto` takes for a bare word) finds each twin's chunk at the same lines.
        for word, lines in (("crword", (1, 9)), ("rollbackword", (11, 16))):
            hits = search(index, policy, embedder, Query(word, k=10, mode="keyword")).hits
            assert sorted((h.path, h.start_line, h.end_line) for h in hits) == [
                (name, *lines) for name in ("cr.md", "lf.md", "mixed.md")], word
    finally:
        index.close()
    # read_doc: a section by its trail, and a line range, are the LF twin's.
    for ask in ({"heading": "Rollback", "start_line": None, "end_line": None},
                {"heading": None, "start_line": 3, "end_line": 8}):
        reads = {name: read_output(root, name, **ask, max_file_bytes=10**6, max_bytes=10**5) for name in TWINS}
        assert {(r.start_line, r.end_line, r.text) for r in reads.values()} == {
            (reads["lf.md"].start_line, reads["lf.md"].end_line, reads["lf.md"].text)}, ask
    assert reads["lf.md"].text.startswith("Run the deploy script crword.")
    # The grep hint reads the same rows: the same `path:start-end` for every twin.
    notes = open_notes(str(loc.db))
    assert notes is not None
    try:
        sections = notes.rank([('"rollbackword"', True)], ["rollbackword"], None, limit=5)
    finally:
        notes.close()
    assert sorted((s.path, s.start_line, s.end_line) for s in sections) == [
        (name, 11, 16) for name in ("cr.md", "lf.md", "mixed.md")]
