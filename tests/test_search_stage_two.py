"""Search mid stage two of a sync (issue 18): keyword covers every chunk, the vectors only some. Hybrid
fuses the vectors there are with keyword for the rest, so a chunk stage two has not reached is found
where keyword alone would put it, and the result says how far the vectors are."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write
from scree.search import search as search_module
from scree.config import load_config
from scree.db import queries, writes
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.search.search import Query, search
from scree.index.store import open_index
from scree.index.sync import sync

EMBEDDED = {
    "ops/backups.md": "# Backups\n\nWe copy the database to cold storage each week and keep twelve backups. "
                      "Backups are checked every month, and a backup older than a year is deleted.\n",
    "ops/retention.md": "# Retention\n\nOld rows are deleted by the PURGE_OLD_RECORDS job every night.\n",
    "guide/onboarding.md": "# Onboarding\n\nNew engineers get a laptop, an account and a buddy on day one.\n",
}
# Written after the first sync and indexed by stage one only: keyword-searchable, no vectors yet.
PENDING = {
    "ops/rotation.md": "# Tape rotation\n\nThe tape rotation runs at midnight and keeps seven generations "
                       "of tapes in the vault.\n",
}


@pytest.fixture
def mid_stage_two(tmp_path: Path, embedder):
    root = tmp_path / "repo"
    for rel, text in EMBEDDED.items():
        write(root, rel, text)
    index = open_index(index_location(root, load_config()), root)
    policy = NotesPolicy.load(root)
    sync(index, policy, embedder)
    for rel, text in PENDING.items():
        write(root, rel, text)
    sync(index, policy, embedder, embed=False)  # stage one only: as a search sees it while stage two runs
    yield root, index, policy
    index.close()


def _search(setup, embedder, text, **kw):
    root, index, policy = setup
    return search(index, policy, embedder, Query(text, **kw))


QUESTION = "when does the tape rotation run"


def test_a_question_mid_stage_two_finds_the_note_without_vectors_and_says_how_far_they_are(mid_stage_two, embedder):
    index = mid_stage_two[1]
    progress = queries.vector_progress(index.conn)
    assert 0 < progress.embedded < progress.total
    note = f"vectors for {progress.embedded} of {progress.total} chunks; keyword covers all"
    result = _search(mid_stage_two, embedder, QUESTION, k=3)  # auto: keyword alone (AUTO_MID_STAGE_TWO)
    assert result.mode == "keyword" and result.hits[0].path == "ops/rotation.md"
    assert note in result.notes
    fused = _search(mid_stage_two, embedder, QUESTION, k=3, mode="hybrid")
    assert fused.mode == "hybrid" and note in fused.notes
    assert fused.hits[0].path == "ops/rotation.md"  # where keyword puts it: first


def test_auto_fuses_mid_stage_two_when_told_to(mid_stage_two, embedder, monkeypatch):
    monkeypatch.setattr(search_module, "AUTO_MID_STAGE_TWO", "hybrid")
    result = _search(mid_stage_two, embedder, QUESTION, k=3)
    keyword = _search(mid_stage_two, embedder, QUESTION, k=3, mode="keyword")
    assert result.mode == "hybrid"  # the vectors there are are used, not keyword alone
    paths = [h.path for h in result.hits]
    assert paths.index("ops/rotation.md") <= [h.path for h in keyword.hits].index("ops/rotation.md")


def test_every_chunk_without_vectors_keeps_its_keyword_place_among_the_others(mid_stage_two, embedder):
    root, index, policy = mid_stage_two
    first = queries.file_paths(index.conn)[0][1]  # one more note loses its vectors
    writes.forget_vectors(index.conn, [c.id for c in queries.chunks_of_file(index.conn, first)], embedder.max_windows)
    unembedded = {"ops/rotation.md", first}
    for question in ("how are backups and tapes kept", "what happens to old rows every night",
                     "who gets a laptop on day one"):
        hybrid = [h.path for h in _search(mid_stage_two, embedder, question, k=10, mode="hybrid").hits]
        keyword = [h.path for h in _search(mid_stage_two, embedder, question, k=10, mode="keyword").hits]
        for i, path in enumerate(keyword):
            if path in unembedded:
                assert hybrid.index(path) == i, (question, hybrid, keyword)


def test_with_no_vector_yet_auto_answers_by_keyword(tmp_path: Path, embedder):
    root = tmp_path / "repo"
    for rel, text in {**EMBEDDED, **PENDING}.items():
        write(root, rel, text)
    index = open_index(index_location(root, load_config()), root)
    try:
        sync(index, NotesPolicy.load(root), embedder, embed=False)
        result = search(index, NotesPolicy.load(root), embedder, Query("when does the tape rotation run", k=3))
        assert result.mode == "keyword" and result.hits[0].path == "ops/rotation.md"
        assert "vectors for 0 of 4 chunks; keyword covers all" in result.notes
    finally:
        index.close()


def test_forgetting_vectors_leaves_what_stage_one_leaves(mid_stage_two, embedder):
    from scree.db import invariants

    index = mid_stage_two[1]
    ids = [c.id for _, path in queries.file_paths(index.conn) for c in queries.chunks_of_file(index.conn, path)]
    assert writes.forget_vectors(index.conn, ids, embedder.max_windows) == 3  # rotation.md had none
    assert queries.vector_progress(index.conn).embedded == 0
    assert invariants.problems(index.conn, embedder.max_windows) == []
