"""`bin/scree` works out its own folder with the shell alone: Claude Code may start it with an empty PATH,
where `dirname`, `ls` and `head` are not found (issue 36 printed `dirname: not found` there)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

LAUNCHER = Path(__file__).resolve().parents[1] / "bin" / "scree"


def _run(argv0: str, home: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": "", "SCREE_LAUNCHER_DEBUG": "1", **extra}
    return subprocess.run(["/bin/sh", argv0, "--version"], capture_output=True, text=True, env=env, timeout=60)


def _fake_uv(home: Path) -> Path:
    """A stand-in uv in ~/.local/bin (where uv's installer puts it) that prints what it was asked to run."""
    uv = home / ".local" / "bin" / "uv"
    uv.parent.mkdir(parents=True)
    uv.write_text("#!/bin/sh\necho \"uv $*\"\n", encoding="utf-8")
    uv.chmod(0o755)
    return uv


def test_an_empty_path_finds_the_plugin_root_and_the_private_uv_without_any_command(tmp_path: Path) -> None:
    home = tmp_path / "home"
    uv = _fake_uv(home)
    out = _run(str(LAUNCHER), home)
    assert "not found" not in out.stderr, out.stderr
    root = LAUNCHER.parent.parent.resolve()
    assert f"scree launcher: root={root} " in out.stderr
    assert out.stdout.strip() == f"uv run --quiet --frozen --project {root} scree --version"
    assert f"uv={uv}" in out.stderr


def test_a_symlinked_launcher_on_an_empty_path_still_finds_its_plugin(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _fake_uv(home)
    link = tmp_path / "bin" / "scree"
    link.parent.mkdir()
    os.symlink(LAUNCHER, link)
    out = _run(str(link), home)
    assert "not found" not in out.stderr, out.stderr
    assert f"root={LAUNCHER.parent.parent.resolve()} " in out.stderr


def test_the_newest_plugin_data_dir_is_chosen_without_ls(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _fake_uv(home)
    data = home / ".claude" / "plugins" / "data"
    for i, name in enumerate(("scree-old", "scree-new")):
        venv = data / name / "venv"
        venv.mkdir(parents=True)
        os.utime(venv, (1_700_000_000 + i * 100, 1_700_000_000 + i * 100))
    out = _run(str(LAUNCHER), home)
    assert "not found" not in out.stderr, out.stderr
    assert f"venv={data.resolve() / 'scree-new' / 'venv'} " in out.stderr or f"venv={data / 'scree-new' / 'venv'} " in out.stderr
