"""One function decides the notes folder; the CLI, the MCP server and the hooks all ask it, so with any
mix of --notes, SCREE_NOTES and CLAUDE_PROJECT_DIR they index and read the same folder."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "hooks"))

from hookrun import REPO_ROOT, hook_command, make_project, payload  # noqa: E402

from conftest import eventually  # noqa: E402

from scree.errors import FolderError  # noqa: E402
from scree.locate import notes_folder  # noqa: E402


def _git_repo(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    return root.resolve()


def test_explicit_notes_then_claude_project_dir_git_root_then_cwd_git_root(tmp_path: Path) -> None:
    project = _git_repo(tmp_path / "proj")
    sub = project / "src" / "pkg"
    sub.mkdir(parents=True)
    other = tmp_path / "other"
    other.mkdir()
    claude = {"CLAUDE_PROJECT_DIR": str(sub)}
    assert notes_folder(other, claude, tmp_path) == other.resolve()  # what the user names wins
    assert notes_folder(Path("other"), claude, tmp_path) == other.resolve()  # relative to cwd
    assert notes_folder(None, claude, tmp_path) == project  # the git root above the project dir
    assert notes_folder(None, {"CLAUDE_PROJECT_DIR": str(other)}, sub) == other.resolve()  # no git: the dir
    assert notes_folder(None, {}, sub) == project
    assert notes_folder(None, {"CLAUDE_PROJECT_DIR": " "}, other) == other.resolve()


def test_a_missing_folder_is_an_error_naming_the_setting(tmp_path: Path) -> None:
    with pytest.raises(FolderError, match="SCREE_NOTES"):
        notes_folder(tmp_path / "gone", {}, tmp_path)
    with pytest.raises(FolderError, match="CLAUDE_PROJECT_DIR"):
        notes_folder(None, {"CLAUDE_PROJECT_DIR": str(tmp_path / "gone")}, tmp_path)


def test_server_hooks_and_cli_agree_when_scree_notes_and_claude_project_dir_both_point(tmp_path: Path) -> None:
    p = make_project(tmp_path)  # a git repo with notes: Claude Code's project
    other = tmp_path / "handbook"  # the folder the user asked for
    other.mkdir()
    (other / "a.md").write_text("# A\n\ntext\n")
    sub = p.folder / "src"
    env = {**p.env, "SCREE_NOTES": str(other), "CLAUDE_PROJECT_DIR": str(sub),
           "PYTHONPATH": str(REPO_ROOT / "server"), "SCREE_LOG_LEVEL": "INFO"}

    # The hook: the PreToolUse hook caches where it looked in the session state.
    data = payload("pretool_bash", tool_input={"command": "grep -rn text ."}, session_id="agree", cwd=str(sub))
    proc = subprocess.run(hook_command("suggest.py"), input=json.dumps(data).encode(),
                          capture_output=True, env=env, cwd=str(sub), timeout=30)
    assert proc.returncode == 0
    hook = json.loads((p.plugin_data / "state" / "agree.json").read_text())["loc"]

    # The server, started the way Claude Code starts it (no --notes), logs the folder and index it serves.
    served = subprocess.run([sys.executable, "-m", "scree.cli", "serve", "--no-watch"], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, env=env, cwd=str(sub), timeout=60)
    found = re.search(r"serving (.+) \(index (.+)\) over stdio", served.stderr)
    assert found, served.stderr

    # The CLI (`/scree-reindex` and the session-start sync run it) reports the same.
    status = subprocess.run([sys.executable, "-m", "scree.cli", "status", "--json"], capture_output=True,
                            text=True, env=env, cwd=str(sub), timeout=60)
    cli = json.loads(status.stdout)

    assert hook["folder"] == found.group(1) == cli["folder"] == str(other.resolve())
    assert hook["db"] == found.group(2) == cli["index"]



def test_the_session_start_sync_indexes_the_folder_the_hooks_chose_even_with_a_relative_scree_notes(
        tmp_path: Path) -> None:
    p = make_project(tmp_path, index=False)
    marker = tmp_path / "synced-folder"
    # A stand-in for `scree reindex` that records which folder scree's CLI would index, from where it runs.
    probe = (f"import sys; sys.path.insert(0, {str(REPO_ROOT / 'server')!r}); "
             "from scree.config import load_config; from scree.locate import resolve_folder; "
             f"open({str(marker)!r}, 'w').write(str(resolve_folder(load_config())))")
    data = payload("session_start", cwd=str(p.folder), session_id="relative")
    proc = p.run("session_start.py", data, SCREE_NOTES="docs", SCREE_SYNC_COMMAND=json.dumps([sys.executable, "-c", probe]))
    assert proc.returncode == 0
    assert eventually(lambda: marker.exists() and marker.read_text() != "", timeout=30)
    hook = json.loads((p.plugin_data / "state" / "relative.json").read_text())["loc"]
    assert marker.read_text() == hook["folder"] == str(p.folder / "docs")


def test_a_relative_xdg_data_home_is_ignored_by_the_cli_and_the_hooks(tmp_path: Path) -> None:
    # The XDG spec: a relative path in XDG_*_HOME is invalid and ignored. Used as-is, the index landed
    # under `./rel/data/` of whatever directory scree ran in.
    p = make_project(tmp_path)
    env = {**p.env, "XDG_DATA_HOME": "rel/data", "PYTHONPATH": str(REPO_ROOT / "server")}
    default = p.home / ".local" / "share" / "scree"

    data = payload("pretool_bash", tool_input={"command": "grep -rn text ."}, session_id="relxdg", cwd=str(p.folder))
    proc = subprocess.run(hook_command("suggest.py"), input=json.dumps(data).encode(),
                          capture_output=True, env=env, cwd=str(p.folder), timeout=30)
    assert proc.returncode == 0
    hook = json.loads((p.plugin_data / "state" / "relxdg.json").read_text())["loc"]
    status = subprocess.run([sys.executable, "-m", "scree.cli", "status", "--json"], capture_output=True,
                            text=True, env=env, cwd=str(p.folder), timeout=60)
    cli = json.loads(status.stdout)

    assert Path(hook["db"]).is_relative_to(default) and Path(cli["index"]).is_relative_to(default)
    assert not (p.folder / "rel").exists()


def test_doctor_ignores_a_relative_xdg_cache_home_when_it_looks_for_claude_code_s_logs(tmp_path: Path) -> None:
    from scree.doctor.doctor import _claude_dirs

    _, logs = _claude_dirs({"HOME": str(tmp_path), "XDG_CACHE_HOME": "cache"})
    assert logs[0] == tmp_path / ".cache" / "claude-cli-nodejs"
    _, logs = _claude_dirs({"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "c")})
    assert logs[0] == tmp_path / "c" / "claude-cli-nodejs"
