"""hooks/launch.sh runs the hook scripts under a real interpreter: the plugin's venv when it exists, else
the executable behind `python3`, resolved once (through a pyenv-like shim, here) and cached. And
`scree doctor` says which one it picks and warns when that is a shim. SCREE_HOOKS_DEBUG logs decisions."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "hooks"))

from hookrun import Project, context_of, make_project, payload  # noqa: E402
from pyenv_like import make_shim  # noqa: E402

from scree.doctor import doctor  # noqa: E402
from scree.hookkit import interp  # noqa: E402

REAL = getattr(sys, "_base_executable", sys.executable)


@pytest.fixture
def shimmed(tmp_path: Path) -> tuple[Project, Path, Path]:
    """A project whose PATH starts with a pyenv-like python3 shim; no interpreter cached yet."""
    (tmp_path / "p").mkdir()
    p = make_project(tmp_path / "p")
    (p.plugin_data / interp.CACHE_NAME).unlink()
    shims = make_shim(tmp_path / ".pyenv", REAL)
    log = tmp_path / "shim.log"
    p.env.update(PATH=f"{shims}{os.pathsep}/usr/bin{os.pathsep}/bin", SHIM_LOG=str(log))
    return p, shims, log


def grep(p: Project, command: str = "grep -rn retention_days .", session: str = "s", **env: str):
    data = payload("pretool_bash", tool_input={"command": command}, session_id=session, cwd=str(p.folder))
    return p.run("suggest.py", data, **env)


def test_python3_behind_a_shim_is_resolved_once_and_cached(shimmed: tuple[Project, Path, Path]) -> None:
    p, shims, log = shimmed
    texts = [context_of(grep(p, session=f"s{i}"), "PreToolUse") for i in range(3)]
    assert all(t and "retention_days" in t for t in texts)
    assert len(log.read_text().splitlines()) == 1  # only the first call went through the shim
    cached = (p.plugin_data / interp.CACHE_NAME).read_text().strip()
    assert os.path.realpath(cached) == os.path.realpath(REAL) and interp.shim_kind(cached) is None


def test_a_stale_cache_is_resolved_again(shimmed: tuple[Project, Path, Path]) -> None:
    p, _, log = shimmed
    (p.plugin_data / interp.CACHE_NAME).write_text("/nonexistent/python3\n")
    assert context_of(grep(p), "PreToolUse") is not None
    assert len(log.read_text().splitlines()) == 1
    assert (p.plugin_data / interp.CACHE_NAME).read_text().strip() != "/nonexistent/python3"


def test_the_plugin_venv_wins_and_never_touches_the_shim(shimmed: tuple[Project, Path, Path], tmp_path: Path) -> None:
    p, _, log = shimmed
    marker = tmp_path / "venv-used"
    venv_bin = p.plugin_data / "venv" / "bin"
    venv_bin.mkdir(parents=True, exist_ok=True)
    (venv_bin / "python3").write_text(f'#!/bin/sh\n: > "{marker}"\nexec "{REAL}" "$@"\n')
    (venv_bin / "python3").chmod(0o755)
    assert context_of(grep(p), "PreToolUse") is not None
    assert marker.exists() and not log.exists()
    assert interp.launcher_choice(p.env) == (str(venv_bin / "python3"), "venv")


def test_doctor_reports_the_bypassed_shim_and_its_cost(shimmed: tuple[Project, Path, Path]) -> None:
    p, shims, _ = shimmed
    grep(p)  # resolves and caches
    ctx = doctor.PluginContext(Path(p.env["CLAUDE_PLUGIN_ROOT"]), p.plugin_data)
    check = doctor.check_hooks(ctx, p.env)
    assert check.status == doctor.OK, check
    assert "python3 on PATH is a pyenv shim that would add" in check.summary and "bypasses it" in check.summary
    assert check.details["hook_python_from"] == "cached" and check.details["python3_shim"] == "pyenv"
    assert isinstance(check.details["shim_cost_ms"], int)


def test_doctor_warns_when_hooks_would_run_through_a_shim(shimmed: tuple[Project, Path, Path]) -> None:
    p, shims, _ = shimmed
    (p.plugin_data / interp.CACHE_NAME).write_text(str(shims / "python3") + "\n")
    ctx = doctor.PluginContext(Path(p.env["CLAUDE_PLUGIN_ROOT"]), p.plugin_data)
    check = doctor.check_hooks(ctx, p.env)
    assert check.status == doctor.WARN and "through a pyenv shim" in check.summary
    assert "ms per hook call, two calls per Bash command" in check.summary
    assert interp.CACHE_NAME in (check.fix or "")


def test_debug_writes_one_line_per_decision(tmp_path: Path) -> None:
    p = make_project(tmp_path)
    commands = ["grep -rn retention_days .", "rg -n 'def retention' .", "grep -rn retention_days src/", "ls -la"]
    for i, c in enumerate(commands):
        grep(p, c, session=f"d{i}", SCREE_HOOKS_DEBUG="1")
    lines = p.hook_log.read_text().splitlines()
    assert len(lines) == len(commands)
    decisions = [json.loads(x.split(" decision: ", 1)[1]) for x in lines]
    assert [d["reason"] for d in decisions] == ["mention", "code:declaration", "aim-without-notes",
                                                "prefilter: no search word"]
    first = decisions[0]
    assert first["parsed"] == "grep" and first["patterns"] == ["retention_days"] and first["aim"] == "."
    assert first["matches"] == ["docs/adr/0003-log-retention.md:7-10"]
    assert decisions[2]["aim"] == "src"
    ctx = doctor.PluginContext(Path(p.env["CLAUDE_PLUGIN_ROOT"]), p.plugin_data)
    assert doctor.check_hooks(ctx, p.env).status == doctor.OK  # decisions are not errors


def test_without_debug_nothing_is_logged(tmp_path: Path) -> None:
    p = make_project(tmp_path)
    grep(p)
    assert not p.hook_log.exists()


def test_a_non_json_payload_logs_one_line_not_a_traceback(tmp_path: Path) -> None:
    p = make_project(tmp_path)
    proc = p.run("suggest.py", b'{"tool_name": "Bash", "tool_input": {"command": "grep -rn x ."')
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
    lines = p.hook_log.read_text().splitlines()
    assert len(lines) == 1 and "not JSON" in lines[0] and "Traceback" not in lines[0]
