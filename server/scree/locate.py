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
        return refuse_too_broad(folder, env, named=True)
    project = env.get("CLAUDE_PROJECT_DIR", "").strip()
    if project:
        path = Path(project)
        if not path.is_dir():
            raise FolderError(f"CLAUDE_PROJECT_DIR={project} is not a folder: start Claude Code in the project, "
                              "or set SCREE_NOTES")
        return refuse_too_broad(find_git_root(path) or path.resolve(), env, named=False)
    return refuse_too_broad(find_git_root(cwd) or cwd.resolve(), env, named=False)


# Kernel file systems: their "files" are processes, devices and settings, endless and never notes.
PSEUDO_FILESYSTEMS = (Path("/proc"), Path("/sys"), Path("/dev"))


def refuse_too_broad(folder: Path, env: Mapping[str, str], *, named: bool) -> Path:
    """`folder`, unless it is no project: the whole file system (`/`), a kernel pseudo-file system, or (when
    found rather than named with --notes / SCREE_NOTES) the home folder. A session started in `/` walked and
    indexed the whole machine, `/proc` included (issue 36, item 2)."""
    if folder == Path(folder.anchor):
        raise FolderError(f"the notes folder would be {folder}, the whole file system: scree indexes one "
                          "project's docs; start Claude Code (or scree) in the project, or set SCREE_NOTES")
    if any(folder == p or p in folder.parents for p in PSEUDO_FILESYSTEMS):
        raise FolderError(f"the notes folder would be {folder}, on a kernel pseudo-file system, which holds no "
                          "notes: start in a project folder, or set SCREE_NOTES")
    home = env.get("HOME", "").strip()
    if not named and home and folder == Path(home).resolve():
        raise FolderError(f"the notes folder would be your home folder {folder}, which is no single project: "
                          "start Claude Code (or scree) in a project, or name the folder with --notes / SCREE_NOTES")
    return folder


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
    managed: bool = False  # True for the default place under the data dir, a folder only scree writes in

    @property
    def sync_log(self) -> Path:
        """Where a background sync started by `scree search` writes its stderr (beside the index)."""
        return self.dir / "sync.log" if self.managed else self.dir / f"{self.db.name}.sync.log"


def xdg_base(env: Mapping[str, str], name: str, default: Path) -> Path:
    """An XDG base directory (`XDG_DATA_HOME`, `XDG_CACHE_HOME`...) from `env`, else `default`.

    The XDG spec says a relative path in these variables is invalid and is to be ignored: used as-is it
    would put an index under `./relative/path/` of whatever directory scree happened to run in.
    """
    raw = env.get(name, "").strip()
    return Path(raw) if raw and os.path.isabs(raw) else default


def data_dir(cfg: Config, env: Mapping[str, str] | None = None) -> Path:
    """SCREE_DATA_DIR, else $XDG_DATA_HOME/scree (an absolute path), else ~/.local/share/scree."""
    env = os.environ if env is None else env
    if cfg.data_dir is not None:
        return cfg.data_dir
    return xdg_base(env, "XDG_DATA_HOME", Path.home() / ".local" / "share") / "scree"


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
    return IndexLocation(dir=d, db=d / "index.db", lock=d / "writer.lock", root_file=d / "root", managed=True)


def prepare_index_dir(loc: IndexLocation, folder: Path) -> None:
    """Create the index directory and record its folder in `root` (0600).

    Modes are set only on folders scree owns: the ones it creates here (0700), and for the default
    location its own `indexes/<name>-<sha>/` and `indexes/` (0700: others may not even list which
    repositories have an index). A --db in an existing folder never changes that folder's mode.
    The `root` file lets a person (and `scree doctor`) tell which folder an index serves.
    """
    make_private_dirs(loc.dir)
    if loc.managed:
        for d in (loc.dir, loc.dir.parent):
            try:
                if d.stat().st_mode & 0o077:
                    os.chmod(d, 0o700)
            except OSError:
                pass
    text = f"{folder}\n"
    try:
        if loc.root_file.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    fd = os.open(loc.root_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def make_private_dirs(path: Path) -> None:
    """`mkdir -p` where every folder made here is 0700 (whatever the umask); existing ones are left alone."""
    missing = []
    for d in (path, *path.parents):
        if d.exists():
            break
        missing.append(d)
    for d in reversed(missing):
        try:
            d.mkdir(mode=0o700)
        except FileExistsError:
            continue  # made by another process at the same moment: not ours to change
        os.chmod(d, 0o700)
