"""Turn a user's words into a safe FTS5 MATCH expression.

Every word reaches FTS5 as a quoted term, so FTS5 syntax in a query (`AND`, `NEAR`, `*`, `^`, `col:`,
an unbalanced quote, `call_me(`) is searched for as words and never parsed as an operator.
`search_match` is the form search uses: plain words also match their other grammatical number.
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


# A plain prose word: letters only, lower case or capitalised (not `API`, `GitHub`, `PURGE_OLD_RECORDS`,
# which name things and are matched exactly), long enough that its stem is not a fragment.
_PLAIN_WORD = re.compile(r"[a-z]{4,}|[A-Z][a-z]{3,}")
_MIN_STEM = 4


def singular(word: str) -> str:
    """The singular of an English plural by Harman's S-stemmer (1991), lower-cased: `-ies` to `-y`
    (not `-aies`, `-eies`), else `-es` to `-e` (not `-aes`, `-ees`, `-oes`), else `-s` dropped
    (not `-us`, `-ss`). `policies` -> `policy`, `boxes` -> `boxe`, `canoes` -> `canoe`, `status` stays."""
    w = word.lower()
    if w.endswith("ies") and not w.endswith(("aies", "eies")):
        return w[:-3] + "y"
    if w.endswith("es") and not w.endswith(("aes", "ees", "oes")):
        return w[:-1]
    if w.endswith("s") and not w.endswith(("us", "ss")):
        return w[:-1]
    return w


def _number_forms(term: str) -> str:
    """A plain word as an FTS5 expression matching its singular and plural forms."""
    if not _PLAIN_WORD.fullmatch(term):
        return '"' + term.replace('"', '""') + '"'
    lower = term.lower()
    one = singular(lower)
    if one.endswith("y") and lower.endswith("ies"):
        # `entr*` would reach far past `entry`: name both forms instead.
        return f'("{one}" OR "{lower}")'
    if len(one) < _MIN_STEM:
        return '"' + lower + '"'
    # A prefix of the singular, not `"rate" OR "rates"`: a chunk holding both forms would count twice.
    return f'"{one}"*'


def search_match(query: str) -> str | None:
    """`to_match` for search: plain prose words also match their other number (`rates` finds `rate`,
    `file` finds `files`); identifiers, acronyms and capitalised names stay exact terms.

    Done in the query because FTS5 has no singular/plural tokenizer: `porter` stems identifiers too
    (`--locked` would find `lock`), which cost more on name lookups than it gained on prose.
    """
    terms = query_terms(query)
    if not terms:
        return None
    return " OR ".join(_number_forms(t) for t in terms)
