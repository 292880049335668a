"""UTF-8 sizes of Python strings, never raising: every cap in scree (chunks, headings, excerpts) is in bytes.

Lone surrogates (never produced by a strict or replacing decoder, but possible in a `str`) count as
3 bytes instead of raising.
"""

from __future__ import annotations


def utf8_len(s: str) -> int:
    """UTF-8 byte length of `s`, never raising (a lone surrogate counts as 3 bytes)."""
    if s.isascii():
        return len(s)
    return len(s.encode("utf-8", "surrogatepass"))


def cut_utf8(s: str, max_bytes: int) -> str:
    """The longest prefix of `s` whose UTF-8 form fits in `max_bytes`, cut on a character boundary."""
    if s.isascii():
        return s[:max_bytes]
    data = s.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return s
    return data[: char_boundary(data, max_bytes)].decode("utf-8", "surrogatepass")


def char_boundary(data: bytes, cut: int) -> int:
    """The largest index <= cut that does not split a UTF-8 sequence (cut < len(data))."""
    while cut > 0 and data[cut] & 0xC0 == 0x80:
        cut -= 1
    return cut
