import pytest

from scree.ftsquery import query_terms, search_match, singular, to_match


def test_words_are_quoted_terms_joined_by_or():
    assert to_match("retention period") == '"retention" OR "period"'


@pytest.mark.parametrize("query", ["index AND search", "call_me(", 'say "hi', "prefix*", "col:value", "NEAR(a b)",
                                   "^start", "a - b", '""', "(((", "x OR", "don't"])
def test_fts_syntax_in_queries_is_searched_as_words(query, tmp_path):
    from scree.db.connect import connect

    conn = connect(tmp_path / "t.db")
    conn.execute("create virtual table f using fts5(body)")
    conn.execute("insert into f(body) values ('index and search call_me say hi prefix col value near a b start')")
    match = to_match(query)
    if match is not None:
        conn.execute("select rowid from f where f match ?", (match,)).fetchall()  # must not raise


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


@pytest.mark.parametrize("query", ["index AND search", "call_me(", 'say "hi', "prefix*", "col:value", "NEAR(a b)",
                                   "^start", "a - b", '""', "(((", "x OR", "don't", "near things*", "entries)"])
def test_fts_syntax_in_queries_is_searched_as_words_with_number_forms(query, tmp_path):
    from scree.db.connect import connect

    conn = connect(tmp_path / "t.db")
    conn.execute("create virtual table f using fts5(body)")
    conn.execute("insert into f(body) values ('index and search call_me say hi prefix col value near a b start')")
    match = search_match(query)
    if match is not None:
        conn.execute("select rowid from f where f match ?", (match,)).fetchall()  # must not raise
