"""Fault edges: every fault ends in a clear message and costs nothing the user owns.

Real files, real SQLite and the real CLI entry point (in-process, with a small fake embedder so
no model loads). Each test reproduces one fault from issue 11 and asserts the message, the untouched
user file, the repaired index or the surviving writer.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from faultkit import FakeEmbedder, notes_folder, run_cli
from scree.config import load_config
from scree.db import invariants
from scree.db.connect import APPLICATION_ID, inspect_file
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.index.store import open_index
from scree.index.sync import sync


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    return notes_folder(tmp_path / "notes")


def _index(folder: Path):
    return open_index(index_location(folder, load_config()), folder)


# ----- ignore lines and globs ----------------------------------------------------------------------

def test_an_ignore_line_git_accepts_but_python_cannot_compile_is_skipped_with_one_warning(notes, capsys,
                                                                                          monkeypatch, caplog):
    (notes / ".gitignore").write_text("[z-a]\nn1.md\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        code, out, err = run_cli(["index", "--notes", str(notes)], capsys, monkeypatch)
        NotesPolicy.load(notes)  # loading the rules again does not repeat the warning
    assert code == 0, err
    warnings = [r.getMessage() for r in caplog.records if "[z-a]" in r.getMessage()]
    assert len(warnings) == 1 and "ignoring invalid pattern" in warnings[0]
    index = _index(notes)
    # The other line still applies: n1.md is ignored, the rest indexed.
    assert sorted(p for _, p in index.conn.execute("select id, path from files")) == ["n0.md", "n2.md"]


@pytest.mark.parametrize("glob", ["[z-a]", "docs\\"])
def test_a_bad_path_glob_exits_2_naming_the_glob(notes, capsys, monkeypatch, glob):
    code, out, err = run_cli(["search", "--notes", str(notes), "--path", glob, "retention"], capsys, monkeypatch)
    assert code == 2
    assert repr(glob) in err and "not a valid glob" in err and "Traceback" not in err
    assert out == ""


# ----- --db / SCREE_DB safety ----------------------------------------------------------------------

def test_db_pointing_at_a_markdown_file_is_refused_and_the_file_is_untouched(notes, tmp_path, capsys, monkeypatch):
    victim = tmp_path / "todo.md"
    victim.write_text("# My todo\n\n- buy milk\n", encoding="utf-8")
    before = victim.read_bytes()
    for args in (["index"], ["index", "--rebuild"], ["reindex", "--rebuild"], ["search", "milk"], ["status"]):
        code, out, err = run_cli([*args, "--notes", str(notes), "--db", str(victim)], capsys, monkeypatch)
        assert code == 1, (args, err)
        assert "is not a scree index" in err and "Markdown text" in err, (args, err)
        assert "--rebuild" not in err.split("not a scree index")[1]  # never advises overwriting it
    assert victim.read_bytes() == before
    assert not Path(f"{victim}-wal").exists() and not Path(f"{victim}-shm").exists()


def test_db_pointing_at_another_sqlite_database_gets_no_scree_tables(notes, tmp_path, capsys, monkeypatch):
    other = tmp_path / "app.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("create table customers(id integer primary key, name text)")
    conn.execute("insert into customers(name) values ('Ada')")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    for args in (["index"], ["index", "--rebuild"]):
        code, out, err = run_cli([*args, "--notes", str(notes), "--db", str(other)], capsys, monkeypatch)
        assert code == 1 and "another SQLite database (tables: customers)" in err, err
    assert other.read_bytes() == before


def test_new_index_is_marked_and_an_unmarked_old_index_is_recognised_and_stamped(notes, tmp_path, capsys,
                                                                                   monkeypatch):
    db = tmp_path / "idx" / "notes.db"
    code, _, err = run_cli(["index", "--notes", str(notes), "--db", str(db)], capsys, monkeypatch)
    assert code == 0, err
    assert inspect_file(db).kind == "scree"
    conn = sqlite3.connect(db)
    assert conn.execute("pragma application_id").fetchone()[0] == APPLICATION_ID
    conn.execute("pragma application_id = 0")  # as an index made before the mark existed
    conn.commit()
    conn.close()
    assert inspect_file(db).kind == "scree-unmarked"
    code, _, err = run_cli(["index", "--notes", str(notes), "--db", str(db)], capsys, monkeypatch)
    assert code == 0, err
    assert sqlite3.connect(db).execute("pragma application_id").fetchone()[0] == APPLICATION_ID


def test_db_in_an_existing_shared_folder_leaves_its_mode_alone(notes, tmp_path, capsys, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    code, _, err = run_cli(["index", "--notes", str(notes), "--db", str(shared / "new" / "index.db")],
                           capsys, monkeypatch)
    assert code == 0, err
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777
    assert stat.S_IMODE((shared / "new").stat().st_mode) == 0o700  # the folder scree made


def test_default_index_folders_are_private(notes, capsys, monkeypatch):
    code, _, err = run_cli(["index", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 0, err
    loc = index_location(notes, load_config())
    assert stat.S_IMODE(loc.dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(loc.dir.parent.stat().st_mode) == 0o700  # indexes/: repo names are not listed


# ----- the crash-safety invariant ------------------------------------------------------------------

def test_invariant_check_finds_each_kind_of_broken_row(notes):
    index = _index(notes)
    fake = FakeEmbedder()
    sync(index, NotesPolicy.load(notes), fake)
    assert invariants.problems(index.conn, fake.max_windows) == []
    conn = index.conn
    cid = conn.execute("select id from chunks order by id limit 1").fetchone()[0]
    conn.execute("delete from chunks_vec where rowid = ?", (cid * fake.max_windows,))
    found = invariants.problems(conn, fake.max_windows)
    assert len(found) == 1 and "vectors of fully indexed files are missing" in found[0]
    conn.execute("pragma foreign_keys = off")  # as a buggy writer would leave it
    conn.execute("insert into chunks(file_id, seq, heading, text, start_line, end_line, windows) "
                 "values (999, 0, 'h', 't', 1, 1, 1)")
    found = invariants.problems(conn, fake.max_windows)
    assert any("belong to no file" in p for p in found) and any("keyword index is out of step" in p for p in found)


# ----- full disk, read-only disk, the lock's release -----------------------------------------------

@pytest.fixture
def disk(tmp_path: Path):
    from faultkit import SmallDisk

    d = SmallDisk(tmp_path / "disk")
    yield d
    d.close()


def test_releasing_the_lock_on_a_full_disk_raises_nothing_and_frees_it(disk):
    from scree.live.lock import WriterLock, read_holder

    path = disk.path / "writer.lock"
    path.touch()
    disk.fill()  # a real ENOSPC from the kernel
    lock = WriterLock(path)
    assert lock.try_acquire()  # the holder record cannot be written: a warning, the lock still holds
    lock.release()  # once re-flushed the unwritten record from close() and raised, masking the caller's error
    assert read_holder(path) is None
    other = WriterLock(path)
    assert other.try_acquire()
    other.release()


def test_index_on_a_full_disk_says_so_without_a_traceback_and_works_once_space_returns(notes, disk, capsys,
                                                                                        monkeypatch):
    db = disk.path / "idx" / "index.db"
    for i in range(10):
        (notes / f"big{i}.md").write_text("# Big\n\n" + f"word{i} filler text. " * 500, encoding="utf-8")
    disk.fill()
    code, out, err = run_cli(["index", "--notes", str(notes), "--db", str(db)], capsys, monkeypatch)
    assert code == 1
    assert "disk is full" in err and "free some space" in err and "Traceback" not in err, err
    disk.free()
    code, out, err = run_cli(["index", "--notes", str(notes), "--db", str(db)], capsys, monkeypatch)
    assert code == 0, err
    index = open_index(index_location(notes, load_config().with_overrides(db=db)), notes)
    assert invariants.problems(index.conn, FakeEmbedder.max_windows) == []
    assert index.conn.execute("select count(*) from files where sha256 is not null").fetchone()[0] == 13


def test_status_and_search_no_sync_work_on_a_read_only_data_dir(notes, disk, capsys, monkeypatch):
    monkeypatch.setenv("SCREE_DATA_DIR", str(disk.path / "data"))
    code, _, err = run_cli(["index", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 0, err
    disk.read_only()
    try:
        code, out, err = run_cli(["status", "--notes", str(notes)], capsys, monkeypatch)
        assert code == 0, err
        assert "files             3" in out
        code, out, err = run_cli(["search", "--no-sync", "--mode", "keyword", "--notes", str(notes), "retention"],
                                 capsys, monkeypatch)
        assert code == 0, err
        assert "n0.md" in out
        # A command that must write says why it cannot, without a traceback.
        (notes / "new.md").write_text("# New\n\nretention\n", encoding="utf-8")
        code, out, err = run_cli(["index", "--notes", str(notes)], capsys, monkeypatch)
        assert code == 1 and "read-only" in err and "Traceback" not in err, err
    finally:
        disk.writable()


# ----- cut-short syncs and big files ----------------------------------------------------------------

def test_last_sync_is_recorded_only_for_a_completed_sync(notes):
    index = _index(notes)
    fake = FakeEmbedder()
    sync(index, NotesPolicy.load(notes), fake, should_stop=lambda: True)
    assert "last_sync" not in index.meta()
    sync(index, NotesPolicy.load(notes), fake)
    assert "last_sync" in index.meta()


def test_a_big_single_line_note_is_keyword_searchable_at_once_and_a_rerun_embeds_only_what_is_missing(notes):
    from scree.index import sync as syncmod
    from scree.db import queries

    index = _index(notes)
    fake = FakeEmbedder()
    sync(index, NotesPolicy.load(notes), fake)  # the three small notes
    (notes / "big.md").write_text("# Big\n\n" + " ".join(f"token{i}" for i in range(150_000)), encoding="utf-8")

    class Crash(Exception):
        pass

    seen: list[tuple[int, int]] = []

    class Progress(syncmod.NoProgress):
        def embedding(self, done: int, total: int) -> None:
            seen.append((done, total))
            if len(seen) == 3:  # a crash after three committed batches of stage two
                fake.fail_with = Crash("killed")

    with pytest.raises(Crash):
        sync(index, NotesPolicy.load(notes), fake, progress=Progress())
    assert invariants.problems(index.conn, fake.max_windows) == []
    big = index.conn.execute("select id, sha256, chunks from files where path = 'big.md'").fetchone()
    assert big[1] is not None  # stage one committed the whole text with its hash
    total = big[2]
    assert total > 3 * 64
    embedded = index.conn.execute("select count(*) from chunks where file_id = ? and windows > 0",
                                  (big[0],)).fetchone()[0]
    assert embedded == 3 * 64
    assert queries.keyword_search(index.conn, "token149999", 5)  # its last words answer by keyword
    fake.fail_with = None
    fake.passages = 0
    report = sync(index, NotesPolicy.load(notes), fake)
    assert report.added + report.updated == []  # unchanged: only its missing vectors were made
    assert report.chunks == total - 3 * 64 and report.vectors_missing == 0
    assert invariants.problems(index.conn, fake.max_windows) == []
    assert queries.vector_progress(index.conn).complete


def test_the_live_status_shows_progress_within_a_big_file():
    from scree.index.indexstatus import IndexStatus
    from scree.index.progress import CountingProgress

    progress = CountingProgress()
    progress.start(3)
    progress.advance(2)
    progress.within("big.md", 640, 4000)
    done, total = progress.snapshot()
    status = IndexStatus("syncing", "writer", done, total, 1, 2, progress.current_file())
    assert status.describe() == ("still syncing: 1/3 files indexed (now big.md: 640/4000 chunks); "
                                 "results may be incomplete")
    progress.advance(4000)
    assert progress.current_file() is None


# ----- doctor ----------------------------------------------------------------------------------------

def _garble_fts(db: Path) -> None:
    from scree.db.connect import connect

    conn = connect(db)
    page = conn.execute("pragma page_size").fetchone()[0]
    root = conn.execute("select rootpage from sqlite_master where name = 'chunks_fts_data'").fetchone()[0]
    conn.execute("pragma wal_checkpoint(truncate)")
    conn.close()
    with open(db, "r+b") as fh:
        fh.seek((root - 1) * page)
        fh.write(b"\xa5" * page)


def test_doctor_finds_a_damaged_index_that_looked_healthy(notes, capsys, monkeypatch):
    from scree.doctor import doctor
    from scree.workspace import Workspace

    code, _, err = run_cli(["index", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 0, err
    ws = Workspace.from_config(load_config().with_overrides(notes=notes))
    assert doctor.check_index(ws, deep=True).status == doctor.OK
    _garble_fts(ws.location.db)
    check = doctor.check_index(ws)
    assert check.status == doctor.FAIL and "is damaged" in check.summary
    assert "`scree reindex` rebuilds it" in (check.fix or "") and "by itself" in (check.fix or "")
    # The CLI meets it too: one clear message, no traceback, the rebuild advice.
    code, out, err = run_cli(["search", "--no-sync", "--mode", "keyword", "--notes", str(notes), "retention"],
                             capsys, monkeypatch)
    assert code == 1 and "is damaged" in err and "Traceback" not in err, err
    code, _, err = run_cli(["index", "--rebuild", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 0, err
    assert doctor.check_index(ws, deep=True).status == doctor.OK


def test_doctor_deep_reports_a_broken_invariant(notes, capsys, monkeypatch):
    from scree.doctor import doctor
    from scree.workspace import Workspace

    code, _, err = run_cli(["index", "--notes", str(notes)], capsys, monkeypatch)
    assert code == 0, err
    ws = Workspace.from_config(load_config().with_overrides(notes=notes))
    index = ws.open_index()
    index.conn.execute("delete from chunks_vec where rowid = (select min(rowid) from chunks_vec)")
    index.close()
    assert doctor.check_index(ws).status != doctor.FAIL  # the quick check cannot see it
    check = doctor.check_index(ws, deep=True)
    assert check.status == doctor.FAIL and "crash-safety invariant" in check.summary


def test_doctor_knows_the_http_token_setting_and_hides_its_value():
    from scree.doctor import doctor

    check = doctor.check_config({"SCREE_HTTP_TOKEN": "s3cret"})
    assert check.status == doctor.OK and "s3cret" not in check.summary


# ----- smaller edges ---------------------------------------------------------------------------------

def test_a_file_name_with_a_newline_stays_on_one_escaped_result_line(notes, capsys, monkeypatch):
    (notes / "odd\nname.md").write_text("# Odd\n\nThe marmoset note.\n", encoding="utf-8")
    code, out, err = run_cli(["search", "--mode", "keyword", "--notes", str(notes), "marmoset"], capsys, monkeypatch)
    assert code == 0, err
    assert out.splitlines()[0].startswith("odd\\nname.md:1-3  Odd")


def test_a_query_with_no_searchable_words_says_so_instead_of_arbitrary_hits(notes, capsys, monkeypatch):
    code, out, err = run_cli(["search", "--notes", str(notes), "?!", "--", "~~~"], capsys, monkeypatch)
    assert code == 0, err
    assert out == "" and "no searchable words" in err


def test_a_query_of_common_words_only_says_so_on_every_surface(notes, capsys, monkeypatch):
    """Issue 26: "how do I use it" has no topic; it used to get hybrid results with no word said."""
    from scree.search.route import common_words_only

    (notes / "howto.md").write_text("# How to\n\nHow do I use it? You use it as you do.\n", encoding="utf-8")
    code, out, err = run_cli(["search", "--notes", str(notes), "how do I use it"], capsys, monkeypatch)
    assert code == 0 and "only common words (how, do, i, use, it)" in err and "name what you look for" in err, err
    assert out.startswith("howto.md:1-3"), out  # looked up literally: the one note holding those words
    code, out, err = run_cli(["search", "--json", "--mode", "hybrid", "--notes", str(notes), "What is the?"],
                             capsys, monkeypatch)
    doc = json.loads(out)
    assert code == 0 and doc["mode"] == "hybrid" and any("only common words" in n for n in doc["notes"]), doc
    # A word that names something is not a common word, whatever its spelling in prose.
    assert common_words_only("GET") == common_words_only("how --get") == common_words_only("the retention") == []


def test_search_during_another_process_first_build_says_it_is_being_built(notes, capsys, monkeypatch):
    from scree.live.lock import WriterLock

    index = _index(notes)
    calls = iter([False, True])  # the builder is stopped after its first file: no sync finished yet
    sync(index, NotesPolicy.load(notes), FakeEmbedder(), should_stop=lambda: next(calls))
    index.close()
    lock = WriterLock(index_location(notes, load_config()).lock)
    assert lock.try_acquire()  # the builder still holds the lock
    try:
        code, out, err = run_cli(["search", "--notes", str(notes), "retention"], capsys, monkeypatch)
    finally:
        lock.release()
    assert code == 0, err
    assert "the index is being built by pid" in err and "1 files (1 chunks) indexed so far" in err
    assert "the index is empty" not in err


def test_a_refusal_names_the_real_holder(notes, capsys, monkeypatch):
    import json

    from scree.live.lock import WriterLock, this_command

    assert this_command(["/usr/bin/scree", "index", "--notes", "x"]) == "scree index"
    assert this_command(["/x/scree/cli/__main__.py", "serve", "--notes", "x"]) == "scree serve"
    lock = WriterLock(index_location(notes, load_config()).lock)
    assert lock.try_acquire()
    try:  # as `scree index` would have written it
        record = json.loads(lock.path.read_text())
        lock.path.write_text(json.dumps({**record, "command": "scree index"}))
        code, out, err = run_cli(["reindex", "--notes", str(notes)], capsys, monkeypatch)
    finally:
        lock.release()
    assert code == 1 and "(scree index)" in err and "ends when its sync is done" in err
    assert "serve or" not in err and "keeps it in sync" not in err


def test_read_doc_with_a_nul_says_what_is_wrong(notes):
    from mcp.server.mcpserver.exceptions import ToolError

    from scree.mcpserver import read_output

    with pytest.raises(ToolError, match="NUL character"):
        read_output(notes, "n0.md\x00.txt", heading=None, start_line=None, end_line=None,
                    max_file_bytes=1 << 20, max_bytes=1 << 16)


@pytest.mark.parametrize("headers, status", [
    ([(b"authorization", b"Bearer s3cret")], 200),
    ([(b"authorization", b"bearer s3cret")], 200),  # RFC 7235: the scheme is case-insensitive
    ([(b"Authorization", b"BEARER  s3cret ")], 200),
    ([(b"authorization", b"Bearer wrong")], 401),
    ([(b"authorization", b"Basic s3cret")], 401),
    ([(b"authorization", b"Bearer s3cret"), (b"authorization", b"Bearer s3cret")], 401),  # only one
    ([(b"authorization", b"Bearer wrong"), (b"authorization", b"Bearer s3cret")], 401),
    ([], 401),
])
def test_bearer_auth_scheme_case_and_a_single_header(headers, status):
    import asyncio

    from scree.mcpserver import BearerAuth

    async def app(scope, receive, send):  # noqa: ANN001, ANN202 - the ASGI protocol
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    sent: list[dict] = []

    async def send(message):  # noqa: ANN001, ANN202
        sent.append(message)

    async def receive():  # noqa: ANN202
        return {"type": "http.request", "body": b""}

    asyncio.run(BearerAuth(app, "s3cret")({"type": "http", "headers": headers}, receive, send))
    assert sent[0]["status"] == status


def test_a_lone_surrogate_is_repaired_u_ffff_is_text_and_a_bad_glob_is_an_error_over_mcp_stdio(tmp_path):
    """Raw JSON-RPC lines to a real `scree serve` (the SDK client cannot even encode a lone surrogate): a lone
    surrogate is read as U+FFFD and answered, U+FFFF (a valid code point) is answered too (issue 36, item 4)."""
    import json
    import select
    import subprocess
    import sys

    from conftest import REPO_ROOT

    folder = tmp_path / "empty"
    (folder / ".git").mkdir(parents=True)
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "PYTHONPATH": str(REPO_ROOT / "server")}
    proc = subprocess.Popen([sys.executable, "-m", "scree.cli", "serve", "--notes", str(folder)], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None

    def send(line: bytes) -> None:
        proc.stdin.write(line + b"\n")
        proc.stdin.flush()

    def reply() -> dict:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, "no reply from the server"
        return json.loads(proc.stdout.readline())

    def call(args: str, error: bool = True) -> str:
        send(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_docs","arguments":%s}}'
             % args.encode())
        answer = reply()
        assert answer["id"] == 7 and answer["result"]["isError"] is error, answer
        return answer["result"]["content"][0]["text"]

    try:
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).encode())
        assert reply()["id"] == 1
        send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        for args in ('{"query":"ab\\ud800c"}', '{"query":"x","expected_answer":"ab\\ud800c"}',
                     '{"query":"ab\\uffffc"}', '{"query":"x\\uffff","expected_answer":"y\\uffff"}'):
            text = call(args, error=False)  # answered: the folder is empty, and the answer says so
            assert "empty" in text or "no note" in text, text
        assert "'[z-a]' is not a valid glob" in call('{"query":"x","path":"[z-a]"}')
    finally:
        proc.stdin.close()
        proc.wait(timeout=15)


def test_index_and_reindex_find_a_damaged_index_and_rebuild_it(notes, capsys, monkeypatch):
    from scree.workspace import Workspace

    ws = Workspace.from_config(load_config().with_overrides(notes=notes))
    for command in ("index", "reindex"):
        code, _, err = run_cli([command, "--notes", str(notes)], capsys, monkeypatch)
        assert code == 0, err
        _garble_fts(ws.location.db)  # a sync alone would say "nothing changed"
        code, out, err = run_cli([command, "--notes", str(notes)], capsys, monkeypatch)
        assert code == 0 and "was damaged" in err and "rebuilding it" in err, err
        code, out, err = run_cli(["search", "--no-sync", "--mode", "keyword", "--notes", str(notes), "retention"],
                                 capsys, monkeypatch)
        assert code == 0 and "n0.md" in out, err


@pytest.fixture
def roomier_disk(tmp_path: Path):
    from faultkit import SmallDisk

    d = SmallDisk(tmp_path / "bigger", size="160m")
    yield d
    d.close()


def test_a_full_disk_during_the_shrink_is_a_warning_and_the_reindex_succeeds(notes, roomier_disk, capsys, monkeypatch):
    # Issue 36, item 7: the reindex exited 1; the shrink is housekeeping, the notes were all indexed.
    import scree.index.sync as sync_module

    disk = roomier_disk
    db = disk.path / "idx" / "index.db"
    for i in range(80):  # enough that removing them leaves more than a MiB to give back
        (notes / f"big{i}.md").write_text("# Big\n\n" + "".join(f"word{i}x{j} filler text.\n\n" for j in range(1500)),
                                          encoding="utf-8")
    code, _, err = run_cli(["index", "--notes", str(notes), "--db", str(db)], capsys, monkeypatch)
    assert code == 0, err
    for i in range(80):
        (notes / f"big{i}.md").unlink()  # most of the file becomes reclaimable: the reindex shrinks it
    real = sync_module.give_space_back

    def full_then_shrink(*args, **kwargs):  # noqa: ANN002, ANN003
        disk.fill()  # a real ENOSPC from the kernel, met by the shrink's own writes
        return real(*args, **kwargs)

    monkeypatch.setattr(sync_module, "give_space_back", full_then_shrink)
    size = db.stat().st_size
    code, out, err = run_cli(["reindex", "--notes", str(notes), "--db", str(db)], capsys, monkeypatch)
    assert code == 0, err
    assert "Traceback" not in err, err
    # Either the shrink met the full disk and said so, or (with a driver whose shrink needs no new pages) it
    # gave the space back; never an error exit.
    assert "could not give space back" in err or db.stat().st_size < size, (err, out)
    disk.free()
    index = open_index(index_location(notes, load_config().with_overrides(db=db)), notes)
    try:
        assert invariants.problems(index.conn, FakeEmbedder.max_windows) == []
        assert index.conn.execute("select count(*) from files").fetchone()[0] == 3
    finally:
        index.close()
