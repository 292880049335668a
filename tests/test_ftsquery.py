import pytest

from scree.search.ftsquery import query_terms, search_match, singular, to_match


def test_words_are_quoted_terms_joined_by_or():
    assert to_match("retention period") == '"retention" OR "period"'


# Rows whose words the queries below name; each query's FTS5 syntax must be searched as words.
ROWS = {1: "index only here", 2: "search only here", 3: "call_me say hi", 4: "col value pairs",
        5: "near a b start", 6: "don t x", 7: "prefixes galore"}
# query -> (rows to_match finds, rows search_match finds); None: no searchable word, no MATCH at all.
# "index AND search" finds a row with only one of them (an FTS5 AND would find neither), "prefix*" is
# the word "prefix" (an FTS5 prefix query would find "prefixes"; search_match's number forms do).
SYNTAX = {
    "index AND search": ({1, 2}, {1, 2}), "call_me(": ({3}, {3}), 'say "hi': ({3}, {3}),
    "prefix*": (set(), {7}), "col:value": ({4}, {4}), "NEAR(a b)": ({5}, {5}), "^start": ({5}, {5}),
    "a - b": ({5}, {5}), '""': (None, None), "(((": (None, None), "x OR": ({6}, {6}), "don't": ({6}, {6}),
    "near things*": ({5}, {5}), "entries)": (set(), set()),
}


@pytest.fixture
def fts(tmp_path):
    from scree.db.connect import connect

    conn = connect(tmp_path / "t.db")
    conn.execute("create virtual table f using fts5(body)")
    conn.executemany("insert into f(rowid, body) values (?, ?)", ROWS.items())
    yield conn
    conn.close()


def _found(conn, match: str | None) -> set[int] | None:
    return None if match is None else {r for (r,) in conn.execute("select rowid from f where f match ?", (match,))}


@pytest.mark.parametrize("query", sorted(SYNTAX))
def test_fts_syntax_in_queries_is_searched_as_words(query, fts):
    plain, numbered = SYNTAX[query]
    assert _found(fts, to_match(query)) == plain
    assert _found(fts, search_match(query)) == numbered


def test_identifiers_stay_one_term():
    assert query_terms("what is --max-depth or os.path or PURGE_OLD_RECORDS") == [
        "max-depth", "os.path", "PURGE_OLD_RECORDS"]


def test_stopwords_dropped_unless_nothing_else_remains():
    assert query_terms("how do I use it") == ["how", "do", "I", "use", "it"]
    assert query_terms("how do I rotate keys") == ["rotate", "keys"]


def test_query_without_words_has_no_match():
    assert to_match("?? !! --") is None


def test_search_match_lets_plain_words_match_their_other_number():
    assert search_match("rates of files") == '"rate"* OR "file"*'
    assert search_match("which entries") == '("entry" OR "entries")'
    assert [singular(w) for w in ("rates", "boxes", "policies", "status", "class", "canoes", "rate")] == [
        "rate", "boxe", "policy", "status", "class", "canoe", "rate"]


def test_search_match_keeps_names_acronyms_and_short_words_exact():
    assert search_match("PURGE_OLD_RECORDS GitHub API args --max-depth") == (
        '"PURGE_OLD_RECORDS" OR "GitHub" OR "API" OR "args" OR "max-depth"')


def test_a_plural_query_finds_the_singular_without_counting_both_forms_twice(tmp_path):
    from scree.db.connect import connect

    conn = connect(tmp_path / "t.db")
    conn.execute("create virtual table f using fts5(body)")
    conn.executemany("insert into f(rowid, body) values (?, ?)", [
        (1, "the sampling rate is set here"), (2, "rate and rates and more rates here"), (3, "nothing relevant")])
    found = [r for (r,) in conn.execute("select rowid from f where f match ? order by rowid", (search_match("rates"),))]
    assert found == [1, 2]
    assert to_match("rates") == '"rates"'  # the hooks' plain form is unchanged
