"""read_note / hash_note: safe opening, size cap, binary and encoding handling, skips never crash."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path

import pytest

from scree.errors import FileSkipped
from scree.notes.policy import NotesPolicy
from scree.notes.reader import hash_note, read_admitted, read_note

MB = 1024 * 1024


def test_reads_text_with_hash_mtime_and_size_of_the_raw_bytes(tmp_path: Path) -> None:
    raw = "# Title\n\nCafé notes\n".encode()
    (tmp_path / "a.md").write_bytes(raw)
    st = os.stat(tmp_path / "a.md")

    note = read_note(NotesPolicy.load(tmp_path), "a.md")

    assert note.rel_path == "a.md"
    assert note.text == "# Title\n\nCafé notes\n"
    assert note.sha256 == hashlib.sha256(raw).hexdigest()
    assert (note.mtime_ns, note.size) == (st.st_mtime_ns, len(raw))
    assert note.warnings == ()


def test_hash_note_agrees_with_read_note(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"\xef\xbb\xbfhello\n")
    policy = NotesPolicy.load(tmp_path)
    note = read_note(policy, "a.md")

    assert hash_note(policy, "a.md") == (note.sha256, note.mtime_ns, note.size)


def test_bom_is_stripped_but_hashed(tmp_path: Path) -> None:
    raw = b"\xef\xbb\xbf# Heading\n"
    (tmp_path / "bom.md").write_bytes(raw)

    note = read_note(NotesPolicy.load(tmp_path), "bom.md")

    assert note.text == "# Heading\n"
    assert note.sha256 == hashlib.sha256(raw).hexdigest()


def test_invalid_utf8_is_replaced_and_reported(tmp_path: Path) -> None:
    (tmp_path / "latin1.md").write_bytes(b"caf\xe9 au lait\n")

    note = read_note(NotesPolicy.load(tmp_path), "latin1.md")

    assert note.text == "caf\ufffd au lait\n"
    assert len(note.warnings) == 1 and "invalid UTF-8" in note.warnings[0] and "offset 3" in note.warnings[0]


def test_file_with_nul_bytes_is_skipped_as_binary(tmp_path: Path) -> None:
    (tmp_path / "blob.md").write_bytes(b"PK\x03\x04\x00\x00data")
    (tmp_path / "wide.md").write_bytes("# hi\n".encode("utf-16"))
    policy = NotesPolicy.load(tmp_path)

    for read in (read_note, hash_note):
        with pytest.raises(FileSkipped, match="binary"):
            read(policy, "blob.md")
    with pytest.raises(FileSkipped, match="UTF-16"):
        read_note(policy, "wide.md")


def test_files_over_the_cap_are_skipped_before_reading(tmp_path: Path) -> None:
    with open(tmp_path / "big.md", "wb") as f:
        f.truncate(10 * MB + 1)  # sparse: the size is real, the disk cost is not
    (tmp_path / "edge.md").write_bytes(b"x" * (10 * MB))
    policy = NotesPolicy.load(tmp_path)

    with pytest.raises(FileSkipped, match="over the 10.0 MB limit"):
        read_note(policy, "big.md")
    with pytest.raises(FileSkipped, match="over the 10.0 MB limit"):
        hash_note(policy, "big.md")
    assert read_note(policy, "edge.md").size == 10 * MB
    with pytest.raises(FileSkipped, match="over the 100 bytes limit"):
        read_note(policy, "edge.md", max_bytes=100)


def test_read_stops_at_the_cap_when_the_file_holds_more_than_fstat_said(tmp_path: Path) -> None:
    # /proc files report size 0 and then deliver bytes: the same shape as a file growing mid-read.
    proc = "/proc/self/status"
    if not os.path.exists(proc):
        pytest.skip("needs /proc")
    verdict = NotesPolicy.load(tmp_path).inspect("x.md")
    verdict = dataclasses.replace(verdict, code=None, reason=None, path=proc, stat=os.stat(proc))

    with pytest.raises(FileSkipped, match="grew past the 16 bytes limit"):
        read_admitted(verdict, max_bytes=16)


@pytest.mark.timeout(5)
def test_fifo_is_skipped_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    policy = NotesPolicy.load(tmp_path)

    with pytest.raises(FileSkipped, match="FIFO"):
        read_note(policy, "pipe.md")
    with pytest.raises(FileSkipped, match="FIFO"):
        hash_note(policy, "pipe.md")


@pytest.mark.timeout(5)
def test_file_swapped_for_a_fifo_after_the_check_is_refused_without_blocking(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("a")
    policy = NotesPolicy.load(tmp_path)
    verdict = policy.inspect("a.md")
    assert verdict.admitted
    os.unlink(tmp_path / "a.md")
    os.mkfifo(tmp_path / "a.md")  # a FIFO opened for reading without O_NONBLOCK waits for a writer

    with pytest.raises(FileSkipped, match="not a regular file"):
        read_admitted(verdict)


def test_file_replaced_after_the_check_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("checked")
    policy = NotesPolicy.load(tmp_path)
    verdict = policy.inspect("a.md")
    (tmp_path / "other.md").write_text("swapped in")
    os.replace(tmp_path / "other.md", tmp_path / "a.md")

    with pytest.raises(FileSkipped, match="replaced"):
        read_admitted(verdict)


def test_file_swapped_for_a_symlink_after_the_check_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("checked")
    verdict = NotesPolicy.load(tmp_path).inspect("a.md")
    os.unlink(tmp_path / "a.md")
    (tmp_path / "a.md").symlink_to("/etc/passwd")

    with pytest.raises(FileSkipped, match="symbolic link"):
        read_admitted(verdict)


def test_file_vanishing_after_the_check_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("a")
    verdict = NotesPolicy.load(tmp_path).inspect("a.md")
    os.unlink(tmp_path / "a.md")

    with pytest.raises(FileSkipped, match="vanished"):
        read_admitted(verdict)


def test_refused_paths_become_file_skipped(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("private.md\n")
    (tmp_path / "private.md").write_text("p")
    (tmp_path / "secret.py").write_text("k")
    (tmp_path / "notes.md").symlink_to("secret.py")
    (tmp_path / "loop.md").symlink_to("loop.md")
    (tmp_path / "dir.md").mkdir()
    policy = NotesPolicy.load(tmp_path)

    for rel, reason in [
        ("private.md", "gitignored"),
        ("notes.md", "a file scree does not read"),
        ("loop.md", "loop"),
        ("dir.md", "folder"),
        ("gone.md", "does not exist"),
        ("../escape.md", "outside"),
    ]:
        with pytest.raises(FileSkipped, match=reason) as caught:
            read_note(policy, rel)
        assert caught.value.path == rel


def test_symlinked_note_reads_its_target(tmp_path: Path) -> None:
    (tmp_path / "real.md").write_text("target text")
    (tmp_path / "alias.md").symlink_to("real.md")

    note = read_note(NotesPolicy.load(tmp_path), "alias.md")

    assert (note.rel_path, note.text) == ("alias.md", "target text")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "locked.md").write_text("x")
    os.chmod(tmp_path / "locked.md", 0)

    with pytest.raises(FileSkipped, match="permission denied"):
        read_note(NotesPolicy.load(tmp_path), "locked.md")
