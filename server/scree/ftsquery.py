"""Turn a user's words into a safe FTS5 MATCH expression.

Every word reaches FTS5 as a quoted term, so FTS5 syntax in a query (`AND`, `NEAR`, `*`, `^`, `col:`,
an unbalanced quote, `call_me(`) is searched for as words and never parsed as an operator.
"""

from __future__ import annotations

import re

# Words that carry no topic; dropped only when something else remains (BM25's IDF would mostly
# ignore them anyway, but OR-ing them in lets a long section full of "how" and "the" rank).
STOPWORDS = frozenset(
    """a an and are as at be by can could do does did for from how i if in into is it its me my of on or
    our should so than that the their then there these this to was we what when where which who why will
    with would you your get use using want need""".split()
)

# A term: a run of letters/digits, possibly joined by _ - . : / (kept together so an identifier like
# `max-depth` or `os.path` becomes one quoted phrase; FTS5's tokenizer splits it inside the quotes).
_TERM = re.compile(r"[^\W_]+(?:[_\-.:/]+[^\W_]+)*|_+[^\W_]+(?:_+[^\W_]+)*", re.UNICODE)


def query_terms(query: str) -> list[str]:
    """The query's terms in order, deduplicated (case-insensitively), stopwords dropped unless that leaves nothing."""
    seen: set[str] = set()
    terms: list[str] = []
    for m in _TERM.finditer(query):
        t = m.group(0)
        key = t.lower()
        if key not in seen:
            seen.add(key)
            terms.append(t)
    content = [t for t in terms if t.lower() not in STOPWORDS]
    return content or terms


def to_match(query: str) -> str | None:
    """An FTS5 MATCH string OR-ing the quoted terms, or None when the query has no searchable word."""
    terms = query_terms(query)
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
