"""An index edited by hand is damage (issue 26): rows deleted from `chunks` or from the keyword index's
shadow tables, a lowered or zeroed `user_version`, a dropped column. `scree reindex`, a search that
syncs and the live writer (serve, watch) rebuild it; `status` and `doctor` name it; nothing prints a
traceback. Real files, real SQLite, the CLI in-process with the fake embedder; the hand edits go
through the stdlib sqlite3 (no extension needed), as a user's `sqlite3 index.db` would."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from conftest import eventually
from faultkit import FakeEmbedder, notes_folder, run_cli
from scree.config import Config, load_config
from scree.db import invariants
from scree.db.connect import connect
from scree.live.live import LiveIndex
from scree.search.search import Query
from scree.workspace import Workspace

FIRST = "(select min(id) from chunks)"
DAMAGES = {
    "keyword row deleted": [f"delete from chunks_fts_docsize where id = {FIRST}"],
    "chunk deleted with its keyword row": [
        "insert into chunks_fts(chunks_fts, rowid, heading, text, names) "
        f"select 'delete', id, heading, text, names from chunks where id = {FIRST}",
        f"delete from chunks where id = {FIRST}"],
    "chunk row deleted": [f"delete from chunks where id = {FIRST}"],
    "user_version lowered": ["pragma user_version = 3"],
    "user_version zeroed": ["pragma user_version = 0"],
    "column dropped": ["drop index chunks_unembedded", "drop index chunks_keyword_only",
                       "alter table chunks drop column windows"],
}
# Counts and quick_check pass these; FTS5's own integrity-check and any search matching the rows do not.
GARBLED = {
    "keyword row garbled": [f"update chunks_fts_docsize set sz = x'ff' where id = {FIRST}"],
    "keyword config deleted": ["delete from chunks_fts_config"],
}
ALL = {"n0.md", "n1.md", "n2.md"}


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    return notes_folder(tmp_path / "notes")


def _ws(notes: Path) -> Workspace:
    return Workspace.from_config(load_config().with_overrides(notes=notes))


def damage(db: Path, statements: list[str]) -> None:
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        for stmt in statements:
            conn.execute(stmt)


def keyword_paths(notes: Path, capsys, monkeypatch, *extra: str) -> tuple[set[str], str]:
    code, out, err = run_cli(["search", *extra, "--json", "--mode", "keyword", "-k", "10", "--notes", str(notes),
                              "retention"], capsys, monkeypatch)
    assert code == 0, err
    return {r["path"] for r in json.loads(out)["results"]}, err


def sound(ws: Workspace) -> bool:
    from scree.doctor import doctor

    return doctor.check_index(ws, deep=True).status == doctor.OK


@pytest.mark.parametrize("kind", DAMAGES)
def test_hand_made_damage_is_named_by_status_and_doctor_and_no_command_prints_a_traceback(kind, notes, capsys,
                                                                                           monkeypatch):
    from scree.doctor import doctor

    code, _, err = run_cli(["reindex", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 0, err
    ws = _ws(notes)
    damage(ws.location.db, DAMAGES[kind])
    code, out, err = run_cli(["status", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 1 and "\ndamage " in out and "`scree reindex` rebuilds it" in out, (out, err)
    code, out, err = run_cli(["status", "--json", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 1 and json.loads(out)["damage"], out
    check = doctor.check_index(ws)
    assert check.status == doctor.FAIL and "is damaged" in check.summary, check
    checks = doctor.run_checks(load_config().with_overrides(notes=notes), embedder=FakeEmbedder())
    assert not [c for c in checks if "check itself failed" in c.summary], checks
    # A reader cannot repair: it answers with a note, or refuses with the fix; never a traceback.
    code, out, err = run_cli(["search", "--no-sync", "--mode", "keyword", "--notes", str(notes), "retention"],
                             capsys, monkeypatch)
    assert "the index is damaged" in err or "is damaged (" in err, err
    assert code == 0 or (code == 1 and "rebuild" in err), (code, err)


@pytest.mark.parametrize("command", ["reindex", "search"])
@pytest.mark.parametrize("kind", DAMAGES)
def test_hand_made_damage_is_rebuilt_by_reindex_and_by_a_search_that_syncs(kind, command, notes, capsys,
                                                                           monkeypatch):
    code, _, err = run_cli(["reindex", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 0, err
    ws = _ws(notes)
    damage(ws.location.db, DAMAGES[kind])
    if command == "reindex":
        code, out, err = run_cli(["reindex", "--json", "--notes", str(notes)], capsys, monkeypatch)
        assert code == 0 and sorted(json.loads(out)["added"]) == sorted(ALL), (out, err)
    else:
        found, err = keyword_paths(notes, capsys, monkeypatch)
        assert found == ALL, err
    assert "was damaged" in err and "rebuilding it from the notes" in err, err
    assert sound(ws)
    code, out, _ = run_cli(["status", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 0 and "\ndamage " not in out, out
    # Repaired for good: the next reindex finds nothing to do.
    code, out, err = run_cli(["reindex", "--json", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 0 and json.loads(out)["unchanged"] == 3 and "damaged" not in err, (out, err)


def test_a_healthy_index_reindexed_and_searched_again_is_never_called_damaged(notes, capsys, monkeypatch):
    from scree.db.writes import append_chunks, begin_file
    from scree.records import Chunk

    for _ in range(2):
        code, _, err = run_cli(["reindex", "--notes", str(notes)], capsys, monkeypatch)
        assert code == 0 and "damaged" not in err, err
        found, err = keyword_paths(notes, capsys, monkeypatch)
        assert found == ALL and "damaged" not in err, err
    # A sync cut short mid-file (a big note's first part committed, no hash yet) is not damage either:
    # the next sync redoes that file.
    ws = _ws(notes)
    index = ws.open_index()
    try:
        fid = begin_file(index.conn, "n1.md", FakeEmbedder.max_windows)
        append_chunks(index.conn, fid, 0, [Chunk("Note 1", "part one", 1, 1)], [None], FakeEmbedder.max_windows)
        assert invariants.out_of_step(index.conn) is None
    finally:
        index.close()
    code, out, err = run_cli(["reindex", "--json", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 0 and json.loads(out)["updated"] == ["n1.md"] and "damaged" not in err, (out, err)
    assert sound(ws)


# ----- the live writer (scree serve, scree watch) --------------------------------------------------------


@pytest.fixture
def make_live():
    made: list[LiveIndex] = []

    def _make(folder: Path) -> LiveIndex:
        live = LiveIndex(Workspace.from_config(Config().with_overrides(notes=folder)), embedder=FakeEmbedder(),
                         debounce=0.1, lock_retry=0.2)
        made.append(live)
        return live

    yield _make
    for live in made:
        live.stop(timeout=5.0)


def _keyword(live: LiveIndex) -> set[str]:
    return {h.path for h in live.search(Query("retention", k=20, mode="keyword")).hits}


@pytest.mark.parametrize("kind", [*DAMAGES, *GARBLED])
def test_a_live_writer_starting_on_hand_made_damage_rebuilds_it(kind, notes, make_live):
    first = make_live(notes)
    first.start()
    assert first.wait_until(lambda st: st.state == "complete", 15)
    db = first.workspace.location.db
    assert first.stop()
    damage(db, {**DAMAGES, **GARBLED}[kind])
    live = make_live(notes)
    live.start()  # before: "restart scree" for a lowered version, "unchanged" for deleted rows
    assert live.wait_until(lambda st: st.state == "complete", 15), live.status()
    assert eventually(lambda: _keyword(live) == ALL, 15)
    assert invariants.problems(connect(db, readonly=True), FakeEmbedder.max_windows) == []


@pytest.mark.parametrize("kind", ["keyword row deleted", "chunk deleted with its keyword row"])
def test_rows_deleted_under_a_running_writer_are_rebuilt_by_its_next_sync(kind, notes, make_live):
    live = make_live(notes)
    live.start()
    assert live.wait_until(lambda st: st.state == "complete", 15)
    db = live.workspace.location.db
    damage(db, DAMAGES[kind])
    report = live.reindex()  # the MCP `reindex` tool: the sync checks the rows first, and rebuilds
    assert sorted(report.added) == sorted(ALL), report
    assert _keyword(live) == ALL
    assert invariants.problems(connect(db, readonly=True), FakeEmbedder.max_windows) == []


# ----- damage only the keyword index's own check, or a search, meets ------------------------------------

@pytest.mark.parametrize("kind", GARBLED)
def test_keyword_rows_garbled_by_hand_are_found_by_reindex_doctor_deep_and_search(kind, notes, capsys, monkeypatch):
    """Counts and quick_check pass such a file while every search matching the row fails ("malformed"):
    `scree reindex` runs FTS5's own integrity-check (bounded), doctor --deep too, and a search that meets
    the damage rebuilds as `scree serve` does; a reader says what to do, never a traceback."""
    from scree.doctor import doctor

    code, _, err = run_cli(["reindex", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 0, err
    ws = _ws(notes)
    for repair in ("reindex", "search"):
        damage(ws.location.db, GARBLED[kind])
        check = doctor.check_index(ws, deep=True)
        assert check.status == doctor.FAIL and "is damaged" in check.summary, check
        code, out, err = run_cli(["search", "--no-sync", "--mode", "keyword", "--notes", str(notes), "retention"],
                                 capsys, monkeypatch)
        assert code == 1 and "is damaged" in err and "rebuild" in err, err
        if repair == "reindex":
            code, out, err = run_cli(["reindex", "--json", "--notes", str(notes)], capsys, monkeypatch)
            assert code == 0 and sorted(json.loads(out)["added"]) == sorted(ALL), (out, err)
        else:
            found, err = keyword_paths(notes, capsys, monkeypatch)
            assert found == ALL, err
        assert "was damaged" in err and "rebuilding it from the notes" in err, err
        assert sound(ws)
