"""Upgrading the chunker: an index cut by another chunker version is re-chunked on the next sync,
keeps the vectors of chunk texts that did not change, and says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write
from scree.index import sync as sync_module
from scree.notes.chunker import CHUNKER_VERSION, chunk_markdown
from scree.config import load_config
from scree.db import queries
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.records import Chunk, ChunkedNote
from scree.index.store import open_index
from scree.index.sync import sync
from scree.cli._common import print_notices

CHANGELOG = "14.1.1 (2024-09-08)\n===================\nFixes `--files`.\n\n14.1.0\n======\nAdds `--hyperlink-format`.\n"
GUIDE = "# Guide\n\nRotate API tokens every ninety days.\n"


def _old_chunker(text: str, kind: str = "markdown", changelog_sections: object = ()) -> ChunkedNote:
    """Stands for version 1: blind to setext headings (one headless chunk), right about ATX ones."""
    if "===" not in text:
        return chunk_markdown(text)
    lines = text.rstrip("\n").split("\n")  # (any format: `kind` is ignored)
    return ChunkedNote(None, [Chunk("", "\n".join(lines), 1, len(lines))])


@pytest.fixture
def old_index(tmp_path: Path, embedder, monkeypatch: pytest.MonkeyPatch):
    """An index of two notes made by the old chunker, recorded as version 1."""
    root = tmp_path / "notes"
    write(root, "CHANGELOG.md", CHANGELOG)
    write(root, "guide.md", GUIDE)
    index = open_index(index_location(root, load_config()), root)
    with monkeypatch.context() as m:
        m.setattr(sync_module, "chunk_note", _old_chunker)
        m.setattr(sync_module, "CHUNKER_VERSION", "1")
        sync(index, NotesPolicy.load(root), embedder)
    assert index.meta()["chunker"] == "1"
    assert [h for h, _ in queries.stored_chunk_vectors(index.conn, "CHANGELOG.md", embedder.max_windows)] == [""]
    yield root, index
    index.close()


def _vectors(index, path: str, embedder) -> dict:
    return queries.stored_chunk_vectors(index.conn, path, embedder.max_windows)


def test_new_chunker_version_rechunks_unchanged_files_and_keeps_unchanged_vectors(old_index, embedder, capsys):
    root, index = old_index
    guide_before = _vectors(index, "guide.md", embedder)
    report = sync(index, NotesPolicy.load(root), embedder)
    assert report.rechunked and "version 1" in report.rechunked and f"version {CHUNKER_VERSION}" in report.rechunked
    assert sorted(report.updated) == ["CHANGELOG.md", "guide.md"] and report.unchanged == 0
    assert report.chunks == 2, "only the changelog's two new sections are embedded; the guide's chunk is kept"
    changelog = _vectors(index, "CHANGELOG.md", embedder)
    assert sorted(h for h, _ in changelog) == ["14.1.0", "14.1.1 (2024-09-08)"]
    guide_after = _vectors(index, "guide.md", embedder)
    assert guide_after.keys() == guide_before.keys()
    assert all((guide_after[k] == guide_before[k]).all() for k in guide_before)
    assert index.meta()["chunker"] == CHUNKER_VERSION

    print_notices(report)
    assert "re-chunking every file" in capsys.readouterr().err

    again = sync(index, NotesPolicy.load(root), embedder)
    assert again.rechunked is None and again.unchanged == 2 and again.chunks == 0


def test_a_partial_sync_is_widened_to_every_file_when_the_chunker_changed(old_index, embedder):
    root, index = old_index
    report = sync(index, NotesPolicy.load(root), embedder, only=["guide.md"])
    assert sorted(report.updated) == ["CHANGELOG.md", "guide.md"]
    assert index.meta()["chunker"] == CHUNKER_VERSION


def test_a_stopped_sync_does_not_record_the_new_version(old_index, embedder):
    root, index = old_index
    report = sync(index, NotesPolicy.load(root), embedder, should_stop=lambda: True)
    assert report.rechunked and report.updated == []
    assert index.meta()["chunker"] == "1"
    assert sync(index, NotesPolicy.load(root), embedder).rechunked, "the next sync tries again"


def test_index_from_before_versions_were_recorded_counts_as_version_1(old_index, embedder):
    root, index = old_index
    index.conn.execute("delete from meta where key = 'chunker'")
    report = sync(index, NotesPolicy.load(root), embedder)
    assert report.rechunked and "version 1;" in report.rechunked


def test_a_new_index_records_the_version_without_a_notice(tmp_path: Path, embedder):
    root = tmp_path / "notes"
    write(root, "guide.md", GUIDE)
    index = open_index(index_location(root, load_config()), root)
    report = sync(index, NotesPolicy.load(root), embedder)
    assert report.rechunked is None and report.added == ["guide.md"]
    assert index.meta()["chunker"] == CHUNKER_VERSION
    index.close()


def test_a_new_view_and_a_new_chunker_together_say_everything_is_re_embedded(old_index, embedder, monkeypatch):
    """The upgrade every existing index met with paragraph pieces: embedded view and chunker both new."""
    from scree.notes import embedview

    root, index = old_index
    monkeypatch.setattr(embedview, "VIEW", embedview.VIEW + "-next")
    report = sync(index, NotesPolicy.load(root), embedder)
    assert report.reset and "re-embedding every file" in report.reset
    assert report.rechunked and "re-chunking every file" in report.rechunked
    assert "only chunks whose text changed" not in report.rechunked, "no promise the reset breaks"
    assert report.chunks == 3  # every chunk of both notes, embedded again
