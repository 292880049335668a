"""The SessionStart hook: it starts a detached sync and returns before that sync is done, skips it
while a writer holds the index, says how to get uv when it is missing, and adds one context line.

The hook hands the work to a detached helper, so the tests wait (with a deadline) for what the
helper leaves behind: the stand-in sync's marker file, or the "skipped" line of logs/sync.log."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "hooks"))

from hookrun import REPO_ROOT, Project, context_of, make_project, payload  # noqa: E402

from scree.hookkit import SEARCH_TOOL, TOOL_PREFIX, bgsync, mcpstate  # noqa: E402
from scree.live.lock import WriterLock  # noqa: E402

# The stand-in sync: waits until the test creates `go` (at most 30 s), then records what it saw.
WAITER = r"""
import json, os, sys, time
go, marker = sys.argv[1], sys.argv[2]
deadline = time.monotonic() + 30
while not os.path.exists(go) and time.monotonic() < deadline:
    time.sleep(0.01)
seen = {"cwd": os.getcwd(), "uv_env": os.environ.get("UV_PROJECT_ENVIRONMENT"), "pid": os.getpid(),
        "sid": os.getsid(0), "fds": sorted(int(f) for f in os.listdir("/proc/self/fd"))}
with open(marker + ".tmp", "w") as fh:
    json.dump(seen, fh)
os.replace(marker + ".tmp", marker)
"""


def wait_for(path: Path, text: str = "", timeout: float = 20) -> None:
    """Wait until `path` exists (and holds `text`); fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not (path.exists() and text in path.read_text()):
        assert time.monotonic() < deadline, f"{path} did not get {text!r} within {timeout}s"
        time.sleep(0.01)


def marker_command(marker: Path) -> str:
    """SCREE_SYNC_COMMAND for a stand-in sync that only leaves a marker file."""
    return json.dumps([sys.executable, "-c", "import sys; open(sys.argv[1], 'w').close()", str(marker)])


@pytest.fixture()
def project(tmp_path: Path) -> Project:
    return make_project(tmp_path)


def start(project: Project, **env: str | None) -> subprocess.CompletedProcess:
    proc = project.run("session_start.py", payload("session_start", cwd=str(project.folder)), **env)
    assert proc.returncode == 0 and proc.stderr == b"", proc
    return proc


def sync_log(project: Project) -> Path:
    return project.plugin_data / "logs" / "sync.log"


def test_returns_before_the_sync_finishes_and_the_sync_runs_detached(project: Project, tmp_path: Path) -> None:
    go, marker = tmp_path / "go", tmp_path / "marker.json"
    try:
        proc = start(project, SCREE_SYNC_COMMAND=json.dumps([sys.executable, "-c", WAITER, str(go), str(marker)]))
        # The sync cannot finish before `go` exists, so the hook returned while it was still running.
        assert not marker.exists()
        text = context_of(proc, "SessionStart")
        assert text == bgsync.CONTEXT_LINE and SEARCH_TOOL in text
    finally:
        go.touch()
    wait_for(marker)
    seen = json.loads(marker.read_text())
    assert seen["cwd"] == str(project.folder)
    assert seen["uv_env"] == str(project.plugin_data / "venv")
    assert seen["sid"] == seen["pid"] != os.getsid(0)  # its own session: no terminal, no hook's process group
    assert seen["fds"][:3] == [0, 1, 2] and len(seen["fds"]) <= 4  # nothing inherited (4th: the listing itself)
    log = sync_log(project).read_text()
    assert log.splitlines()[0].endswith(json.dumps([sys.executable, "-c", WAITER, str(go), str(marker)]))


def test_runs_scree_reindex_through_uv_in_the_plugin_environment(project: Project, tmp_path: Path) -> None:
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    marker = tmp_path / "uv-args"
    uv = fake_bin / "uv"
    uv.write_text('#!/bin/sh\nprintf "%s\\n" "$PWD" "$UV_PROJECT_ENVIRONMENT" "$@" > "$UV_MARKER.tmp"\n'
                  'mv "$UV_MARKER.tmp" "$UV_MARKER"\n')
    uv.chmod(0o755)
    start(project, PATH=f"{fake_bin}:/usr/bin:/bin", UV_MARKER=str(marker))
    wait_for(marker)
    lines = marker.read_text().splitlines()
    assert lines[0] == str(project.folder)
    assert lines[1] == str(project.plugin_data / "venv")
    assert lines[2:] == ["run", "--quiet", "--frozen", "--project", str(REPO_ROOT), "scree", "reindex", "--quiet"]


def test_finds_uv_in_the_installers_default_place(project: Project, tmp_path: Path) -> None:
    local_bin = project.home / ".local" / "bin"
    local_bin.mkdir(parents=True)
    marker = tmp_path / "ran"
    (local_bin / "uv").write_text('#!/bin/sh\n: > "$UV_MARKER"\n')  # a builtin: PATH is empty
    (local_bin / "uv").chmod(0o755)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    proc = start(project, PATH=str(empty), UV_MARKER=str(marker))
    assert context_of(proc, "SessionStart") == bgsync.CONTEXT_LINE
    wait_for(marker)


def test_finds_uv_where_the_quickstart_put_it_in_the_plugin_folder(project: Project, tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    (plugin / ".uv" / "bin").mkdir(parents=True)
    marker = tmp_path / "ran"
    (plugin / ".uv" / "bin" / "uv").write_text('#!/bin/sh\n: > "$UV_MARKER"\n')
    (plugin / ".uv" / "bin" / "uv").chmod(0o755)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    proc = start(project, PATH=str(empty), UV_MARKER=str(marker), CLAUDE_PLUGIN_ROOT=str(plugin))
    assert context_of(proc, "SessionStart") == bgsync.CONTEXT_LINE
    wait_for(marker)


def test_without_uv_no_sync_starts_and_the_model_learns_the_server_sets_itself_up(project: Project,
                                                                                 tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    # A plugin folder without the Quickstart's .uv/ (this checkout may have one).
    proc = start(project, PATH=str(empty), CLAUDE_PLUGIN_ROOT=str(empty))
    text = context_of(proc, "SessionStart")
    # The relay is connected without uv and fetches it (issue 35): the tool is named, with when it answers.
    assert text == bgsync.NO_UV_LINE and TOOL_PREFIX in text and "in this session" in text
    assert "next session" not in text and "curl -LsSf https://astral.sh/uv/install.sh | sh" in text
    assert not sync_log(project).exists()


def test_no_sync_while_a_writer_holds_the_lock(project: Project, tmp_path: Path) -> None:
    marker = tmp_path / "synced"
    lock = WriterLock(project.lock)
    assert lock.try_acquire()
    try:
        proc = start(project, SCREE_SYNC_COMMAND=marker_command(marker))
        wait_for(sync_log(project), "skipped: a scree writer holds")  # the helper's last word
    finally:
        lock.release()
    assert not marker.exists()
    assert context_of(proc, "SessionStart") == bgsync.CONTEXT_LINE


def test_a_bare_flock_without_a_holder_record_also_counts(project: Project, tmp_path: Path) -> None:
    marker = tmp_path / "synced"
    project.lock.parent.mkdir(parents=True, exist_ok=True)
    with open(project.lock, "wb") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        start(project, SCREE_SYNC_COMMAND=marker_command(marker))
        wait_for(sync_log(project), "skipped")
    assert not marker.exists()


def test_a_stale_holder_record_does_not_stop_the_sync(project: Project, tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    project.lock.parent.mkdir(parents=True, exist_ok=True)
    project.lock.write_text(json.dumps({"pid": dead.pid, "since": time.time(), "host": os.uname().nodename}))
    marker = tmp_path / "synced"
    start(project, SCREE_SYNC_COMMAND=marker_command(marker))
    wait_for(marker)


def test_scree_hooks_off_drops_the_line_but_still_syncs(project: Project, tmp_path: Path) -> None:
    marker = tmp_path / "synced"
    proc = start(project, SCREE_HOOKS="off", SCREE_SYNC_COMMAND=marker_command(marker))
    assert proc.stdout == b""
    wait_for(marker)


def test_a_sync_command_that_cannot_start_is_noted_in_the_sync_log(project: Project) -> None:
    start(project, SCREE_SYNC_COMMAND=json.dumps(["/nonexistent/scree-sync"]))
    wait_for(sync_log(project), "cannot start /nonexistent/scree-sync")


def test_a_bad_sync_command_is_logged_and_the_line_still_shown(project: Project) -> None:
    proc = start(project, SCREE_SYNC_COMMAND="scree reindex")
    assert context_of(proc, "SessionStart") == bgsync.CONTEXT_LINE
    assert "SCREE_SYNC_COMMAND must be a JSON list" in project.hook_log.read_text()


def test_caches_the_index_location_for_the_other_hooks(project: Project) -> None:
    start(project, SCREE_SYNC_COMMAND=json.dumps(["true"]))
    session = payload("session_start")["session_id"]
    state_file = project.plugin_data / "state" / f"{session}.json"
    wait_for(state_file, '"loc"')
    state = json.loads(state_file.read_text())
    assert state["loc"]["db"] == str(project.db) and state["loc"]["folder"] == str(project.folder)


def test_old_session_state_is_pruned(project: Project) -> None:
    states = project.plugin_data / "state"
    states.mkdir(parents=True)
    old, recent = states / "old-session.json", states / "recent-session.json"
    old.write_text("{}")
    recent.write_text("{}")
    week_ago = time.time() - 8 * 24 * 3600
    os.utime(old, (week_ago, week_ago))
    start(project, SCREE_SYNC_COMMAND=json.dumps(["true"]))
    wait_for(sync_log(project))  # the helper prunes before it syncs
    assert not old.exists() and recent.exists()


@pytest.mark.parametrize("stdin", [b"", b"garbage", b"[]"])
def test_invalid_input_exits_zero_silently(project: Project, stdin: bytes) -> None:
    proc = project.run("session_start.py", stdin, SCREE_SYNC_COMMAND=json.dumps(["true"]))
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""


def test_writer_active_reads_the_real_lock(tmp_path: Path) -> None:
    path = tmp_path / "writer.lock"
    assert not bgsync.writer_active(str(path))  # no file
    lock = WriterLock(path)
    assert lock.try_acquire()
    assert bgsync.writer_active(str(path))
    lock.release()
    assert not bgsync.writer_active(str(path))
    assert lock.try_acquire()  # the probe left the lock free
    lock.release()


def test_sync_command_override_must_be_a_list_of_strings() -> None:
    assert bgsync.command_override({"SCREE_SYNC_COMMAND": '["a", "b"]'}) == ["a", "b"]
    assert bgsync.command_override({}) is None
    for bad in ('"a"', "[]", "[1]", "{", "a b"):
        with pytest.raises(Exception, match="SCREE_SYNC_COMMAND"):
            bgsync.command_override({"SCREE_SYNC_COMMAND": bad})


ENV_RECORDER = r"""
import json, os, sys
with open(sys.argv[1] + ".tmp", "w") as fh:
    json.dump({"compile": os.environ.get("UV_COMPILE_BYTECODE")}, fh)
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
"""


def test_the_first_session_says_once_that_the_environment_is_being_built_and_that_search_arrives_in_it(
        project: Project, tmp_path: Path) -> None:
    shutil.rmtree(project.plugin_data / "venv")  # just installed: no environment yet
    marker = tmp_path / "env.json"
    proc = start(project, SCREE_SYNC_COMMAND=json.dumps([sys.executable, "-c", ENV_RECORDER, str(marker)]))
    text = context_of(proc, "SessionStart")
    assert text == bgsync.BUILDING_LINE and text.count("\n") == 0
    # The relay is connected while the environment builds: its tool is named, and nothing is left to a
    # next session or a reconnect (issue 35).
    assert "being built" in text and "in this session" in text and TOOL_PREFIX in text
    assert "next session" not in text and "reconnect" not in text
    assert "250 MB" in text and "minute" in text  # what is built and how long it takes
    wait_for(marker)
    # The new environment's bytecode is compiled in the background, so the next connect is a warm one.
    assert json.loads(marker.read_text()) == {"compile": "1"}


def test_once_the_environment_is_built_the_line_names_the_tool_and_nothing_is_recompiled(
        project: Project, tmp_path: Path) -> None:
    marker = tmp_path / "env.json"
    proc = start(project, SCREE_SYNC_COMMAND=json.dumps([sys.executable, "-c", ENV_RECORDER, str(marker)]))
    assert context_of(proc, "SessionStart") == bgsync.CONTEXT_LINE
    wait_for(marker)
    assert json.loads(marker.read_text()) == {"compile": None}

def test_the_line_says_how_far_the_index_is(tmp_path: Path) -> None:
    import sqlite3

    (tmp_path / "fresh").mkdir()
    (tmp_path / "built").mkdir()
    fresh = make_project(tmp_path / "fresh", index=False)
    line = context_of(start(fresh, SCREE_SYNC_COMMAND=marker_command(tmp_path / "m1")), "SessionStart")
    assert "The index is being built: keyword search answers as soon as its first stage ends" in line
    built = make_project(tmp_path / "built")
    line = context_of(start(built, SCREE_SYNC_COMMAND=marker_command(tmp_path / "m2")), "SessionStart")
    assert line == bgsync.CONTEXT_LINE  # complete: nothing to add
    conn = sqlite3.connect(built.db, isolation_level=None)
    conn.execute("update chunks set windows = 0 where id = (select min(id) from chunks)")  # stage two not done
    conn.close()
    line = context_of(start(built, SCREE_SYNC_COMMAND=marker_command(tmp_path / "m3")), "SessionStart")
    assert line.endswith(f"vectors for {built.chunks - 1:,} of {built.chunks:,} chunks (embedding in the background).")
    # A translated repository: chunks of a language the model does not read are keyword-only (windows < 0),
    # neither vectors nor vectors to come; the line counts as `scree status` does (issue 35, item 3).
    conn = sqlite3.connect(built.db, isolation_level=None)
    conn.execute("update chunks set windows = -1 where id = (select max(id) from chunks)")
    from scree.db.queries import vector_progress

    progress = vector_progress(conn)  # what `scree status` and doctor report
    embedded, total = progress.embedded, progress.total
    conn.close()
    line = context_of(start(built, SCREE_SYNC_COMMAND=marker_command(tmp_path / "m4")), "SessionStart")
    assert line.endswith(f"vectors for {embedded:,} of {total:,} chunks (embedding in the background); 1 more are "
                         "keyword-only by design (their language is not the model's)."), line


# ----- the server will not be connected: the line says so and names no tool (issue 29) --------------


def _skip_entry(project: Project, failed_ms: float) -> None:
    """What Claude Code records after the plugin's server failed to start (2.1.197 through 2.1.332)."""
    config = project.home / ".claude"
    config.mkdir(exist_ok=True)
    (config / "mcp-needs-auth-cache.json").write_text(json.dumps(
        {"plugin:scree:scree": {"timestamp": int(failed_ms), "id": "d10fc51018e69731"}, "other": {"timestamp": 1}}))


def test_while_claude_code_skips_the_failed_server_the_line_says_so_and_names_no_tool(
        project: Project, tmp_path: Path) -> None:
    _skip_entry(project, (time.time() - 60) * 1000)
    marker = tmp_path / "synced"
    text = context_of(start(project, SCREE_SYNC_COMMAND=marker_command(marker)), "SessionStart")
    assert text.startswith("scree's notes search is not connected in this session: its MCP server failed to start")
    assert TOOL_PREFIX not in text and "/mcp reconnect plugin:scree:scree" in text and "scree doctor" in text
    assert 'scree search "<question>"' in text  # the CLI on the Bash tool's PATH still searches
    wait_for(marker)  # the index is still kept fresh for it


def test_after_the_pause_the_line_names_the_tool_again(project: Project, tmp_path: Path) -> None:
    _skip_entry(project, (time.time() - 16 * 60) * 1000)
    text = context_of(start(project, SCREE_SYNC_COMMAND=marker_command(tmp_path / "m")), "SessionStart")
    assert text == bgsync.CONTEXT_LINE


def test_a_server_disabled_for_this_project_gets_a_line_naming_no_tool(project: Project, tmp_path: Path) -> None:
    other = {"disabledMcpServers": ["plugin:scree:scree"]}
    (project.home / ".claude.json").write_text(json.dumps(
        {"projects": {"/elsewhere": other, str(project.folder): {"disabledMcpServers": ["plugin:x:y"]}}}))
    text = context_of(start(project, SCREE_SYNC_COMMAND=marker_command(tmp_path / "m1")), "SessionStart")
    assert text == bgsync.CONTEXT_LINE  # disabled elsewhere only
    (project.home / ".claude.json").write_text(json.dumps({"projects": {str(project.folder): other}}))
    text = context_of(start(project, SCREE_SYNC_COMMAND=marker_command(tmp_path / "m2")), "SessionStart")
    assert text == mcpstate.disabled_line() and TOOL_PREFIX not in text
    assert "/mcp enable plugin:scree:scree" in text


def test_claude_config_dir_moves_both_files(tmp_path: Path) -> None:
    config = tmp_path / "cfg"
    config.mkdir()
    (config / "mcp-needs-auth-cache.json").write_text(json.dumps(
        {"plugin:scree:scree": {"timestamp": time.time() * 1000, "ttlMs": 3_600_000}}))
    (config / ".claude.json").write_text(json.dumps({"projects": {"/p": {"disabledMcpServers": ["plugin:scree:scree"]}}}))
    env = {"CLAUDE_CONFIG_DIR": str(config), "HOME": str(tmp_path / "home")}
    failed, until = mcpstate.skipped_since(env)
    assert 3599 < until - failed < 3601  # the entry's own ttl wins over the 15-minute default
    assert mcpstate.disabled_in(["/p"], env) and not mcpstate.disabled_in(["/q"], env)
    assert mcpstate.skipped_since({"HOME": str(tmp_path / "home")}) is None  # no files: nothing skipped
    (config / "mcp-needs-auth-cache.json").write_text("{not json")
    assert mcpstate.skipped_since(env) is None


def test_a_grep_hint_never_names_a_tool_the_session_lacks(project: Project, tmp_path: Path) -> None:
    """While Claude Code skips the failed server, the session's grep hints suggest the scree command in
    Bash; once a session start finds the server connectable again, they name the tool."""
    def grep(pattern: str) -> str | None:
        data = payload("pretool_bash", tool_input={"command": f"grep -rn '{pattern}' .", "description": "search"},
                       session_id="no-tools", cwd=str(project.folder))
        return context_of(project.run("suggest.py", data), "PreToolUse")

    _skip_entry(project, (time.time() - 60) * 1000)
    project.run("session_start.py", payload("session_start", cwd=str(project.folder), session_id="no-tools"),
                SCREE_SYNC_COMMAND=marker_command(tmp_path / "m1"))
    text = grep("retention_days")
    assert text is not None and TOOL_PREFIX not in text, text
    assert "`scree search 'retention_days'` (in Bash)" in text
    (project.home / ".claude" / "mcp-needs-auth-cache.json").unlink()  # `/mcp reconnect`, or the pause ended
    project.run("session_start.py", payload("session_start", cwd=str(project.folder), session_id="no-tools"),
                SCREE_SYNC_COMMAND=marker_command(tmp_path / "m2"))
    text = grep("signing keys")
    assert text is not None and f'{SEARCH_TOOL}(query="signing keys"' in text, text


def test_a_state_read_while_another_hook_rewrites_the_file_sees_the_whole_state(tmp_path: Path) -> None:
    """`state.update` empties the file before writing it again; a reader must never see that gap (the
    grep hint then read no `via` while SessionStart's helper cached the index location beside it)."""
    env = {**os.environ, "CLAUDE_PLUGIN_DATA": str(tmp_path / "data")}
    writer = ("import sys; sys.path.insert(0, sys.argv[1]); from scree.hookkit import state\n"
              "state.update('s', lambda s: s.__setitem__('via', 'cli'))\n"
              "for i in range(3000): state.update('s', lambda s: s.__setitem__('loc', {'n': i, 'pad': 'x' * 2000}))\n")
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from scree.hookkit import state\n"
            "import os, time\n"
            "while state.load('s').get('via') != 'cli': time.sleep(0.001)\n"  # the writer's first update
            "seen = [state.load('s').get('via') for _ in range(3000)]\n"
            "print(sum(v != 'cli' for v in seen))\n")
    server = str(REPO_ROOT / "server")
    w = subprocess.Popen([sys.executable, "-c", writer, server], env=env)
    try:
        out = subprocess.run([sys.executable, "-c", code, server], env=env, capture_output=True,
                             text=True, timeout=120)
    finally:
        w.wait(timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "0", out.stdout + out.stderr
