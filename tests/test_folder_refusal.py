"""A notes folder that is no project is refused with a clear message (issue 36, item 2): a session started in
`/` walked and indexed the whole machine, `/proc` included, for 59 s."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from scree.errors import FolderError
from scree.locate import notes_folder


@pytest.mark.parametrize("project", ["/", "/proc", "/proc/self", "/sys/kernel", "/dev"])
def test_the_whole_file_system_and_kernel_file_systems_are_no_notes_folder(project: str, tmp_path: Path) -> None:
    if not Path(project).is_dir():
        pytest.skip(f"{project} is not a folder here")
    with pytest.raises(FolderError, match="whole file system|pseudo-file system"):
        notes_folder(None, {"CLAUDE_PROJECT_DIR": project}, tmp_path)
    with pytest.raises(FolderError, match="whole file system|pseudo-file system"):
        notes_folder(Path(project), {}, tmp_path)  # named, too


def test_the_home_folder_is_refused_when_found_and_read_when_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home)}
    with pytest.raises(FolderError, match="home folder"):
        notes_folder(None, {**env, "CLAUDE_PROJECT_DIR": str(home)}, tmp_path)
    with pytest.raises(FolderError, match="home folder"):
        notes_folder(None, env, home)  # a session started in ~
    assert notes_folder(home, env, tmp_path) == home.resolve()  # --notes ~ is the user's choice
    (home / "project").mkdir()
    assert notes_folder(None, env, home / "project") == (home / "project").resolve()


def test_a_search_started_in_the_root_folder_says_why_and_reads_nothing() -> None:
    env = {**os.environ, "CLAUDE_PROJECT_DIR": "/"}
    env.pop("SCREE_NOTES", None)
    done = subprocess.run([sys.executable, "-m", "scree.cli", "search", "anything"], capture_output=True, text=True,
                          env=env, cwd="/", timeout=60)
    assert done.returncode == 1 and "the whole file system" in done.stderr and "Traceback" not in done.stderr
