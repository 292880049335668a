"""Answer a query from the index: semantic (vectors), keyword (FTS5 BM25) or hybrid (both, fused).

A path filter narrows both halves before their top-k is taken. Every hit's file is re-checked against
the current policy before it is returned, so a deleted or newly ignored note never answers.

Ranking choices, each measured on both dev sets with benchmarks/quality.py (see `FUSION`, `keyword.NAME_POOL`):
- The unit of an answer is a section: a long section is stored as several chunks, but it is ranked
  once, at its best chunk, and answered by that chunk. Two chunks of one section would otherwise take
  two of the k places, and in hybrid each half may rank a different chunk of it and split its evidence.
- A subsection ranked just below its own parent section moves above it (`ranking.specific_first`): the
  parent's introduction shares the topic words of every subsection, the subsection holds the answer.
- A chunk that spells a name from the query verbatim (`--pre`, `GH_REPO`) outranks one that only
  matches its parts (`pre_stop`, "gh repo"): FTS5 splits identifiers into words, the user did not.
- The order does not depend on k: each half is searched a fixed depth (`CANDIDATE_SECTIONS`), a larger
  k only appends a deeper search's further sections, and shown scores never rise down the list
  (`ranking.place_scores`).
- Hybrid fuses the halves by their scores, each scaled by its own spread (DBSF, `fusion.dbsf`), not by
  rank alone: a half that is sure of its first hit outweighs one whose scores are all alike.
- While stage two of a sync embeds, hybrid fuses the vectors there are with keyword for the rest: a
  section without vectors keeps the place BM25 gives it (`fusion.keep_places`); `auto` stays on keyword.
- The caller's guess at the answer (`Query.expected_answer`) widens both halves of a question, never a
  lookup's; routing and names read the question alone (`expansion.py`).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, replace
from typing import AbstractSet, Callable, Hashable, Sequence

import numpy as np
import pathspec

from ..db import queries
from ..embed import Embedder
from ..errors import EmbedderError, EmbedderUnavailable
from .fusion import RRF_K, collapse, dbsf, dbsf_imputed, keep_places, rrf_grouped
from .links import linked_entries, pointers_after_targets
from .releases import first_release_entries
from .entryforms import form_entries, form_names
from .names import (defined_entries, dotted_entries, entries_first, entry_heading, exact_chunks, link_names,
                    lookup_titles, names_first, one_word_name, spelled_counter)
from .ftsquery import search_match
from .keyword import keyword_ranking, unspelled_lookup
from ..index.indexstatus import stage_two_note
from . import expansion, ranking, siblings
from . import questionentries
from ..notes.policy import NotesPolicy
from ..notes.sectiontext import fold_name
from ..records import FileScope, FilesExcept, Hit, SearchResult
from .route import (asked_name, common_words_only, is_lookup, is_syntax_name, looks_like_identifier,
                    lone_mark, named_identifiers, punctuation_name, route)
from ..index.store import Index, vectors_usable

log = logging.getLogger(__name__)

# Each half is searched a fixed number of sections deep whatever k is, so the order is k's prefix: the
# first n results are the same for every k >= n. (Searched 4*k deep, the fused order changed with k and
# asking for more results could lower the top 5: issue 18.) 20 is the depth k=5 always had.
CANDIDATE_SECTIONS = 20
# When the fixed depth cannot fill k (k above it, or the policy re-check dropped hits), the halves are
# searched this deep (the CLI's largest k) and the sections that adds follow the fixed depth's results.
DEEP_SECTIONS = 100
# Vector windows fetched at most: 4 per section wanted (a section may have several chunks and windows).
MAX_VECTOR_FETCH = 4 * DEEP_SECTIONS
# Stripped from the ends of a query of symbols before it is looked for verbatim (whitespace too).
_ASCII_PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ \t\n"
# How hybrid fuses its halves: "dbsf" (distribution-based score fusion) or "rrf" (reciprocal rank
# fusion, the measured alternative kept for comparison: `benchmarks/quality.py --set search.FUSION="rrf"`).
# DBSF with the vectors at 1.2 and BM25 at 0.8 tied RRF on queries_dev.json and beat it on the httpx set
# (plain top1 44% -> 60%). The weights trade the sets: 1.0/1.0 lost a paraphrase top3 on queries_dev,
# 0.8/1.2 lost httpx's plain gain (docs/benchmarks.md).
FUSION = "dbsf"
DBSF_WEIGHTS = (1.2, 0.8)  # (semantic, keyword)
# RRF's weights: the keyword half 1.5x the semantic half, scaled to sum 2 (a chunk first in both halves
# scores 2/(k+1), as in unweighted RRF); 1.25-1.5 ranked best for RRF on queries_dev.json.
HYBRID_WEIGHTS = (0.8, 1.2)  # (semantic, keyword)
# While stage two of a sync embeds (some chunks have no vectors yet), how hybrid fuses: "places" (a
# chunk without vectors keeps exactly the place BM25 gives it; the vectors reorder only the places of
# the chunks they can see: `fusion.keep_places`), "impute" (its keyword scaled score stands in for the
# semantic one: `fusion.dbsf_imputed`), "shrink" (places, the semantic weight times the share of chunks
# with vectors) or "dbsf" (as if complete, which favours the chunks that have vectors: far below
# keyword alone at 25-50% of the vectors).
PARTIAL_FUSION = "places"
# What `auto` runs for a question mid stage two: "keyword" (BM25 alone) or "hybrid" (the fusion above).
# Measured on the five dev sets at 25/50/75% of the vectors (docs/benchmarks.md, "Searches during stage
# two"): "places" beat keyword alone on nearly every stratum (starlette plain top1 12% -> 33%, averaged
# over five orders) but not on all: myst's identifier questions lost one question in three orders of
# five at 50%, a question hybrid itself answers worse than BM25 (with every vector it trades it for
# another). The rule is "never below keyword alone", so auto stays on keyword until that holds.
AUTO_MID_STAGE_TWO = "keyword"


# A query is cut to its first MAX_QUERY_CHARS characters (at a word boundary), with a note. A question,
# even with an error message pasted into it, is a few hundred words; the model reads only the first
# window of a query (256 word pieces, about 1,000 characters) and BM25 OR-ing hundreds of words matches
# nearly every section, so nothing past the cap improves the answer. Searches share one connection,
# one at a time, so the cap also bounds how long one query holds up the others: the worst case within
# it (every word distinct, each a name or a word the notes hold) is measured by benchmarks/huge_query.py
# (docs/benchmarks.md). A 1 MB query once held the index for minutes, stalling every other search.
MAX_QUERY_CHARS = 2000


def cap_query(text: str, limit: int = MAX_QUERY_CHARS) -> tuple[str, str | None]:
    """`text` cut to at most `limit` characters at a word boundary, and a note saying so (None if it fits)."""
    if len(text) <= limit:
        return text, None
    cut = text[:limit]
    if not text[limit].isspace():  # do not end on half a word, unless the head is one long word
        head, space, _ = cut.rpartition(" ")
        cut = head if space and head.strip() else cut
    return cut, (f"the query was cut to its first {len(cut)} characters (it had {len(text)}; queries are "
                 f"capped at {limit}): ask a shorter question for an answer to all of it")


@dataclass(frozen=True)
class Query:
    text: str
    k: int = 5
    mode: str = "auto"
    paths: tuple[str, ...] = ()
    expected_answer: str = ""  # the caller's guess at the answer: widens a question's search (expansion.py)


def matching_file_ids(files: Sequence[tuple[int, str]], globs: Sequence[str]) -> list[int]:
    """Ids of the files whose path matches any glob (gitignore-style: `docs/`, `*.md`, `adr/**/0*.md`)."""
    spec = pathspec.GitIgnoreSpec.from_lines(globs)
    return [fid for fid, path in files if spec.match_file(path)]


def semantic_ranking(index: Index, embedder: Embedder, text: str, depth: int,
                     file_ids: FileScope | None, qvec: np.ndarray | None = None) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity) best first; a chunk's score is its best window's. `qvec` is the
    query's vector when it is already embedded.

    Enough windows are fetched for `depth` sections even when some have several chunks and windows.
    """
    if qvec is None:
        qvec = np.asarray(embedder.embed_query(text), dtype="<f4")
    limit = min(MAX_VECTOR_FETCH, max(4 * depth, 10))
    out: list[tuple[int, float]] = []
    seen: set[int] = set()
    nearest = index.vectors.knn(index.conn, qvec, limit, file_ids, stride=embedder.max_windows)
    if nearest is None:  # not cached (over the memory budget): sqlite-vec scans the table
        nearest = queries.vector_search(index.conn, qvec.tobytes(), limit, file_ids)
    for rowid, distance in nearest:
        cid = rowid // embedder.max_windows
        if cid not in seen:
            seen.add(cid)
            out.append((cid, 1.0 - distance))
    return out


HISTORY_IN_TIER = True
# A name that this few sections spell verbatim is rare: in hybrid they come first (`_exact_names_first`). Measured
# on twelve sets (docs/benchmarks.md): 2 lowered nothing; 3 also moved the three sections spelling a mixed
# question's context name (`input_series`) above its answer.
RARE_NAME_SECTIONS = 2
# A lookup naming something that none of its keyword candidates spells (`--processes`, which dramatiq's docs never
# write, matched by BM25 as the word "processes") is answered as one the notes never spell at all: hybrid, where the
# vectors may know its topic. Measured (docs/benchmarks.md): UNSPELLED_LOOKUPS_HYBRID.
UNSPELLED_LOOKUPS_HYBRID = True
# Chunks looked at to count the sections spelling a name (enough to see more than RARE_NAME_SECTIONS).
RARE_POOL = 50
# Chunks looked at for the sections titled by a dotted name or its last part (`names.dotted_entries`).
ENTRY_POOL = 100
def _by_section(index: Index, *rankings: list[tuple[int, float]]) -> Callable[[tuple[int, float]], Hashable]:
    """The grouping key of a ranked chunk: its section (file, heading trail)."""
    keys = queries.section_keys(index.conn, sorted({cid for r in rankings for cid, _ in r}))
    return lambda item: keys.get(item[0], ("chunk", item[0]))


def _section_chunks(index: Index, keys: Sequence[Hashable]) -> dict[Hashable, list[tuple[int, str]]]:
    """(chunk id, text) of every chunk of the sections `keys` (those `_by_section` made: (file id, heading))."""
    wanted = [(k[0], k[1]) for k in keys if isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], int)
              and isinstance(k[1], str)]
    return {key: chunks for key, chunks in queries.section_chunks(index.conn, wanted).items()}


class _PolicyCheck:
    """Re-checks a hit's file against the current policy and the disk, once per path per search."""

    def __init__(self, policy: NotesPolicy) -> None:
        self.policy = policy
        self.cache: dict[str, bool] = {}

    def ok(self, path: str) -> bool:
        if path not in self.cache:
            admitted = self.policy.file_skip_reason(path) is None
            self.cache[path] = admitted and os.path.isfile(self.policy.root / path)
        return self.cache[path]


def _admitted(ranked: Sequence[tuple[int, float]], rows: dict[int, queries.ChunkRow], check: _PolicyCheck,
              k: int) -> list[Hit]:
    """The first `k` ranked chunks whose file the current policy still admits, as hits."""
    hits: list[Hit] = []
    for cid, score in ranked:
        if len(hits) == k:
            break
        row = rows.get(cid)
        if row is None or not check.ok(row.path):
            continue
        hits.append(Hit(path=row.path, heading=row.heading, start_line=row.start_line, end_line=row.end_line,
                        score=round(float(score), 6), text=row.text))
    return hits


def _with_found(index: Index, ranked: list[tuple[int, float]], rows: dict[int, queries.ChunkRow], found: Sequence[int],
                section: Callable[[tuple[int, float]], Hashable],
                ) -> tuple[list[tuple[int, float]], Callable[[tuple[int, float]], Hashable]]:
    """`ranked` with the `found` chunks it lacks added last at its lowest score, their rows read into `rows`, and
    the section key that knows them (`section` itself when none was new)."""
    if not (fresh := [cid for cid in found if cid not in rows]):
        return ranked, section
    ranked = ranked + [(cid, min((sc for _, sc in ranked), default=0.0)) for cid in fresh]
    rows.update(queries.chunk_rows(index.conn, fresh))
    return ranked, _by_section(index, ranked)


@dataclass(frozen=True)
class _Ranked:
    ranked: list[tuple[int, float]]  # (chunk id, score) best first
    mode: str  # the mode that answered (keyword when the embedder failed)
    section: Callable[[tuple[int, float]], Hashable]  # a ranked chunk's section key
    rows: dict[int, queries.ChunkRow]


class _Ranker:
    """One query's ranking, at any candidate depth: the query is embedded once for every depth, and a
    fallback (the embedder down) is noted once and then kept as the mode."""

    def __init__(self, index: Index, embedder: Embedder, text: str, asked: str, file_ids: FileScope | None,
                 vocabulary: AbstractSet[str], notes: list[str], symbols_only: bool = False,
                 coverage: float = 1.0, guess: str = "") -> None:
        self.index, self.embedder, self.text, self.asked = index, embedder, text, asked
        self.guess = guess  # the caller's guess at the answer, when it applies to this query
        self.vectors: dict[str, np.ndarray] = {}  # other texts' vectors (the guess), embedded once
        self.file_ids, self.vocabulary, self.notes = file_ids, vocabulary, notes
        self.symbols_only = symbols_only
        self.coverage = coverage  # the share of chunks with vectors (below 1 while stage two runs)
        self.qvec: np.ndarray | None = None
        self.dotted: tuple[list[int], list[str]] | None = None  # `_entries`, once

    def _semantic(self, depth: int) -> list[tuple[int, float]]:
        if self.guess:
            return expansion.semantic(self.text, self.guess, self._question_vector, self._embed,
                                      lambda vec: semantic_ranking(self.index, self.embedder, "", depth,
                                                                   self.file_ids, vec))
        return semantic_ranking(self.index, self.embedder, self.text, depth, self.file_ids, self._question_vector())

    def _question_vector(self) -> np.ndarray:
        if self.qvec is None:
            self.qvec = np.asarray(self.embedder.embed_query(self.text), dtype="<f4")
        return self.qvec

    def _embed(self, text: str) -> np.ndarray:
        if text not in self.vectors:
            self.vectors[text] = np.asarray(self.embedder.embed_query(text), dtype="<f4")
        return self.vectors[text]

    def _keyword(self, depth: int, fill: bool = False) -> list[tuple[int, float]]:
        if self.symbols_only:  # the keyword index drops symbols: look for them verbatim
            # `🚀?` asks for the rocket; `%%` (or `` `%%` ``) for itself
            mark = lone_mark(self.text)
            needle = self.text.strip(_ASCII_PUNCTUATION) or (f"`{mark}`" if mark else punctuation_name(self.text)) \
                or self.text
            found = queries.verbatim_search(self.index.conn, needle, depth, self.file_ids)
            if not mark or not found:
                return found
            # Every candidate sets the mark off as code: the one whose entry it is comes first, as for any lookup
            # (`names_first`). Measured: jinja +1 lookup; `%%` ordered so moved a grade-1 neighbour of obsidian's down.
            return names_first(found, queries.chunk_texts(self.index.conn, [cid for cid, _ in found]), [mark],
                               lookup=mark)
        return keyword_ranking(self.index, self.text, depth, self.file_ids, self.vocabulary, self.guess, fill)

    def rank(self, mode: str, depth: int) -> _Ranked:
        """The ranking with `depth` sections per half, in the mode that answered."""
        index, text, embedder = self.index, self.text, self.embedder
        notes = self.notes
        kw: list[tuple[int, float]] | None = None
        if mode == "keyword":
            kw = self._keyword(depth, fill=True)
            if (not kw or (UNSPELLED_LOOKUPS_HYBRID and unspelled_lookup(index, text, self.vocabulary, kw))) and self.asked == "auto" \
                    and not self.symbols_only and vectors_usable(index, embedder.id, embedder.dimensions,
                                                                 embedder.max_windows):
                mode = "hybrid"  # a lookup the notes never spell: the vectors may still know its topic
        ranked: list[tuple[int, float]]
        # A dotted name's own entry (`names.dotted_entries`) need not be among either half's candidates.
        entries, untitled = ([], []) if mode == "semantic" else self._entries()
        held = [(cid, 0.0) for cid in entries]
        if mode == "keyword":
            kw = kw or []
            section = _by_section(index, kw, held)
            ranked = collapse(kw, section)[:depth]
        elif mode == "semantic":
            try:
                sem = self._semantic(depth)
            except EmbedderUnavailable as exc:  # the API is down: answer from BM25 and say so (see below)
                notes.append(f"keyword results only: {exc}")
                mode, sem = "keyword", self._keyword(depth, fill=True)
            section = _by_section(index, sem)
            ranked = collapse(sem, section)[:depth]
        else:
            try:
                sem = self._semantic(depth)
            except EmbedderError as exc:
                # An unreachable API is passing weather: every mode answers from BM25 and says so. A broken
                # model or a refused key needs a fix: a mode the user chose says exactly that; auto, which
                # promised an answer, falls back and says why.
                if self.asked != "auto" and not isinstance(exc, EmbedderUnavailable):
                    raise
                notes.append(f"keyword results only: {exc}")
                mode, sem = "keyword", []
            if kw is None:
                kw = self._keyword(depth)
            section = _by_section(index, sem, kw, held)
            halves = [collapse(sem, section)[:depth], collapse(kw, section)[:depth]]
            group = lambda cid: section((cid, 0.0))  # noqa: E731
            if self.coverage < 1 and PARTIAL_FUSION != "dbsf" and mode == "hybrid":
                ranked = self._fuse_partial(halves, group)
            elif FUSION == "dbsf":
                ranked = dbsf(halves, group, DBSF_WEIGHTS)
            else:
                ranked = [(cid, score) for (cid, _), score in rrf_grouped(halves, section, k=RRF_K,
                                                                          weights=HYBRID_WEIGHTS)]
            if mode == "keyword":  # fell back: rank by BM25 alone, not by a fusion with an empty half
                ranked = halves[1]
        if entries:  # those neither half found join last; `entries_first` lifts them
            present = {section(item) for item in ranked}
            floor = min((sc for _, sc in ranked), default=0.0)
            ranked += [(cid, floor) for cid in entries if section((cid, 0.0)) not in present]
        rows = queries.chunk_rows(index.conn, [cid for cid, _ in ranked])
        if untitled:  # no heading titles it: a candidate's entry may define it
            candidates = [(cid, section((cid, 0.0)), rows[cid].text) for cid, _ in ranked if cid in rows]
            entries += defined_entries(candidates, untitled, lambda keys: _section_chunks(index, keys))
        if mode != "semantic" and (formed := form_names(text, self.vocabulary)):  # its entry under another form
            found = form_entries(index, formed, [(cid, section((cid, 0.0)), rows[cid].heading, rows[cid].text)
                                                 for cid, _ in ranked if cid in rows], self.file_ids)
            ranked, section = _with_found(index, ranked, rows, found, section)
            entries += [cid for cid in found if cid not in entries]
        if mode != "semantic" and (names := self._link_names()):  # where the candidates' links send a reader
            linked = linked_entries(index, [(cid, section((cid, 0.0)), rows[cid].path, rows[cid].text)
                                            for cid, _ in ranked if cid in rows], names, self.file_ids)
            ranked, section = _with_found(index, ranked, rows, linked, section)
            entries += [cid for cid in linked if cid not in entries]
        added = mode != "semantic" and is_lookup(text) and self._added_lookup(rows)
        if mode != "semantic" and (released := first_release_entries(index, text, self.vocabulary,
                                                                     [cid for cid, _ in ranked], self.file_ids,
                                                                     added)):
            # the earliest may be far below the fused
            ranked, section = _with_found(index, ranked, rows, released, section)
            entries += [cid for cid in released if cid not in entries]
        if mode == "hybrid":
            ranked = self._exact_names_first(ranked, rows)
        ranked = self._reorder(ranked, section, rows)
        texts = {cid: row.text for cid, row in rows.items()}
        if mode != "semantic":
            ranked = pointers_after_targets(index, ranked, texts, self.file_ids)
        ranked = entries_first(ranked, entries, section)
        ranked = ranking.reexports_give_way(ranked, texts)
        ranked = ranking.guides_before_mkdocstrings(ranked, texts, lambda cid: rows[cid].heading if cid in rows else "")
        # A question's named entry among its first answers, after every other move (`questionentries`).
        if mode != "semantic" and questionentries.PLACE and not is_lookup(text) and (
                own := questionentries.question_entries(index, text, self.vocabulary, ENTRY_POOL, self.file_ids)):
            ranked, section = _with_found(index, ranked, rows, own, section)
            ranked = questionentries.entries_within(ranked, own, questionentries.PLACE, section)
        return _Ranked(ranked, mode, section, rows)

    def _link_names(self) -> list[str]:
        """The names whose links `links.linked_entries` follows (`names.link_names`): a lookup's. Not a question's:
        it asks about a case the fused order weighs."""
        return link_names(self.text, self.vocabulary) if is_lookup(self.text) else []

    def _entries(self) -> tuple[list[int], list[str]]:
        """The dotted names' titled entries and the names none titles (`names.dotted_entries`), looked up once
        for every depth."""
        if self.dotted is None:
            self.dotted = dotted_entries(self.index, self.text, self.vocabulary, ENTRY_POOL, self.file_ids)
        return list(self.dotted[0]), self.dotted[1]

    def _exact_names_first(self, ranked: list[tuple[int, float]],
                           rows: dict[int, queries.ChunkRow]) -> list[tuple[int, float]]:
        """For a query naming a syntax token (`path:`, `%%comment%%`: `route.is_syntax_name`) or a rare name
        (an identifier that at most RARE_NAME_SECTIONS sections spell: `--why`, `PLT-4302`), the fused
        sections that spell it exactly come first, in fused order: the vectors do not know the token, and
        their noise must not outvote the few sections that spell it (issue 38). Scores stay in step with
        the order (each name spelled adds the fused scores' range). Only such names: moving every named
        section ahead cost plain questions on six sets, and names three sections spell cost a mixed
        question whose name was context (docs/benchmarks.md)."""
        named = named_identifiers(self.text, self.vocabulary)
        names = [n for n in named if is_syntax_name(n)]
        if RARE_NAME_SECTIONS:
            names += [n for n in named if n not in names and looks_like_identifier(n) and self._rare(n, rows)]
        if not names or not ranked:
            return ranked
        spelled = spelled_counter(names)
        tiers = {cid: spelled(f"{row.heading}\n{row.text}") for cid, row in rows.items()}
        span = max(s for _, s in ranked) - min(s for _, s in ranked) or 1.0
        lifted = [(cid, s + tiers.get(cid, 0) * span) for cid, s in ranked]
        return sorted(lifted, key=lambda item: -tiers.get(item[0], 0))

    def _added_lookup(self, rows: dict[int, queries.ChunkRow]) -> bool:
        """True when no section of `rows` (the candidates) outside the release histories spells the lookup, and at
        most RARE_NAME_SECTIONS history sections do: a name one release may have added (`releases.ADDED_LOOKUPS`,
        which reads the index to be sure). A name more entries spell is one the history keeps speaking of."""
        spelled = spelled_counter([fold_name(self.text.strip().strip("`").strip())])
        spellers = {(row.path, row.heading) for row in rows.values() if spelled(f"{row.heading}\n{row.text}")}
        return len(spellers) <= RARE_NAME_SECTIONS and all(ranking.is_history_file(path) for path, _ in spellers)

    def _rare(self, name: str, rows: dict[int, queries.ChunkRow]) -> bool:
        """True when 1 to RARE_NAME_SECTIONS sections (within the path filter) spell `name` verbatim, and the
        fused sections (`rows`) hold one of them. The fused sections answer first: none spelling it (nothing
        to move) or more than RARE_NAME_SECTIONS (not rare) needs no look at the index."""
        spelled = spelled_counter([name])
        fused = {(row.path, row.heading) for row in rows.values() if spelled(f"{row.heading}\n{row.text}")}
        if not fused or len(fused) > RARE_NAME_SECTIONS:
            return False
        found = exact_chunks(self.index, name, RARE_POOL, self.file_ids)
        return 0 < len(set(queries.section_keys(self.index.conn, found).values())) <= RARE_NAME_SECTIONS

    def _fuse_partial(self, halves: list[list[tuple[int, float]]],
                      group: Callable[[int], Hashable]) -> list[tuple[int, float]]:
        """The halves fused while some chunks have no vectors: a section whose keyword chunk has none is
        one the semantic half could not see, so its fused score must not count that against it."""
        semantic, keyword = halves
        missing = queries.unembedded(self.index.conn, [cid for cid, _ in keyword])
        held = {group(cid) for cid, _ in keyword if cid in missing}
        if PARTIAL_FUSION == "impute":
            return dbsf_imputed(semantic, keyword, group, DBSF_WEIGHTS, held)
        weights = DBSF_WEIGHTS
        if PARTIAL_FUSION == "shrink":  # the vectors' say in proportion to the share of chunks they cover
            weights = (DBSF_WEIGHTS[0] * self.coverage, DBSF_WEIGHTS[1])
        return keep_places(dbsf(halves, group, weights), keyword, group, held)

    def _reorder(self, ranked: list[tuple[int, float]], section: Callable[[tuple[int, float]], Hashable],
                 rows: dict[int, queries.ChunkRow]) -> list[tuple[int, float]]:
        """The rules applied after fusion: release histories later, the front README a place later for a query naming
        something, subsections before their parents, a parent below its subsection further down."""
        text, vocabulary = self.text, self.vocabulary
        # A changelog entry names the feature it changed, so it matches a how-to question as well as the
        # page documenting it, but answers "when". For a query naming something it only yields to hits
        # that spell as many of the names: a changelog may be the only note that spells a name.
        history = {cid for cid, row in rows.items() if ranking.is_history_file(row.path)}
        if ranking.UPGRADE_NOTES_LATER and is_lookup(text):
            history |= {cid for cid, row in rows.items() if ranking.is_upgrade_note(row.heading)}
        demoted = bool(history) and ranking.HISTORY_DEMOTE > 0 and not ranking.asks_about_releases(text)
        # For a query naming something, the front page yields to the docs' sections that spell the names as often; a
        # plain question may be answered best by the README's tour (loguru's, which its docs include).
        front = {cid for cid, row in rows.items() if ranking.README_DEMOTE > 0 and ranking.is_front_readme(row.path)}
        names = named_identifiers(text, vocabulary) if demoted or front else []
        # a lookup of one word names it too (loguru's `diagnose`, an argument the README's tour shows off), for the
        # README's move only: a release entry that spells such a word is no more the answer than before
        front_names = names or (one_word_name(text) if front and ranking.README_LOOKUP_WORD and is_lookup(text) else [])
        tiers: dict[int, int] = {}  # names spelled per chunk, each text read once, for both moves
        if (front and front_names) or (names and demoted and HISTORY_IN_TIER):
            spelled = spelled_counter(front_names)  # the names, or else a one-word lookup's word
            tiers = {cid: spelled(row.text) for cid, row in rows.items()}
        tier = lambda item: tiers.get(item[0], 0)  # noqa: E731
        if demoted:
            in_history = lambda item: item[0] in history  # noqa: E731
            if not names:
                ranked = ranking.history_later(ranked, in_history, ranking.HISTORY_DEMOTE)
            elif HISTORY_IN_TIER:
                ranked = ranking.history_later_in_tier(ranked, in_history, tier, ranking.HISTORY_DEMOTE)
        if front and front_names:  # moved as a release entry is, past hits spelling as many names, but one place only
            ranked = ranking.history_later_in_tier(ranked, lambda item: item[0] in front, tier, ranking.README_DEMOTE)
        # After the histories have moved: a subsection "close behind" its parent is counted among the hits
        # that stay, so changelog entries demoted from between them no longer hide it (measured: one more
        # plain top1 on the starlette set, the others unchanged).
        # A lookup's own entry keeps its place above its subsections: "Chords" is what `chord` looks up,
        # "Chords > Error handling" one detail of it.
        titles = lookup_titles(text, vocabulary) if ranking.OWN_ENTRY_KEPT and is_lookup(text) else []
        kept = lambda item: item[0] in rows and entry_heading(rows[item[0]].heading, titles)  # noqa: E731
        ranked = ranking.specific_first(ranked, section, ranking.SPECIFIC_WINDOW, kept)
        # then a parent below one of its subsections gives its place to another answer, not to a demoted release
        ranked = ranking.parents_deferred(ranked, section, ranking.PARENT_DEFER,
                                          lambda item: demoted and item[0] in history)
        # a man page's explanation before its NAME and SYNOPSIS stubs
        ranked = ranking.man_description_first(
            ranked, lambda item: (rows[item[0]].path, rows[item[0]].heading) if item[0] in rows else ("", ""))
        if self.guess:  # the guess reorders the sections the question's names pick: the name's own stays first
            heading = lambda item: rows[item[0]].heading if item[0] in rows else ""  # noqa: E731
            ranked = expansion.titled_first(ranked, heading, expansion.title_names(text))
        return ranked


def search(index: Index, policy: NotesPolicy, embedder: Embedder, q: Query,
           vocabulary: AbstractSet[str] = frozenset(), within: FileScope | None = None,
           unread: bool = False) -> SearchResult:
    """Run one query. Never loads the model for a keyword search or an empty index.

    `auto` asks `route` (with the embedder's kind): a lookup runs keyword (and hybrid only if BM25
    finds nothing), a question what the embedder's measured rule says (hybrid for the local model). `vocabulary` (the repo's names) marks query words to be matched verbatim, like identifiers.
    `within` narrows both halves to those files, like a path filter (`languages.py`: one language's notes).
    `unread`: the query is in a language the embedder does not read (`languages.unread_language`), so its
    vectors would rank by noise: `auto` answers by keyword alone, with no fallback to the vectors.
    """
    text = q.text.strip()
    if not q.expected_answer.strip() and (name := asked_name(text, vocabulary)):
        text = name  # "What does X do?" is a lookup of X (a guess, when given, keeps the question's words)
    mode = route(text, vocabulary, embedder.id) if q.mode == "auto" else q.mode
    if not text:
        return SearchResult([], mode, ["the query is empty: ask a question or name what you look for"])
    symbols_only = search_match(text) is None
    if symbols_only and not any(ord(ch) > 127 for ch in text) and not (punctuation_name(text) or lone_mark(text)):
        # Only ASCII punctuation: the vectors would still rank something, but nothing it means, and
        # `.` or `?` verbatim is in every note. One token of two or more (`%%`, `[[##`, `??`) is syntax
        # named on purpose, and looked for verbatim like an emoji.
        return SearchResult([], mode, ["the query has no searchable words (only punctuation): "
                                       "ask a question or name what you look for"])
    if symbols_only:
        # Symbols such as an emoji: the keyword index drops them, so they are looked for verbatim.
        mode = "keyword"
    asked = q.mode
    common = [] if symbols_only else common_words_only(text, vocabulary)
    notes: list[str] = []
    if unread and asked == "auto":
        mode = asked = "keyword"
    elif unread and asked in ("semantic", "hybrid"):
        notes.append(f"the embedding model does not read the query's language: its {asked} ranking is noise; "
                     "auto or --mode keyword matches the query's words")
    if common:
        # "how do I use it": no topic for the vectors to find, so `auto` looks the words up literally
        # (no fallback to hybrid's arbitrary nearest sections), and every answer says why it is weak.
        notes.append(f"the query has only common words ({', '.join(common[:8])}), which say nothing about a "
                     "topic: results merely contain them; name what you look for")
        if asked == "auto":
            mode = asked = "keyword"
    if not queries.has_chunks(index.conn):
        return SearchResult([], mode, ["the index is empty: no notes are indexed in this folder yet"])
    file_ids: list[int] | None = None
    if q.paths:
        file_ids = matching_file_ids(queries.file_paths(index.conn), q.paths)
        if not file_ids:
            return SearchResult([], mode, [f"the path filter {list(q.paths)} matches no indexed note; "
                                           "drop it or use a glob such as 'docs/**'"])
    scope: FileScope | None = file_ids
    if within is not None:  # a list, or all notes but some (`records.FilesExcept`), narrowed by the path filter
        wanted = within if isinstance(within, FilesExcept) else frozenset(within)
        scope = within if file_ids is None else [f for f in file_ids if f in wanted]
    if scope is not None and not scope:  # no note left (a `FilesExcept` is always true: it names what it leaves out)
        return SearchResult([], mode, notes)
    usable = vectors_usable(index, embedder.id, embedder.dimensions, embedder.max_windows)
    if mode in ("semantic", "hybrid") and not usable:
        notes.append("vectors are missing or from another embedder until the next sync: keyword results only")
        mode = "keyword"
    # Stage two of a sync may still be embedding: keyword covers every chunk, the vectors only some.
    # Hybrid then fuses the vectors there are with keyword for the rest (`PARTIAL_FUSION`: a chunk
    # without vectors keeps the place BM25 gives it). `auto` answers a question by keyword alone, or by
    # that fusion when `AUTO_MID_STAGE_TWO` says so (measured: see there); with no vector yet, always
    # by keyword. A mode asked for by name uses the vectors there are.
    vectors = queries.vector_progress(index.conn)
    stage = stage_two_note(vectors.embedded, vectors.total)
    if stage is not None:
        notes.append(stage)
        if asked == "auto" and (AUTO_MID_STAGE_TWO == "keyword" or vectors.embedded == 0):
            mode = "keyword"
        elif asked == "auto" and mode == "semantic":
            mode = "hybrid"  # the vectors alone would never find the chunks they do not have yet
        usable = usable and vectors.embedded > 0

    guess = q.expected_answer.strip() if expansion.applies(text, q.expected_answer) and not symbols_only else ""
    if q.expected_answer.strip() and not guess:
        notes.append(expansion.unused_note())
    coverage = vectors.embedded / vectors.total if stage is not None else 1.0
    ranker = _Ranker(index, embedder, text, asked, scope, vocabulary, notes, symbols_only, coverage, guess)
    fixed = ranker.rank(mode, CANDIDATE_SECTIONS)
    # A name only the release histories spell, whose other spelling the docs explain (`siblings`): looked up again
    # by that spelling. Read off the candidates first, so a name the docs spell costs nothing more. Spellings are
    # the words' business: a semantic search reads the name as it was asked.
    if fixed.mode != "semantic" and not guess and is_lookup(text) and len(text.split()) == 1 \
            and (other := siblings.docs_spelling(index, text, ((r.path, r.text) for r in fixed.rows.values()),
                                                 scope)):
        notes.append(f"only release notes spell {text}; these are the docs' sections on {other}, its other spelling")
        text = other
        ranker = _Ranker(index, embedder, text, asked, scope, vocabulary, notes, symbols_only, coverage, guess)
        fixed = ranker.rank(mode, CANDIDATE_SECTIONS)
    mode = fixed.mode
    check = _PolicyCheck(policy)
    hits = _admitted(fixed.ranked, fixed.rows, check, q.k)
    if len(hits) < q.k:
        # The deeper search only adds: its own order may differ above the fixed depth, but the sections
        # the fixed depth ranked keep their places, so the first n results never depend on k.
        placed = {fixed.section(item) for item in fixed.ranked}
        deep = ranker.rank(mode, max(DEEP_SECTIONS, q.k))
        extra = [item for item in deep.ranked if deep.section(item) not in placed]
        hits += _admitted(extra, deep.rows, check, q.k - len(hits))
    hits = [replace(h, score=s) for h, s in zip(hits, ranking.place_scores([h.score for h in hits]))]
    if not hits and (mark := lone_mark(text)):
        notes.append(f"no note sets {mark!r} off as code (`{mark}`)" + (" within the path filter" if q.paths else "")
                     + ": a mark alone is looked for only there; ask a question or name what you look for")
    elif not hits and symbols_only:
        notes.append(f"no note contains {text!r}" + (" within the path filter" if q.paths else "")
                     + " (a query of symbols only is looked for verbatim)")
    elif not hits:
        notes.append("no note matches this query" + (" within the path filter" if q.paths else "")
                     + ("; try other words or --mode semantic" if mode == "keyword" else "; try other words"))
    return SearchResult(hits, mode, notes)
