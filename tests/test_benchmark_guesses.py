"""The blind-written guesses (benchmarks/expansions) stay in step with the sets' questions.

`quality.py` pairs a guess with its question by the question's exact text, so a question edited in a set's
`queries.json` without its guess would silently be scored without one, and a guess for a question no longer asked
would count nowhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXPANSIONS = REPO / "benchmarks" / "expansions"
SETS = REPO / "benchmarks" / "sets"


def _questions(queries_file: Path) -> list[str]:
    data = json.loads(queries_file.read_text(encoding="utf-8"))
    return [case["query"] for key, strata in data.items() if key != "_about"
            for cases in strata.values() for case in cases]


_OWN = sorted(p.stem for p in EXPANSIONS.glob("*.json") if (SETS / p.stem / "queries.json").exists())


def test_most_of_the_project_sets_have_guesses() -> None:
    assert len(_OWN) >= 40, _OWN


@pytest.mark.parametrize("name", _OWN)
def test_each_question_of_a_set_has_one_guess_and_no_guess_is_stray(name: str) -> None:
    data = json.loads((EXPANSIONS / f"{name}.json").read_text(encoding="utf-8"))
    assert data["set"] == name
    assert data["description"].strip() and data["written_by"].strip()
    guessed = [e["query"] for e in data["expansions"]]
    assert sorted(guessed) == sorted(_questions(SETS / name / "queries.json"))
    assert all(str(e["expected_answer"]).strip() for e in data["expansions"])
