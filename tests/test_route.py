import pytest

from scree.route import looks_like_identifier, route


@pytest.mark.parametrize("query", [
    "PURGE_OLD_RECORDS", "how is psycopg_pool sized", "ticket R7-Q2 status", "what changed in v2",
    "what does --locked do", "healthCheck interval", "scrape_configs.job_name", "std::fs", "$HOME expansion",
    "the `retention` flag",
])
def test_names_route_to_hybrid(query):
    assert route(query) == "hybrid"


@pytest.mark.parametrize("query", [
    "what is the user ID", "which API do we call", "decisions made in 2026", "the well-known endpoint",
    "How can I find the crates that depend on a given package?", "", "   ",
])
def test_prose_routes_to_semantic(query):
    assert route(query) == "semantic"


def test_vocabulary_word_routes_to_hybrid():
    assert route("how does rebalance work") == "semantic"
    assert route("how does rebalance work", vocabulary=frozenset({"rebalance"})) == "hybrid"


def test_punctuation_around_a_plain_word_is_not_an_identifier():
    assert not looks_like_identifier("(really?)")
    assert not looks_like_identifier("2026.")
    assert looks_like_identifier("(v2)")
