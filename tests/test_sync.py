"""Sync against real files and a real SQLite index, with the fake embedder (the real model only where loading it is the point)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from conftest import eventually, write
from fake_embedder import HANG_AFTER_ENV
from scree.config import load_config
from scree.db import invariants, queries
from scree.embed import Passage
from scree.errors import IndexMismatchError
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.index.store import open_index
from scree.index.sync import sync


def _open(folder: Path):
    return open_index(index_location(folder, load_config()), folder)


def assert_consistent(index) -> None:
    """No chunk without all its vectors, no vector without its chunk, FTS in step with chunks."""
    conn = index.conn
    windows = conn.execute("select coalesce(sum(windows), 0) from chunks").fetchone()[0]
    vectors = conn.execute("select count(*) from chunks_vec").fetchone()[0]
    assert windows == vectors
    fts = conn.execute("select count(*) from chunks_fts").fetchone()[0]
    assert fts == conn.execute("select count(*) from chunks").fetchone()[0]
    orphans = conn.execute("select count(*) from chunks c left join files f on f.id = c.file_id "
                           "where f.id is null").fetchone()[0]
    assert orphans == 0


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    write(root, "a.md", "# Alpha\n\nThe retention period is fifteen days.\n")
    write(root, "docs/b.md", "# Beta\n\n## Tokens\n\nRotate API tokens every ninety days.\n")
    write(root, "src/code.py", "print('not a note')\n")
    return root


def test_first_sync_indexes_every_note_and_the_second_changes_nothing(notes, embedder):
    index = _open(notes)
    first = sync(index, NotesPolicy.load(notes), embedder)
    assert sorted(first.added) == ["a.md", "docs/b.md"]
    assert first.chunks == 2
    second = sync(index, NotesPolicy.load(notes), embedder)
    assert (second.added, second.updated, second.removed, second.unchanged, second.chunks) == ([], [], [], 2, 0)
    assert_consistent(index)


def test_edit_replaces_rows_and_delete_or_ignore_removes_them(notes, embedder):
    index = _open(notes)
    sync(index, NotesPolicy.load(notes), embedder)
    write(notes, "a.md", "# Alpha\n\nRetention is now thirty days.\n\n# Second\n\nMore text here.\n")
    (notes / "docs" / "b.md").unlink()
    write(notes, "c.md", "# Gamma\n\nA new note.\n")
    write(notes, ".gitignore", "c.md\n")
    report = sync(index, NotesPolicy.load(notes), embedder)
    assert report.updated == ["a.md"] and report.removed == ["docs/b.md"] and report.added == []
    texts = [r.text for r in queries.chunks_of_file(index.conn, "a.md")]
    assert any("thirty" in t for t in texts) and not any("fifteen" in t for t in texts)
    assert set(queries.stored_files(index.conn)) == {"a.md"}
    (notes / ".gitignore").unlink()
    assert sync(index, NotesPolicy.load(notes), embedder).added == ["c.md"]
    assert_consistent(index)


def test_a_link_to_a_note_is_indexed_once_under_the_notes_own_name(notes, embedder):
    # Sphinx projects link `docs/CHANGELOG.md -> ../CHANGELOG.md` for the toctree: one document, not two.
    write(notes, "CHANGELOG.md", "# Changelog\n\n## 1.0\n\nFirst release.\n")
    write(notes, "docs/CHANGELOG.md", "# Changelog\n\nA stale copy kept before the link.\n")
    index = _open(notes)
    assert "docs/CHANGELOG.md" in sync(index, NotesPolicy.load(notes), embedder).added
    (notes / "docs" / "CHANGELOG.md").unlink()
    (notes / "docs" / "CHANGELOG.md").symlink_to("../CHANGELOG.md")

    report = sync(index, NotesPolicy.load(notes), embedder)
    assert report.removed == ["docs/CHANGELOG.md"] and not report.skipped
    assert "docs/CHANGELOG.md" not in queries.stored_files(index.conn)
    # A watcher event on the link (its own path) does not bring it back.
    again = sync(index, NotesPolicy.load(notes), embedder, only=["docs/CHANGELOG.md", "CHANGELOG.md"])
    assert again.added == [] and "docs/CHANGELOG.md" not in queries.stored_files(index.conn)
    assert "CHANGELOG.md" in queries.stored_files(index.conn)
    assert_consistent(index)


def test_note_that_becomes_binary_is_removed_and_reported(notes, embedder):
    index = _open(notes)
    sync(index, NotesPolicy.load(notes), embedder)
    (notes / "a.md").write_bytes(b"# Alpha\x00\x01binary now")
    report = sync(index, NotesPolicy.load(notes), embedder)
    assert "a.md" in report.removed
    assert any(s.rel_path == "a.md" and "binary" in s.reason.lower() for s in report.skipped)
    assert_consistent(index)


def test_invalid_utf8_is_indexed_with_a_warning(notes, embedder):
    (notes / "bad.md").write_bytes(b"# Bad\n\ncaf\xe9 au lait\n")
    index = _open(notes)
    report = sync(index, NotesPolicy.load(notes), embedder)
    assert "bad.md" in report.added
    assert any(w.startswith("bad.md") for w in report.warnings)


def test_index_recorded_for_another_folder_is_refused(notes, tmp_path, embedder):
    index = _open(notes)
    sync(index, NotesPolicy.load(notes), embedder)
    index.close()
    other = tmp_path / "other"
    other.mkdir()
    loc = index_location(notes, load_config())
    with pytest.raises(IndexMismatchError, match="belongs to"):
        open_index(loc, other)


class _OtherModel:
    """The same vectors under another identity, as a second embedder would be."""

    def __init__(self, inner):
        self.inner, self.id, self.dimensions, self.max_windows = inner, "test:other-model", inner.dimensions, inner.max_windows

    def embed_passages(self, passages: list[Passage]) -> list[np.ndarray]:
        return self.inner.embed_passages(passages)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def close(self) -> None:
        pass


def test_index_built_by_another_embedder_is_reembedded_not_mixed(notes, embedder):
    index = _open(notes)
    sync(index, NotesPolicy.load(notes), embedder)
    report = sync(index, NotesPolicy.load(notes), _OtherModel(embedder))
    assert report.reset and "re-embedding" in report.reset
    assert sorted(report.added + report.updated) == ["a.md", "docs/b.md"]
    assert index.meta()["embedder"].startswith("test:other-model")
    assert_consistent(index)


@pytest.mark.real_model
def test_noop_sync_in_a_fresh_process_never_loads_the_model(notes, real_embedder):
    index = _open(notes)
    sync(index, NotesPolicy.load(notes), real_embedder)
    index.close()
    code = (
        "import sys; from pathlib import Path\n"
        "from scree.workspace import Workspace; from scree.config import load_config; from scree.index.sync import sync\n"
        f"ws = Workspace.from_config(load_config().with_overrides(notes=Path({str(notes)!r})))\n"
        "r = sync(ws.open_index(), ws.policy(), ws.embedder())\n"
        "assert r.unchanged == 2 and not r.added and not r.updated, r\n"
        "assert 'onnxruntime' not in sys.modules and 'tokenizers' not in sys.modules\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy())
    assert out.returncode == 0, out.stderr


def _kill_when(proc: subprocess.Popen, loc, root, seen: Callable[[Any], bool]) -> None:
    """SIGKILL `proc` as soon as `seen(conn)` holds on a read-only look at its index."""
    def ready() -> bool:
        if proc.poll() is not None:
            return True
        if not loc.db.exists():
            return False
        try:
            index = open_index(loc, root)
            try:
                return seen(index.conn)
            finally:
                index.close()
        except Exception:  # the child may hold the schema write while we look
            return False

    try:
        assert eventually(ready, timeout=60, step=0.01)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def _hashed(conn: Any) -> int:
    return int(conn.execute("select count(*) from files where sha256 is not null").fetchone()[0])


def test_sync_killed_in_stage_one_is_repaired_next_run(tmp_path, embedder):
    root = tmp_path / "many"
    total = 1500  # enough files that chunking them takes a while: the kill lands among them
    for i in range(total):
        write(root, f"d{i % 20:02}/n{i:04}.md", f"# Note {i}\n\n## Part\n\nParagraph of note {i} about topic {i * 7}.\n")
    env = {**os.environ, "SCREE_NOTES": str(root), HANG_AFTER_ENV: "0"}  # stage two never gets anywhere
    proc = subprocess.Popen([sys.executable, "-m", "scree.cli", "index"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    loc = index_location(root, load_config())
    _kill_when(proc, loc, root, lambda conn: _hashed(conn) >= 3)
    index = open_index(loc, root)
    committed = _hashed(index.conn)
    assert 3 <= committed < total, f"{committed} files were committed before the kill"
    assert invariants.problems(index.conn, embedder.max_windows) == []  # the crash-safety invariant
    # What stage one committed is searchable by keyword before any vector exists.
    assert queries.vector_progress(index.conn).embedded == 0
    assert queries.keyword_search(index.conn, "paragraph", 3)
    report = sync(index, NotesPolicy.load(root), embedder)
    assert len(report.added) + len(report.updated) >= total - committed - 1
    assert report.unchanged >= committed - 1
    assert_consistent(index)
    assert invariants.problems(index.conn, embedder.max_windows) == []
    stored = queries.stored_files(index.conn)
    assert len(stored) == total and all(f.sha256 for f in stored.values())
    assert queries.vector_progress(index.conn).complete


def test_sync_killed_in_stage_two_is_repaired_next_run(tmp_path, embedder):
    root = tmp_path / "many"
    for i in range(60):
        body = "\n\n".join(f"## Part {j}\n\nParagraph {j} of note {i} about topic {i * 7 + j}." for j in range(6))
        write(root, f"n{i:03}.md", f"# Note {i}\n\n{body}\n")
    # The fake embedder answers its first batch and then hangs, so the kill lands in stage two with
    # some vectors stored and the rest missing, on any machine.
    env = {**os.environ, "SCREE_NOTES": str(root), HANG_AFTER_ENV: "1"}
    proc = subprocess.Popen([sys.executable, "-m", "scree.cli", "index"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    loc = index_location(root, load_config())
    _kill_when(proc, loc, root, lambda conn: queries.vector_progress(conn).embedded > 0)
    index = open_index(loc, root)
    assert_consistent(index)
    assert invariants.problems(index.conn, embedder.max_windows) == []  # the crash-safety invariant
    progress = queries.vector_progress(index.conn)
    assert 0 < progress.embedded < progress.total
    assert _hashed(index.conn) == 60  # stage one was complete: every note answers by keyword
    report = sync(index, NotesPolicy.load(root), embedder)
    assert report.added == report.updated == [] and report.unchanged == 60  # nothing re-chunked
    assert report.chunks == progress.total - progress.embedded  # only the missing vectors were made
    assert_consistent(index)
    assert invariants.problems(index.conn, embedder.max_windows) == []
    assert queries.vector_progress(index.conn).complete


def test_an_edit_reembeds_only_the_chunks_whose_text_changed(tmp_path, embedder):
    root = tmp_path / "edit"
    sections = [f"## Part {i}\n\nParagraph {i} talks about subject number {i}.\n" for i in range(3)]
    write(root, "n.md", "# N\n\n" + "\n".join(sections))
    index = _open(root)
    assert sync(index, NotesPolicy.load(root), embedder).chunks == 3
    before = queries.stored_chunk_vectors(index.conn, "n.md", embedder.max_windows)
    sections[1] = "## Part 1\n\nThis paragraph was rewritten entirely.\n"
    write(root, "n.md", "# N\n\n" + "\n".join(sections))
    report = sync(index, NotesPolicy.load(root), embedder)
    assert report.updated == ["n.md"] and report.chunks == 1
    after = queries.stored_chunk_vectors(index.conn, "n.md", embedder.max_windows)
    kept = set(before) & set(after)
    assert len(kept) == 2 and all(np.array_equal(before[k], after[k]) for k in kept)
    assert_consistent(index)
