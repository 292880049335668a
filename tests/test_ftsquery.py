import pytest

from scree.ftsquery import query_terms, to_match


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
