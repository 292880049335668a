"""Routing: which search mode answers a query when the user asked for `auto`.

Dense embeddings blur names (`PURGE_OLD_RECORDS`, `psycopg_pool`, `--max-depth`): a query naming one
needs BM25, so it never goes to the vectors alone. Whether a plain-language question (one naming
nothing) also runs hybrid, or the vectors alone, depends on the embedder: `QUESTION_ROUTE` holds the
rule measured on the dev sets per embedder kind. For the local model BM25 beside the vectors beats the
vectors alone (MiniLM confuses near-identical sibling sections that BM25 tells apart by their words).
A bare name or short keyword phrase with no question around it (`--locked`, `CARGO_HOME`,
`promtool check rules`) is a lookup, where BM25 alone ranks best: the vectors only add neighbours. A
lookup of two or three plain words that name nothing (`serve static files`) is a topic, not a name: it
is routed as a question (`LOOKUP_ROUTE`), where the vectors help.
`vocabulary` holds the repo's own names (found in its code and manifests): a query word found there
counts as a name, like one that looks like an identifier.
"""

from __future__ import annotations

import re
from typing import AbstractSet, List

from ..notes.sectiontext import fold_name
from .ftsquery import STOPWORDS

# The marks around a word as a query types it (quotes, brackets, sentence punctuation), stripped before the word is
# judged; `questionentries` strips them to find a name as typed.
EDGE_PUNCT = "\"'`“”‘’()[]{}<>,;:!?."
# A lookup is short: past three words a query is a phrase or a question, where the vectors help.
MAX_LOOKUP_WORDS = 3
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
    w = word.strip(EDGE_PUNCT)
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


def is_lookup(query: str) -> bool:
    """True for a bare name or short keyword phrase: 1-3 words, no question mark, no function word.

    `--locked`, `CARGO_HOME`, `cargo metadata`, `promtool check rules` are lookups; `how is
    psycopg_pool sized`, `the retention flag` and `rotate keys?` are not (a function word or a
    question mark means the user is asking, not naming).
    """
    words = query.split()
    if not words or len(words) > MAX_LOOKUP_WORDS or query.rstrip().endswith("?"):
        return False
    return not any(w.strip(EDGE_PUNCT).lower() in STOPWORDS for w in words)


# "What does X do?", "What is X for?", "What's X?": a question that says nothing but one name asks what a lookup of the
# name asks (issue 38). Not "What does X do to Y?": that asks about a case. An agent often leaves the question mark
# off ("what does --no-install do"); the question is the same.
ASKED_NAMES = True
_ASKED_NAME = (re.compile(r"^what(?:'s|\s+is|\s+are)\s+(?:the\s+)?(\S+?)(?:\s+for)?\s*\??$", re.IGNORECASE),
               re.compile(r"^what\s+does\s+(?:the\s+)?(\S+)\s+(?:do|mean)\s*\??$", re.IGNORECASE))


def asked_name(query: str, vocabulary: AbstractSet[str] = frozenset()) -> str | None:
    """The name a question asks about and nothing else ("What does `myst_heading_anchors` do?":
    `myst_heading_anchors`), as typed; None for any other query, or when the word is no name (`named_identifiers`)."""
    if not ASKED_NAMES:
        return None
    for pattern in _ASKED_NAME:
        found = pattern.match(query.strip())
        if found:
            word = found.group(1)
            names = named_identifiers(word, vocabulary)
            if len(names) == 1 and names[0] == fold_name(word.strip("`")):
                return word
    # A command: the program, one of the repo's names, and its subcommand ("What does scrapy view do?").
    found = _ASKED_COMMAND.match(query.strip()) if ASKED_COMMANDS else None
    if found and found.group(1).split()[0].casefold() in vocabulary:
        return found.group(1)
    return None


# Measured (docs/benchmarks.md): ASKED_COMMANDS.
ASKED_COMMANDS = True
_ASKED_COMMAND = re.compile(r"^(?i:what\s+does\s+(?:the\s+)?)`?([a-z][\w.-]*(?:\s+[a-z][\w-]*){1,2}?)`?"
                            r"(?i:\s+(?:command\s+)?(?:do|mean)\s*\??)$")


# Syntax that makes a token a name although its letters are a common word (issue 38: `%%comment%%`,
# `{{date}}`, `[[Page]]`, `![[embed]]`, `#tag`, `@mention`): doubled brackets or markers around letters, or a
# leading `#`/`@`. The token keeps that punctuation, so the names tier prefers a section that spells it.
_SYNTAX_TOKEN = re.compile(r"^(?:%%|\{\{|!?\[\[|[#@](?=[A-Za-z]))\S*[A-Za-z]|[A-Za-z]\S*(?:%%|\}\}|\]\])$")
# A search operator (`path:`, `tag:`, `file:`): a word and a colon, named alone or in backticks.
_OPERATOR = re.compile(r"^[A-Za-z][\w-]*:$")
_SENTENCE_END = ",;!?."
# An operator given a value (`path:docs/`, `under:ops`, `tag:#draft`): the name is the operator. Not a URL
# (`http://`), a time (`10:30`), a Windows drive or a `::` path.
OPERATOR_VALUES = True
_OPERATOR_APPLIED = re.compile(r"^([A-Za-z][\w-]+:)(?![/:])\S+$")


# A config file's section named alone or in backticks (`[flake8]`, `[tool.black]`, `[mypy-foo.*]`): its brackets make
# it the section header, as the config examples spell it; its word alone is often the tool's own name.
SECTION_HEADERS = True
_SECTION_HEADER = re.compile(r"^\[[A-Za-z_][\w.:*-]*\]$")


# A key named with its `=` and no value (`requires=`, `#egg=`, `&subdirectory=`): a keyword argument, a setting or
# a URL fragment's key, which the docs spell the same way (``requires=``); the `=` is what makes the word a name.
KEY_ASSIGNMENTS = True
_KEY_ASSIGNMENT = re.compile(r"^[#&?]?[A-Za-z_][\w.-]*=$")


def _bare_token(word: str) -> tuple[str, bool]:
    """`word` without the quotes around it and its backticks, or else a sentence's end; and whether it was
    backticked."""
    token = word.strip("\"'“”‘’")
    ticked = len(token) > 2 and token.startswith("`") and token.endswith("`")
    return (token.strip("`") if ticked else token.rstrip(_SENTENCE_END)), ticked


# A word of punctuation alone inside a question is syntax named on purpose (`What does the ?? operator do`,
# `mark text with == to highlight`), as it is when it is the whole query (`punctuation_name`); a sentence's own
# marks are not: an ellipsis, a dash, a lone mark.
PUNCTUATION_TOKENS = True
_PROSE_RUN = re.compile(r"^(?:\.+|-+|[.,;:!?])$")


def _punctuation_token(word: str) -> str:
    """`word` as a token of two or more ASCII marks, its sentence end trimmed unless that is all of it (`#^?` is
    `#^`, `??` stays); "" for anything else."""
    bare = word.strip("\"'“”‘’")
    if len(bare) > 2 and bare[0] == bare[-1] == "`":
        bare = bare[1:-1]
    if "`" in bare or not punctuation_name(bare):  # a code span's edge: the span is the name (`phrase_names`)
        return ""
    trimmed = bare.rstrip(_SENTENCE_END)
    token = trimmed if len(trimmed) >= 2 else bare
    return "" if _PROSE_RUN.match(token) else token


def syntax_token(word: str, *, alone: bool = False) -> str | None:
    """`word` as a name that keeps its punctuation (`%%comment%%`, `{{date}}`, `[[Page]]`, `#tag`, and a
    search operator such as `path:` when backticked or the whole query), or None."""
    token, ticked = _bare_token(word)
    if _SYNTAX_TOKEN.search(token):
        return token
    if (ticked or alone) and _OPERATOR.match(token):
        return token
    if SECTION_HEADERS and (ticked or alone) and _SECTION_HEADER.match(token):
        return token
    if KEY_ASSIGNMENTS and _KEY_ASSIGNMENT.match(token):
        return token
    applied = _OPERATOR_APPLIED.match(token) if OPERATOR_VALUES else None
    if applied:  # `path:docs/` uses the operator `path:`
        return applied.group(1)
    return None


def punctuation_name(query: str) -> str:
    """The query as a token of ASCII punctuation looked up on purpose (`%%`, `[[##`, `==`, `??`: syntax a
    note defines), backticks or quotes around it dropped; "" for anything else. It is the whole query, one
    token of two characters or more: a lone `?` or `.` names nothing, and several tokens are a sentence's
    leftovers."""
    token = query.strip()
    if len(token) > 2 and token[0] == token[-1] and token[0] in "`'\"":
        token = token[1:-1].strip()
    if len(token) < 2 or any(ch.isspace() or ch.isalnum() or ord(ch) > 127 for ch in token):
        return ""
    return token


# One mark typed alone (`~`, `|`, `^`) names an operator only where the docs set it off as code (``~`` (tilde):
# Jinja's concatenation); anywhere else it is a path's `~`, a table's `|`, a sentence's punctuation. Such a
# lookup is looked for as the code span `` `~` `` (which ``~`` holds too) rather than refused as punctuation.
LONE_MARKS = True


def lone_mark(query: str) -> str:
    """The query as one ASCII mark typed alone, backticks or quotes around it dropped (`~`, `` `|` ``); "" for
    anything else, a backtick or quote itself included."""
    token = query.strip()
    if len(token) == 3 and token[0] == token[-1] and token[0] in "`'\"":
        token = token[1]
    if not LONE_MARKS or len(token) != 1 or token in "`'\"" or token.isalnum() or token.isspace() or ord(token) > 127:
        return ""
    return token


def is_syntax_name(name: str) -> bool:
    """True for a name that `syntax_token`, `phrase_names` or a word of punctuation alone made: its
    punctuation, which the keyword index drops, is the name (a name of several words is only ever one of
    these)."""
    return (bool(_SYNTAX_TOKEN.search(name) or _OPERATOR.match(name) or _OPERATOR_APPLIED.match(name)
                 or (KEY_ASSIGNMENTS and _KEY_ASSIGNMENT.match(name))
                 or (SECTION_HEADERS and _SECTION_HEADER.match(name)))
            or any(ch.isspace() for ch in name) or bool(punctuation_name(name)))


# A call with arguments names what it calls (`HTTPTransport(retries=3)` is `HTTPTransport`): the arguments are
# the user's example, not the docs' spelling.
CALLS = True
_CALL = re.compile(r"^([A-Za-z_][\w.]*)\((.+)$")


def _callee(bare: str, vocabulary: AbstractSet[str]) -> str:
    """The name a word that calls with arguments calls, or "": `createProgram(configFile,` is `createProgram`.
    Only a name by its shape or the repo's (`HTTPTransport`, `createProgram`; not `default(`), and only with
    arguments, not a plural's `(s)`."""
    call = _CALL.match(bare)
    if call is None or len(call.group(2).strip(",")) < 2:
        return ""
    name = call.group(1)
    shaped = looks_like_identifier(name) or any(c.isupper() for c in name[1:]) or name in vocabulary
    return name if shaped else ""


def named_identifiers(query: str, vocabulary: AbstractSet[str] = frozenset()) -> List[str]:
    """The names a query spells out verbatim (identifiers, vocabulary words), case-folded, in order.

    Quotes, brackets and a call's `()` around a name are not part of it: `histogram_quantile()` and
    `` `api_host` `` name `histogram_quantile` and `api_host`; a flag keeps its dashes (`--locked`). A syntax
    token keeps the punctuation that makes it one (`%%comment%%`, `{{date}}`, `path:`: `syntax_token`).
    """
    names: List[str] = []
    seen: set[str] = set()  # a list's `in` would make a long query quadratic
    loose: List[str] = []  # words of punctuation alone (`??`)
    words = query.split()
    for word in words:
        bare = word.strip(EDGE_PUNCT)
        token = syntax_token(word, alone=len(words) == 1)
        if PUNCTUATION_TOKENS and token is None and (marks := _punctuation_token(word)):
            loose.append(marks)  # after the phrases: a marker of `{? text ?}` is not a name apart from it
            continue
        if token is not None:
            # An operator given a value (`printers:admin`) names the whole token first, then the operator
            # (`syntax_token` gives back a shorter token only for such an operator).
            whole = _bare_token(word)[0]
            found = [whole, token] if whole != token else [token]
        elif CALLS and (called := _callee(bare, vocabulary)):
            found = [called]
        elif looks_like_identifier(word) or (vocabulary and bare in vocabulary):
            found = [bare]
        else:
            continue
        for name in (fold_name(f) for f in found):
            if name and name not in seen:
                seen.add(name)
                names.append(name)
    phrases = phrase_names(query) if PHRASE_NAMES else []
    for phrase in phrases:
        if phrase not in seen:
            seen.add(phrase)
            names.append(phrase)
    inside = {word for phrase in phrases for word in phrase.split()}
    for marks in loose:
        if marks not in seen and marks not in inside:
            seen.add(marks)
            names.append(marks)
    return names


# The dotted names of one query whose entries are looked up (`names.dotted_entries`): a question names one or two.
MAX_DOTTED_NAMES = 4
_DOTTED_NAME = re.compile(r"[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+")


def dotted_names(query: str) -> list[str]:
    """The dotted names `query` spells (`httpx.Proxy`, `tool.poetry.requires-plugins`, `uvicorn.run()`), as typed:
    quotes, a call's parentheses and arguments, and end punctuation trimmed."""
    out: list[str] = []
    for word in query.split():
        bare = word.strip(EDGE_PUNCT).split("(", 1)[0]  # a call's arguments aside: `httpx.Client(http2=True)`
        if _DOTTED_NAME.fullmatch(bare) and bare not in out:
            out.append(bare)
            if len(out) == MAX_DOTTED_NAMES:  # a pasted log of dotted names must not cost a lookup each
                break
    return out


def operator_names(query: str) -> list[str]:
    """The search operators `query` spells, as typed: an operator given a value, then the operator (`under:ops`, then
    `under:`), whose entries `names.dotted_entries` looks up."""
    out: list[str] = []
    words = query.split()
    for word in words:
        token = syntax_token(word, alone=len(words) == 1)
        if token is None or not _OPERATOR.match(token):
            continue
        for name in (_bare_token(word)[0], token):
            if name not in out:
                out.append(name)
        if len(out) >= MAX_DOTTED_NAMES:
            break
    return out[:MAX_DOTTED_NAMES]


# Syntax spelled over several words is a name too (issue 38): a code span the query quotes (`` `|> default("x")` ``,
# `` `poetry show --why` ``), and a run of two to four words that opens and closes with markers of two or more
# marks (`{{ page.title }}`, `[= title =]`, `.. code-block::`). Each keeps its punctuation and is matched with any
# whitespace between its words.
PHRASE_NAMES = True
CODE_SPAN = re.compile(r"`([^`]+)`")  # a code span's text (`ranking.heading_codes` reads headings' so)
_MARKS_OPEN = re.compile(r"^[^\w\s]{2,}")
_MARKS_CLOSE = re.compile(r"[^\w\s]{2,}$")
_PROSE_MARKS = {"--", "---", "...", "?!", "!!", "??", "?)", ".)", "),", ")."}  # dashes, ellipses, ends of sentences


# A tool's comment directive ("# noqa: E501", "# fmt: skip", "# isort: skip_file", "# type: ignore[attr-defined]",
# "# flake8: noqa"): a `#`, a word and a colon, then its value; the docs spell it so, in code and in prose, and its
# words alone are the tool's name and common words. One value word: "# pragma: no cover" is found by "# pragma: no".
COMMENT_DIRECTIVES = True
_COMMENT_DIRECTIVE = re.compile(r"(?<![\w#])#\s?[A-Za-z][\w-]*:\s?[\w\[\]*.,-]*[\w\]*]")


def phrase_names(query: str) -> List[str]:
    """The names of several words a query spells (see PHRASE_NAMES), case-folded, single-spaced, in order."""
    out: List[str] = []
    if COMMENT_DIRECTIVES:
        for found in _COMMENT_DIRECTIVE.findall(query):
            out.append(" ".join(found.replace("#", "# ", 1).replace(":", ": ", 1).split()).casefold())
    for span in CODE_SPAN.findall(query):
        words = span.split()
        if len(words) > 1:
            out.append(" ".join(words).casefold())
    words = CODE_SPAN.sub(" ", query).split()
    i = 0
    while i < len(words):
        found = 0
        if _MARKS_OPEN.match(words[i]) and words[i] not in _PROSE_MARKS:
            for j in range(i + 1, min(len(words), i + 4)):
                last = words[j].rstrip(_SENTENCE_END) if len(words[j].rstrip(_SENTENCE_END)) > 1 else words[j]
                if _MARKS_CLOSE.search(last) and last not in _PROSE_MARKS:
                    found = j
                    out.append(" ".join([*words[i:j], last]).casefold())
                    break
        i = found + 1 if found else i + 1
    return out


def common_words_only(query: str, vocabulary: AbstractSet[str] = frozenset()) -> List[str]:
    """The query's words, lower-cased and once each, when every one is a function word (`STOPWORDS`:
    "how do I use it", "what is the") and none names something (an identifier, a `vocabulary` word, an
    all-capitals word such as `GET`); else []. Such a query has no topic: the vectors would return the
    nearest sections to nothing in particular."""
    words: List[str] = []
    for word in query.split():
        bare = word.strip(EDGE_PUNCT)
        if not bare:
            continue
        if looks_like_identifier(word) or (vocabulary and bare in vocabulary) or (len(bare) > 1 and bare.isupper()):
            return []
        for part in _WORD_PARTS.findall(bare):  # "don't" is two function words, as the keyword index sees it
            if part.lower() not in STOPWORDS:
                return []
            if part.lower() not in words:
                words.append(part.lower())
    return words


_WORD_PARTS = re.compile(r"[^\W_]+")


# How `auto` routes a question (anything that is not a lookup), per embedder kind, as measured on the
# dev sets for that embedder with benchmarks/quality.py (docs/benchmarks.md). The local model: "names"
# lost queries_dev paraphrase top1 45% -> 35% for httpx plain 60% -> 64%, so "hybrid". A kind without
# a row (not measured yet) gets DEFAULT_QUESTION_ROUTE.
#   "hybrid" - every question runs hybrid;
#   "names"  - a question naming something (an identifier or a vocabulary word) runs hybrid, a plain
#              question runs semantic.
QUESTION_ROUTE: dict[str, str] = {
    "local": "hybrid",
}
DEFAULT_QUESTION_ROUTE = "hybrid"


def embedder_kind(embedder_id: str) -> str:
    """The embedder's kind from its id (`local:all-MiniLM-L6-v2-int8:256` -> `local`)."""
    return embedder_id.split(":", 1)[0]


# How `auto` routes a lookup (`is_lookup`: 1-3 words, no question), measured on every set and on 2-4 word
# phrases written blind for each (benchmarks/sets/short-phrases; docs/benchmarks.md, "Short phrases"):
#   "keyword" - every lookup runs keyword (until issue 29);
#   "names"   - a lookup naming something (an identifier or a vocabulary word) runs keyword; one of plain
#               words ("static files", "CORS") is routed as a question;
#   "phrases" - as "names", but a single word (`args`, `CORS`) stays a lookup: only phrases of plain words
#               ("serve static files", "retry failed requests") are routed as questions.
# "phrases": the short phrases' MRR rose on all seven sets (top1 on five; starlette's held, mdx lost one
# of 13), no other stratum moved. "names" also lifted two one-word topics but cost dev identifier top1 85% -> 80% (`args`).
LOOKUP_ROUTE = "phrases"


def routed_as_lookup(query: str, vocabulary: AbstractSet[str] = frozenset()) -> bool:
    """True for a lookup `auto` answers from its own words (keyword): a bare name or short keyword
    phrase that names something, or a single word (LOOKUP_ROUTE). A short phrase of plain words is
    routed as a question, and like one may be widened by the caller's guess (search/expansion.py)."""
    return is_lookup(query) and (LOOKUP_ROUTE == "keyword" or bool(named_identifiers(query, vocabulary))
                                 or (LOOKUP_ROUTE == "phrases" and len(query.split()) == 1))


def route(query: str, vocabulary: AbstractSet[str] = frozenset(), embedder: str = "local") -> str:
    """`keyword` for a lookup (a bare name or keyword phrase: `routed_as_lookup`); for a question, what
    the embedder's rule in QUESTION_ROUTE says: `hybrid`, or `semantic` when it names nothing.

    `embedder` is the embedder's kind or id (`local`, `api`). Never `semantic` for a query naming an
    identifier or a `vocabulary` word: dense vectors blur names, BM25 needs to see them.
    """
    if routed_as_lookup(query, vocabulary):
        return "keyword"
    rule = QUESTION_ROUTE.get(embedder_kind(embedder), DEFAULT_QUESTION_ROUTE)
    if rule == "names" and not named_identifiers(query, vocabulary):
        return "semantic"
    return "hybrid"
