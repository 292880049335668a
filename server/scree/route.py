"""Routing: which search mode answers a query when the user asked for `auto`.

Dense embeddings blur names (`PURGE_OLD_RECORDS`, `psycopg_pool`, `--max-depth`): a query naming one
needs BM25 beside the vectors. A plain-language question is answered best by the vectors alone.
A later step adds the repo's own vocabulary (names found in its code and manifests): pass it as
`vocabulary` and a query word found there routes to hybrid too.
"""

from __future__ import annotations

import re
from typing import AbstractSet

_EDGE_PUNCT = "\"'`“”‘’()[]{}<>,;:!?."
_CAMEL = re.compile(r"[a-z][A-Z]")
_DOTTED = re.compile(r"[A-Za-z]\.[A-Za-z_]")


def looks_like_identifier(word: str) -> bool:
    """True for a word that names something in code or config rather than being prose.

    The rule from the issue: a letter plus `_` or a digit (`PURGE_OLD_RECORDS`, `psycopg_pool`, `R7-Q2`, `v2`;
    not `ID`, `API`, `2026`, `well-known`). By the same principle also: a command-line flag (`--locked`,
    `-rf`), camelCase (`healthCheck`), dotted names (`os.path`, `scrape_configs.job_name`), `::` paths and
    `$VARS`, and anything the user put in backticks.
    """
    if word.startswith("`") and word.endswith("`") and len(word) > 2:
        return True
    w = word.strip(_EDGE_PUNCT)
    if not w:
        return False
    has_letter = any(c.isalpha() for c in w)
    if not has_letter:
        return False
    if "_" in w or any(c.isdigit() for c in w):
        return True
    if re.match(r"^--?[A-Za-z]", w):
        return True
    if w.startswith("$") or "::" in w:
        return True
    return bool(_CAMEL.search(w) or _DOTTED.search(w))


def route(query: str, vocabulary: AbstractSet[str] = frozenset()) -> str:
    """`hybrid` when a query word looks like an identifier (or is in the repo's vocabulary), else `semantic`."""
    for word in query.split():
        if looks_like_identifier(word):
            return "hybrid"
        if vocabulary and word.strip(_EDGE_PUNCT) in vocabulary:
            return "hybrid"
    return "semantic"
