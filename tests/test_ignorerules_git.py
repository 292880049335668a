"""Ignore rules against git itself: on generated trees, scree admits exactly the notes git does not ignore.

`git check-ignore` is the reference (it applies every `.gitignore` level, `.git/info/exclude`, negations
and excluded parent folders the way git does). The trees are random but seeded, so a failure names a
seed that reproduces it. Only what git decides varies here: names are plain, visible, not vendored.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from scree.notes.policy import NotesPolicy
from scree.notes.walk import walk_notes

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

FOLDERS = ["docs", "a", "b", "c", "notes", "adr", "guide", "x1"]
FILES = ["a.md", "b.md", "c.md", "c1.md", "keep.md", "x.md", "readme.md", "notes.md", "y.tmp.md"]
# Lines of the kinds people write: plain names, folders, anchors, globs, ranges, `**`, negations.
LINES = [
    "*.md", "a/", "/a", "a", "docs/*.md", "**/b", "b/**", "!keep.md", "!docs/", "x*", "a/**/c.md",
    "*.tmp.md", "/docs/a/", "!a/", "**/notes/**", "c?.md", "[ab].md", "docs", "!*.md", "# a comment",
    "", "notes/", "!notes/keep.md", "guide/**/", "*/c.md", "/*.md", "adr/*", "!adr/keep.md", "**/x1",
    "readme.md", "!/readme.md", "c/**/*.md", "\\!keep.md", "b.md ", "docs/**", "!docs/**/",
]
TREES = 40


def make_tree(root: Path, rnd: random.Random) -> list[str]:
    """A random tree of notes and ignore files under `root` (a git repo); returns every note's path."""
    notes = []
    folders = [""]
    for _ in range(rnd.randint(3, 9)):
        parent = rnd.choice(folders)
        if parent.count("/") < 3:
            folders.append(f"{parent}{rnd.choice(FOLDERS)}/")
    for folder in sorted(set(folders)):
        (root / folder).mkdir(parents=True, exist_ok=True)
        for name in rnd.sample(FILES, rnd.randint(1, 4)):
            (root / folder / name).write_text(f"# {name}\n", encoding="utf-8")
            notes.append(folder + name)
        if rnd.random() < 0.6:
            lines = rnd.sample(LINES, rnd.randint(1, 4))
            (root / folder / ".gitignore").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if rnd.random() < 0.3:
        (root / ".git" / "info").mkdir(parents=True, exist_ok=True)
        (root / ".git" / "info" / "exclude").write_text(rnd.choice(LINES) + "\n", encoding="utf-8")
    return sorted(notes)


def git_admits(root: Path, notes: list[str]) -> set[str]:
    done = subprocess.run(["git", "check-ignore", "--stdin"], cwd=root, input="\n".join(notes) + "\n",
                          capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr  # 1: nothing ignored
    ignored = set(done.stdout.splitlines())
    return set(notes) - ignored


@pytest.mark.parametrize("seed", range(TREES))
def test_scree_admits_exactly_the_notes_git_does_not_ignore(tmp_path: Path, seed: int) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    notes = make_tree(root, random.Random(seed))
    scree = {item for item in walk_notes(NotesPolicy.load(root)) if isinstance(item, str)}
    expected = git_admits(root, notes)
    ignores = {str(p.relative_to(root)): p.read_text() for p in root.rglob(".gitignore")}
    assert scree == expected, (f"seed {seed}: scree only {sorted(scree - expected)}, "
                               f"git only {sorted(expected - scree)}; ignore files {ignores}")
