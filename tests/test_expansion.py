"""The caller's guess at the answer (`expected_answer`, issue 28): it widens a question's search, never a
lookup's; the question stays primary (routing, names). Pure parts first, then real indexes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import write
from scree.config import load_config
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.search import expansion
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names

# ----- pure parts ----------------------------------------------------------------------------------


@pytest.mark.parametrize("question,applies", [
    ("how are failed uploads retried", True),
    ("why is the file hash committed last?", True),
    ("What does RETRY_LIMIT do?", True),  # a question naming something: widened, its name still matched verbatim
    ("RETRY_LIMIT", False), ("--max-retries", False), ("uploads", False),
    # A 2-3 word phrase of plain words: routed as a question since issue 29, but it keeps its own words
    # (blind guesses lowered three sets' short phrases: docs/benchmarks.md, "Short phrases").
    ("cargo metadata", False), ("promtool check rules", False), ("how to retry", True), ("", False),
])
def test_a_guess_applies_to_questions_never_to_lookups(question: str, applies: bool) -> None:
    assert expansion.applies(question, "Uploads are retried three times.") is applies
    assert expansion.applies(question, "  ") is False


def test_the_mean_vector_scores_a_window_by_both_similarities() -> None:
    rng = np.random.default_rng(28)
    q, g, w = (v / np.linalg.norm(v) for v in rng.normal(size=(3, 384)).astype("<f4"))
    for weight in (1.0, 0.5, 2.0):
        mean = expansion.mean_vector(q, g, weight)
        assert abs(float(np.linalg.norm(mean)) - 1) < 1e-5 and mean.dtype == np.dtype("<f4")
        # cosine with the mean = (cos(w, q) + weight * cos(w, g)) / |q + weight * g|: the order of windows
        # under it is the order of their weighted sum of similarities.
        expected = (w @ q + weight * (w @ g)) / np.linalg.norm(q + weight * g)
        assert abs(float(w @ mean) - float(expected)) < 1e-5


def test_guess_terms_are_the_guess_words_the_question_lacks() -> None:
    terms = expansion.guess_terms("how are uploads retried", "Failed uploads are retried three times with backoff.")
    assert terms.split() == ["Failed", "three", "times", "backoff"]
    assert expansion.guess_terms("retry policy", "the and of") == ""


def test_added_scores_keep_the_question_first_among_equals() -> None:
    question = [(1, 4.0), (2, 3.0)]
    guess = [(3, 5.0), (2, 2.0)]
    assert expansion.add_scores(question, guess, 0.5) == [(1, 4.0), (2, 4.0), (3, 2.5)]
    assert expansion.add_scores(question, [], 0.5) == question


def test_max_pool_keeps_each_chunk_at_its_best() -> None:
    assert expansion.max_pool([[(1, 0.5), (2, 0.4)], [(2, 0.7), (3, 0.1)]]) == [(2, 0.7), (1, 0.5), (3, 0.1)]


def test_a_section_titled_by_the_questions_identifier_stays_first_when_close() -> None:
    ranked = ["Usage of RuleCreator", "Utils > `RuleCreator`", "Other"]
    assert expansion.titled_first(ranked, str, ["rulecreator"], window=2)[0] == "Utils > `RuleCreator`"
    assert expansion.titled_first(ranked, str, ["rulecreator"], window=1) == ranked  # not close enough
    assert expansion.titled_first(["Other", "Usage", "Utils > RuleCreator"], str, ["rulecreator"], window=2) == [
        "Other", "Usage", "Utils > RuleCreator"]
    assert expansion.titled_first(ranked, str, [], window=2) == ranked
    assert expansion.title_names("What does RuleCreator do?") == ["rulecreator"]
    assert expansion.title_names("how do I pick a retry policy") == []  # vocabulary words are not titles
    assert expansion.title_names("RuleCreator") == []  # a lookup: search's own rule orders it


def test_every_way_of_widening_answers() -> None:
    """Each measured alternative stays runnable (benchmarks/quality.py --set search.expansion.X=...): the
    question's direction (axis 0) and the guess's (axis 1) both rank on top, or the question's alone."""
    q, g = np.eye(4, dtype="<f4")[0], np.eye(4, dtype="<f4")[1]
    rank = lambda vec: sorted(((i, float(vec[i])) for i in range(4)), key=lambda kv: -kv[1])  # noqa: E731
    embed = lambda text: g if text == "g" else (q + g) / np.sqrt(2)  # noqa: E731 - "q\ng" for concat
    for way in ("concat", "mean", "max", "dbsf", "rrf"):
        got = [cid for cid, _ in expansion.semantic("q", "g", lambda: q, embed, rank, way=way)]
        assert set(got[:2]) == {0, 1}, way
    assert expansion.semantic("q", "g", lambda: q, embed, rank, way="question")[0][0] == 0
    search = lambda text: [(9, 1.0)]  # noqa: E731
    assert expansion.keyword("uploads retried", "backoff", lambda: [(1, 2.0)], search, way="question") == [(1, 2.0)]
    for way in ("concat", "weighted"):
        assert 9 in dict(expansion.keyword("uploads retried", "backoff", lambda: [(1, 2.0)], search, way=way)), way
    with pytest.raises(ValueError):
        expansion.semantic("q", "g", lambda: q, embed, rank, way="nope")


# ----- searches over an index ----------------------------------------------------------------------

NOTES = {
    # The answer to QUESTION shares none of its words; the storage note shares "bucket".
    "ops/uploads.md": "# Uploads\n\n## Retries\n\nUploads that fail are retried three times with exponential "
                      "backoff, then the job is marked broken.\n",
    "ops/storage.md": "# Storage\n\n## Quotas\n\nEach bucket holds at most 500 GB; the janitor compacts "
                      "snapshots nightly.\n",
    "guide/onboarding.md": "# Onboarding\n\nNew engineers get a laptop, an account and a buddy on day one.\n",
    "ops/retention.md": "# Retention\n\nOld rows are deleted by the PURGE_OLD_RECORDS job every night.\n",
    "ops/purge.md": "# Purging\n\n## PURGE_OLD_RECORDS\n\nThe job's schedule lives in the cron table; it backs off "
                    "when the database is busy and runs again an hour later.\n",
}
QUESTION = "what happens when sending a file to the bucket breaks"
GUESS = "The upload fails and is retried three times with exponential backoff."


@pytest.fixture(scope="module")
def fake_index(tmp_path_factory: pytest.TempPathFactory):
    from fake_embedder import FakeEmbedder

    root = tmp_path_factory.mktemp("guess")
    for rel, text in NOTES.items():
        write(root, rel, text)
    embedder = FakeEmbedder()
    index = open_index(index_location(root, load_config()), root)
    sync(index, NotesPolicy.load(root), embedder)
    yield root, index, embedder
    index.close()


def ask(fake_index, text: str, guess: str = "", **kw):
    root, index, embedder = fake_index
    return search_with_names(index, NotesPolicy.load(root), embedder, Query(text, expected_answer=guess, **kw))


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid", "auto"])
def test_a_guess_widens_both_halves_of_a_question(fake_index, mode: str) -> None:
    plain = ask(fake_index, QUESTION, mode=mode)
    widened = ask(fake_index, QUESTION, GUESS, mode=mode)
    assert widened.mode == plain.mode  # routed by the question alone
    assert (plain.hits[0].path if plain.hits else None) != "ops/uploads.md"
    assert widened.hits[0].path == "ops/uploads.md" and not widened.notes


@pytest.mark.parametrize("lookup", ["PURGE_OLD_RECORDS", "purge_old_records", "quotas", "uploads quotas"])
@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid", "auto"])
def test_a_guess_never_changes_a_lookup(fake_index, lookup: str, mode: str) -> None:
    """Issue 28: a guess glued to a bare name lost identifier lookups (top1 100% -> 75%)."""
    plain = ask(fake_index, lookup, mode=mode)
    widened = ask(fake_index, lookup, GUESS + " Uploads are retried by the uploader, not by PURGE.", mode=mode)
    assert [(h.path, h.heading, h.score) for h in widened.hits] == [(h.path, h.heading, h.score) for h in plain.hits]
    assert widened.mode == plain.mode and widened.names == plain.names
    assert widened.notes == plain.notes + [expansion.unused_note()]


@pytest.mark.parametrize("query", ["how are failed uploads retried", "retry failed uploads", "upload retries",
                                   "why retries?", "RETRY_LIMIT", "the retry limit", "Retry Failed Uploads",
                                   "rotate signing keys", "rotate the signing keys", "what is retried"])
def test_the_grep_hint_asks_for_a_guess_exactly_where_search_uses_one(query: str) -> None:
    """The hint (stdlib only) mirrors search's rule: it never asks the agent for a guess search drops."""
    from scree.hookkit.patterns import asks_for_guess, is_plain_language

    assert asks_for_guess(query) is (is_plain_language(query) and expansion.applies(query, "a guess"))


def test_names_come_from_the_question_never_from_the_guess(fake_index) -> None:
    result = ask(fake_index, "which job deletes old rows at night", "The PURGE_OLD_RECORDS job deletes them.")
    assert result.names == []
    named = ask(fake_index, "what does PURGE_OLD_RECORDS delete", "It deletes rows of the uploads table.")
    assert named.names == ["purge_old_records"] and named.hits[0].path in ("ops/retention.md", "ops/purge.md")


def test_a_huge_guess_is_cut_with_a_note(fake_index) -> None:
    huge = GUESS + " " + "filler words go on and on " * 2000
    result = ask(fake_index, QUESTION, huge, mode="keyword")
    assert result.hits[0].path == "ops/uploads.md"
    (note,) = [n for n in result.notes if "expected answer" in n]
    assert f"capped at {expansion.MAX_GUESS_CHARS}" in note and f"it had {len(huge)}" in note


@pytest.mark.real_model
def test_with_the_real_model_a_guess_finds_the_paraphrased_answer_and_leaves_lookups_alone(tmp_path: Path,
                                                                                         real_embedder) -> None:
    for rel, text in NOTES.items():
        write(tmp_path, rel, text)
    index = open_index(index_location(tmp_path, load_config()), tmp_path)
    try:
        sync(index, NotesPolicy.load(tmp_path), real_embedder)
        policy = NotesPolicy.load(tmp_path)

        def top(text: str, guess: str = "") -> str:
            hits = search_with_names(index, policy, real_embedder, Query(text, expected_answer=guess)).hits
            return f"{hits[0].path}::{hits[0].heading}"

        assert top(QUESTION, GUESS) == "ops/uploads.md::Uploads > Retries"
        # The bare name's own section stays first, whatever the guess says.
        assert top("PURGE_OLD_RECORDS", GUESS) == top("PURGE_OLD_RECORDS") == "ops/purge.md::Purging > PURGE_OLD_RECORDS"
    finally:
        index.close()
