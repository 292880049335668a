"""Pure text arithmetic for the API embedder: token estimates without a tokenizer, a passage cut into
windows within the model's input limit, and inputs grouped into requests within a token budget.

No I/O and no httpx: `embed/api.py` sends what these functions plan.
"""

from __future__ import annotations

import logging
import re
from typing import Sequence

from .base import Passage

log = logging.getLogger(__name__)

# The store's rowid stride for this embedder: vectors are keyed chunk_id * MAX_WINDOWS + window.
MAX_WINDOWS = 64
OVERLAP_TOKENS = 32  # shared by consecutive windows of a split chunk, as in the local model


def estimate_tokens(text: str) -> int:
    """Tokens in `text` without the model's tokenizer, leaning high: an ASCII character counts a
    third of a token (BPE and WordPiece average 3.5 to 4.5 characters per token on English prose and
    code) and any other character a whole token (CJK is about one token per character)."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    return -(-ascii_chars // 3) + (len(text) - ascii_chars)


def _pieces(text: str, room: int) -> list[tuple[str, int]]:
    """`text` as (piece, tokens): words with their trailing space, a word longer than `room` cut."""
    out: list[tuple[str, int]] = []
    for m in re.finditer(r"\S+\s*|\s+", text):
        word = m.group(0)
        tokens = estimate_tokens(word)
        while tokens > room:  # a run without spaces (a URL, base64): cut it where it overflows
            cut = max(1, len(word) * room // tokens)
            out.append((word[:cut], estimate_tokens(word[:cut])))
            word = word[cut:]
            tokens = estimate_tokens(word)
        if word:
            out.append((word, tokens))
    return out


def plan_windows(passage: Passage, max_tokens: int, *, max_windows: int = MAX_WINDOWS,
                 overlap: int = OVERLAP_TOKENS) -> list[str]:
    """The texts to embed for one passage, each within `max_tokens` by `estimate_tokens`.

    A passage that fits is its whole text. A longer one is cut into body windows sharing about
    `overlap` tokens, each prefixed with the header (capped at a quarter of the limit), so every part
    is embedded with its path and heading trail. Past `max_windows` the rest of the body is dropped.
    """
    whole = passage.text
    if estimate_tokens(whole) <= max_tokens:
        return [whole]
    header = passage.header
    cap = max_tokens // 4
    if estimate_tokens(header) > cap:
        header = "".join(p for p, _ in _take(_pieces(header, cap), cap))
    room = max(8, max_tokens - estimate_tokens(header) - 1)
    pieces = _pieces(passage.body, room)
    windows: list[str] = []
    start = 0
    while start < len(pieces) and len(windows) < max_windows:
        used, end = 0, start
        while end < len(pieces) and used + pieces[end][1] <= room:
            used += pieces[end][1]
            end += 1
        windows.append(f"{header}\n\n{''.join(p for p, _ in pieces[start:end])}".rstrip())
        if end >= len(pieces):
            break
        back, shared = end, 0  # step back about `overlap` tokens, but always move forward
        while back - 1 > start and shared + pieces[back - 1][1] <= overlap:
            back -= 1
            shared += pieces[back][1]
        start = back
    if start < len(pieces) and len(windows) == max_windows:
        log.debug("a passage of %d pieces was capped at %d windows", len(pieces), max_windows)
    return windows


def _take(pieces: list[tuple[str, int]], budget: int) -> list[tuple[str, int]]:
    out, used = [], 0
    for piece in pieces:
        if used + piece[1] > budget:
            break
        out.append(piece)
        used += piece[1]
    return out


def group_requests(tokens: Sequence[int], *, max_inputs: int, budget: int) -> list[range]:
    """Consecutive inputs grouped into requests of at most `max_inputs` and `budget` tokens (an input
    over the budget by itself goes alone)."""
    groups: list[range] = []
    start, used = 0, 0
    for i, t in enumerate(tokens):
        if i > start and (i - start >= max_inputs or used + t > budget):
            groups.append(range(start, i))
            start, used = i, 0
        used += t
    if start < len(tokens):
        groups.append(range(start, len(tokens)))
    return groups
