"""The content-addressed embedding cache: a text embedded before is never embedded again, per model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import write
from fake_embedder import FakeEmbedder
from scree.config import load_config
from scree.db import embedcache
from scree.embed import Passage
from scree.embed import cache as embed_cache
from scree.embed import pieces
from scree.embed.cache import CachingEmbedder
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.index.store import open_index
from scree.index.sync import sync


def _open(folder: Path):
    return open_index(index_location(folder, load_config()), folder)


def _sync(index, folder: Path, embedder):
    return sync(index, NotesPolicy.load(folder), embedder)


def paragraph(word: str) -> str:
    return " ".join(f"{word}{i}" for i in range(70))  # ~500 characters: one paragraph piece of its own


class OtherModel(FakeEmbedder):
    id = "fake:hashed-words:v2"  # same vectors, another id: must not read v1's entries


def test_a_note_deleted_and_restored_is_not_embedded_again(tmp_path, embedder):
    notes = tmp_path / "notes"
    text = f"# Setup\n\n{paragraph('install')}\n\n{paragraph('configure')}\n\n## Usage\n\nRun it daily.\n"
    write(notes, "guide.md", text)
    write(notes, "other.md", "# Other\n\nUnrelated words.\n")
    index = _open(notes)
    _sync(index, notes, embedder)
    before = embedder.passages
    (notes / "guide.md").unlink()
    assert _sync(index, notes, embedder).removed == ["guide.md"]
    write(notes, "guide.md", text)  # a branch switch, an undo
    report = _sync(index, notes, embedder)
    assert report.added == ["guide.md"]
    assert embedder.passages == before  # every window came from the cache


def test_a_renamed_note_is_embedded_again_because_its_path_is_in_every_window(tmp_path, embedder):
    notes = tmp_path / "notes"
    write(notes, "old.md", "# Title\n\nSome words about retention.\n")
    index = _open(notes)
    _sync(index, notes, embedder)
    before = embedder.passages
    (notes / "old.md").rename(notes / "new.md")
    _sync(index, notes, embedder)
    assert embedder.passages == before + 1  # the header names new.md: another text, another vector


def test_an_edited_chunk_re_embeds_only_its_changed_piece(tmp_path, embedder, monkeypatch):
    monkeypatch.setattr(pieces, "PIECES_ONLY_CHARS", 0)  # the chunk whole and in pieces
    notes = tmp_path / "notes"
    parts = [paragraph(w) for w in ("alpha", "beta", "gamma", "delta")]
    write(notes, "a.md", "# Big\n\n" + "\n\n".join(parts) + "\n")
    index = _open(notes)
    first = _sync(index, notes, embedder)
    assert first.chunks == 1
    assert embedder.passages == 5  # the chunk whole and its four pieces
    parts[2] = paragraph("changed")
    write(notes, "a.md", "# Big\n\n" + "\n\n".join(parts) + "\n")
    _sync(index, notes, embedder)
    assert embedder.passages == 5 + 2  # the new whole chunk and the one new piece; three pieces from the cache


def test_another_model_never_reads_the_cache_and_switching_back_embeds_nothing(tmp_path, embedder):
    notes = tmp_path / "notes"
    write(notes, "a.md", "# Alpha\n\nThe retention period is fifteen days.\n")
    write(notes, "b.md", "# Beta\n\nRotate API tokens every ninety days.\n")
    index = _open(notes)
    _sync(index, notes, embedder)
    other = OtherModel()
    report = _sync(index, notes, other)
    assert report.reset is not None
    assert other.passages == 2  # nothing of the first model's was reused
    before = embedder.passages
    _sync(index, notes, embedder)  # and back: the first model's entries are still there
    assert embedder.passages == before
    rows = index.conn.execute("select model, count(*) from embed_cache group by model order by model").fetchall()
    assert [tuple(r) for r in rows] == [(FakeEmbedder.id, 2), (OtherModel.id, 2)]


def test_entries_no_chunk_uses_are_pruned(tmp_path, embedder, monkeypatch):
    monkeypatch.setattr(embed_cache, "MIN_KEEP", 0)
    monkeypatch.setattr(embed_cache, "SPARE_FRACTION", 0.0)
    notes = tmp_path / "notes"
    for i in range(20):
        write(notes, f"n{i}.md", f"# Note {i}\n\nBody of note number {i}.\n")
    index = _open(notes)
    _sync(index, notes, embedder)
    assert embedcache.cache_entries(index.conn) == 20
    for i in range(1, 20):
        (notes / f"n{i}.md").unlink()
    _sync(index, notes, embedder)
    assert embedcache.cache_entries(index.conn) == 1  # one window left in the index, one entry kept
    # the one kept is the live note's: restoring another note re-embeds it, the live one costs nothing
    before = embedder.passages
    write(notes, "n0.md", "# Note 0\n\nBody of note number 0.\n")
    write(notes, "n1.md", "# Note 1\n\nBody of note number 1.\n")
    _sync(index, notes, embedder)
    assert embedder.passages == before + 1


def test_the_same_text_twice_in_one_call_is_embedded_once(tmp_path, embedder):
    notes = tmp_path / "notes"
    notes.mkdir()
    index = _open(notes)
    cached = CachingEmbedder(embedder, index.conn)
    p, q = Passage("a.md\nA", "same words"), Passage("b.md\nB", "other words")
    out = cached.embed_passages([p, q, p])
    assert embedder.passages == 2
    assert np.array_equal(out[0], out[2])
    assert (cached.hits, cached.misses) == (1, 2)


@pytest.mark.real_model
def test_cached_vectors_are_the_local_models_own(tmp_path, real_embedder):
    notes = tmp_path / "notes"
    notes.mkdir()
    index = _open(notes)
    passages = [Passage("guide.md\nInstall", "Run pip install scree, then scree index. " * 30),
                Passage("guide.md\nUsage", "Ask a question in plain words."),
                Passage("faq.md\nWhy", "Because grep reads whole files. " * 5)]
    fresh = real_embedder.embed_passages(passages)
    cached = CachingEmbedder(real_embedder, index.conn)
    first = cached.embed_passages(passages)
    again = CachingEmbedder(real_embedder, index.conn).embed_passages(passages[::-1])[::-1]
    for a, b, c in zip(fresh, first, again):
        assert a.shape == b.shape == c.shape and a.shape[1] == 384
        assert np.array_equal(b, c)  # a hit returns the bytes the model returned
        assert np.array_equal(a, b)  # and those are what the model computes for the text
