"""Text in Chinese, Japanese and Korean scripts as the keyword index reads it: overlapping bigrams.

FTS5's `unicode61` tokenizer splits on spaces and punctuation, and Chinese and Japanese put neither
between words: a run of CJK characters (a sentence, a heading like "ミドルウェアの作成") is one token, in
the notes and in a query alike, so a question almost never matches a note's run. Korean puts spaces
between words, but its particles are glued to them ("쿠키를", "쿠키는"). The standard answer without a
dictionary is Lucene's CJKBigramFilter: each run of these scripts is indexed as its overlapping
character bigrams ("ミドルウェア" -> ミド ドル ルウ ウェ ェア), a lone character as itself, and a query's
runs are cut the same way, so a question matches the notes that share its bigrams and BM25 weighs each
bigram like any word (a rare one counts, "の" glued to a neighbour hardly). A word of another script glued
to a run ("FastAPIは", "FastAPI는") is split off it, as Lucene's tokenizer splits it.

This module is pure: it says what the second keyword row of a chunk holding these scripts is (`row`).
`chunks_fts` keeps every chunk's text as `unicode61` reads it, so English BM25 does not move; the rows
made here live in `chunks_cjk` (db/schema.py, migration 7), and a query holding CJK is matched there
(search/ftsquery.py). `VERSION` names the rules: an index made under other rules makes its rows again.
"""

from __future__ import annotations

import re
from typing import Iterator

# Hangul runs are cut into bigrams too (measured on FastAPI's Korean docs: docs/benchmarks.md, issue 27).
HANGUL = True

_HAN = "\u3005-\u3007\u303b\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
# Kana without the combining sound marks (U+3099-309C), the katakana middle dot (U+30FB, punctuation) and
# U+30A0: unicode61 reads those as separators, so they end a run here too.
_KANA = "\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_HANGUL = "\u1100-\u11ff\u3131-\u318e\ua960-\ua97f\uac00-\ud7a3\ud7b0-\ud7ff"


def _run_pattern(hangul: bool) -> re.Pattern[str]:
    return re.compile(f"[{_HAN}{_KANA}{_HANGUL if hangul else ''}]+")


_RUNS = {True: _run_pattern(True), False: _run_pattern(False)}


def version() -> str:
    """The rules the rows are made by (stored in the index's meta: other rules make the rows again)."""
    return f"1{'h' if HANGUL else ''}"


def runs(text: str) -> Iterator[re.Match[str]]:
    """The maximal runs of CJK characters in `text` (Hangul with HANGUL)."""
    return _RUNS[HANGUL].finditer(text)


def has_cjk(text: str) -> bool:
    return _RUNS[HANGUL].search(text) is not None


def bigrams(run: str) -> list[str]:
    """A run's overlapping character bigrams in order; a lone character is its own token."""
    if len(run) < 2:
        return [run] if run else []
    return [run[i:i + 2] for i in range(len(run) - 1)]


def keyword_view(text: str) -> str:
    """`text` as the second keyword row holds it: each CJK run written as its bigrams, spaces around them
    (so a word glued to the run is split off it), everything else as it is (unicode61 reads it as in
    `chunks_fts`)."""
    return _RUNS[HANGUL].sub(lambda m: " " + " ".join(bigrams(m.group(0))) + " ", text)


def row(heading: str, text: str, names: str) -> tuple[str, str, str] | None:
    """The `chunks_cjk` row of a chunk (its heading, text and names as `keyword_view`s), or None when no
    column holds a CJK character: such a chunk has no second row."""
    if not (has_cjk(heading) or has_cjk(text) or has_cjk(names)):
        return None
    return keyword_view(heading), keyword_view(text), keyword_view(names)


def split(text: str) -> tuple[str, list[str]]:
    """A query's text without its CJK runs (each replaced by a space), and the runs in order."""
    found = [m.group(0) for m in runs(text)]
    return (_RUNS[HANGUL].sub(" ", text) if found else text), found
