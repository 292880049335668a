"""What the model reads of a chunk: its prose, without markup that carries no meaning.

Notes are full of markup that costs tokens and says nothing: HTML elements (`<dt class="option-term"
id="...">`), comments, link targets (`[text](https://...)`), reference definitions, and mkdocs syntax
(`!!! note "Title"` admonitions, `=== "Tab"` content tabs, `::: module.Name` autodoc directives with
their option lines). The model reads at most 256 tokens per window, so every token of markup is a
token of content pushed into another window, and noise in the vector. The stored and returned text
stays verbatim; only the embedded view is cleaned.

The rule is "keep what a reader of the rendered page sees": an admonition keeps its title and body,
a tab its label, an autodoc directive the name of the object it documents (the rendered page shows
it as a heading; a section of bare `::: pkg.Name` lines has nothing else), a link its text. Fenced
code stays verbatim, and so do inline code spans (`` `<details>` `` is content). Placeholders that
look like tags but are not HTML (`<duration>`, `<host>`) are content and stay.

Changing this view changes every vector: bump VIEW so old indexes are re-embedded, not mixed.
"""

from __future__ import annotations

import html
import re

# v3: each chunk is also embedded in paragraph pieces (embed/pieces.py).
VIEW = "v3"

_HTML_ELEMENTS = (
    "a|abbr|b|br|blockquote|code|dd|del|details|div|dl|dt|em|h[1-6]|hr|i|img|ins|kbd|li|ol|p|pre|s|small|"
    "span|strong|sub|summary|sup|table|tbody|td|th|thead|tr|u|ul|picture|source|figure|figcaption|center|font"
)
_TAG = re.compile(rf"</?(?:{_HTML_ELEMENTS})(?:\s[^<>]*)?/?>", re.IGNORECASE)
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)  # an unclosed comment hides the rest, as in HTML
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*\S+.*$", re.MULTILINE)
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_CODE_SPAN = re.compile(r"(`+)[^`\n]+?\1")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")
_SPACES = re.compile(r"[ \t]{2,}")
_BLANKS = re.compile(r"\n\s*\n\s*\n+")

_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})(.*)$")
# mkdocs-material / Python-Markdown admonitions and collapsibles: `!!! type "Title"`, `???+ type`.
_ADMONITION = re.compile(r"[ \t]*(?:!!!|\?\?\?\+?)[ \t]+[\w-]+(?:[ \t]+[\w-]+)*(?:[ \t]+\"([^\"]*)\")?[ \t]*$")
_TAB = re.compile(r"[ \t]*===\+?[ \t]+\"([^\"]*)\"[ \t]*$")  # pymdownx content tabs
# `::: pkg.Name` (mkdocstrings, mkautodoc), `:::note Title`, `:::tip[Title]` (Docusaurus), `::: {.x}` (Pandoc)
_DIRECTIVE = re.compile(r"[ \t]*:{3,}(.*)$")
_DIRECTIVE_TITLE = re.compile(r"([\w-]+)(?:\[(.*)\]|[ \t]+(.*))?$")
_AUTODOC_OPTION = re.compile(r"[ \t]+:[\w-]+:[ \t]*(.*)$")  # mkautodoc `:docstring:`, `:members: a b`
_YAML_OPTION = re.compile(r"[ \t]+[\w-]+:(?:[ \t].*)?$")  # mkdocstrings `options:`, `show_source: false`
_ADMONITION_TYPES = frozenset(
    "note abstract summary tldr info todo tip hint important success check done question help faq warning "
    "caution attention failure fail missing danger error bug example quote cite seealso details".split()
)


def vector_space_id(embedder_id: str) -> str:
    """The identity stored with the vectors: the model's id plus this view's version."""
    return f"{embedder_id}|view-{VIEW}"


def embed_body(text: str) -> str:
    """The chunk text as the model should read it: markup out, words and code in."""
    out: list[str] = []
    prose: list[str] = []
    fence = ""  # the open fence's marker, "" outside fenced code
    for line in text.split("\n"):
        if fence:
            out.append(line)
            m = _FENCE.match(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
                fence = ""
            continue
        m = _FENCE.match(line)
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            out.append(_prose("\n".join(prose)))
            prose = []
            out.append(line)
            fence = m.group(1)
            continue
        prose.append(line)
    out.append(_prose("\n".join(prose)))
    t = "\n".join(out)
    t = _SPACES.sub(" ", t)
    t = _BLANKS.sub("\n\n", t)
    return t.strip()


def _prose(text: str) -> str:
    """Text outside fenced code with its markup removed."""
    if not text:
        return text
    t = _COMMENT.sub(" ", text) if "<!--" in text else text
    t = _markers(t)
    spans: list[str] = []

    def hold(m: re.Match[str]) -> str:
        spans.append(m.group(0))
        return f"\x00{len(spans) - 1}\x00"

    if "`" in t:
        t = _CODE_SPAN.sub(hold, t.replace("\x00", ""))
    t = _TAG.sub(" ", t)
    t = _IMAGE.sub(r"\1", t)
    t = _LINK.sub(r"\1", t)
    t = _REF_LINK.sub(r"\1", t)
    t = _REF_DEF.sub("", t)
    t = _AUTOLINK.sub(r"\1", t)
    t = html.unescape(t)
    if spans:
        t = _PLACEHOLDER.sub(lambda m: spans[int(m.group(1))], t)
    return t


def _markers(text: str) -> str:
    """mkdocs line markers reduced to what the rendered page shows (see the module docstring)."""
    if "!!!" not in text and "???" not in text and ":::" not in text and "===" not in text:
        return text
    out: list[str] = []
    in_directive = False  # on the indented option lines right after a `:::` line
    for line in text.split("\n"):
        if in_directive and line[:1] in (" ", "\t") and line.strip():
            m = _AUTODOC_OPTION.match(line)
            if m:
                if m.group(1):
                    out.append(m.group(1))
                continue
            if _YAML_OPTION.match(line):
                continue
        in_directive = False
        m = _ADMONITION.match(line) or _TAB.match(line)
        if m:
            if m.group(1) and m.group(1).strip():
                out.append(m.group(1).strip())
            continue
        m = _DIRECTIVE.match(line)
        if m:
            in_directive = True
            kept = _directive_text(m.group(1).strip())
            if kept:
                out.append(kept)
            continue
        out.append(line)
    return "\n".join(out)


def _directive_text(rest: str) -> str:
    """What a reader sees of a `:::` line: the object a directive documents, or an admonition's title."""
    if not rest or rest.startswith("{"):
        return ""
    m = _DIRECTIVE_TITLE.match(rest)
    if m and m.group(1).lower() in _ADMONITION_TYPES:
        return (m.group(2) or m.group(3) or "").strip()
    return rest
