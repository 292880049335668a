"""Where things are: the notes folder for this invocation and the index that belongs to it."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from .config import Config
from .errors import FolderError


def find_git_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` holding `.git` (a dir, or a file for worktrees)."""
    here = start.resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def notes_folder(notes: Path | None, env: Mapping[str, str], cwd: Path) -> Path:
    """The one answer to "which folder?", for the CLI, the MCP server and the hooks alike.

    In order: `notes` (--notes, else SCREE_NOTES; relative to `cwd`), because what the user names wins;
    else the git root above $CLAUDE_PROJECT_DIR (Claude Code sets it for the server and the hooks, whose
    cwd may be a subfolder), else that folder; else the git root above `cwd`, else `cwd`. Always resolved.
    """
    if notes is not None:
        folder = (cwd / notes).resolve()
        if not folder.exists():
            raise FolderError(f"notes folder {folder} does not exist: check --notes / SCREE_NOTES")
        if not folder.is_dir():
            raise FolderError(f"notes folder {folder} is not a directory: point --notes at a folder")
        return folder
    project = env.get("CLAUDE_PROJECT_DIR", "").strip()
    if project:
        path = Path(project)
        if not path.is_dir():
            raise FolderError(f"CLAUDE_PROJECT_DIR={project} is not a folder: start Claude Code in the project, "
                              "or set SCREE_NOTES")
        return find_git_root(path) or path.resolve()
    return find_git_root(cwd) or cwd.resolve()


def resolve_folder(cfg: Config, cwd: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The notes folder for this config, as `notes_folder` decides it (cwd and env default to this process's)."""
    return notes_folder(cfg.notes, os.environ if env is None else env, Path.cwd() if cwd is None else cwd)


@dataclass(frozen=True)
class IndexLocation:
    """The files of one index: the SQLite file, the writer lock, and the `root` record of its folder."""

    dir: Path
    db: Path
    lock: Path
    root_file: Path


def data_dir(cfg: Config, env: Mapping[str, str] | None = None) -> Path:
    """SCREE_DATA_DIR, else $XDG_DATA_HOME/scree, else ~/.local/share/scree."""
    env = os.environ if env is None else env
    if cfg.data_dir is not None:
        return cfg.data_dir
    xdg = env.get("XDG_DATA_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "scree"


def folder_key(folder: Path) -> str:
    """`<folder-name>-<first 16 hex of sha256(resolved folder)>`: readable, and unique per folder."""
    digest = hashlib.sha256(str(folder).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in folder.name) or "root"
    return f"{name}-{digest}"


def index_location(folder: Path, cfg: Config, env: Mapping[str, str] | None = None) -> IndexLocation:
    """The index for `folder`: SCREE_DB/--db if set, else one directory per folder under the data dir."""
    if cfg.db is not None:
        db = cfg.db.resolve()
        return IndexLocation(dir=db.parent, db=db, lock=db.parent / f"{db.name}.writer.lock",
                             root_file=db.parent / f"{db.name}.root")
    d = data_dir(cfg, env) / "indexes" / folder_key(folder)
    return IndexLocation(dir=d, db=d / "index.db", lock=d / "writer.lock", root_file=d / "root")


def prepare_index_dir(loc: IndexLocation, folder: Path) -> None:
    """Create the index directory (0700) and record its folder in `root` (0600).

    The `root` file lets a person (and `scree doctor`) tell which folder an opaque index directory serves.
    """
    loc.dir.mkdir(parents=True, exist_ok=True)
    if loc.dir.name != "" and loc.db.name == "index.db":
        os.chmod(loc.dir, 0o700)
    text = f"{folder}\n"
    try:
        if loc.root_file.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    fd = os.open(loc.root_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
