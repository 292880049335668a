"""The query's language first, and one result per page across its translations (issue 27).

In a repository with translated docs the same page exists in several languages, and a keyword search for
a term the translations keep (`middleware`, a function name) finds every copy; the short translated pages
win BM25's length normalisation, so an agent asking in English got five copies of one page in languages it
did not ask for, and the English page not at all. So when the index holds notes in more than one language:

- The query's language is told (`query_language`): by its script when only one of the index's languages
  is written in it (kana: Japanese, hangul: Korean), else by the identifier among the index's languages
  that share its script, at 90% confidence; a query it cannot tell (a name, a few words) is taken as
  English when the index has English notes (agents ask in English), else as the language with most notes.
- The search runs first over the notes in that language (and those whose language cannot be told), then,
  only when that leaves places of the k free, over the rest. Hits in other languages never push out a note
  in the query's language; for a language the embedder does not read they are keyword hits.
- Copies of one page (the same page key: `notes/language.py`) are one result: the first hit of a page
  stands for it, its copies in other languages are folded into it (`also_in`, every language the page
  exists in, searched or not), so copies never fill the top k.

A query the embedder cannot read (`unread_language`: most of its words in a script no language the model
reads is written in, such as a Japanese question for the English-only local model, or, among an index's
languages, a language it does not read) is not ranked by that model's vectors, which for it are noise:
`auto` answers it by keyword (Chinese, Japanese and Korean text matched by bigrams: db/cjk.py). When no
note in its language matches, the answer says so instead of filling the places with other languages' notes.

An index in one language (every benchmark set) is searched exactly as before, English queries included.
The folding is pure (`fold`); the search itself is `search.search`, restricted to the files of each pass.
"""

from __future__ import annotations

from dataclasses import replace
from typing import AbstractSet, Any, Callable, Mapping, Sequence, cast

from ..db import queries
from ..embed import Embedder, readable_languages
from ..notes import language
from ..notes.policy import NotesPolicy
from ..records import FileScope, FilesExcept, Hit, SearchResult
from ..index.store import Index
from .search import Query
from .secondarypass import MAX_K, NOTHING_FOUND as _NOTHING, search


def _written_in(code: str, script: str) -> bool:
    """Whether the language `code` is written in `script` (kanji are Japanese as much as Chinese)."""
    return language.script_of(code) == script or (script == "Hani" and language.family(code) == "ja")


def query_languages(text: str, languages: Mapping[str, int],
                    identify: Callable[[str, Sequence[str]], tuple[str, float]] = language.identify) -> list[str]:
    """The language families of the query `text` among the index's `languages` (code -> notes; `und` left
    out), the one it is taken to be in first (see the module doc). A query in a script other than Latin that
    several of those languages are written in, and that the identifier cannot place (kanji alone: Japanese
    or Chinese), lists them all: each is searched first. `identify` is the identifier (a parameter for tests)."""
    known = {code: n for code, n in languages.items() if code != language.UNDETERMINED}
    fallback_pool = known
    also: list[str] = []
    script = language.text_script(text)
    if script is not None:
        same = {c: n for c, n in known.items() if _written_in(c, script)}  # kanji alone: Japanese or Chinese
        if len({language.family(c) for c in same}) == 1:
            return [language.family(next(iter(same)))]
        if same:
            lang, p = identify(text, sorted(same))
            if p >= language.MIN_CONFIDENCE and any(language.same_language(lang, c) for c in same):
                return [language.family(lang)]
            fallback_pool = same
            if script != "Latn":
                also = sorted({language.family(c) for c in same})
    if not fallback_pool:
        fallback_pool = known
    if any(language.family(c) == "en" for c in fallback_pool):
        first = "en"
    else:
        first = language.family(max(sorted(fallback_pool), key=lambda c: fallback_pool[c])) if fallback_pool else "en"
    return [first, *(f for f in also if f != first)]


def query_language(text: str, languages: Mapping[str, int],
                   identify: Callable[[str, Sequence[str]], tuple[str, float]] = language.identify) -> str:
    """The language family the query `text` is taken to be in (`query_languages`' first)."""
    return query_languages(text, languages, identify)[0]


# The language a query is taken to be in when its script is all that says so.
_SCRIPT_LANGUAGE = {"Jpan": "ja", "Hang": "ko", "Hani": "zh"}




def unread_language(text: str, readable: AbstractSet[str] | None, asked: str | None = None) -> str | None:
    """The language (a code, or a script's code when no language is known) of the query `text` when an
    embedder reading `readable` (None: any) cannot read it, else None: when the query's `asked` language
    (among the index's) is not one it reads, or when at least half of its words are written in a script
    none of its languages is written in (`RateLimiter 미들웨어` is Korean; `what does λ mean` is English)."""
    if readable is None:
        return None
    if asked is not None and asked != language.UNDETERMINED and not language.reads(readable, asked):
        return asked
    scripts = [language.text_script(w) for w in text.split()]
    foreign = [s for s in scripts if s is not None and s != "Latn" and not any(_written_in(c, s) for c in readable)]
    familiar = sum(1 for s in scripts if s is not None) - len(foreign)
    if not foreign or len(foreign) < familiar:
        return None
    script = max(set(foreign), key=foreign.count)
    if asked is not None and _written_in(asked, script):
        return asked
    return _SCRIPT_LANGUAGE.get(script, script)


def _name(code: str) -> str:
    """A language's name, or a script's (`unread_language` answers a script's code when no language is known)."""
    return f"the {code} script" if len(code) == 4 and code[:1].isupper() else language.language_name(code)


def unmatched_note(langs: Sequence[str], languages: Mapping[str, int], readable: AbstractSet[str] | None,
                   filtered: bool = False) -> str:
    """What an empty answer to a query in `langs` (one language, or the few its script leaves open), which
    the embedder does not read, says, and what to do (`filtered`: a path filter narrowed the search)."""
    name = " or ".join(_name(c) for c in langs)
    fams = {language.family(c) for c in langs}
    mine = sum(n for c, n in languages.items() if c != language.UNDETERMINED and language.family(c) in fams)
    within = " within the path filter" if filtered else ""
    where = (f"no {name} note matches this query{within} ({mine:,} {name} notes are indexed)" if mine
             else f"no note matches this query{within}, and no note is in {name}")
    reads = "" if readable is None else f" (the embedding model reads {' and '.join(_name(c) for c in sorted(readable))})"
    asks = [_name(c) for c in sorted(languages, key=lambda c: -languages[c]) if c != language.UNDETERMINED
            and language.family(c) not in fams and language.reads(readable, c)]
    ask = f"ask in {asks[0]} to search the {asks[0]} notes, or try other words" if asks else "try other words"
    return f"{where}: a query in {name} is matched by its words only{reads}; {ask}"


def fold(hits: Sequence[Hit], copies: Mapping[str, Sequence[queries.PageCopy]], k: int) -> list[Hit]:
    """The first `k` hits with copies of one page folded into the first hit of that page: a later hit of the
    same page in another language is dropped; every kept hit lists the other languages its page exists in
    (`also_in`, sorted). Hits of one page in the same language (sections of one note) all stay. `copies`
    gives each hit's path the notes it shares a page key or a front-matter page with; pages are the groups
    those links join (a Docusaurus copy and a front-matter copy of one English page are one page). Pure."""
    parent: dict[str, str] = {}

    def find(p: str) -> str:
        while parent.setdefault(p, p) != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    lang_of: dict[str, str] = {}
    for path, linked in copies.items():
        for c in linked:
            lang_of[c.path] = c.lang
            parent[find(c.path)] = find(path)
    members: dict[str, set[str]] = {}
    for p in list(parent):
        members.setdefault(find(p), set()).add(p)
    out: list[Hit] = []
    shown: dict[str, str] = {}  # page -> the language of the hit standing for it
    for hit in hits:
        page, lang = find(hit.path), lang_of.get(hit.path, language.UNDETERMINED)
        if page in shown and shown[page] != lang:
            continue  # a copy of a page already shown
        shown.setdefault(page, lang)
        others = sorted({lang_of[p] for p in members.get(page, ()) if lang_of[p] != lang})
        out.append(replace(hit, also_in=tuple(others)))
        if len(out) == k:
            break
    return out


def search_in_languages(index: Index, policy: NotesPolicy, embedder: Embedder, q: Query,
                        vocabulary: AbstractSet[str] = frozenset()) -> SearchResult:
    """`search.search`, the query's language first and copies folded (see the module doc)."""
    try:
        languages = queries.indexed_languages(index.conn)
    except index.driver.Error:  # an index from before languages (schema 5), read as it is
        languages = {}
    reads = readable_languages(embedder)
    if len(set(languages) - {language.UNDETERMINED}) <= 1:
        unread = unread_language(q.text, reads)
        result = search(index, policy, embedder, q, vocabulary=vocabulary, unread=unread is not None)
        if unread is not None and not result.hits:
            result.notes = [n for n in result.notes if not n.startswith(_NOTHING)] + [
                unmatched_note([unread], languages, reads, bool(q.paths))]
        return result
    embedder = cast(Embedder, _QueryVectors(embedder))  # both passes embed the same text: once
    families = query_languages(q.text, languages)
    asked = families[0]
    unread = unread_language(q.text, reads, asked)
    mine = sorted(c for c in languages if c == language.UNDETERMINED or language.family(c) in families)
    mine_ids = queries.file_ids_in_languages(index.conn, mine)
    rest_ids = queries.file_ids_in_languages(index.conn, mine, among=False)
    first_ids = _scope(mine_ids, rest_ids)
    n_mine = sum(1 for c in mine if c != language.UNDETERMINED) or 1
    first = search(index, policy, embedder, replace(q, k=min(MAX_K, q.k * n_mine)), vocabulary=vocabulary,
                   within=first_ids, unread=unread is not None)
    hits = list(first.hits)
    notes = list(first.notes)
    mode = first.mode
    if unread is not None and not hits:
        # Other languages' notes would only share a name or a few characters with it: say so instead.
        asked_in = families if unread in families else [unread]
        notes = [n for n in notes if not n.startswith(_NOTHING)]
        notes.append(unmatched_note(asked_in, languages, reads, bool(q.paths)))
        return SearchResult([], mode, notes)
    folded = _folded(index, hits, q.k)
    if len(folded) < q.k:
        rest = [c for c in languages if c not in mine]
        # Notes the embedder does not read have no vectors: their pass is a keyword search.
        none_read = all(not language.reads(reads, c) for c in rest)
        second = search(index, policy, embedder,
                        replace(q, k=min(MAX_K, q.k * (len(rest) + 1)), mode="keyword" if none_read else q.mode),
                        vocabulary=vocabulary, within=_scope(rest_ids, mine_ids),
                        unread=unread is not None)
        if second.hits and not hits:
            mode = second.mode
        hits += second.hits
        notes += [n for n in second.notes if n not in notes]
        folded = _folded(index, hits, q.k)
    if folded:
        notes = [n for n in notes if not n.startswith(_NOTHING)]
    elif not notes:
        notes.append("no note matches this query; try other words")
    return SearchResult(folded, mode, notes)


def _scope(ids: list[int], others: list[int]) -> FileScope:
    """The notes `ids` as a search's scope: the list, or all notes but `others` when that is shorter (SQL binds the
    list, one variable a note: 8 ms at 13,000, refused past 32,766)."""
    return FilesExcept(frozenset(others)) if len(others) < len(ids) else ids


class _QueryVectors:
    """The embedder, answering `embed_query` for a text it embedded before from memory: the second pass
    of a search (the other languages) embeds the question the first pass did (an API call, or the
    model's pass over question and guess)."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._vectors: dict[str, Any] = {}

    def embed_query(self, text: str) -> Any:
        if text not in self._vectors:
            self._vectors[text] = self._embedder.embed_query(text)
        return self._vectors[text]

    def __getattr__(self, name: str) -> object:
        return getattr(self._embedder, name)


def _folded(index: Index, hits: Sequence[Hit], k: int) -> list[Hit]:
    return fold(hits, queries.page_copies(index.conn, sorted({h.path for h in hits})), k)
