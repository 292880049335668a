"""The git repository enclosing the notes folder, read, never run: where it is, its ignore files above the folder and
its `.git/info/exclude` (`outer_rules`), and where its index is (`worktree_git_dir`, read by `gitindex`). A linked
worktree or a submodule has a `.git` file pointing at its own git directory; a linked worktree shares the main
repository's `info/exclude` (`common_git_dir`).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from .ignorerules import Rules, compile_patterns, read_ignore_file

log = logging.getLogger(__name__)

GITIGNORE = ".gitignore"


def repo_top(root: Path) -> Path | None:
    """The top of the git worktree holding `root` (`root` itself or a folder above it), None outside any."""
    return next((p for p in (root, *root.parents) if os.path.lexists(p / ".git")), None)


def worktree_git_dir(worktree: Path) -> Path | None:
    """A worktree's own git directory: `.git` itself, or where a `.git` file (`gitdir: ...`) points."""
    dotgit = worktree / ".git"
    try:
        if dotgit.is_dir():
            return dotgit
        first = dotgit.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    git_dir = Path(first[len("gitdir:") :].strip())
    return git_dir if git_dir.is_absolute() else worktree / git_dir


def common_git_dir(worktree: Path) -> Path | None:
    """The git directory a worktree shares with its repository (a linked worktree keeps `info/exclude` there)."""
    git_dir = worktree_git_dir(worktree)
    if git_dir is None or git_dir == worktree / ".git":
        return git_dir
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir
    return Path(common) if Path(common).is_absolute() else git_dir / common


def outer_rules(root: Path) -> tuple[list[Rules], frozenset[str]]:
    """Ignore rules of the repository enclosing `root` that live above it, deepest first.

    If those rules ignore the notes folder itself they are dropped: the user pointed scree at the
    folder on purpose, and applying them would index nothing.
    """
    top = repo_top(root)
    if top is None:
        return [], frozenset()
    files: set[str] = set()
    chain: list[tuple[Path, Rules]] = []  # (folder of the file, rules), deepest first
    for folder in (p for p in root.parents if p == top or top in p.parents):
        path = str(folder / GITIGNORE)
        files.add(path)
        spec = read_ignore_file(path, path)
        if spec:
            chain.append((folder, Rules(path, compile_patterns(spec), "", _posix_rel(root, folder) + "/")))
    git_dir = common_git_dir(top)
    if git_dir is not None:
        exclude = str(git_dir / "info" / "exclude")
        files.add(exclude)
        spec = read_ignore_file(exclude, ".git/info/exclude")
        prepend = "" if top == root else _posix_rel(root, top) + "/"
        if spec:
            chain.append((top, Rules(".git/info/exclude", compile_patterns(spec), "", prepend)))
    if top != root and _root_ignored(root, top, chain):
        log.warning(
            "the notes folder %s is itself ignored by its repository's rules above it; "
            "those rules are not applied inside it",
            root,
        )
        return [], frozenset(files)
    return [rules for _folder, rules in chain], frozenset(files)


def _posix_rel(path: Path, start: Path) -> str:
    return os.path.relpath(path, start).replace(os.sep, "/")


def _root_ignored(root: Path, top: Path, chain: list[tuple[Path, Rules]]) -> bool:
    """True when the rules above the notes folder ignore it or a folder between it and the repo top."""
    between = [p for p in reversed(root.parents) if top in p.parents] + [root]  # shallowest first
    for folder in between:
        # Only files in folders above `folder` apply to it (info/exclude sits at the top).
        for base, rules in chain:
            if base in folder.parents:
                hit = rules.decide(_posix_rel(folder, base) + "/")
                if hit is not None:
                    if hit[0]:
                        return True
                    break
    return False
