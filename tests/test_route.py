import pytest

from scree.search import route as route_module
from scree.search.route import embedder_kind, is_lookup, looks_like_identifier, named_identifiers, route

NAMES = [
    "PURGE_OLD_RECORDS", "how is psycopg_pool sized", "ticket R7-Q2 status", "what changed in v2",
    "what does --locked do", "healthCheck interval", "scrape_configs.job_name", "std::fs", "$HOME expansion",
    "the `retention` flag",
]


@pytest.mark.parametrize("query", NAMES)
def test_a_query_naming_an_identifier_never_routes_to_semantic(query):
    assert route(query) in ("keyword", "hybrid")


@pytest.mark.parametrize("query", [
    "PURGE_OLD_RECORDS", "--locked", "histogram_quantile()", "healthCheck interval", "std::fs", "$HOME expansion",
    "args", "CORS", "middleware", "eval-rst",
])
def test_a_bare_name_a_single_word_or_a_phrase_naming_something_is_a_lookup_routed_to_keyword(query):
    assert is_lookup(query)
    assert route(query) == "keyword"


@pytest.mark.parametrize("query", [
    "serve static files", "retry failed requests", "cargo metadata", "promtool check rules", "toctree directive",
])
def test_a_short_phrase_of_plain_words_is_a_topic_routed_as_a_question(query):
    # Issue 29: measured on every set's blind-written short phrases, the vectors beside BM25 rank these better.
    assert is_lookup(query)
    assert route(query) == "hybrid"


def test_a_phrase_holding_a_vocabulary_name_stays_a_keyword_lookup():
    assert route("promtool check rules", vocabulary=frozenset({"promtool"})) == "keyword"


def test_every_lookup_ran_keyword_before_the_short_phrase_rule(monkeypatch):
    monkeypatch.setattr(route_module, "LOOKUP_ROUTE", "keyword")
    assert route("serve static files") == "keyword"


@pytest.mark.parametrize("query", [
    "how is psycopg_pool sized", "what changed in v2", "what does --locked do", "the `retention` flag",
    "rotate keys?", "nightly PURGE_OLD_RECORDS deletion job schedule",
])
def test_a_question_or_longer_phrase_naming_an_identifier_routes_to_hybrid(query):
    assert not is_lookup(query)
    assert route(query) == "hybrid"


# Deliberate change: prose used to route to semantic; the fused ranking beat the vectors alone on the
# benchmark's plain-language questions, so prose runs hybrid too.
@pytest.mark.parametrize("query", [
    "what is the user ID", "which API do we call", "decisions made in 2026", "the well-known endpoint",
    "How can I find the crates that depend on a given package?", "", "   ",
])
def test_prose_routes_to_hybrid(query):
    assert route(query) == "hybrid"


def test_vocabulary_words_count_as_names():
    assert named_identifiers("how does rebalance work") == []
    assert named_identifiers("how does rebalance work", vocabulary=frozenset({"rebalance"})) == ["rebalance"]
    assert route("how does rebalance work", vocabulary=frozenset({"rebalance"})) == "hybrid"


def test_names_drop_quotes_and_call_parens_but_keep_flag_dashes():
    query = "what does `histogram_quantile()` return for --locked, (v2) and --LOCKED?"
    assert named_identifiers(query) == ["histogram_quantile", "--locked", "v2"]


def test_punctuation_around_a_plain_word_is_not_an_identifier():
    assert not looks_like_identifier("(really?)")
    assert not looks_like_identifier("2026.")
    assert looks_like_identifier("(v2)")


def test_the_question_rule_is_chosen_per_embedder_kind(monkeypatch):
    monkeypatch.setitem(route_module.QUESTION_ROUTE, "api", "names")
    # The local model's measured rule: every question runs hybrid.
    assert route("how do we keep copies of the data safe", embedder="local:all-MiniLM-L6-v2-int8:256") == "hybrid"
    # The "names" rule: a plain question runs semantic, one naming something runs hybrid, a lookup keyword.
    assert route("how do we keep copies of the data safe", embedder="api:some-model") == "semantic"
    assert route("how is psycopg_pool sized", embedder="api") == "hybrid"
    assert route("how does rebalance work", frozenset({"rebalance"}), embedder="api") == "hybrid"
    assert route("--locked", embedder="api") == "keyword"
    # An embedder nobody measured gets the default rule.
    assert route("how do we keep copies of the data safe", embedder="other") == route_module.DEFAULT_QUESTION_ROUTE


def test_embedder_kind_is_the_ids_first_field():
    assert embedder_kind("local:all-MiniLM-L6-v2-int8:256") == "local"
    assert embedder_kind("api") == "api"


@pytest.mark.parametrize(("query", "names"), [
    ("Will HTTPTransport(retries=3) also retry on 503 responses?", ["httptransport"]),  # the callee, not `retries=3`
    ("createProgram(configFile, projectDirectory)", ["createprogram", "projectdirectory"]),
    ("Does httpx.Client(http2=True) need the extra?", ["httpx.client"]),
    ("list the file(s) it wrote", []),  # a plural's `(s)` is no call
    ("what does default(\"x\") do", []),  # a plain word called is no name by its shape
])
def test_a_call_with_arguments_names_what_it_calls(query, names):
    assert named_identifiers(query) == names
