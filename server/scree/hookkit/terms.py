"""`scree.search.ftsquery`'s query terms, computed without `re` (whose import, with `enum`, is a large share of
a hook's time): the same terms, in the same order, with the same stopwords.

A term is a run of letters/digits, possibly joined by `_ - . : /` (`max-depth`, `os.path`), or
underscores then letters/digits (`__init`, `_private`), exactly as ftsquery's `_TERM` regex reads it;
tests/test_hook_terms.py checks both agree on every pattern of the recorded searches and more.
"""

from __future__ import annotations

_JOINERS = "_-.:/"

# The same list as scree.search.ftsquery.STOPWORDS (a test keeps them equal); not imported, since
# importing scree.search.ftsquery imports `re`.
STOPWORDS = frozenset(
    """a an and are as at be by can could do does did for from how i if in into is it its me my of on or
    our should so than that the their then there these this to was we what when where which who why will
    with would you your get use using want need""".split()
)


def _alnum_run(s: str, i: int) -> int:
    n = len(s)
    while i < n and s[i].isalnum():
        i += 1
    return i


def iter_terms(s: str) -> list[str]:
    """Every term of `s`, in order, as `_TERM.finditer` finds them."""
    out: list[str] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c.isalnum():
            end = _alnum_run(s, i)
            while True:  # (?:[_\-.:/]+[^\W_]+)*
                j = end
                while j < n and s[j] in _JOINERS:
                    j += 1
                if j > end and j < n and s[j].isalnum():
                    end = _alnum_run(s, j)
                else:
                    break
            out.append(s[i:end])
            i = end
        elif c == "_":
            j = i
            while j < n and s[j] == "_":
                j += 1
            if j < n and s[j].isalnum():
                end = _alnum_run(s, j)
                while True:  # (?:_+[^\W_]+)*
                    k = end
                    while k < n and s[k] == "_":
                        k += 1
                    if k > end and k < n and s[k].isalnum():
                        end = _alnum_run(s, k)
                    else:
                        break
                out.append(s[i:end])
                i = end
            else:
                i += 1
        else:
            i += 1
    return out


def query_terms(query: str) -> list[str]:
    """As scree.search.ftsquery.query_terms: terms in order, deduplicated case-insensitively, stopwords dropped
    unless that leaves nothing."""
    seen: set[str] = set()
    terms: list[str] = []
    for t in iter_terms(query):
        key = t.lower()
        if key not in seen:
            seen.add(key)
            terms.append(t)
    content = [t for t in terms if t.lower() not in STOPWORDS]
    return content or terms


def to_match(query: str) -> str | None:
    """As scree.search.ftsquery.to_match: an FTS5 MATCH OR-ing the quoted terms, or None without a term."""
    terms = query_terms(query)
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
