"""The calling agent's guess at the answer (`expected_answer`): how it widens a question's search.

scree's local model is small, but its caller is a large model that knows how documentation tends to
phrase an answer. So `search_docs` takes, beside the question, one to three sentences the agent
expects the answer to say (HyDE: Gao et al. 2022, "Precise Zero-Shot Dense Retrieval without
Relevance Labels": an answer looks more like the passage than a question does). The agent writes it
without having read the notes, so it carries the docs' likely vocabulary and shape, and sometimes
names or facts that are wrong.

The question stays the primary input. Routing (`route.route`), the names matched verbatim, the
history rule and every other rule read the question alone; the guess only widens the two halves of
a question's search (the semantic half and the keyword half), never a lookup's (a bare name, a flag,
a short keyword phrase): glued to a bare name, a guess turned a keyword lookup into a blurred
question and lost identifier lookups (issue 28). How each half is widened was measured on every dev
set with and without the blind-written guesses (`benchmarks/quality.py --expansions`,
docs/benchmarks.md); the constants below say what won and what was tried.

Everything here is pure: the search hands in how to rank a vector and how to run a MATCH.
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

import numpy as np

from .ftsquery import STOPWORDS, query_terms, search_match
from .fusion import dbsf, rrf
from ..notes.sectiontext import titled_by
from .route import is_lookup, named_identifiers

T = TypeVar("T")

# The guess is capped like the query (search.MAX_QUERY_CHARS): the model reads one window of 256
# word pieces, and BM25 over hundreds of words matches every section.
MAX_GUESS_CHARS = 2000

# How the two halves use the guess, measured on the six dev sets with the blind-written guesses
# (docs/benchmarks.md, "The caller's guess at the answer"). The question and the guess as one text won
# in both halves: the same or more plain top1 than every alternative, and the only combination under
# which no set's identifier stratum fell (auto). In the vectors, "mean" (HyDE's average of the two
# vectors) lost identifier questions on three sets; in BM25, the guess's words at half a question
# word's weight lost plain questions on two sets and gained on none.
#
# The semantic half:
#   "concat"   - one vector of the question followed by the guess (the model reads the first 256 word
#                pieces, so the question is always read whole);
#   "mean"     - the two vectors added, the guess's times SEMANTIC_WEIGHT, and normalised (a window
#                scores by its weighted sum of similarities to both);
#   "max"      - each chunk at the better of its similarities to the question and to the guess;
#   "dbsf", "rrf" - the two rankings fused (fusion.dbsf by scaled scores; fusion.rrf by ranks);
#   "question" - the question's vector alone.
SEMANTIC_WAY = "concat"
SEMANTIC_WEIGHT = 1.0
# The keyword half:
#   "concat"   - one OR query of the question's and the guess's words: BM25 sums every term alike;
#   "weighted" - BM25 of the question plus KEYWORD_WEIGHT times BM25 of the guess's other words (at
#                1.0 this ranks exactly as "concat");
#   "question" - the question's words alone.
# Either way the chunks spelling the question's names verbatim stay first (search.names.names_first).
KEYWORD_WAY = "concat"
KEYWORD_WEIGHT = 0.5
# For a question naming an identifier, a section titled by it within this many first places moves to
# the first (0: off; 2 and 3 measured alike).
TITLED_WINDOW = 2
# Chunks each BM25 query returns when a guess widens it (the question's own pool is 2 x depth).
GUESS_POOL = 100


def applies(question: str, guess: str) -> bool:
    """True when a guess is given and the question is not a lookup (a bare name, a flag, a short
    keyword phrase: `route.is_lookup`). A lookup is answered from its own words alone, whatever the
    mode: the guess would only blur the name (issue 28: identifier top1 100% -> 75% when it did).

    That includes a 2-3 word phrase of plain words, which `auto` routes as a question since issue 29
    (`route.routed_as_lookup`): widened by blind guesses, such phrases rose on mdx, starlette and Platen
    and fell on dev, myst and fastapi (docs/benchmarks.md, "Short phrases"), so a phrase keeps its own
    words; the grep hint asks for a guess only where it is used (`hookkit.patterns.asks_for_guess`)."""
    return bool(guess.strip()) and bool(question.strip()) and not is_lookup(question.strip())


def cut_note(kept: int, given: int, limit: int = MAX_GUESS_CHARS) -> str:
    """The answer's note when the guess was cut to its first `kept` of `given` characters."""
    return (f"the expected answer was cut to its first {kept} characters (it had {given}; it is capped at {limit}): "
            "a few sentences are enough")


def unused_note() -> str:
    """The answer's note when a guess came with a lookup (see `applies`)."""
    return ("the expected answer was not used: a bare name, a flag or a phrase of up to three words is matched "
            "by its own words")


# ----- the semantic half ---------------------------------------------------------------------------


def mean_vector(question: np.ndarray, guess: np.ndarray, weight: float = 1.0) -> np.ndarray:
    """The unit vector of `question + weight * guess` (both unit vectors): its cosine with any window is
    proportional to the window's cosine with the question plus `weight` times its cosine with the guess."""
    v = np.asarray(question, dtype="<f4") + np.float32(weight) * np.asarray(guess, dtype="<f4")
    norm = float(np.linalg.norm(v))
    return (v / norm).astype("<f4") if norm > 0 else np.asarray(question, dtype="<f4")


def concat_text(question: str, guess: str) -> str:
    """The question and the guess as one text to embed (question first: the model reads 256 pieces)."""
    return question.strip() + "\n" + guess.strip()


def embedded_text(question: str, guess: str) -> str:
    """The text the semantic half embeds first for this question and guess (`ahead.embedded_ahead`
    embeds a long one before the index is taken)."""
    return concat_text(question, guess) if SEMANTIC_WAY == "concat" else question


def max_pool(rankings: Sequence[Sequence[tuple[int, float]]]) -> list[tuple[int, float]]:
    """Each chunk at its best score over `rankings` (same scale: cosines), best first; ties keep the
    first-seen order."""
    best: dict[int, float] = {}
    for ranking in rankings:
        for cid, score in ranking:
            if cid not in best or score > best[cid]:
                best[cid] = score
    order = {cid: i for i, cid in enumerate(best)}
    return sorted(best.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def semantic(question: str, guess: str, question_vector: Callable[[], np.ndarray],
             embed: Callable[[str], np.ndarray], rank: Callable[[np.ndarray], list[tuple[int, float]]],
             way: str | None = None) -> list[tuple[int, float]]:
    """The semantic half of a question widened by `guess`: (chunk id, score) best first.

    `question_vector()` is the question's vector, `embed(text)` embeds another text, `rank(vector)`
    is the KNN ranking of a vector (cosine similarities, best first).
    """
    way = way or SEMANTIC_WAY
    if way == "question":
        return rank(question_vector())
    if way == "concat":
        return rank(embed(concat_text(question, guess)))
    guess_vector = embed(guess.strip())
    if way == "mean":
        return rank(mean_vector(question_vector(), guess_vector, SEMANTIC_WEIGHT))
    halves = [rank(question_vector()), rank(guess_vector)]
    if way == "max":
        return max_pool(halves)
    if way == "dbsf":
        return dbsf(halves, lambda cid: cid, (1.0, SEMANTIC_WEIGHT))
    if way == "rrf":
        return rrf([[cid for cid, _ in h] for h in halves], weights=(1.0, SEMANTIC_WEIGHT))
    raise ValueError(f"unknown SEMANTIC_WAY {way!r}")


# ----- the keyword half ----------------------------------------------------------------------------


def guess_terms(question: str, guess: str) -> str:
    """The guess's words that the question does not hold (case-insensitively), stopwords dropped, as
    one text for `search_match`: the question's own words are already weighted in full."""
    asked = {t.lower() for t in query_terms(question)}
    words = [t for t in query_terms(guess) if t.lower() not in asked and t.lower() not in STOPWORDS]
    return " ".join(words)


def add_scores(primary: Sequence[tuple[int, float]], extra: Sequence[tuple[int, float]],
               weight: float) -> list[tuple[int, float]]:
    """Per chunk, its `primary` score plus `weight` times its `extra` score (0 where a list lacks it:
    BM25 of words a chunk does not hold), best first; ties keep `primary`'s order, then `extra`'s."""
    total: dict[int, float] = {}
    for cid, score in primary:
        total[cid] = total.get(cid, 0.0) + score
    for cid, score in extra:
        total[cid] = total.get(cid, 0.0) + weight * score
    order = {cid: i for i, cid in enumerate(total)}
    return sorted(total.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def keyword(question: str, guess: str, question_ranking: Callable[[], list[tuple[int, float]]],
            search: Callable[[str], list[tuple[int, float]]], way: str | None = None) -> list[tuple[int, float]]:
    """The keyword half of a question widened by `guess`: (chunk id, BM25 score) best first.

    `question_ranking()` is BM25 of the question's own words (asked for only where it is used: "concat"
    ranks the two texts as one); `search(text)` ranks another text's words by BM25 (the caller makes its
    MATCH: `search_match`, and bigrams for Chinese, Japanese or Korean text).
    """
    way = way or KEYWORD_WAY
    if way == "question":
        return question_ranking()
    if way == "concat":
        text = question + " " + guess
        return search(text) if search_match(text) else question_ranking()
    if way == "weighted":
        text = guess_terms(question, guess)
        ranked = question_ranking()
        return add_scores(ranked, search(text), KEYWORD_WEIGHT) if search_match(text) else ranked
    raise ValueError(f"unknown KEYWORD_WAY {way!r}")


# ----- after fusion ----------------------------------------------------------------------------------


def title_names(question: str) -> list[str]:
    """The names `titled_first` looks for in headings: the question's identifiers (`PURGE_OLD_RECORDS`,
    `httpx.Proxy`, `--locked`, `RuleCreator`), not its vocabulary words, which are often everyday words
    (`auth`, `middleware`) that title broad sections. None for a lookup, which no guess widens."""
    return [] if is_lookup(question) else named_identifiers(question)


def titled_first(ranked: Sequence[T], heading: Callable[[T], str], names: Sequence[str],
                 window: int | None = None) -> list[T]:
    """`ranked` with the first section titled by one of `names` (a heading of its trail is the name:
    `sectiontext.titled_by`) moved to the top, when it is within the first `window` places.

    For a question about a name ("What does RuleCreator do?") the sections spelling the name are
    near-equal for the question, and the guess, which describes the answer without having read it,
    picks among them; the section the docs title by that name is what the question asks about.
    """
    window = TITLED_WINDOW if window is None else window
    items = list(ranked)
    if not names or window <= 0:
        return items
    for i, item in enumerate(items[:window]):
        if titled_by(heading(item), names):
            return [item, *items[:i], *items[i + 1:]] if i else items
    return items
