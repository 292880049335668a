"""The keyword half: BM25 over the FTS5 word index, the query's names spelled verbatim first.

FTS5 splits identifiers into words (`--pre` is "pre", `GH_REPO` is "gh repo"): `keyword_ranking` looks deeper than
the search's depth when the query names something (`NAME_POOL`), lets the sections that spell a syntax token exactly
join the pool, and orders the pool by the names each chunk spells (`names.names_first`). `search.py` fuses this half
with the vectors' or answers with it alone.
"""

from __future__ import annotations

import re
from typing import AbstractSet, Sequence

from ..db import queries
from ..index.store import Index
from . import expansion
from .ftsquery import cjk_match, other_words_match, search_match
from .names import names_first, one_word_name, spelled_counter, spelling
from .route import is_lookup, is_syntax_name, named_identifiers, punctuation_name
from ..records import FileScope

# Keyword candidates looked at for a verbatim name before the top is kept, so a chunk holding the
# exact name is found even when BM25 ranks chunks full of its parts higher.
NAME_POOL = 100
# Keyword candidates kept from one section (a file's heading trail) before the pool is cut: results are one
# hit a section, so more only crowd out other notes. A 4.6 MB note of one section whose 40 best chunks all
# matched hid every other matching note from -k 10 (issue 36, item 3). 3, not 1: the names tier
# (`names.names_first`) may prefer a chunk that spells a name over the section's best BM25 chunk.
PER_SECTION = 3
# A one-word lookup is a name even when it looks like a plain word (`cssclass`, `numref`, `disable-type-checked`):
# the names tier then puts the sections titled by it or defining it first (issue 38; measured: mdx, sphinx and
# obsidian identifier top1 up, nothing lower).
LOOKUP_WORD_AS_NAME = True
# A keyword search (BM25 alone, not a fused half) whose joined names (`anyio.Path`, `max-depth`) BM25 finds in fewer
# chunks than the search's depth is filled with the chunks of the names' parts, after them (`keyword_ranking`). A fused
# half is left as it is: the vectors fill the fusion, and a longer list moves its scaled scores. A phrase BM25 finds
# nowhere is no lookup to fill: auto asks the vectors (`_Ranker.rank`).
# Measured (docs/benchmarks.md): PARTS_FILL.
PARTS_FILL = True
# A lookup's name with punctuation (`--rendered-by`, `anyio.Path`) is a phrase of its words to BM25 ("rendered by"),
# which prose matches too: where many sections say the words, the few that spell the name can fall outside the pool
# (NAME_POOL) and the names tier has nothing to put first. Then the sections that spell it join the pool from the
# literal index, as a syntax token's always do (twice the search's depth of them: a hundred cost 4 ms more at 100k
# chunks).
# Measured (docs/benchmarks.md): LITERAL_LOOKUPS.
LITERAL_LOOKUPS = True
_JOINED = re.compile(r"(?<=\w)[._\-:/]+(?=\w)")


def bm25(index: Index, text: str, limit: int, file_ids: FileScope | None) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) best first for the words of `text`.

    A text holding Chinese, Japanese or Korean characters is matched by its runs' bigrams: the chunks
    holding such text are ranked on their CJK rows (every word of the query: `cjk_match`), the others on
    their usual rows by the query's other words, and the two lists merged by score. Any other text is
    exactly the one MATCH it always was (`search_match`)."""
    match = cjk_match(text)
    if match is None:
        plain = search_match(text)
        return queries.keyword_search(index.conn, plain, limit, file_ids, per_section=PER_SECTION) if plain else []
    try:
        ranked = queries.keyword_search(index.conn, match, limit, file_ids, table="chunks_cjk", per_section=PER_SECTION)
    except index.driver.Error:  # an index from before the CJK rows (schema 6), read as it is
        plain = search_match(text)
        return queries.keyword_search(index.conn, plain, limit, file_ids, per_section=PER_SECTION) if plain else []
    other = other_words_match(text)
    if other:
        ranked += queries.keyword_search(index.conn, other, limit, file_ids, without_cjk=True, per_section=PER_SECTION)
    return sorted(ranked, key=lambda item: -item[1])[:limit]


def keyword_ranking(index: Index, text: str, depth: int, file_ids: FileScope | None,
                    vocabulary: AbstractSet[str] = frozenset(), guess: str = "",
                    fill: bool = False) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) best first, chunks spelling the query's names verbatim first. A `guess`
    at the answer widens the BM25 ranking before the names tier is applied (`expansion.keyword`). With `fill` (BM25
    answers alone, unfused), a joined name's parts fill a ranking shorter than `depth` (`PARTS_FILL`)."""
    if search_match(text) is None:
        return []
    names = named_identifiers(text, vocabulary)
    lookup = is_lookup(text)
    if LOOKUP_WORD_AS_NAME and not names and lookup:
        names = one_word_name(text)
    pool = max(2 * depth, NAME_POOL) if names else 2 * depth
    if guess:  # the question's own BM25 is run only where the way of widening uses it
        deeper = max(pool, expansion.GUESS_POOL)
        ranked = expansion.keyword(text, guess, lambda: bm25(index, text, deeper, file_ids),
                                   lambda words: bm25(index, words, deeper, file_ids))[:pool]
    else:
        ranked = bm25(index, text, pool, file_ids)
    # An operator whose value the query gives (`printers:` of `printers:admin`) orders the pool but need not join
    # it: the whole token does, and the bare operator is in every note that uses it. Marks alone (`??`) join only
    # as the whole query: no index holds them, and a question's scan for them cost 90-220 ms at 100k chunks.
    alone = punctuation_name(text)
    literal = [n for n in names if is_syntax_name(n)
               and not (n.endswith(":") and any(m != n and m.startswith(n) for m in names))
               and (not punctuation_name(n) or n == alone)]
    if literal:
        # The keyword index drops the punctuation that makes these names (`path:` is the word "path", in
        # every other note): the sections that spell one exactly join the pool, for the names tier to rank.
        floor = min((s for _, s in ranked), default=0.0)
        have = {cid for cid, _ in ranked}
        for name in literal:
            for cid in queries.spelling_chunks(index.conn, name, NAME_POOL, file_ids):
                if cid not in have:
                    have.add(cid)
                    ranked.append((cid, floor))
    tails = [tail for n in names if (tail := spelling(n)) != n]
    if tails:
        # A code path's last two parts spell it (`names.DOTTED_TAILS`), but FTS5 reads the whole path as one phrase:
        # the sections that write `to_thread.run_sync` after importing `to_thread` join the pool, for the tier.
        floor = min((s for _, s in ranked), default=0.0)
        have = {cid for cid, _ in ranked}
        for tail in tails:
            joined = [cid for cid, _ in bm25(index, tail, depth, file_ids) if cid not in have]
            have.update(joined)
            ranked += [(cid, floor) for cid in joined]
    if names and ranked:
        texts = queries.chunk_texts(index.conn, [cid for cid, _ in ranked])
        ranked = names_first(ranked, texts, names, lookup=text if lookup else "")
        punctuated = [n for n in names if n not in literal and not n.replace(" ", "").isalnum()
                      and not punctuation_name(n) and any(c.isalnum() for c in n)] if LITERAL_LOOKUPS and lookup else []
        if punctuated and not spelled_counter(punctuated)(texts.get(ranked[0][0], "")):
            # no candidate spells the name (the names tier puts those first): its spellers, if any, join the pool
            floor = min(s for _, s in ranked)
            have = {cid for cid, _ in ranked}
            joined = [cid for name in punctuated
                      for cid in queries.spelling_chunks(index.conn, name, 2 * depth, file_ids) if cid not in have]
            if joined:
                ranked += [(cid, floor) for cid in dict.fromkeys(joined)]
                texts.update(queries.chunk_texts(index.conn, joined))
                ranked = names_first(ranked, texts, names, lookup=text)
    if PARTS_FILL and fill and 0 < len(ranked) < depth and (parts := _JOINED.sub(" ", text)) != text:
        # A joined name is one phrase to FTS5 (`anyio.Path` is "anyio path", adjacent): few sections spell it so,
        # and a lookup answered with two hits hid the guide that says `Path` in the package's own words. Its parts'
        # sections follow every section the phrase found, in BM25's order.
        floor = min((s for _, s in ranked), default=0.0)
        have = {cid for cid, _ in ranked}
        ranked += [(cid, floor - 1.0 / (1.0 + s)) for cid, s in bm25(index, parts, pool, file_ids) if cid not in have]
    return ranked


def unspelled_lookup(index: Index, text: str, vocabulary: AbstractSet[str], ranked: Sequence[tuple[int, float]]) -> bool:
    """True when `text` is a lookup naming something (`--processes`) and none of its keyword candidates (`ranked`,
    `keyword_ranking`'s) spells it: BM25 matched only its words (`processes`), so the notes never spell it."""
    names = named_identifiers(text, vocabulary) if is_lookup(text) else []
    if not names:
        return False
    spelled = spelled_counter(names)
    # the names tier put the candidates spelling a name first (`names.names_first`): the first few tell
    texts = queries.chunk_texts(index.conn, [cid for cid, _ in ranked[:3]])
    return not any(spelled(t) for t in texts.values())
