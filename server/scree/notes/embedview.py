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

Dialects (issue 19) follow the same rule: a MyST directive (```` ```{note} Title ````, `:::{tab-item} Pip`)
shows its argument (a title, a tab label) and its body as prose, except code-like directives
(`code-block`, `literalinclude`, `eval-rst`, math) whose body stays verbatim as fenced code does, and
navigation (`toctree`) which shows nothing; its `:option:` lines go. A `(label)=` target reads as its
label, a `{role}` stays (its name says what the page shows: `{sub}`, `{kbd}`, `{abbr}`; dropping it
cost the myst set a query about subscripts), MDX `import`/`export` lines go, JSX component tags
(`<Tabs>`, `<TabItem label="Pip">`) go but keep a `label`/`title` value, and a GitHub alert or Obsidian
callout marker (`> [!NOTE]`, `> [!tip] Title`) reads as its word, a wikilink as its alias, else its page
(and heading).

reStructuredText (issue 34) follows the same rule: a role shows its text (`:ref:`the guide <guide>`` reads
"the guide") or the name it links (`:func:`~flask.Flask.make_response`` reads `flask.Flask.make_response`,
the whole dotted name: it is what an agent types), a hyperlink reference its text, an explicit target its
label; a directive line shows its argument (an admonition's title, a version: `.. versionadded:: 2.1` reads
"New in version 2.1") and goes when it only selects code (`.. code-block:: python`) or navigation.

Changing this view changes every vector: bump VIEW so old indexes are re-embedded, not mixed. (The
reStructuredText rules came without a bump: they fire only on RST markup outside code, which the Markdown
and MDX notes indexed before them did not hold, and every RST note is new to an index.)
"""

from __future__ import annotations

import html
import re

# v3: each chunk is also embedded in paragraph pieces (embed/pieces.py); v4: MyST/MDX/alerts (issue 19).
VIEW = "v4"

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
# MyST directives whose body is code or data, not prose; and those that are navigation.
_CODE_DIRECTIVES = frozenset(
    "code code-block code-cell sourcecode literalinclude eval-rst math list-table csv-table raw mermaid "
    "graphviz doctest testcode".split()
)
_NAV_DIRECTIVES = frozenset("toctree tableofcontents contents".split())
_DIRECTIVE_NAME = re.compile(r"\{([\w:.-]+)\}[ \t]*(.*)$")
_MYST_OPTION = re.compile(r"[ \t]*:[\w-]+:(?:[ \t].*)?$")  # `:class: dropdown` under a directive line
_TARGET = re.compile(r"^ {0,3}\(([^()\s]+)\)=[ \t]*$", re.MULTILINE)
# An MDX import/export statement, the same rule as mdblocks' (a prose line "export FOO=1" is not one).
_ESM = re.compile(r"^(?:import\s+(?:[\w*{}\s,$]+\s+from\s+)?['\"]|export\s+(?:default\s|const\s|let\s|function\s|\{)).*$",
                  re.MULTILINE)
# JSX components are PascalCase (`<Tabs>`, `<TabItem>`); `<PATTERN>`-style placeholders are content.
_COMPONENT = re.compile(r"</?[A-Z][a-z][\w.]*(?:\s[^<>]*)?/?>")
_LABEL_ATTR = re.compile(r"\s(?:label|title)=[\"']([^\"']*)[\"']")
_WIKILINK = re.compile(r"!?\[\[([^\[\]|#]*)(?:#([^\[\]|]*))?(?:\|([^\[\]]*))?\]\]")
_ALERT = re.compile(r"\[!([A-Za-z]+)\][-+]?")
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
    # Open fences of MyST directives read as prose (```{note}), each with whether it is navigation.
    prose_fences: list[tuple[str, bool]] = []
    for line in text.split("\n"):
        if prose_fences and not fence:
            m = _FENCE.match(line)
            marker, nav = prose_fences[-1]
            if m and m.group(1)[0] == marker[0] and len(m.group(1)) >= len(marker) and not m.group(2).strip():
                prose_fences.pop()
                continue
            if nav:
                continue
        if fence:
            out.append(line)
            m = _FENCE.match(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
                fence = ""
            continue
        m = _FENCE.match(line)
        d = _DIRECTIVE_NAME.match(m.group(2).strip()) if m else None
        if m and d and d.group(1) not in _CODE_DIRECTIVES:
            nav = d.group(1) in _NAV_DIRECTIVES
            prose_fences.append((m.group(1), nav))
            prose.append("" if nav else d.group(2))
            continue
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
    t = _rst(t)
    spans: list[str] = []

    def hold(m: re.Match[str]) -> str:
        spans.append(m.group(0))
        return f"\x00{len(spans) - 1}\x00"

    if "`" in t:
        t = _CODE_SPAN.sub(hold, t.replace("\x00", ""))
    t = _dialect(t)  # after the code spans are held: `[[bin]]` and `<Tabs>` in backticks are content
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


_RST_ROLE = re.compile(r":([\w.+-]+(?::[\w.+-]+)?):`([^`\n]*)`")
_RST_REF = re.compile(r"`([^`<\n]*?)\s*<[^`>\n]*>`__?")
_RST_NAMED = re.compile(r"(?<![`\w])`([^`\n]+)`__?(?!\w)")
_RST_LINE = re.compile(r"^([ \t]*)\.\.[ \t]+(?:_([^:\n]+):.*|([\w][\w:+.-]*)::[ \t]*(.*))$", re.MULTILINE)
_RST_OPTION = re.compile(r"^[ \t]+:[\w-]+:(?:[ \t].*)?$", re.MULTILINE)
# Roles whose target is a name in code: shown as a code span holding the full dotted name.
_CODE_ROLES = frozenset("func meth class attr exc data obj mod const type confval option envvar program "
                        "py:func py:meth py:class py:attr py:exc py:data py:obj py:mod py:const".split())
# Sphinx 7.3 spells each with a hyphen too (`.. version-added:: 5.0`).
_VERSION_WORDS = {"versionadded": "New in version", "version-added": "New in version",
                  "versionchanged": "Changed in version", "version-changed": "Changed in version",
                  "deprecated": "Deprecated since version", "version-deprecated": "Deprecated since version",
                  "versionremoved": "Removed in version", "version-removed": "Removed in version"}
_RST_QUIET = frozenset("code code-block sourcecode literalinclude highlight toctree raw include index only "
                       "currentmodule module py:module py:currentmodule contents tabularcolumns image figure "
                       "testsetup testcleanup".split())


def _rst(text: str) -> str:
    """reStructuredText roles, references, targets and directive lines as the built page shows them."""
    t = text
    if ":`" in t:
        t = _RST_ROLE.sub(_rst_role, t)
    if "`_" in t:
        t = _RST_NAMED.sub(r"\1", _RST_REF.sub(r"\1", t))
    if ".." in t:
        had = t
        t = _RST_LINE.sub(_rst_line, t)
        if t != had:
            t = _RST_OPTION.sub("", t)
    return t


def _rst_role(m: re.Match[str]) -> str:
    role, body = m.group(1), m.group(2).strip()
    lt = body.rfind("<")
    if lt > 0 and body.endswith(">") and body[:lt].strip():
        return body[:lt].strip()
    name = body.lstrip("~!")
    return f"`{name}`" if role in _CODE_ROLES else name


def _rst_line(m: re.Match[str]) -> str:
    if m.group(2) is not None:  # `.. _label:` reads as its label
        return m.group(1) + m.group(2).strip("`").replace("-", " ")
    name, arg = m.group(3).lower(), m.group(4).strip()
    if name in _RST_QUIET:
        return ""
    words = _VERSION_WORDS.get(name)
    if words:
        return f"{m.group(1)}{words} {arg}".rstrip()
    return f"{m.group(1)}{arg}" if arg else ""


def _dialect(text: str) -> str:
    """MyST targets, MDX imports and components, alert markers, as the rendered page shows them."""
    if "(" in text and ")=" in text:
        t = _TARGET.sub(r"\1", text)
    else:
        t = text
    if "import" in t or "export" in t:
        t = _ESM.sub("", t)
    if "<" in t:
        t = _COMPONENT.sub(lambda m: " ".join(_LABEL_ATTR.findall(m.group(0))) or " ", t)
    if "[[" in t:
        t = _WIKILINK.sub(lambda m: (m.group(3) or " ".join(p for p in (m.group(1), m.group(2)) if p)).strip(), t)
    if "[!" in t:
        t = _ALERT.sub(lambda m: m.group(1).capitalize(), t)
    return t


def _markers(text: str) -> str:
    """mkdocs line markers reduced to what the rendered page shows (see the module docstring)."""
    if "!!!" not in text and "???" not in text and ":::" not in text and "===" not in text:
        return text
    out: list[str] = []
    in_directive = False  # on the indented option lines right after a `:::` line
    for line in text.split("\n"):
        if in_directive and _MYST_OPTION.match(line) and not line[:1] in (" ", "\t"):
            continue
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
    if not rest:
        return ""
    if rest.startswith("{"):
        d = _DIRECTIVE_NAME.match(rest)
        return "" if d is None or d.group(1) in _NAV_DIRECTIVES else d.group(2).strip()
    m = _DIRECTIVE_TITLE.match(rest)
    if m and m.group(1).lower() in _ADMONITION_TYPES:
        return (m.group(2) or m.group(3) or "").strip()
    return rest
