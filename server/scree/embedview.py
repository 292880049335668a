"""What the model reads of a chunk: its prose, without markup that carries no meaning.

Notes are full of markup that costs tokens and says nothing: HTML elements (`<dt class="option-term"
id="...">`), link targets (`[text](https://...)`), reference definitions. The model reads at most 256
tokens per window, so every token of markup is a token of content pushed into another window, and
noise in the vector. The stored and returned text stays verbatim; only the embedded view is cleaned.
Placeholders that look like tags but are not HTML (`<duration>`, `<host>`) are content and stay.

Changing this view changes every vector: bump VIEW so old indexes are re-embedded, not mixed.
"""

from __future__ import annotations

import html
import re

VIEW = "v1"

_HTML_ELEMENTS = (
    "a|abbr|b|br|blockquote|code|dd|del|details|div|dl|dt|em|h[1-6]|hr|i|img|ins|kbd|li|ol|p|pre|s|small|"
    "span|strong|sub|summary|sup|table|tbody|td|th|thead|tr|u|ul|picture|source|figure|figcaption|center|font"
)
_TAG = re.compile(rf"</?(?:{_HTML_ELEMENTS})(?:\s[^<>]*)?/?>", re.IGNORECASE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*\S+.*$", re.MULTILINE)
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_SPACES = re.compile(r"[ \t]{2,}")
_BLANKS = re.compile(r"\n\s*\n\s*\n+")


def vector_space_id(embedder_id: str) -> str:
    """The identity stored with the vectors: the model's id plus this view's version."""
    return f"{embedder_id}|view-{VIEW}"


def embed_body(text: str) -> str:
    """The chunk text as the model should read it: markup out, words and code in."""
    t = _COMMENT.sub(" ", text)
    t = _TAG.sub(" ", t)
    t = _IMAGE.sub(r"\1", t)
    t = _LINK.sub(r"\1", t)
    t = _REF_LINK.sub(r"\1", t)
    t = _REF_DEF.sub("", t)
    t = _AUTOLINK.sub(r"\1", t)
    t = html.unescape(t)
    t = _SPACES.sub(" ", t)
    t = _BLANKS.sub("\n\n", t)
    return t.strip()
