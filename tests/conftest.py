"""Shared fixtures. No test touches the user's $HOME: for the whole session HOME and XDG_* point at a
scratch directory (set in pytest_configure, before any test module is imported or any fixture runs,
module- and session-scoped ones included), and every test also gets its own data dir."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time
from typing import Callable, Iterator
from pathlib import Path

import pytest

# Where scree would put indexes for the user running the tests, read before the session moves HOME.
REAL_DATA_DIR = Path(os.environ.get("XDG_DATA_HOME", "").strip() or Path.home() / ".local" / "share") / "scree"
_SCRATCH_VARS = ("HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME")
# An outer Claude Code session or a user's shell must not steer the tests to their folders.
_DROPPED_VARS = ("CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_DATA", "CLAUDE_PLUGIN_ROOT", "CLAUDE_CONFIG_DIR",
                 "CLAUDE_CODE_SESSION_ID", "CLAUDE_ENV_FILE")
_KEPT_SCREE_VARS = ("SCREE_SQLITE", "SCREE_LOG_LEVEL", "SCREE_THREADS")  # how to run, not where or what
_saved_env: dict[str, str | None] = {}


def _find_uv() -> str | None:
    """uv on PATH; else the one running this suite (`uv run` sets $UV but puts only the venv on PATH);
    else the Quickstart's own (.uv/bin)."""
    for found in (shutil.which("uv"), os.environ.get("UV"), str(REPO_ROOT / ".uv" / "bin" / "uv")):
        if found and Path(found).is_file():
            return found
    return None
_SCRATCH = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    """Move HOME and XDG_* to a scratch dir for the session; keep the tools that live under HOME working."""
    _register_markers(config)
    scratch = Path(tempfile.mkdtemp(prefix="scree-tests-home-"))
    config.stash[_SCRATCH] = scratch
    keep = {}
    if not os.environ.get("UV_CACHE_DIR") and UV_BIN:
        # uv's cache lives under HOME; an empty one would make offline `uv sync` in the smoke tests fail.
        import subprocess

        found = subprocess.run([UV_BIN, "cache", "dir"], capture_output=True, text=True, timeout=30)
        if found.returncode == 0 and found.stdout.strip():
            keep["UV_CACHE_DIR"] = found.stdout.strip()
    if not os.environ.get("UV_PYTHON_INSTALL_DIR"):
        keep["UV_PYTHON_INSTALL_DIR"] = str(REAL_DATA_DIR.parent / "uv" / "python")
    changes: dict[str, str | None] = {**keep, **{v: str(scratch / v.lower()) for v in _SCRATCH_VARS}}
    changes.update({v: None for v in _DROPPED_VARS})
    changes.update({v: None for v in os.environ if v.startswith("SCREE_") and v not in _KEPT_SCREE_VARS})
    for name, value in changes.items():
        _saved_env.setdefault(name, os.environ.get(name))
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
            if name in _SCRATCH_VARS:
                Path(value).mkdir(parents=True, exist_ok=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    for name, value in _saved_env.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    scratch = config.stash.get(_SCRATCH, None)
    if scratch is not None:
        shutil.rmtree(scratch, ignore_errors=True)


def _indexes_of(data_dir: Path) -> set[Path]:
    try:
        return set((data_dir / "indexes").iterdir())
    except OSError:
        return set()


@pytest.fixture(scope="session", autouse=True)
def _real_data_dir_untouched(tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config) -> Iterator[None]:
    """Fails the run when an index of one of this run's folders appears in the user's real data dir.

    Only entries whose `root` record names a folder of this run count: on a shared machine another
    process (a developer's scree, another test run) may add its own entries meanwhile.
    """
    before = _indexes_of(REAL_DATA_DIR)
    yield
    ours = (str(tmp_path_factory.getbasetemp()), str(pytestconfig.stash[_SCRATCH]))
    leaked = []
    for entry in sorted(_indexes_of(REAL_DATA_DIR) - before):
        try:
            root = (entry / "root").read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if any(root == base or root.startswith(base + os.sep) for base in ours):
            leaked.append(f"{entry} (for {root})")
    assert not leaked, f"tests wrote into the real data dir {REAL_DATA_DIR}: {leaked}"


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path_factory.mktemp("scree-data")
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    for var in ("SCREE_DB", "SCREE_NOTES", "SCREE_DATA_DIR", "SCREE_MODE", "SCREE_K", "SCREE_EMBEDDER"):
        monkeypatch.delenv(var, raising=False)
    return data


FAKE_EMBEDDER = Path(__file__).resolve().parent / "helpers" / "fake_embedder.py"


@pytest.fixture(scope="session", autouse=True)
def _fake_embedder_for_the_session() -> Iterator[None]:
    """The fake embedder also between tests, so module- and session-scoped fixtures (which run before
    the per-test fixtures) and the processes they start never load the model by accident. Set here,
    not at import: pytest_configure clears every SCREE_* variable after conftest is imported."""
    saved = {k: os.environ.get(k) for k in ("SCREE_TEST_EMBEDDER", "SCREE_EMBEDDER")}
    os.environ.update(SCREE_TEST_EMBEDDER=str(FAKE_EMBEDDER), SCREE_EMBEDDER="fake")
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def _register_markers(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "real_model: the test ranks or tests the embedder, so scree's own embedder is the real "
                   "local model (every other test, and every process it starts, gets the fake)")


@pytest.fixture(autouse=True)
def _fake_embedder_by_default(_isolated_data_dir: Path, request: pytest.FixtureRequest,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever builds scree's embedder from the config (the CLI, `scree serve`, Workspace.embedder())
    gets the deterministic fake, in this process and in the ones it starts, unless the test is
    marked `real_model`. Runs after the isolation fixture, which clears SCREE_EMBEDDER."""
    if request.node.get_closest_marker("real_model") is None:
        monkeypatch.setenv("SCREE_TEST_EMBEDDER", str(FAKE_EMBEDDER))
        monkeypatch.setenv("SCREE_EMBEDDER", "fake")
    else:
        monkeypatch.delenv("SCREE_EMBEDDER", raising=False)


@pytest.fixture
def embedder():
    """The deterministic fake embedder (tests/helpers/fake_embedder.py): for tests that do not rank."""
    from fake_embedder import FakeEmbedder

    return FakeEmbedder()


@pytest.fixture(scope="session")
def real_embedder():
    """The real local model, loaded once for the whole session: only for ranking and embedder tests."""
    from scree.embed import make_embedder

    e = make_embedder("local")
    yield e
    e.close()


def embedder_env() -> dict[str, str]:
    """The variables that choose this test's embedder, for a subprocess given an environment of its own."""
    return {k: os.environ[k] for k in ("SCREE_TEST_EMBEDDER", "SCREE_EMBEDDER") if k in os.environ}


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def eventually(predicate: Callable[[], bool], timeout: float, step: float = 0.02) -> bool:
    """Poll a condition that has no event to wait on (search results, /proc, another process's
    state) until it holds or `timeout` seconds pass. Returns whether it held."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while not predicate():
        if time.monotonic() > deadline:
            return False
        pause.wait(step)
    return True


REPO_ROOT = Path(__file__).resolve().parent.parent
UV_BIN = _find_uv()
sys.path.insert(0, str(FAKE_EMBEDDER.parent))  # `from fake_embedder import FakeEmbedder` in tests
os.environ.setdefault("SCREE_LOG_LEVEL", "WARNING")


def kill_engines_in(runtime_dir: str) -> None:
    """End every `scree engine` whose socket is in `runtime_dir` (and the `uv run` above it)."""
    import signal

    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if b"engine" in argv and any(a.startswith(runtime_dir.encode() + b"/") for a in argv):
            try:
                os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass


@pytest.fixture(autouse=True)
def _own_engine_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test's relays start their engines in a folder of the test's own (a short path: a Unix
    socket's is at most 108 bytes), and no engine outlives its test."""
    runtime = tempfile.mkdtemp(prefix="sr-", dir="/tmp")
    monkeypatch.setenv("SCREE_RUNTIME_DIR", runtime)
    yield runtime
    kill_engines_in(runtime)
    shutil.rmtree(runtime, ignore_errors=True)
