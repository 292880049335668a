"""The README's "The `scree` command on your own repositories" steps, run as written in a clean shell.

The block is taken from the README the way `.ci/run` takes the Quickstart's (the first ```sh block
under the section's heading), so the text and the test cannot drift. It runs in a clean copy of the
checkout where the Quickstart has run (its `.uv/bin/uv`), with `env -i`: a new HOME holding only the
repository the block names (`~/src/myapp`, a git repo with two notes), PATH `~/.local/bin:/usr/bin:/bin`
(where Debian's and Ubuntu's default profile put `~/.local/bin` once it exists), uv's cache dir
(so its 300 MB of wheels are not downloaded again) and the machine's network settings (proxy, CA bundle). `uv tool install` resolves from PyPI: without it
the test is skipped. The real local model answers (the new HOME has no test embedder).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO_ROOT, UV_BIN

HEADING = "## The `scree` command on your own repositories"
# How this machine reaches PyPI (a proxy, its CA bundle, a mirror): kept, as any shell of it has them.
NETWORK_VARS = {"SSL_CERT_FILE", "SSL_CERT_DIR", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
                "UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_NATIVE_TLS"}

pytestmark = [pytest.mark.skipif(UV_BIN is None, reason="uv is needed"), pytest.mark.timeout(900)]


def readme_block(heading: str) -> str:
    """The first ```sh block under `heading` in the README (as .ci/run's awk finds the Quickstart's)."""
    lines = (REPO_ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index(heading)
    body: list[str] = []
    inside = False
    for line in lines[start + 1:]:
        if not inside and line == "```sh":
            inside = True
        elif inside and line == "```":
            return "\n".join(body) + "\n"
        elif inside:
            body.append(line)
    raise AssertionError(f"no ```sh block under {heading!r}")


def clean_copy(dest: Path) -> Path:
    """Tracked and new files of the checkout (no .venv, no caches), as .ci/run copies it, plus the
    Quickstart's .uv/bin/uv."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO_ROOT,
                         capture_output=True, check=True, timeout=60).stdout
    for rel in filter(None, out.decode().split("\0")):
        src = REPO_ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    (dest / ".uv" / "bin").mkdir(parents=True)
    (dest / ".uv" / "bin" / "uv").symlink_to(UV_BIN)
    return dest


def test_the_readme_steps_for_another_repository_run_as_written(tmp_path: Path) -> None:
    block = readme_block(HEADING)
    assert "uv tool install" in block and "scree search" in block
    home = tmp_path / "home"
    app = home / "src" / "myapp"
    (app / "docs").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(app)], check=True, timeout=30)
    (app / "README.md").write_text("# myapp\n\nA small web service.\n")
    (app / "docs" / "deploy.md").write_text("# Deploying\n\nWe deploy by tagging a release: the pipeline builds "
                                            "the image and rolls it out to production.\n")
    clone = clean_copy(tmp_path / "scree")
    uv_cache = subprocess.run([UV_BIN, "cache", "dir"], capture_output=True, text=True, check=True).stdout.strip()
    env = {"HOME": str(home), "PATH": f"{home}/.local/bin:/usr/bin:/bin", "UV_CACHE_DIR": uv_cache,
           "LANG": "C.UTF-8"}
    env.update({k: v for k, v in os.environ.items() if k.upper() in NETWORK_VARS})
    script = tmp_path / "steps.sh"
    script.write_text(block)
    proc = subprocess.run(["env", "-i", *(f"{k}={v}" for k, v in env.items()), "bash", "-euo", "pipefail",
                           str(script)], cwd=clone, capture_output=True, text=True, timeout=800)
    if proc.returncode != 0 and any(s in proc.stderr for s in ("Failed to fetch", "dns error", "Could not connect",
                                                                 "network", "tcp connect error")):
        pytest.skip(f"PyPI is not reachable: {proc.stderr[-300:]}")
    scree = home / ".local" / "bin" / "scree"
    try:
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
        assert scree.exists()
        # The search printed the deploy note first; the status that followed names the repository.
        first = proc.stdout.split("\n", 1)[0]
        assert first.startswith("docs/deploy.md:"), proc.stdout[-2000:]
        assert f"folder            {app.resolve()}" in proc.stdout and "files             2" in proc.stdout
    finally:
        _wait_for_background_writer(scree, app, env)


def _wait_for_background_writer(scree: Path, app: Path, env: dict[str, str]) -> None:
    """A background `scree reindex` the search may have started (a loaded machine) ends before the folders go."""
    if not scree.exists():
        return
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        out = subprocess.run([str(scree), "status", "--json"], cwd=app, env=env, capture_output=True, text=True,
                             timeout=120)
        if out.returncode != 0 or json.loads(out.stdout).get("writer") is None:
            return
        time.sleep(1)
    raise AssertionError("the background writer did not finish within 300 s")
