"""Shared fixtures. Every test gets its own data dir so no index leaks between tests or into $HOME."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Callable
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path_factory.mktemp("scree-data")
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    for var in ("SCREE_DB", "SCREE_NOTES", "SCREE_DATA_DIR", "SCREE_MODE", "SCREE_K", "SCREE_EMBEDDER"):
        monkeypatch.delenv(var, raising=False)
    return data


FAKE_EMBEDDER = Path(__file__).resolve().parent / "helpers" / "fake_embedder.py"


def pytest_configure(config: pytest.Config) -> None:
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
sys.path.insert(0, str(FAKE_EMBEDDER.parent))  # `from fake_embedder import FakeEmbedder` in tests
# The fake embedder also between tests, so module- and session-scoped fixtures (which run before the
# per-test fixtures above) and the processes they start never load the model by accident.
os.environ["SCREE_TEST_EMBEDDER"] = str(FAKE_EMBEDDER)
os.environ["SCREE_EMBEDDER"] = "fake"
os.environ.setdefault("SCREE_LOG_LEVEL", "WARNING")
