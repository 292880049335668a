"""The README's install from a local clone, run as written in a real Claude Code (offline, scratch HOME):
the plugin cache gets the plugin's files, not the working clone's ignored environments and caches.
Needs `claude` (see tests/test_plugin_smoke.py) and git; skipped without."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO_ROOT
from test_plugin_smoke import CLAUDE_BINS, _plugin_files, _version_id

pytestmark = [pytest.mark.skipif(not CLAUDE_BINS, reason="Claude Code is not installed (see test_plugin_smoke.py)"),
              pytest.mark.skipif(shutil.which("git") is None, reason="git is needed"), pytest.mark.timeout(180)]


def _readme_local_install() -> str:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    after = text[text.index("Or from a local clone"):]
    return re.search(r"```sh\n(.*?)```", after, re.S).group(1)


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                   capture_output=True, timeout=60)


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


@pytest.mark.parametrize("claude_bin", CLAUDE_BINS, ids=[_version_id(p) for p in CLAUDE_BINS])
def test_the_readme_local_install_copies_the_plugin_not_the_clones_environments(claude_bin: str, tmp_path: Path) -> None:
    work = tmp_path / "clone"  # a clone where the Quickstart ran: its environments are ignored files
    for rel in _plugin_files():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / rel, work / rel)
    _git("init", "-q", cwd=work)
    _git("add", "-A", cwd=work)
    _git("commit", "-qm", "x", cwd=work)
    for ignored in (".venv/lib/big.bin", ".uv/lib/big.bin"):
        (work / ignored).parent.mkdir(parents=True)
        (work / ignored).write_bytes(os.urandom(16 << 20))
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC"))}
    env.update(HOME=str(home), DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
               PATH=f"{Path(claude_bin).parent}{os.pathsep}{env.get('PATH', '')}")
    script = _readme_local_install().replace("/path/to/clone", str(work))
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", script], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=150)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (cache,) = (home / ".claude" / "plugins" / "cache" / "scree-tools" / "scree").iterdir()
    assert (cache / ".claude-plugin" / "plugin.json").is_file() and (cache / "uv.lock").is_file()
    assert not (cache / ".venv").exists() and not (cache / ".uv").exists()
    assert _du(cache) < 16 << 20, _du(cache)  # the plugin (about 4 MB), not either 16 MB environment file
