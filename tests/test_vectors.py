"""The in-memory vector cache answers what sqlite-vec's scan answers (exactly, up to its candidate chunks),
and never goes stale."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scree.db import queries, writes
from scree.locate import IndexLocation
from scree.records import Chunk
from scree.index.store import ensure_embedder, open_index

DIMS, MAX_WINDOWS = 8, 64


def _index(tmp_path: Path, name: str = "v"):
    folder = tmp_path / "notes"
    folder.mkdir(exist_ok=True)
    loc = IndexLocation(dir=tmp_path, db=tmp_path / f"{name}.db", lock=tmp_path / f"{name}.lock",
                        root_file=tmp_path / f"{name}.root")
    index = open_index(loc, folder)
    ensure_embedder(index, "test:random", DIMS, MAX_WINDOWS)
    return index, loc, folder


def _add(index, path: str, n: int, rng: np.random.Generator) -> None:
    vecs = rng.standard_normal((n, DIMS)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    chunks = [Chunk(f"H{i}", f"text {i}", i + 1, i + 1) for i in range(n)]
    writes.replace_file(index.conn, writes.FileVersion(path, path * 2, 0, 0, None), chunks,
                        [v[None, :] for v in vecs], MAX_WINDOWS)


@pytest.fixture
def filled(tmp_path):
    rng = np.random.default_rng(3)
    index, loc, folder = _index(tmp_path)
    for f in range(6):
        _add(index, f"f{f}.md", 20, rng)
    return index, loc, folder, rng


def test_cache_matches_sqlite_vec_exactly(filled):
    index, _, _, rng = filled
    for _ in range(5):
        q = rng.standard_normal(DIMS).astype(np.float32)
        q /= np.linalg.norm(q)
        cached = index.vectors.knn(index.conn, q, 15)
        scanned = queries.vector_search(index.conn, q.astype("<f4").tobytes(), 15)
        assert [r for r, _ in cached] == [r for r, _ in scanned]
        assert np.allclose([d for _, d in cached], [d for _, d in scanned], atol=1e-5)


def test_path_filter_is_applied_before_the_top_k(filled):
    index, _, _, rng = filled
    q = rng.standard_normal(DIMS).astype(np.float32)
    wanted = [fid for fid, path in queries.file_paths(index.conn) if path in ("f2.md", "f4.md")]
    cached = index.vectors.knn(index.conn, q, 10, wanted)
    scanned = queries.vector_search(index.conn, q.astype("<f4").tobytes(), 10, wanted)
    assert len(cached) == 10 and [r for r, _ in cached] == [r for r, _ in scanned]


def test_own_writes_and_other_connections_commits_refresh_the_cache(filled):
    index, loc, folder, rng = filled
    q = rng.standard_normal(DIMS).astype(np.float32)
    before = index.vectors.knn(index.conn, q, 200)
    assert len(before) == 120
    _add(index, "own.md", 5, rng)  # written through this connection
    assert len(index.vectors.knn(index.conn, q, 200)) == 125
    other = open_index(loc, folder)  # another connection, as the writer is to a reader
    writes.delete_file(other.conn, "f0.md", MAX_WINDOWS)
    other.close()
    after = index.vectors.knn(index.conn, q, 200)
    assert len(after) == 105 and {r for r, _ in after} <= {r for r, _ in before} | {
        r for r, _ in queries.vector_search(index.conn, q.astype("<f4").tobytes(), 200)}


def test_over_the_budget_the_cache_declines_and_sqlite_vec_answers(tmp_path):
    from scree.index.vectors import VectorCache

    rng = np.random.default_rng(1)
    index, _, _ = _index(tmp_path, "small")
    _add(index, "a.md", 10, rng)
    index.vectors = VectorCache(max_bytes=10 * DIMS * 4 - 1)
    assert index.vectors.knn(index.conn, np.ones(DIMS, np.float32), 3) is None
    index.vectors = VectorCache(max_bytes=0)
    assert index.vectors.knn(index.conn, np.ones(DIMS, np.float32), 3) is None


def _add_windows(index, path: str, windows: list[int], rng: np.random.Generator) -> None:
    chunks = [Chunk(f"H{i}", f"text {i}", i + 1, i + 1) for i in range(len(windows))]
    vecs = []
    for n in windows:
        v = rng.standard_normal((n, DIMS)).astype(np.float32)
        vecs.append(v / np.linalg.norm(v, axis=1, keepdims=True))
    writes.replace_file(index.conn, writes.FileVersion(path, path * 2, 0, 0, None), chunks, vecs, MAX_WINDOWS)


def test_with_the_stride_every_window_of_every_candidate_chunk_is_scored(tmp_path, monkeypatch):
    """Few chunks: each is a candidate, so chunks with several windows answer exactly as the scan does,
    a chunk found by a window after its first included."""
    rng = np.random.default_rng(11)
    index, _, _ = _index(tmp_path, "multi")
    for f in range(4):
        _add_windows(index, f"m{f}.md", [int(n) for n in rng.integers(1, 5, size=15)], rng)
    for _ in range(5):
        q = rng.standard_normal(DIMS).astype(np.float32)
        q /= np.linalg.norm(q)
        cached = index.vectors.knn(index.conn, q, 20, stride=MAX_WINDOWS)
        scanned = queries.vector_search(index.conn, q.astype("<f4").tobytes(), 20)
        assert [r for r, _ in cached] == [r for r, _ in scanned]
        assert any(r % MAX_WINDOWS for r, _ in cached), "later windows answer too"


def test_past_the_candidate_count_only_the_best_first_windows_chunks_are_scored(tmp_path, monkeypatch):
    import scree.index.vectors as vectors

    monkeypatch.setattr(vectors, "CANDIDATE_CHUNKS", 3)
    rng = np.random.default_rng(2)
    index, _, _ = _index(tmp_path, "coarse")
    _add_windows(index, "c.md", [3] * 12, rng)
    q = rng.standard_normal(DIMS).astype(np.float32)
    q /= np.linalg.norm(q)
    got = index.vectors.knn(index.conn, q, 100, stride=MAX_WINDOWS)
    every = queries.vector_search(index.conn, q.astype("<f4").tobytes(), 100)
    firsts = sorted(((d, r) for r, d in every if r % MAX_WINDOWS == 0))[:3]
    candidates = {r // MAX_WINDOWS for _, r in firsts}
    assert {r // MAX_WINDOWS for r, _ in got} == candidates
    assert len(got) == 9  # all three windows of each candidate, nearest first
    assert [d for _, d in got] == sorted(d for _, d in got)
    want = {r: d for r, d in every}
    assert all(abs(want[r] - d) < 1e-5 for r, d in got)


def test_over_the_float32_budget_the_later_windows_are_kept_as_float16(tmp_path):
    from scree.index.vectors import VectorCache

    rng = np.random.default_rng(4)
    index, _, _ = _index(tmp_path, "half")
    _add_windows(index, "h.md", [4] * 10, rng)  # 10 chunks, 40 windows
    index.vectors = VectorCache(max_bytes=(10 * 4 + 40 * 2) * DIMS)  # float32 first windows + every window in float16
    q = rng.standard_normal(DIMS).astype(np.float32)
    q /= np.linalg.norm(q)
    got = index.vectors.knn(index.conn, q, 40, stride=MAX_WINDOWS)
    assert got is not None and len(got) == 40
    want = dict(queries.vector_search(index.conn, q.astype("<f4").tobytes(), 40))
    assert all(abs(want[r] - d) < 2e-3 for r, d in got)  # float16's precision
    index.vectors = VectorCache(max_bytes=(10 * 4 + 40 * 2) * DIMS - 1)
    assert index.vectors.knn(index.conn, q, 40, stride=MAX_WINDOWS) is None
