"""A chunk's punctuated tokens, as the literal (trigram) index reads them (issue 38).

The keyword index (`chunks_fts`, unicode61) drops punctuation, so a name whose punctuation is the name
(`path:`, `%%comment%%`, `{{date}}`, `--callout-icon`, `a.b.c`, `max_connections`) was found only by a scan of
every chunk (`queries.verbatim_search`, 142 ms at 100k chunks). `chunks_literal` (db/schema.py, migration 8) is
a contentless FTS5 trigram table with one row per chunk: its "punctuated tokens" (`row`), which a trigram
phrase finds by any substring of three or more characters (`queries.literal_search`).

Why these tokens suffice. A name never holds whitespace, so a name with punctuation that a chunk spells is a
substring of one of the chunk's whitespace-separated tokens. Such a token always qualifies: it is kept when,
once the characters of `EDGES` (quotes, brackets of prose, sentence punctuation, backticks, emphasis stars)
are stripped from its ends, what is left holds a letter or digit and a character that is neither. A name's own
edge characters are letters or digits or name punctuation (`-_$#@%[]{}:` ...), never one of `EDGES`, so the
strip stops at the name's edges at the latest: the name's letters and its punctuation survive it, and the
token qualifies. Prose tokens do not: `word,`, `(word)`, `"quoted"`, `word.` strip to a bare word (the word
index's), and `---` or `|` hold no letter or digit. A needle whose own ends are `EDGES` characters (`.env`,
`(a.b)`) is looked up by its core without them (`core`), which the same argument covers, and checked whole.
Measured: the qualifying tokens are 20-35 % of a chunk's text bytes.

This module is pure, like `cjk`: `row` makes the values a chunk's row is inserted with and, the table being
contentless, deleted with (FTS5 deletes a row given the values it indexed). `version` names the rules: an
index made under other rules (or before migration 8) makes every row again (`sync.follow_literal`).
"""

from __future__ import annotations

# Stripped from a token's ends before it is judged (never from what is stored: the raw token is kept).
EDGES = "\"'\u201c\u201d\u2018\u2019`()<>,;.?!*"

# The trigram tokenizer answers a phrase of at least one trigram.
MIN_CHARS = 3


def version() -> str:
    """The rules the rows are made by (stored in the index's meta: other rules make the rows again)."""
    return "1"


def _punctuated(core: str) -> bool:
    """`core` holds a letter or digit and a character that is neither."""
    return not core.isalnum() and any(c.isalnum() for c in core)


def row(heading: str, text: str, names: str) -> str:
    """The `chunks_literal` row of a chunk: the whitespace-separated tokens of its heading, text and names
    that are punctuated once `EDGES` are stripped from their ends, each raw (unstripped) and once, in the
    order first seen, joined by single spaces ('' when there is none)."""
    kept: dict[str, None] = {}
    for part in (heading, text, names):
        for token in part.split():
            if token in kept or token.isalnum():
                continue
            if _punctuated(token.strip(EDGES)):
                kept[token] = None
    return " ".join(kept)


def core(needle: str) -> str:
    """`needle` without `EDGES` at its ends: what the table is asked for (`searchable`)."""
    return needle.strip(EDGES)


def searchable(needle: str) -> bool:
    """True when `chunks_literal` finds every chunk that spells `needle`: it holds no whitespace (a token
    never does), and its `core` has 3+ characters (a trigram) with a letter or digit and a character that is
    neither (a token holding it qualifies, see the module's docstring). A needle of letters and digits only
    is the word index's; the others are left to the scan (`queries.verbatim_search`)."""
    if not needle or any(c.isspace() for c in needle):
        return False
    middle = core(needle)
    return len(middle) >= MIN_CHARS and _punctuated(middle)


def match(needle: str) -> str:
    """The FTS5 MATCH of a `searchable` needle: its core as one quoted string (`"` doubled)."""
    return '"' + core(needle).replace('"', '""') + '"'
