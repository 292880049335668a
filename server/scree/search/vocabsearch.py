"""Search with the repo's vocabulary: look up which query words are names, search (the query's language
first: `languages.py`), say which were.

The CLI and the MCP server call `search_with_names` instead of `search.search`. Only the query's own
words are looked up (one indexed query), so a large vocabulary costs a search nothing.
"""

from __future__ import annotations

from dataclasses import replace

from ..db import queries
from ..embed import Embedder
from ..notes.policy import NotesPolicy
from ..records import SearchResult
from . import expansion
from .route import named_identifiers
from .languages import search_in_languages
from .search import Query, cap_query
from ..index.store import Index
from ..index.vocab import Vocabulary, query_words


def load_vocabulary(index: Index, text: str) -> Vocabulary:
    """The vocabulary names among the words of `text` (an index without names yields none)."""
    try:
        found = queries.names_among(index.conn, query_words(text))
    except index.driver.Error:  # an index of an older schema, read-only before its migration
        return Vocabulary()
    return Vocabulary(found, common=[n for n, common in found.items() if common])


def search_with_names(index: Index, policy: NotesPolicy, embedder: Embedder, q: Query) -> SearchResult:
    """`search` with the vocabulary; the result's `names` lists the words taken as names. A query
    over MAX_QUERY_CHARS (or an expected answer over MAX_GUESS_CHARS) is cut first, and the result's
    notes say so. Names are looked up among the question's words only, never the guess's."""
    text, cut = cap_query(q.text)
    if cut:
        q = replace(q, text=text)
    given = len(q.expected_answer)
    guess, guess_cut = cap_query(q.expected_answer, expansion.MAX_GUESS_CHARS)
    if guess_cut:
        q = replace(q, expected_answer=guess)
    vocabulary = load_vocabulary(index, q.text)
    result = search_in_languages(index, policy, embedder, q, vocabulary=vocabulary)
    result.names = named_identifiers(q.text, vocabulary)
    if cut:
        result.notes.append(cut)
    if guess_cut:
        result.notes.append(expansion.cut_note(len(guess), given))
    return result
