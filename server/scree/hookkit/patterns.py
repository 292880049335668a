"""From a grep pattern to the words it looks for, and to an FTS5 query that finds notes holding them.

A regex is reduced to its literal words: escapes like `\\b` `\\s` `\\d`, classes `[...]`, anchors,
quantifiers and `.*` separate words; `(a|b)` keeps its meaning (either word), so `def (load|save)_x`
becomes `"def" AND ("load" OR "save") AND "x"`. Each word is quoted by `scree.search.ftsquery`, so nothing
in a pattern can act as FTS5 syntax.
"""

from __future__ import annotations

from .terms import STOPWORDS, query_terms, to_match

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Sequence, Union

    # A parsed pattern: alternatives (OR) of sequences (AND) of words or nested groups.
    Alt = list["Seq"]
    Seq = list[Union[str, "Alt"]]

_SEP = " "
# Structural tokens; a literal "|" or "(" in a basic regex stays a plain character.
_ALT, _OPEN, _CLOSE, _OPT = "\x01|", "\x01(", "\x01)", "\x01?"
_STRUCT = {"|": _ALT, "(": _OPEN, ")": _CLOSE}
_CLASS_ESCAPES = frozenset("bBsSwWdDAzZGntrfvhHRNkKX<>`'")
# Words that start code rather than a sentence ("import numpy as np" is not a question).
_CODE_WORDS = frozenset({"import", "from", "def", "class", "fn", "func", "function", "return", "let", "const",
                         "var", "pub", "public", "private", "static", "select", "insert", "update", "package",
                         "use", "struct", "impl", "type", "interface", "async", "await", "export", "require",
                         "include", "#include", "new", "raise", "throw", "try", "catch", "println", "print"})


def _tokens(pattern: str, syntax: str) -> list[str]:
    """The pattern as literal characters plus structural tokens (_ALT, _OPEN, _CLOSE, _OPT: optional group)."""
    out: list[str] = []
    ere = syntax != "bre"
    i, n = 0, len(pattern)

    def last_is_word() -> bool:
        return bool(out) and len(out[-1]) == 1 and out[-1].isalnum()

    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            i += 2
            if not ere and d in "|()":
                out.append(_STRUCT[d])
            elif not ere and d == "{":  # BRE interval \{n,m\}
                j = pattern.find("\\}", i)
                i = n if j < 0 else j + 2
            elif d in "pP" and i < n and pattern[i] == "{":  # \p{L}
                j = pattern.find("}", i)
                i = n if j < 0 else j + 1
                out.append(_SEP)
            elif d in "xu":  # \x41, \u00e9: a character we cannot name; ends the word
                while i < n and pattern[i] in "0123456789abcdefABCDEF{}":
                    i += 1
                out.append(_SEP)
            elif d in _CLASS_ESCAPES or d.isdigit():
                out.append(_SEP)
            elif not ere and d in "+?":
                if out and out[-1] == _CLOSE and d == "?":
                    out.append(_OPT)
            else:
                out.append(d)
        elif c == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                if pattern.startswith("[:", j):
                    k = pattern.find(":]", j + 2)
                    j = n if k < 0 else k + 2
                else:
                    j += 1
            body = pattern[i + 1:j]
            letters = {ch.lower() for ch in body}
            # [Hh]ooks -> hooks; any other class is an unknown character.
            out.append(letters.pop() if len(letters) == 1 and body.isalpha() and not body.startswith("^") else _SEP)
            i = j + 1
        elif ere and c in "|)":
            out.append(_STRUCT[c])
            i += 1
        elif ere and c == "(":
            out.append(_OPEN)
            i += 1
            if i < n and pattern[i] == "?":  # (?:  (?i)  (?P<n>  (?<n>  (?=  (?!  (?<=
                j = i + 1
                while j < n and pattern[j] not in ":)>=!":
                    j += 1
                if j < n and pattern[j] == ")":  # inline flags (?i): not a group at all
                    out.pop()
                i = j + 1
        elif c == "*" or (ere and c in "+?"):
            if out and out[-1] == _CLOSE and c in "*?":
                out.append(_OPT)
            i += 1
        elif ere and c == "{":
            j = i + 1
            while j < n and (pattern[j].isdigit() or pattern[j] == ","):
                j += 1
            if j < n and pattern[j] == "}" and j > i + 1:
                if pattern[i + 1] in "0," and out and out[-1] == _CLOSE:
                    out.append(_OPT)
                i = j + 1
            else:
                out.append(c)
                i += 1
        elif c == ".":
            nxt = pattern[i + 1] if i + 1 < n else ""
            # a.b is most likely a literal dot (os.path); .* and a dot at an edge are wildcards.
            out.append("." if last_is_word() and nxt.isalnum() else _SEP)
            i += 1
        elif c in "^$":
            out.append(_SEP)
            i += 1
        else:
            out.append(c)
            i += 1
    return out


def parse(pattern: str, syntax: str) -> Alt:
    """The pattern as alternatives of sequences of words and groups (`fixed`: one sequence per line)."""
    if syntax == "fixed":
        return [[*query_terms(line)] for line in pattern.split("\n")]
    toks = _tokens(pattern, syntax)
    pos = 0

    def alt() -> Alt:
        nonlocal pos
        seqs = [seq()]
        while pos < len(toks) and toks[pos] == _ALT:
            pos += 1
            seqs.append(seq())
        return seqs

    def seq() -> Seq:
        nonlocal pos
        items: Seq = []
        text: list[str] = []
        while pos < len(toks) and toks[pos] not in (_ALT, _CLOSE):
            t = toks[pos]
            pos += 1
            if t == _OPEN:
                items.extend(query_terms("".join(text)))
                text.clear()
                group = alt()
                if pos < len(toks) and toks[pos] == _CLOSE:
                    pos += 1
                if pos < len(toks) and toks[pos] == _OPT:  # optional group: says nothing about the text
                    pos += 1
                else:
                    items.append(group)
            else:
                text.append(t)
        items.extend(query_terms("".join(text)))
        return items

    result = alt()
    while pos < len(toks):  # a stray ")" closes nothing; keep reading
        pos += 1
        result[-1].extend(item for s in alt() for item in s)
    return result


def _seq_expr(items: Seq) -> str | None:
    words = [w for w in items if isinstance(w, str)]
    content = {w.lower() for w in words if w.lower() not in STOPWORDS}
    parts: list[str] = []
    seen: set[str] = set()
    for item in items:
        if isinstance(item, str):
            key = item.lower()
            if key in seen or (content and key in STOPWORDS):
                continue
            seen.add(key)
            quoted = to_match(item)
            if quoted:
                parts.append(quoted)
        else:
            sub = _alt_expr(item)
            if sub:
                parts.append(sub)
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else "(" + " AND ".join(parts) + ")"


def _alt_expr(seqs: Alt) -> str | None:
    subs = [_seq_expr(s) for s in seqs]
    if any(s is None for s in subs):  # an empty alternative matches anything
        return None
    unique = list(dict.fromkeys(s for s in subs if s))
    return unique[0] if len(unique) == 1 else "(" + " OR ".join(unique) + ")"


def all_words_match(patterns: Sequence[str], syntax: str) -> str | None:
    """An FTS5 MATCH that holds for a section containing every word of one of the patterns' alternatives.

    Several patterns (`-e a -e b`) are alternatives too. None when no pattern has a searchable word.
    """
    exprs = [e for e in (_alt_expr(parse(p, syntax)) for p in patterns) if e]
    if not exprs:
        return None
    unique = list(dict.fromkeys(exprs))
    return unique[0] if len(unique) == 1 else " OR ".join(unique)


def pattern_words(patterns: Sequence[str], syntax: str) -> list[str]:
    """Every literal word of the patterns, in order, deduplicated, stopwords dropped unless nothing else is left."""
    words: list[str] = []

    def walk(node: Alt) -> None:
        for s in node:
            for item in s:
                if isinstance(item, str):
                    words.append(item)
                else:
                    walk(item)

    for p in patterns:
        walk(parse(p, syntax))
    return query_terms(" ".join(words))


def is_plain_language(pattern: str) -> bool:
    """True for a pattern that reads like a phrase of prose: three or more plain words and no regex syntax."""
    words = pattern.split()
    if len(words) < 3 or words[0].lower() in _CODE_WORDS:
        return False
    for w in words:
        core = w.strip(",.;:!?\"'")
        if not core or not all(ch.isalpha() or ch in "-'" for ch in core):
            return False
        if any(ch.isupper() for ch in core[1:]):  # camelCase, ALLCAPS_ish names
            return False
    return True


# Stripped from a word's ends before it is looked up among the stopwords (as scree.search.route's).
_EDGE_PUNCT = "\"'`“”‘’()[]{}<>,;:!?."


def asks_for_guess(query: str) -> bool:
    """True when the suggested search_docs query takes the agent's guess at the answer: plain language
    (`is_plain_language`) that search does not treat as a lookup. As scree.search.route.is_lookup (a test
    keeps them in step): up to three words with no function word and no question mark are matched by
    their own words, and a guess sent with them is not used."""
    if not is_plain_language(query):
        return False
    words = query.split()
    lookup = len(words) <= 3 and not query.rstrip().endswith("?") and \
        not any(w.strip(_EDGE_PUNCT).lower() in STOPWORDS for w in words)
    return not lookup
