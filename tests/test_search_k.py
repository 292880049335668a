"""Ranking does not depend on k: the first n results are the same for every k >= n (issue 18).

Checked on every dev question of the shared benchmark's sets, over their own corpora, with the fake
embedder (the property holds for any vectors; which hits are right is benchmarks/quality.py's job).
Each set's index is built once per module.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from scree.config import load_config
from scree.db import queries
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.records import Hit
from scree.search.search import CANDIDATE_SECTIONS, Query, search
from scree.index.store import Index, open_index
from scree.index.sync import sync

_HERE = Path(__file__).resolve()
# The shared benchmark sits beside the repository (../shared), or beside the folder of worktrees.
BENCH = next((p for p in (_HERE.parents[2] / "shared" / "bench", _HERE.parents[3] / "shared" / "bench")
              if p.is_dir()), _HERE.parents[2] / "shared" / "bench")
SETS = {
    "dev": (BENCH / "corpus", BENCH / "queries_dev.json"),
    "httpx": (BENCH / "repos" / "httpx" / "corpus", BENCH / "repos" / "httpx" / "queries.json"),
    "myst": (BENCH / "repos" / "myst" / "corpus", BENCH / "repos" / "myst" / "queries.json"),
    "mdx": (BENCH / "repos" / "mdx" / "corpus", BENCH / "repos" / "mdx" / "queries.json"),
}
N = 5

pytestmark = pytest.mark.skipif(not BENCH.is_dir(), reason="the shared benchmark is not present")


def _questions(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    return [q["query"] for key, strata in data.items() if key != "_about"
            for qs in strata.values() for q in qs]


@pytest.fixture(scope="module", params=sorted(SETS))
def dev_set(request: pytest.FixtureRequest) -> Iterator[tuple[Index, NotesPolicy, list[str]]]:
    from fake_embedder import FakeEmbedder

    corpus, questions = SETS[request.param]
    index = open_index(index_location(corpus, load_config()), corpus)
    policy = NotesPolicy.load(corpus)
    sync(index, policy, FakeEmbedder())
    if not queries.has_chunks(index.conn):
        index.close()
        pytest.skip(f"no note of the {request.param} set is indexed (its dialect is not read here)")
    yield index, policy, _questions(questions)
    index.close()


def _hits(dev_set: tuple[Index, NotesPolicy, list[str]], text: str, k: int) -> list[Hit]:
    from fake_embedder import FakeEmbedder

    index, policy, _ = dev_set
    return search(index, policy, FakeEmbedder(), Query(text, k=k)).hits


def test_the_first_n_results_are_the_same_for_every_larger_k(dev_set):
    differ = []
    for text in dev_set[2]:
        top = _hits(dev_set, text, N)
        assert top, text
        for k in (2 * N, CANDIDATE_SECTIONS, 50):
            longer = _hits(dev_set, text, k)
            if longer[:N] != top:
                differ.append((text, k))
    assert differ == []


def test_asking_beyond_the_fixed_depth_only_appends(dev_set):
    for text in dev_set[2][:10]:
        fixed = _hits(dev_set, text, CANDIDATE_SECTIONS)
        deep = _hits(dev_set, text, 50)
        assert deep[:CANDIDATE_SECTIONS] == fixed
        assert len(deep) > len(fixed)  # the deeper search found more, after the fixed depth's results
        places = [(h.path, h.start_line) for h in deep]
        assert len(places) == len(set(places))  # nothing the fixed depth placed comes again


def test_scores_never_rise_down_the_list(dev_set):
    for text in dev_set[2]:
        scores = [h.score for h in _hits(dev_set, text, 50)]
        assert scores == sorted(scores, reverse=True), text


@pytest.fixture(scope="module")
def mid_stage_two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Index, NotesPolicy, list[str]]]:
    """The dev set's index as a search sees it while stage two runs: every other file without vectors."""
    from fake_embedder import FakeEmbedder

    from scree.db import writes

    from scree.locate import IndexLocation

    corpus, questions = SETS["dev"]
    here = tmp_path_factory.mktemp("mid-stage-two")  # not the index the other tests share
    index = open_index(IndexLocation(dir=here, db=here / "i.db", lock=here / "i.lock", root_file=here / "root"),
                       corpus)
    policy = NotesPolicy.load(corpus)
    sync(index, policy, FakeEmbedder())
    paths = [path for _, path in queries.file_paths(index.conn)][::2]
    writes.forget_vectors(index.conn, [c.id for p in paths for c in queries.chunks_of_file(index.conn, p)],
                          FakeEmbedder().max_windows)
    progress = queries.vector_progress(index.conn)
    assert 0 < progress.embedded < progress.total
    yield index, policy, _questions(questions)
    index.close()


@pytest.mark.parametrize("mode", ["auto", "hybrid"])
def test_mid_stage_two_the_first_n_results_are_the_same_for_every_larger_k(mid_stage_two, mode, monkeypatch):
    from fake_embedder import FakeEmbedder

    from scree.search import search as search_module

    monkeypatch.setattr(search_module, "AUTO_MID_STAGE_TWO", "hybrid")  # auto fuses too
    index, policy, questions = mid_stage_two
    differ, modes = [], set()
    for text in questions:
        first = search(index, policy, FakeEmbedder(), Query(text, k=N, mode=mode))
        assert first.hits, text
        modes.add(first.mode)
        for k in (2 * N, CANDIDATE_SECTIONS, 50):
            if search(index, policy, FakeEmbedder(), Query(text, k=k, mode=mode)).hits[:N] != first.hits:
                differ.append((text, k))
    assert differ == []
    assert "hybrid" in modes  # the questions fused the vectors there are with keyword
