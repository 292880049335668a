"""The Claude Code plugin's own files: manifests, MCP config, skills, and the `bin/scree` launcher.

What `claude plugin validate` does not check (see tests/test_plugin_smoke.py for what it does) is
checked here: .mcp.json, skill names vs their folders, that each skill's `!` command is allowed by its
own `allowed-tools` (else Claude Code aborts it), and where the launcher puts the venv.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

from conftest import REPO_ROOT
from scree.hookkit import TOOL_PREFIX

PLUGIN = json.loads((REPO_ROOT / ".claude-plugin" / "plugin.json").read_text())
MARKETPLACE = json.loads((REPO_ROOT / ".claude-plugin" / "marketplace.json").read_text())
MCP = json.loads((REPO_ROOT / ".mcp.json").read_text())
PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
LAUNCHER = REPO_ROOT / "bin" / "scree"
SLASH_SKILLS = ("scree-reindex", "scree-doctor")


def skill(name: str) -> tuple[dict, str]:
    """(frontmatter, body) of skills/<name>/SKILL.md."""
    text = (REPO_ROOT / "skills" / name / "SKILL.md").read_text(encoding="utf-8")
    m = re.match(r"---\n(.*?)\n---\n(.*)", text, re.DOTALL)
    assert m, f"skills/{name}/SKILL.md has no YAML front matter"
    return yaml.safe_load(m.group(1)), m.group(2)


# ----- manifests ------------------------------------------------------------------------------------


def test_manifest_names_the_plugin_and_leaves_hooks_to_the_default_file() -> None:
    assert PLUGIN["name"] == "scree" and PLUGIN["version"] == PYPROJECT["project"]["version"] == "0.1.0"
    assert PLUGIN["license"] == "MIT" and isinstance(PLUGIN["author"], dict) and PLUGIN["author"]["name"]
    assert isinstance(PLUGIN["keywords"], list) and PLUGIN["description"]
    # Listing ./hooks/hooks.json again makes 2.1.197 fail the plugin load ("Duplicate hooks file"),
    # and a component path replaces its default folder: none of them belongs here.
    assert not {"hooks", "mcpServers", "commands", "skills", "agents"} & set(PLUGIN)
    assert (REPO_ROOT / "hooks" / "hooks.json").is_file()


def test_repo_is_its_own_marketplace_for_scree_at_scree_tools() -> None:
    assert MARKETPLACE["name"] == "scree-tools" and MARKETPLACE["owner"]["name"]
    (entry,) = MARKETPLACE["plugins"]
    assert entry["name"] == PLUGIN["name"] and entry["source"] == "./"
    assert entry.get("version", PLUGIN["version"]) == PLUGIN["version"]


def test_mcp_server_starts_through_the_launcher_that_finds_uv_off_path() -> None:
    (name, server), = MCP["mcpServers"].items()
    assert name == "scree"  # -> tools named mcp__plugin_scree_scree__*
    assert TOOL_PREFIX == f"mcp__plugin_{PLUGIN['name']}_{name}__"
    # Not a bare `uv` (Claude Code would look for it on its PATH only, issue 29): bin/scree finds uv
    # where the hooks do and runs `uv run --frozen` with the venv in the plugin's data dir.
    assert server["command"] == "sh"
    assert server["args"] == ["${CLAUDE_PLUGIN_ROOT}/bin/scree", "serve"]
    assert server["env"] == {"CLAUDE_PLUGIN_DATA": "${CLAUDE_PLUGIN_DATA}"}
    assert server["alwaysLoad"] is True
    assert (REPO_ROOT / "uv.lock").is_file()  # --frozen needs it


def test_the_server_command_runs_the_relay_on_python3_with_the_plugin_root_and_data(tmp_path: Path,
                                                                                   fake_uv: Path) -> None:
    """The relay needs no uv and no environment (issue 35): the launcher runs it on python3 with the
    plugin's root and data dir; only the engine it starts runs through uv."""
    (server,) = MCP["mcpServers"].values()
    data = tmp_path / "data"
    args = [a.replace("${CLAUDE_PLUGIN_ROOT}", str(REPO_ROOT)).replace("${CLAUDE_PLUGIN_DATA}", str(data))
            for a in server["args"]]
    env = {**base_env(tmp_path, fake_uv), **{k: v.replace("${CLAUDE_PLUGIN_DATA}", str(data))
                                             for k, v in server["env"].items()}, "SCREE_LAUNCHER_DEBUG": "1"}
    proc = subprocess.run([server["command"], *args], env=env, capture_output=True, text=True, timeout=30,
                          input="")
    assert proc.returncode == 0 and proc.stdout == ""  # stdin closed at once: a session with no message
    assert f"scree launcher: root={REPO_ROOT} data={data} relay=" in proc.stderr


def test_serve_over_http_or_with_the_engine_off_runs_whole_through_uv(tmp_path: Path, fake_uv: Path) -> None:
    data = tmp_path / "data"
    for extra, more_env in ((["--http"], {}), ([], {"SCREE_ENGINE": "off"})):
        env = {**base_env(tmp_path, fake_uv), "CLAUDE_PLUGIN_DATA": str(data), **more_env}
        proc = subprocess.run(["sh", str(LAUNCHER), "serve", *extra], env=env, capture_output=True, text=True,
                              timeout=10)
        venv, got_data, argv = parsed(proc)
        assert venv == f"{data}/venv" and got_data == str(data)
        assert argv == ["run", "--quiet", "--frozen", "--project", str(REPO_ROOT), "scree", "serve", *extra]


# ----- skills ---------------------------------------------------------------------------------------


def test_search_skill_is_short_and_names_the_search_tool() -> None:
    meta, body = skill("scree")
    assert meta["name"] == "scree"
    # The description is in the context of every session: keep it small.
    assert len(meta["description"]) <= 400 and f"{TOOL_PREFIX}search_docs" in meta["description"]
    assert "grep" in meta["description"]
    for tool in ("search_docs", "read_doc"):
        assert f"{TOOL_PREFIX}{tool}" in body
    assert "disable-model-invocation" not in meta


@pytest.mark.parametrize("name", SLASH_SKILLS)
def test_slash_skill_is_user_only_and_named_like_its_folder(name: str) -> None:
    meta, _ = skill(name)
    # `name:` equal to the folder is what makes the bare /scree-reindex work (besides /scree:scree-reindex).
    assert meta["name"] == name and meta["disable-model-invocation"] is True and meta["description"]


def _allowed(meta: dict) -> list[str]:
    return [t.strip() for t in re.split(r",\s*(?=[A-Za-z_]+(?:\(|$))", meta["allowed-tools"])]


@pytest.mark.parametrize("name", SLASH_SKILLS)
def test_bang_command_is_covered_by_the_skills_allowed_tools(name: str) -> None:
    meta, body = skill(name)
    (command,) = re.findall(r"^!`([^`]+)`", body, re.MULTILINE)
    subcommand = name.removeprefix("scree-")
    # The plugin's own launcher, not whichever `scree` comes first on PATH (bin/ is appended to it).
    launcher = '"${CLAUDE_PLUGIN_ROOT}/bin/scree"'
    assert command.startswith(f"{launcher} {subcommand} $ARGUMENTS")
    # A failing command aborts the whole skill and the model never sees the report: always exit 0.
    assert command.endswith("2>&1 || true")
    allowed = _allowed(meta)
    assert f"Bash({launcher} {subcommand} *)" in allowed and "Bash(true)" in allowed


def test_tools_named_in_skills_are_scree_tools() -> None:
    text = "".join((REPO_ROOT / "skills" / n / "SKILL.md").read_text() for n in ("scree", *SLASH_SKILLS))
    named = set(re.findall(r"mcp__plugin_\w+?__(\w+)", text))
    assert named == {"search_docs", "read_doc", "reindex"}
    server = REPO_ROOT / "server" / "scree" / "mcpserver.py"
    if server.exists():  # the server may be written after the skills
        source = server.read_text()
        missing = [t for t in named if not re.search(rf"\b{t}\b", source)]
        assert not missing, f"skills name tools the MCP server does not define: {missing}"


def test_no_legacy_command_duplicates_a_skill() -> None:
    commands = REPO_ROOT / "commands"
    names = {p.stem for p in commands.glob("*.md")} if commands.is_dir() else set()
    assert not names & {p.parent.name for p in (REPO_ROOT / "skills").glob("*/SKILL.md")}


# ----- bin/scree ------------------------------------------------------------------------------------


@pytest.fixture()
def fake_uv(tmp_path: Path) -> Path:
    """A `uv` that prints what it was given (arguments and the two variables the launcher sets)."""
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    uv = bindir / "uv"
    uv.write_text('#!/bin/sh\nprintf "%s\\n" "venv=${UV_PROJECT_ENVIRONMENT:-}" "data=${CLAUDE_PLUGIN_DATA:-}" "$@"\n'
                  'exit "${FAKE_UV_EXIT:-0}"\n')
    uv.chmod(0o755)
    return bindir


def launch(launcher: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(launcher), *args], env=env, capture_output=True, text=True, timeout=10, check=False)


def parsed(proc: subprocess.CompletedProcess[str]) -> tuple[str, str, list[str]]:
    venv, data, *argv = proc.stdout.splitlines()
    return venv.removeprefix("venv="), data.removeprefix("data="), argv


def base_env(home: Path, bindir: Path) -> dict[str, str]:
    return {"HOME": str(home), "PATH": f"{bindir}:/usr/bin:/bin"}


def test_launcher_runs_the_plugin_cli_through_uv_with_the_given_data_dir(tmp_path: Path, fake_uv: Path) -> None:
    env = {**base_env(tmp_path, fake_uv), "CLAUDE_PLUGIN_DATA": str(tmp_path / "data"), "FAKE_UV_EXIT": "3"}
    proc = launch(LAUNCHER, env, "search", "how are notes chunked?")
    venv, data, argv = parsed(proc)
    assert proc.returncode == 3  # the CLI's exit status comes through
    assert venv == f"{tmp_path}/data/venv" and data == f"{tmp_path}/data"
    assert argv == ["run", "--quiet", "--frozen", "--project", str(REPO_ROOT), "scree", "search", "how are notes chunked?"]


@pytest.mark.parametrize(("marketplace", "expected"), [("scree-tools", "scree-scree-tools"), ("my.tools", "scree-my-tools")])
def test_installed_copy_finds_its_data_dir_from_the_cache_path(tmp_path: Path, fake_uv: Path, marketplace: str,
                                                               expected: str) -> None:
    home = tmp_path / "home"
    copy = home / ".claude" / "plugins" / "cache" / marketplace / "scree" / "0.1.0" / "bin" / "scree"
    copy.parent.mkdir(parents=True)
    shutil.copy2(LAUNCHER, copy)
    venv, data, argv = parsed(launch(copy, base_env(home, fake_uv), "doctor"))
    assert data == str(home / ".claude" / "plugins" / "data" / expected) and venv == data + "/venv"
    assert argv[4] == str(copy.parents[1]) and argv[-1] == "doctor"


def test_claude_config_dir_moves_the_cache_and_data_dirs(tmp_path: Path, fake_uv: Path) -> None:
    config = tmp_path / "cfg"
    copy = config / "plugins" / "cache" / "scree-tools" / "scree" / "0.1.0" / "bin" / "scree"
    copy.parent.mkdir(parents=True)
    shutil.copy2(LAUNCHER, copy)
    env = {**base_env(tmp_path / "home", fake_uv), "CLAUDE_CONFIG_DIR": str(config)}
    _, data, _ = parsed(launch(copy, env))
    assert data == str(config / "plugins" / "data" / "scree-scree-tools")


def test_plugin_run_in_place_uses_the_data_dir_whose_venv_was_used_last(tmp_path: Path, fake_uv: Path) -> None:
    data_root = tmp_path / ".claude" / "plugins" / "data"
    for name, mtime in (("scree-inline", 1_000_000), ("scree-scree-tools", 2_000_000), ("other-x", 3_000_000)):
        (data_root / name / "venv").mkdir(parents=True)
        os.utime(data_root / name / "venv", (mtime, mtime))
    _, data, argv = parsed(launch(LAUNCHER, base_env(tmp_path, fake_uv), "status"))
    assert data == str(data_root / "scree-scree-tools") and argv[4] == str(REPO_ROOT)


def test_outside_claude_code_the_venv_goes_to_the_user_cache(tmp_path: Path, fake_uv: Path) -> None:
    env = {**base_env(tmp_path, fake_uv), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    venv, data, _ = parsed(launch(LAUNCHER, env))
    assert venv == str(tmp_path / "xdg" / "scree" / "venv") and data == ""  # no plugin data dir invented


def test_symlinked_launcher_still_finds_the_plugin(tmp_path: Path, fake_uv: Path) -> None:
    link = tmp_path / "local-bin" / "scree"
    link.parent.mkdir()
    link.symlink_to(LAUNCHER)
    _, _, argv = parsed(launch(link, {**base_env(tmp_path, fake_uv), "CLAUDE_PLUGIN_DATA": str(tmp_path)}))
    assert argv[4] == str(REPO_ROOT)


def _launcher_copy(tmp_path: Path) -> Path:
    """bin/scree in a plugin folder of its own (this checkout may hold the Quickstart's .uv/)."""
    copy = tmp_path / "plugin" / "bin" / "scree"
    copy.parent.mkdir(parents=True)
    shutil.copy2(LAUNCHER, copy)
    return copy


def test_without_uv_the_launcher_says_how_to_install_it(tmp_path: Path) -> None:
    if shutil.which("uv", path="/usr/bin:/bin"):
        pytest.skip("uv is installed system-wide in /usr/bin here")
    proc = launch(_launcher_copy(tmp_path), {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}, "doctor")
    assert proc.returncode == 127 and proc.stdout == ""
    assert "uv is not installed" in proc.stderr and "astral.sh/uv/install.sh" in proc.stderr


def test_uv_in_the_installers_folder_is_found_without_path(tmp_path: Path, fake_uv: Path) -> None:
    local_bin = tmp_path / ".local" / "bin"
    local_bin.mkdir(parents=True)
    shutil.copy2(fake_uv / "uv", local_bin / "uv")
    proc = launch(LAUNCHER, {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "CLAUDE_PLUGIN_DATA": str(tmp_path)})
    if shutil.which("uv", path="/usr/bin:/bin"):
        pytest.skip("uv is installed system-wide in /usr/bin here")
    assert proc.returncode == 0 and parsed(proc)[2][:2] == ["run", "--quiet"]


def test_the_listing_icon_is_a_square_png_the_plugin_directory_accepts():
    # Claude Code 2.1.332's validator looks for .claude-plugin/icon.png: a square PNG or JPEG, 512 to
    # 2048 px a side, under 2 MB (SVG and WebP refused); without one it warns ICON_MISSING.
    icon = REPO_ROOT / ".claude-plugin" / "icon.png"
    data = icon.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width == height and 512 <= width <= 2048
    assert len(data) < 2 * 1024 * 1024


def test_the_reindex_skill_tells_a_session_start_sync_from_a_server_by_what_the_refusal_says() -> None:
    from scree.live.lock import Holder, describe_writer

    body = (REPO_ROOT / "skills" / "scree-reindex" / "SKILL.md").read_text(encoding="utf-8")
    assert "that is scree's MCP server of this session" not in body  # the holder may be a one-time sync
    # The phrases the skill tells the model to read are the ones the refusal really prints.
    for command in ("scree serve", "scree reindex"):
        said = describe_writer(Holder(pid=1, since=0.0, host="h", command=command))
        phrase = said.split(", ", 1)[1]
        assert f'"{phrase}"' in body and f"`{command}`" in body, (phrase, command)


def test_uv_where_the_quickstart_put_it_is_found_without_path(tmp_path: Path, fake_uv: Path) -> None:
    if shutil.which("uv", path="/usr/bin:/bin"):
        pytest.skip("uv is installed system-wide in /usr/bin here")
    launcher = _launcher_copy(tmp_path)
    (launcher.parents[1] / ".uv" / "bin").mkdir(parents=True)
    shutil.copy2(fake_uv / "uv", launcher.parents[1] / ".uv" / "bin" / "uv")
    proc = launch(launcher, {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "CLAUDE_PLUGIN_DATA": str(tmp_path)})
    assert proc.returncode == 0 and parsed(proc)[2][:2] == ["run", "--quiet"], proc.stderr


def test_the_local_claude_code_builds_are_never_part_of_the_plugin() -> None:
    """.ci/claude-<version> (a build, or a symlink to one in a worktree) is ignored in every form: a
    committed symlink would point nowhere in a clone and break .ci/run's npm install into it."""
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("needs the git checkout")
    for name in (".ci/claude-9.9.9", ".ci/claude-9.9.9/node_modules/.bin/claude"):
        ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", name], cwd=REPO_ROOT, timeout=30)
        assert ignored.returncode == 0, f"{name} is not ignored"
    tracked = subprocess.run(["git", "ls-files", ".ci"], cwd=REPO_ROOT, capture_output=True, text=True,
                             timeout=30, check=True).stdout.split()
    assert tracked == [".ci/run"]
