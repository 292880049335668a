"""walk_notes: sorted notes, pruning of ignored folders, and the skips worth reporting."""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from scree.errors import FolderError
from scree.notes.policy import NotesPolicy
from scree.records import Skipped
from scree.notes.walk import WalkStats, walk_notes


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def notes_and_skips(policy: NotesPolicy, **kwargs: object) -> tuple[list[str], dict[str, str]]:
    items = list(walk_notes(policy, **kwargs))  # type: ignore[arg-type]
    notes = [i for i in items if isinstance(i, str)]
    skips = {i.rel_path: i.reason for i in items if isinstance(i, Skipped)}
    return notes, skips


def test_notes_come_sorted_by_path_across_folders(tmp_path: Path) -> None:
    write(tmp_path, {"a/x.md": "", "a-b.md": "", "a.md": "", "b/c/d.md": "", "B.md": "", "a/y/z.md": ""})
    items = list(walk_notes(NotesPolicy.load(tmp_path)))

    assert items == sorted(items)  # type: ignore[type-var]
    assert items == ["B.md", "a-b.md", "a.md", "a/x.md", "a/y/z.md", "b/c/d.md"]


def test_ignored_node_modules_is_never_listed(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "node_modules/\n", "README.md": "r", "docs/guide.md": "g"})
    for i in range(60):
        write(tmp_path, {f"node_modules/pkg{i % 6}/doc{i}.md": "x"})
    listed: list[str] = []

    def counting_scandir(path: str) -> AbstractContextManager[Iterator[os.DirEntry[str]]]:
        listed.append(path)
        return os.scandir(path)

    stats = WalkStats()
    notes, skips = notes_and_skips(NotesPolicy.load(tmp_path), stats=stats, scandir=counting_scandir)

    assert notes == ["README.md", "docs/guide.md"]
    assert skips == {}
    assert sorted(os.path.relpath(p, tmp_path) for p in listed) == [".", "docs"]
    assert stats.visited_dirs == 2 and stats.notes == 2


def test_hidden_ignored_and_non_markdown_files_pass_silently(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            ".gitignore": "*.log.md\n",
            ".screeignore": "wip/\n",
            ".hidden.md": "",
            ".obsidian/w.md": "",
            "run.log.md": "",
            "wip/w.md": "",
            "code.py": "",
            "note.md": "",
        },
    )
    subprocess.run(["git", "init", "-q", str(tmp_path / "vendor")], check=True)
    write(tmp_path, {"vendor/v.md": ""})

    notes, skips = notes_and_skips(NotesPolicy.load(tmp_path))

    assert notes == ["note.md"]
    assert skips == {}


def test_refused_links_fifos_and_loops_are_reported(tmp_path: Path) -> None:
    write(tmp_path, {"good.md": "g", "secret.py": "k", "real/inner.md": "i", "LICENSE": "l"})
    (tmp_path / "alias.md").symlink_to("good.md")
    (tmp_path / "notes.md").symlink_to("secret.py")
    (tmp_path / "passwd.md").symlink_to("/etc/passwd")
    (tmp_path / "loop.md").symlink_to("loop.md")
    (tmp_path / "spin").symlink_to("spin")
    (tmp_path / "linked").symlink_to("real")
    (tmp_path / "license-link").symlink_to("LICENSE")  # a link to a non-note file is just noise
    os.mkfifo(tmp_path / "pipe.md")

    notes, skips = notes_and_skips(NotesPolicy.load(tmp_path))

    assert notes == ["good.md", "real/inner.md"]  # alias.md is good.md under a second name, walked once
    assert set(skips) == {"notes.md", "passwd.md", "loop.md", "spin", "linked", "pipe.md"}
    assert "a file scree does not read" in skips["notes.md"]
    assert "outside the notes folder" in skips["passwd.md"]
    assert "loop" in skips["loop.md"] and "loop" in skips["spin"]
    assert "does not follow folder links" in skips["linked"]
    assert "FIFO" in skips["pipe.md"]


def test_socket_named_like_a_note_is_reported(tmp_path: Path) -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(tmp_path / "s.md"))
        notes, skips = notes_and_skips(NotesPolicy.load(tmp_path))
    finally:
        server.close()

    assert notes == []
    assert "socket" in skips["s.md"]


def test_folder_link_back_up_the_tree_does_not_loop(tmp_path: Path) -> None:
    write(tmp_path, {"a/b/n.md": "n"})
    (tmp_path / "a/b/up").symlink_to("../..")
    stats = WalkStats()

    notes, skips = notes_and_skips(NotesPolicy.load(tmp_path), stats=stats)

    assert notes == ["a/b/n.md"]
    assert list(skips) == ["a/b/up"]
    assert stats.visited_dirs == 3


def test_unlistable_folder_is_reported_and_the_walk_goes_on(tmp_path: Path) -> None:
    write(tmp_path, {"locked/secret.md": "s", "open/a.md": "a", "z.md": "z"})
    locked = str(tmp_path / "locked")

    # As root, chmod cannot make a folder unreadable, so the refusal the OS gives is injected here.
    def scandir(path: str) -> AbstractContextManager[Iterator[os.DirEntry[str]]]:
        if path == locked:
            raise PermissionError(13, "Permission denied", path)
        return os.scandir(path)

    notes, skips = notes_and_skips(NotesPolicy.load(tmp_path), scandir=scandir)

    assert notes == ["open/a.md", "z.md"]
    assert skips == {"locked": "folder locked/ cannot be listed (Permission denied)"}


def test_missing_notes_folder_raises_instead_of_looking_empty(tmp_path: Path) -> None:
    policy = NotesPolicy.load(tmp_path / "gone")

    with pytest.raises(FolderError, match="cannot be reached"):
        list(walk_notes(policy))


def test_name_that_is_not_utf8_is_reported(tmp_path: Path) -> None:
    bad = os.fsdecode(b"caf\xe9.md")
    (tmp_path / bad).write_text("x")
    write(tmp_path, {"ok.md": "o"})

    notes, skips = notes_and_skips(NotesPolicy.load(tmp_path))

    assert notes == ["ok.md"]
    assert list(skips) == ["caf\ufffd.md"]
    assert "UTF-8" in skips["caf\ufffd.md"]


def test_every_walked_note_is_admitted_and_every_missed_markdown_has_a_reason(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            ".gitignore": "out/\n*.bak.md\n",
            "docs/.screeignore": "old/\n",
            "docs/a.md": "",
            "docs/old/b.md": "",
            "out/c.md": "",
            "d.bak.md": "",
            "e.markdown": "",
        },
    )
    policy = NotesPolicy.load(tmp_path)
    notes = [i for i in walk_notes(policy) if isinstance(i, str)]
    every_markdown = sorted(
        os.path.relpath(os.path.join(d, f), tmp_path)
        for d, _, files in os.walk(tmp_path)
        for f in files
        if f.endswith((".md", ".markdown"))
    )

    assert notes == ["docs/a.md", "e.markdown"]
    assert all(policy.file_skip_reason(n) is None for n in notes)
    assert all(policy.file_skip_reason(p) for p in every_markdown if p not in notes)
