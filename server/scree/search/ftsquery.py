"""Turn a user's words into a safe FTS5 MATCH expression.

Every word reaches FTS5 as a quoted term, so FTS5 syntax in a query (`AND`, `NEAR`, `*`, `^`, `col:`,
an unbalanced quote, `call_me(`) is searched for as words and never parsed as an operator.
`search_match` is the form search uses: plain words also match their other grammatical number.
A query holding Chinese, Japanese or Korean text is matched against the chunks' CJK rows by `cjk_match`
(its runs as bigrams, db/cjk.py), and against the other chunks by `search_match` of its other words.
"""

from __future__ import annotations

import re

from ..db import cjk

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


# How a query's CJK runs are matched (measured on FastAPI's translated docs, docs/benchmarks.md, issue 27):
# "or" ORs each run's bigrams with the other words, one BM25 over them all; "phrases" adds each run of three
# or more characters as a phrase of its bigrams (a chunk holding the whole run scores it once more).
CJK_QUERY = "or"


def without_cjk(query: str) -> str:
    """The query's text with its CJK runs taken out (a word glued to a run is split off it)."""
    return cjk.split(query)[0]


def _content_match(text: str) -> str | None:
    """`search_match` of `text`'s words that are not stopwords (None when none is left): beside a CJK run,
    English function words say nothing."""
    terms = [t for t in query_terms(text) if t.lower() not in STOPWORDS]
    return " OR ".join(_number_forms(t) for t in terms) if terms else None


def cjk_match(query: str) -> str | None:
    """The MATCH for `chunks_cjk` of a query holding Chinese, Japanese or Korean text, or None for a query
    without any: each run's bigrams (a lone character as itself) and the query's other words as
    `search_match` writes them, OR-ed, so BM25 ranks the chunks sharing the most and rarest of them."""
    rest, runs = cjk.split(query)
    if not runs:
        return None
    parts: list[str] = []
    other = _content_match(rest)
    if other:
        parts.append(other)
    seen: set[str] = set()
    for run in runs:
        for gram in cjk.bigrams(run):
            if gram not in seen:
                seen.add(gram)
                parts.append('"' + gram + '"')
    if CJK_QUERY == "phrases":
        parts += ['"' + " ".join(cjk.bigrams(run)) + '"' for run in dict.fromkeys(runs) if len(run) > 2]
    elif CJK_QUERY != "or":
        raise ValueError(f"unknown CJK_QUERY {CJK_QUERY!r}")
    return " OR ".join(parts)


def other_words_match(query: str) -> str | None:
    """The MATCH for the chunks without CJK text of a query holding some: its other words (`search_match`,
    stopwords dropped), None when it has none."""
    return _content_match(without_cjk(query))
