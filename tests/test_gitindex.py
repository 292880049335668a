"""A file git tracks is never ignored, as in git: a folder the ignore patterns name is walked for its tracked files,
which are notes, while its untracked ones stay ignored (emcee keeps its tutorials in a gitignored `docs/tutorials/`,
added with `git add -f`). The index is read from real repositories in each format version git writes; one it cannot
read leaves the patterns alone to decide."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from scree.notes import gitindex, policy as policy_module
from scree.notes.gitindex import tracked_below, tracked_paths
from scree.notes.policy import NotesPolicy
from scree.notes.walk import walk_notes

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.org", "-c", "user.name=t", *args], cwd=repo, check=True,
                   capture_output=True)


def repo_with_forced_tutorials(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    files = {"README.md": "# Top\n", "docs/.gitignore": "tutorials\n_build/\n", "docs/index.md": "# Docs\n",
             "docs/tutorials/quickstart.md": "# Quickstart\n\nRun the zorblax sampler.\n",
             "docs/tutorials/scratch.md": "# Scratch\n", "docs/tutorials/deep/moves.md": "# Moves\n",
             "docs/tutorials/deep/draft.md": "# Draft\n", "docs/_build/page.md": "# Built\n"}
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "add", "-f", "docs/tutorials/quickstart.md", "docs/tutorials/deep/moves.md")
    return repo


def notes(policy: NotesPolicy) -> list[str]:
    return sorted(p for p in walk_notes(policy) if isinstance(p, str))


def test_a_tracked_file_in_an_ignored_folder_is_a_note_and_its_untracked_siblings_stay_ignored(tmp_path: Path) -> None:
    repo = repo_with_forced_tutorials(tmp_path)
    policy = NotesPolicy.load(repo)
    assert notes(policy) == ["README.md", "docs/index.md", "docs/tutorials/deep/moves.md",
                             "docs/tutorials/quickstart.md"]
    assert "gitignored ('tutorials' in docs/.gitignore)" in (policy.file_skip_reason("docs/tutorials/scratch.md") or "")
    assert "gitignored" in (policy.file_skip_reason("docs/tutorials/deep/draft.md") or "")
    assert "gitignored" in (policy.file_skip_reason("docs/_build/page.md") or "")  # nothing tracked below it


def test_only_the_tracked_notes_are_kept_of_an_index(tmp_path: Path) -> None:
    # a monorepo's index lists every code file; the policy keeps the names a note may have
    repo = repo_with_forced_tutorials(tmp_path)
    (repo / "docs" / "tutorials" / "helper.py").write_text("x = 1\n")
    git(repo, "add", "-f", "docs/tutorials/helper.py")
    kept = tracked_below(repo, NotesPolicy.load(repo).is_note_name)
    assert "docs/tutorials/quickstart.md" in kept.files and "docs/tutorials/helper.py" not in kept.files
    assert "docs/tutorials/helper.py" in tracked_below(repo).files


def test_a_notes_folder_below_the_repository_top_reads_the_same_index(tmp_path: Path) -> None:
    repo = repo_with_forced_tutorials(tmp_path)
    assert notes(NotesPolicy.load(repo / "docs")) == ["index.md", "tutorials/deep/moves.md", "tutorials/quickstart.md"]


def test_without_the_rule_the_patterns_alone_decide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = repo_with_forced_tutorials(tmp_path)
    monkeypatch.setattr(policy_module, "TRACKED_NOT_IGNORED", False)
    assert notes(NotesPolicy.load(repo)) == ["README.md", "docs/index.md"]


@pytest.mark.parametrize("version", [2, 3, 4])
def test_each_index_version_git_writes_lists_the_tracked_paths(tmp_path: Path, version: int) -> None:
    repo = repo_with_forced_tutorials(tmp_path)
    (repo / "docs" / "ünïcode.md").write_text("# U\n")
    if version == 3:  # an intent-to-add entry carries the extended flags that make git write version 3
        git(repo, "add", "-N", "docs/ünïcode.md")
    else:
        git(repo, "add", "docs/ünïcode.md")
        git(repo, "update-index", "--index-version", str(version))
    data = (repo / ".git" / "index").read_bytes()
    assert int.from_bytes(data[4:8], "big") == version
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True).stdout
    assert tracked_paths(data) == [p.decode("utf-8", "surrogateescape") for p in listed.split(b"\0") if p]


DAMAGES = {"truncated": lambda d: d[:40], "not an index": lambda d: b"XXXX" + d[4:],
           "unknown version": lambda d: d[:4] + b"\x00\x00\x00\x09" + d[8:], "empty": lambda d: b""}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_an_index_that_cannot_be_read_leaves_the_patterns_to_decide(tmp_path: Path, damage: str) -> None:
    repo = repo_with_forced_tutorials(tmp_path)
    index = repo / ".git" / "index"
    index.write_bytes(DAMAGES[damage](index.read_bytes()))
    with pytest.raises(ValueError):
        tracked_paths(index.read_bytes())
    assert tracked_below(repo) == gitindex.Tracked()
    assert notes(NotesPolicy.load(repo)) == ["README.md", "docs/index.md"]


def test_a_linked_worktree_reads_its_own_index(tmp_path: Path) -> None:
    repo = repo_with_forced_tutorials(tmp_path)
    git(repo, "commit", "-q", "-m", "docs")
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked))
    assert (linked / ".git").is_file()
    assert "tutorials/quickstart.md" in tracked_below(linked / "docs").files
