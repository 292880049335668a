"""A question naming an identifier has the section that defines it among its first three answers (issue 38).

The miss, measured on structlog and jsonschema: "How does LogfmtRenderer format boolean values?" ranked the guides
that use the name first and the reference entry titled `structlog.processors.LogfmtRenderer` eighth, out of sight.
Third, not first: whether a question asks for the guide or the entry is the labellers' habit, so the fused order
keeps the first two places. The placing directly; the search on a real index (fake embedder).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write
from fake_embedder import FakeEmbedder
from scree.config import load_config
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.search import questionentries
from scree.search.questionentries import entries_within
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names


def _key(item: tuple[int, float]) -> int:
    return item[0] // 10  # chunks 10 and 11 are one section


def test_an_entry_below_the_place_moves_up_to_it_and_the_first_places_stay() -> None:
    ranked = [(1 * 10, 9.0), (2 * 10, 8.0), (3 * 10, 7.0), (4 * 10, 6.0), (5 * 10, 5.0), (5 * 10 + 1, 4.0)]
    moved = entries_within(ranked, [51], 3, _key)
    assert [cid for cid, _ in moved] == [10, 20, 50, 30, 40, 51]  # the section at its best chunk
    scores = [score for _, score in moved]
    assert scores == sorted(scores, reverse=True)  # the shown scores agree with the order


def test_an_entry_already_within_the_place_or_absent_moves_nothing() -> None:
    ranked = [(10, 9.0), (20, 8.0), (30, 7.0), (40, 6.0)]
    assert entries_within(ranked, [20], 3, _key) == ranked
    assert entries_within(ranked, [90], 3, _key) == ranked
    assert entries_within(ranked, [40], 0, _key) == ranked  # the rule off


def test_two_entries_below_the_place_follow_each_other_from_it() -> None:
    ranked = [(10, 9.0), (20, 8.0), (30, 7.0), (40, 6.0), (50, 5.0)]
    assert [cid for cid, _ in entries_within(ranked, [50, 40], 3, _key)] == [10, 20, 40, 50, 30]


GUIDE = ("Rendering logs\n==============\n\n" + "".join(
    f"{title}\n{'-' * len(title)}\n\nThe ``KeyValueRenderer`` renders boolean values and nested data: how does the "
    f"renderer format boolean values, nested data, booleans and nested dicts in {topic}? The renderer formats "
    f"boolean values and nested data for {topic}, and formats booleans in nested data too.\n\n"
    for title, topic in (("Console output", "consoles"), ("Files", "log files"), ("Journald", "journald"),
                         ("Cloud logging", "cloud loggers"), ("Testing", "tests"))))


@pytest.fixture
def logs(tmp_path: Path):
    """A guide whose five sections use the name, and the reference entry titled by it qualified by its module."""
    root = tmp_path / "logkit"
    write(root, "pyproject.toml", '[project]\nname = "logkit"\nversion = "1.0"\n')
    write(root, "docs/guide.rst", GUIDE)
    write(root, "docs/api.rst", "API Reference\n=============\n\nlogkit.processors.KeyValueRenderer\n"
                                "----------------------------------\n\nRender the event dict as ``key=value`` pairs.\n")
    write(root, "docs/other.rst",
          "Other\n=====\n\nlogkit.KeyValueRenderer2\n------------------------\n\nAnother class.\n")
    index = open_index(index_location(root, load_config()), root)
    sync(index, NotesPolicy.load(root), FakeEmbedder())
    yield root, index
    index.close()


def _paths(root: Path, index, query: str, mode: str = "auto") -> list[tuple[str, str]]:
    hits = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(query, k=5, mode=mode)).hits
    return [(hit.path, hit.heading) for hit in hits]


ENTRY = ("docs/api.rst", "API Reference > logkit.processors.KeyValueRenderer")


def test_a_questions_entry_titled_by_its_qualified_name_is_third(logs, monkeypatch) -> None:
    root, index = logs
    question = "How does the KeyValueRenderer format boolean values and nested data?"
    for mode in ("auto", "hybrid", "keyword"):
        found = _paths(root, index, question, mode)
        assert found[2] == ENTRY, mode
        # a longer name's entry is another name's: not lifted after it
        assert ("docs/other.rst", "Other > logkit.KeyValueRenderer2") not in found[:4], mode
    monkeypatch.setattr(questionentries, "PLACE", 0)  # the miss: the guides' five sections first
    assert ENTRY not in _paths(root, index, question)[:3]


def test_a_lookup_and_a_plain_word_pin_no_question_entry(logs) -> None:
    root, index = logs
    # a plain word is no identifier: "renderer" names nothing the rule reads
    assert ENTRY not in _paths(root, index, "How does the renderer format boolean values and nested data?")[:3]
    assert _paths(root, index, "KeyValueRenderer")[0] == ENTRY  # a lookup's own entry rules place it, first
