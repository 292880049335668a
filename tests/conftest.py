"""Shared fixtures. Every test gets its own data dir so no index leaks between tests or into $HOME."""

from __future__ import annotations

import os
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


@pytest.fixture(scope="session")
def embedder():
    """The real local model, loaded once for the whole session (about 0.5 s)."""
    from scree.embed import make_embedder

    e = make_embedder("local")
    yield e
    e.close()


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
os.environ.setdefault("SCREE_LOG_LEVEL", "WARNING")
