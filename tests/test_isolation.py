"""The test session itself runs away from the user's HOME (conftest's pytest_configure)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from conftest import REAL_DATA_DIR


def test_the_session_runs_with_a_scratch_home_and_xdg_dirs() -> None:
    scratch = Path(tempfile.gettempdir()).resolve()
    for name in ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        assert Path(os.environ[name]).resolve().is_relative_to(scratch), name
    assert Path.home().resolve().is_relative_to(scratch)
    assert not Path(os.environ["XDG_DATA_HOME"]).resolve().is_relative_to(REAL_DATA_DIR.parent)
    assert "CLAUDE_PROJECT_DIR" not in os.environ
