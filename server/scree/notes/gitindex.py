"""Which files a git repository tracks, read from its index (`.git/index`): the one rule of git's ignore files that
their patterns cannot tell. A tracked file is never ignored (`gitignore(5)`: the files "already tracked by Git are
not affected"), so a project may keep docs inside a folder its `.gitignore` names, added with `git add -f`: emcee's
tutorial notebooks sit in `docs/tutorials/`, which `docs/.gitignore` ignores for the build's own output.

The index is read, never written, and git is never run: its format (versions 2, 3 and 4, `gitformat-index(5)`) is
a header, then one entry per tracked path. An index that cannot be read (none, a newer version, damaged, locked
mid-write) gives nothing: the patterns alone decide, as before.
"""

from __future__ import annotations

import logging
import os
import struct
from dataclasses import dataclass
from collections.abc import Callable
from pathlib import Path

from .gitrepo import repo_top, worktree_git_dir

log = logging.getLogger(__name__)

_HEADER = b"DIRC"
_ENTRY_FIXED = 62  # ctime, mtime, dev, ino, mode, uid, gid, size (4 bytes each but the times' 8), sha-1, flags
_EXTENDED = 0x4000
MAX_INDEX_BYTES = 256 * 1024 * 1024  # a repository of millions of files; past this the patterns decide


@dataclass(frozen=True)
class Tracked:
    """The tracked files below the notes folder, and every folder holding one, as paths relative to it."""

    files: frozenset[str] = frozenset()
    folders: frozenset[str] = frozenset()


def tracked_below(root: Path, wanted: Callable[[str], bool] = lambda name: True) -> Tracked:
    """What the repository enclosing `root` tracks below it, of the files whose name is `wanted` (the notes: a
    monorepo's index lists a million code files, which no note needs kept); an empty `Tracked` when there is no
    readable index."""
    top = repo_top(root)
    git_dir = worktree_git_dir(top) if top is not None else None
    if top is None or git_dir is None:
        return Tracked()
    index = git_dir / "index"
    try:
        if index.stat().st_size > MAX_INDEX_BYTES:
            return Tracked()
        names = tracked_paths(index.read_bytes())
    except (OSError, ValueError) as exc:
        log.debug("git index %s not read (%s): the ignore patterns alone decide", index, exc)
        return Tracked()
    prefix = "" if top == root else os.path.relpath(root, top).replace(os.sep, "/") + "/"
    files: set[str] = set()
    folders: set[str] = set()
    for name in names:
        if not name.startswith(prefix):
            continue
        rel = name[len(prefix):]
        if rel.endswith("/"):  # a sparse index's folder entry: the folder is tracked, its files are not checked out
            rel = rel.rstrip("/")
            folders.add(rel)
        elif wanted(rel.rpartition("/")[2]):
            files.add(rel)
        else:
            continue
        slash = rel.rfind("/")
        while slash > 0:
            rel = rel[:slash]
            if rel in folders:
                break
            folders.add(rel)
            slash = rel.rfind("/")
    return Tracked(frozenset(files), frozenset(folders))


def tracked_paths(data: bytes) -> list[str]:
    """The paths of an index file's entries, in its order (a conflicted path once per stage). Raises ValueError when
    the bytes are not an index of version 2, 3 or 4."""
    if len(data) < 12 or data[:4] != _HEADER:
        raise ValueError("not a git index")
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        raise ValueError(f"git index version {version}")
    pos = 12
    previous = b""
    out: list[str] = []
    for _ in range(count):
        if pos + _ENTRY_FIXED > len(data):
            raise ValueError("git index ends inside an entry")
        (flags,) = struct.unpack(">H", data[pos + 60:pos + 62])
        name_at = pos + _ENTRY_FIXED + (2 if flags & _EXTENDED and version >= 3 else 0)
        if version == 4:  # the name is the previous one less `strip` bytes, then this suffix
            strip, name_at = _offset(data, name_at)
            end = data.find(b"\0", name_at)
            if end < 0 or strip > len(previous):
                raise ValueError("git index entry name is damaged")
            name = previous[:len(previous) - strip] + data[name_at:end]
            pos = end + 1
        else:
            end = data.find(b"\0", name_at)
            if end < 0:
                raise ValueError("git index entry name is damaged")
            name = data[name_at:end]
            pos += (name_at - pos + len(name) + 8) & ~7  # padded with 1-8 NULs to a multiple of eight
        previous = name
        out.append(name.decode("utf-8", "surrogateescape"))
    return out


def _offset(data: bytes, at: int) -> tuple[int, int]:
    """Git's variable-length offset (`varint.c`, not LEB128): the value and the position after it."""
    if at >= len(data):
        raise ValueError("git index ends inside an entry")
    byte = data[at]
    value = byte & 0x7F
    at += 1
    while byte & 0x80:
        if at >= len(data):
            raise ValueError("git index ends inside an entry")
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
        at += 1
    return value, at
