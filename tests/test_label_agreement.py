"""A set's second labelling asks the first's questions, and the agreement count reads labels as score.py does.

`benchmarks/label_agreement.py` pairs the two labellings of a question by its exact text: a question edited in
`queries.json` without its second label would silently drop out of the agreement, so the files are held in step here.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent
SETS = REPO / "benchmarks" / "sets"
_OTHERS = sorted(f"{p.parent.name}/{p.name}" for pattern in ("*/queries_second.json", "*/queries_third.json")
                 for p in SETS.glob(pattern))


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("label_agreement", REPO / "benchmarks" / "label_agreement.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_some_sets_are_labelled_twice() -> None:
    assert len(_OTHERS) >= 4, _OTHERS
    assert _script().labellings("anyio").keys() == {"queries", "queries_second", "queries_third"}


@pytest.mark.parametrize("other", _OTHERS)
def test_another_labelling_asks_exactly_the_first_ones_questions(other: str) -> None:
    name, file = other.split("/")
    first = json.loads((SETS / name / "queries.json").read_text(encoding="utf-8"))["repo_dev"]
    again = json.loads((SETS / name / file).read_text(encoding="utf-8"))
    assert "never the other labels" in again["_about"] or "never the first labels" in again["_about"]
    assert again["repo_dev"]
    for stratum, cases in again["repo_dev"].items():
        assert [c["query"] for c in cases] == [c["query"] for c in first[stratum]]
        assert all(c["expected"].count("::") == 1 for c in cases)


def test_agreement_counts_a_subsection_for_its_parent_and_only_grade_two_as_valid() -> None:
    la = _script()
    first = {"identifier": [
        {"query": "HTTPAdapter", "expected": "docs/api.rst::API > Classes > pkg.HTTPAdapter"},
        {"query": "fail_after", "expected": "docs/guide.rst::Guide > Timeouts",
         "also_valid": {"docs/api.rst::API > Timeouts": 2}},
        {"query": "Retry", "expected": "docs/guide.rst::Guide > Retries",
         "also_valid": {"docs/api.rst::API > Classes": 1}},
    ]}
    second = {"identifier": [
        {"query": "HTTPAdapter", "expected": "docs/api.rst::API > Classes"},
        {"query": "fail_after", "expected": "docs/api.rst::API > `Timeouts`"},
        {"query": "Retry", "expected": "docs/api.rst::API > Classes"},
    ]}
    c = la.compare(first, second, "identifier")
    assert c["n"] == 3
    assert c["same"] == 1  # the entry lies inside the section the second labeller chose
    assert c["a_top1_under_b"] == 1 and c["b_top1_under_a"] == 0  # a parent does not stand for its subsection
    assert c["b_valid_under_a"] == 1  # fail_after: grade 2 counts, Retry's grade 1 does not
    assert [q for q, _, _ in c["differ"]] == ["fail_after", "Retry"]
