"""The `scree` command as a user runs it: real processes, real folders."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write
from fake_embedder import ID as FAKE_ID


def scree(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scree.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, **(env or {})}, timeout=120)


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli") / "notes"
    write(root, "api.md", "# API\n\n## Authentication\n\n### Tokens\n\nTokens expire after `TOKEN_TTL` hours.\n")
    write(root, "ops.md", "# Operations\n\nDeploys happen on Tuesdays after the `--locked` build passes.\n")
    return root


def test_search_json_follows_the_benchmark_contract(notes):
    out = scree("search", "--json", "-k", "2", "--mode", "hybrid", "--notes", str(notes), "TOKEN_TTL")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {"results", "mode", "names"} and data["mode"] == "hybrid"
    assert data["names"] == ["token_ttl"]  # the words taken as names
    hit = data["results"][0]
    assert set(hit) == {"path", "heading", "start_line", "end_line", "score", "text"}
    assert (hit["path"], hit["heading"], hit["start_line"], hit["end_line"]) == (
        "api.md", "API > Authentication > Tokens", 5, 7)


def test_query_that_looks_like_a_flag_is_searched(notes):
    out = scree("search", "--json", "--notes", str(notes), "--mode", "keyword", "--locked")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["results"][0]["path"] == "ops.md"


def test_expect_sends_a_guess_at_the_answer_with_the_question(notes):
    question = ["--json", "-k", "1", "--mode", "keyword", "--notes", str(notes), "when do releases ship"]
    plain = scree("search", *question)
    assert plain.returncode == 0 and json.loads(plain.stdout)["results"] == [], plain.stdout
    guessed = scree("search", "--expect", "Deploys happen every Tuesday once the build passes.", *question)
    assert guessed.returncode == 0, guessed.stderr
    assert json.loads(guessed.stdout)["results"][0]["path"] == "ops.md"
    bare = scree("search", "--expect", "Deploys happen every Tuesday.", "--json", "--notes", str(notes), "TOKEN_TTL")
    assert json.loads(bare.stdout)["results"][0]["path"] == "api.md" and "expected answer was not used" in bare.stderr


def test_human_output_is_location_trail_then_text(notes):
    out = scree("search", "--notes", str(notes), "-k", "1", "--mode", "keyword", "tokens expire")
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()[:2]
    assert first == "api.md:5-7  API > Authentication > Tokens"
    assert second.strip() == "### Tokens"


def test_index_then_status_reports_files_and_chunks(notes):
    assert scree("index", "--notes", str(notes)).returncode == 0
    out = scree("status", "--json", "--notes", str(notes))
    data = json.loads(out.stdout)
    assert data["files"] == 2 and data["chunks"] == 2 and data["embedder"].startswith(FAKE_ID)
    assert data["vectors"] == 2 and data["stage_two"] == "done: every chunk has its vectors"


def test_status_during_stage_two_says_how_far_it_is(notes):
    from pathlib import Path

    from scree.db.connect import connect

    assert scree("index", "--notes", str(notes)).returncode == 0
    db = json.loads(scree("status", "--json", "--notes", str(notes)).stdout)["index"]
    conn = connect(Path(db))  # as a sync killed in stage two leaves it
    conn.execute("delete from chunks_vec where rowid in (select id * 8 from chunks where id = (select min(id) from chunks))")
    conn.execute("update chunks set windows = 0 where id = (select min(id) from chunks)")
    conn.close()
    out = scree("status", "--notes", str(notes)).stdout
    # Nobody embeds: no time left is made up (it used to assume 13 chunks/s), and the fix is named.
    assert "stage_two         vectors for 1 of 2 chunks; keyword covers all\n" in out
    assert "no process is embedding: `scree reindex`" in out


def test_search_from_inside_a_git_repo_uses_its_root(tmp_path):
    repo = tmp_path / "repo"
    write(repo, "docs/x.md", "# X\n\nThe frobnicator needs oiling.\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    out = scree("search", "--json", "--mode", "keyword", "frobnicator", cwd=repo / "docs")
    assert json.loads(out.stdout)["results"][0]["path"] == "docs/x.md"


def test_missing_folder_is_a_clear_error(tmp_path):
    out = scree("search", "--notes", str(tmp_path / "nope"), "x")
    assert out.returncode == 1
    assert "does not exist" in out.stderr and "Traceback" not in out.stderr


def test_damaged_index_says_how_to_rebuild_and_rebuild_works(notes, tmp_path):
    db = tmp_path / "broken.db"
    assert scree("index", "--db", str(db), "--notes", str(notes)).returncode == 0
    with open(db, "r+b") as fh:  # keep page 1 (the header says it is scree's), garble the rest
        fh.seek(4096)
        fh.write(b"garbage" * (max(db.stat().st_size - 4096, 4096) // 7))
    out = scree("search", "--no-sync", "--db", str(db), "--notes", str(notes), "tokens")  # a reader cannot repair
    assert out.returncode == 1 and "scree index --rebuild" in out.stderr and "Traceback" not in out.stderr
    assert scree("index", "--rebuild", "--db", str(db), "--notes", str(notes)).returncode == 0
    out = scree("search", "--json", "--db", str(db), "--notes", str(notes), "--mode", "keyword", "tokens")
    assert json.loads(out.stdout)["results"]
    with open(db, "r+b") as fh:  # a search that syncs holds the lock: it rebuilds, as `scree reindex` does
        fh.seek(4096)
        fh.write(b"garbage" * (max(db.stat().st_size - 4096, 4096) // 7))
    out = scree("search", "--json", "--db", str(db), "--notes", str(notes), "--mode", "keyword", "tokens")
    assert out.returncode == 0 and "was damaged" in out.stderr and "rebuilding it" in out.stderr, out.stderr
    assert json.loads(out.stdout)["results"]


def test_bad_setting_names_the_variable(notes):
    out = scree("search", "--notes", str(notes), "x", env={"SCREE_K": "many"})
    assert out.returncode == 1 and "SCREE_K" in out.stderr


def test_index_and_reindex_refuse_while_another_process_writes_but_search_still_answers(notes):
    import signal

    from scree.config import load_config
    from scree.locate import index_location

    assert scree("index", "--notes", str(notes)).returncode == 0
    lock = index_location(notes.resolve(), load_config()).lock
    holder = subprocess.Popen([sys.executable, str(Path(__file__).parent / "helpers" / "lock_holder.py"), str(lock)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        for cmd in (("index",), ("reindex",)):
            out = scree(*cmd, "--notes", str(notes))
            assert out.returncode == 1 and str(holder.pid) in out.stderr
        assert scree("reindex", "--quiet", "--notes", str(notes)).returncode == 0
        out = scree("search", "--json", "--mode", "keyword", "--notes", str(notes), "tokens")
        assert out.returncode == 0 and json.loads(out.stdout)["results"]
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()


@pytest.mark.real_model  # the index must be built by the model that then breaks
def test_search_with_a_broken_model_warns_and_still_answers_from_the_index(notes, tmp_path, capsys):
    from scree.cli.search import open_synced
    from scree.config import load_config
    from scree.embed.local import LocalMiniLM
    from scree.search.search import Query, search
    from scree.workspace import Workspace

    assert scree("index", "--notes", str(notes)).returncode == 0
    write(notes, "new.md", "# New\n\nA note the broken model cannot embed.\n")
    try:
        ws = Workspace.from_config(load_config().with_overrides(notes=notes))
        bad = tmp_path / "model.onnx"
        bad.write_bytes(b"garbage")
        broken = LocalMiniLM(model_path=bad)
        index, synced, left = open_synced(ws, ws.policy(), broken, ws.config)
        assert synced and left is None  # nothing to hand a background writer whose model cannot load either
        err = capsys.readouterr().err
        assert "the vectors of new and changed notes were not made" in err and "could not be loaded" in err
        result = search(index, ws.policy(), broken, Query("when do tokens expire"))
        assert result.hits and result.hits[0].path == "api.md"
        # Stage one committed the new note: keyword search finds it although its vectors are missing.
        new = search(index, ws.policy(), broken, Query("broken model cannot embed", mode="keyword"))
        assert new.hits and new.hits[0].path == "new.md"
        index.close()
    finally:
        (notes / "new.md").unlink()


# ----- small edges (issue 17) -------------------------------------------------------------------------


def test_search_without_a_query_says_the_query_is_missing_under_the_search_usage(notes):
    out = scree("search", "--notes", str(notes))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("usage: scree search ") and "scree search: error: the query is missing" in out.stderr


def test_status_says_yes_or_no_for_the_index_file_not_a_python_value(tmp_path):
    write(tmp_path / "n", "a.md", "# A\n\ntext\n")
    env = {"SCREE_DATA_DIR": str(tmp_path / "data")}
    before = scree("status", "--notes", str(tmp_path / "n"), env=env).stdout
    assert scree("index", "--notes", str(tmp_path / "n"), env=env).returncode == 0
    after = scree("status", "--notes", str(tmp_path / "n"), env=env).stdout
    for out in (before, after):
        assert "True" not in out and "False" not in out and "None" not in out, out
    assert next(x for x in before.splitlines() if x.startswith("exists")).split()[1] == "no"
    assert next(x for x in after.splitlines() if x.startswith("exists")).split()[1] == "yes"
    assert json.loads(scree("status", "--json", "--notes", str(tmp_path / "n"), env=env).stdout)["exists"] is True


def test_every_flag_of_status_has_help_text():
    out = scree("status", "--help").stdout
    assert re.search(r"^\s+--json\s+\S", out, re.M), out


def test_a_query_of_only_an_emoji_finds_the_note_that_holds_it(tmp_path):
    write(tmp_path / "n", "launch.md", "# Launch\n\nWe ship on Fridays \N{ROCKET} and celebrate.\n")
    write(tmp_path / "n", "other.md", "# Other\n\nNothing to see \N{PARTY POPPER}.\n")
    env = {"SCREE_DATA_DIR": str(tmp_path / "data")}
    out = scree("search", "--json", "--notes", str(tmp_path / "n"), "\N{ROCKET}", env=env)
    assert out.returncode == 0 and "no searchable words" not in out.stderr, out.stderr
    assert [r["path"] for r in json.loads(out.stdout)["results"]] == ["launch.md"]
    missing = scree("search", "--notes", str(tmp_path / "n"), "\N{UNICORN FACE}", env=env)
    assert missing.returncode == 0 and missing.stdout == ""
    assert "no note contains" in missing.stderr and "no searchable words" not in missing.stderr


def test_arguments_that_are_not_utf8_are_read_as_replacement_characters_not_a_traceback(notes):
    # Bytes in argv that are not UTF-8 reach Python as lone surrogates (surrogateescape).
    query = os.fsdecode(b"Tokens expire \xff\xfe")
    expect = os.fsdecode(b"hours \xc3")
    out = subprocess.run([sys.executable, "-m", "scree.cli", "search", "--json", "-k", "2", "--notes", str(notes),
                          "--expect", expect, query], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert "not UTF-8; each was read as U+FFFD" in out.stderr
    assert json.loads(out.stdout)["results"][0]["path"] == "api.md"


def test_a_noncharacter_in_the_query_is_valid_text_and_searched():
    from scree.cli import repaired_argv

    assert repaired_argv(["TOKEN_TTL \uffff", "plain"]) == ["TOKEN_TTL \uffff", "plain"]
    assert repaired_argv([os.fsdecode(b"a\xffb")]) == ["a\ufffdb"]
    assert repaired_argv(["x\ud800y"]) == ["x?y"]
