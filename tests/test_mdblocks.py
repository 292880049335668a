"""What is a heading: every case checked twice, against the expected lines and against markdown-it's own
HTML rendering, so the chunker and a renderer never disagree."""

from __future__ import annotations

import html
import random
import re

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from scree.notes.mdblocks import MAX_HEADING_BYTES, Blocks, parse_blocks, split_lines

# A full renderer (inline parsing on), configured as CommonMark + GFM tables + front matter.
RENDERER = MarkdownIt("commonmark").enable("table").use(front_matter_plugin)
_H = re.compile(r"<h([1-6])>(.*?)</h\1>", re.DOTALL)
_TAGS = re.compile(r"<[^>]+>")


def rendered_headings(text: str) -> list[tuple[int, str]]:
    """(level, plain text) of every <h1>..<h6> in the rendered HTML of the text's lines."""
    out = RENDERER.render("\n".join(split_lines(text)))
    return [(int(level), " ".join(html.unescape(_TAGS.sub("", inner)).split())) for level, inner in _H.findall(out)]


def blocks(text: str) -> Blocks:
    return parse_blocks(split_lines(text))


def found(text: str) -> list[tuple[int, int, str]]:
    return [(h.start + 1, h.level, h.text) for h in blocks(text).headings]


CASES = [
    # ATX
    ("atx levels", "# a\n## b\n###### f\n", [(1, 1, "a"), (2, 2, "b"), (3, 6, "f")]),
    ("seven hashes", "####### seven\n", []),
    ("no space after #", "#hashtag\n", []),
    ("three spaces of indent", "   ### three\n", [(1, 3, "three")]),
    ("four spaces is code", "    # code\n", []),
    ("tab indent is code", "\t# code\n", []),
    ("tab after the hashes", "#\ttabbed\n", [(1, 1, "tabbed")]),
    ("closing hashes", "## closing ##   \n", [(1, 2, "closing")]),
    ("hash inside the text", "## issue #42\n", [(1, 2, "issue #42")]),
    ("hashes glued to text stay", "# foo#\n", [(1, 1, "foo#")]),
    ("only closing hashes", "### ###\n", [(1, 3, "")]),
    ("escaped hash", "\\# escaped\n", []),
    ("interrupts a paragraph", "para\n# H\n", [(2, 1, "H")]),
    # setext
    ("setext level 1", "Title\n=====\n", [(1, 1, "Title")]),
    ("setext level 2", "Title\n---\n", [(1, 2, "Title")]),
    ("changelog version", "14.1.1 (2024-09-08)\n===================\nFixes.\n", [(1, 1, "14.1.1 (2024-09-08)")]),
    ("multi-line setext", "one\ntwo\n---\n", [(1, 2, "one two")]),
    ("indented underline is text", "Foo\n    ===\n", []),
    ("indented setext up to 3", "   Foo\n   ===\n", [(1, 1, "Foo")]),
    ("spaced underline is text", "Foo\n= =\n", []),
    ("tab-indented underline is text", "Foo\n\t===\n", []),
    ("setext text with emphasis", "Foo *bar*\n=========\n", [(1, 1, "Foo bar")]),
    ("reference definition is no setext text", "[foo]: /url\n===\n", []),
    ("crlf setext", "Title\r\n---\r\nbody\r\n", [(1, 2, "Title")]),
    # --- : setext, thematic break or front matter
    ("thematic break after a blank", "para\n\n---\ntext\n", []),
    ("stars are never setext", "para\n***\n", []),
    ("front matter", "---\ntitle: x\n---\n# H\n", [(4, 1, "H")]),
    ("front matter closed by dots", "---\ntitle: x\n...\nT\n---\n", [(4, 2, "T")]),
    ("unclosed front matter is a break", "---\ntitle: x\n\n# H\n", [(4, 1, "H")]),
    ("late front matter is setext", "\n---\ntitle: x\n---\n", [(3, 2, "title: x")]),
    ("empty front matter", "---\n---\n", []),
    ("list item then ---", "- item\n---\n", []),
    # fences and indented code
    ("backtick fence", "```sh\n# comment\n```\n# y\n", [(4, 1, "y")]),
    ("tilde fence closes only when as long", "~~~~\n# a\n~~~\n# b\n~~~~~\n# c\n", [(6, 1, "c")]),
    ("backtick in info string is no fence", "``` a`b\n# x\n", [(2, 1, "x")]),
    ("unclosed fence runs to the end", "```\n# a\n\n# b\n", []),
    ("indented code block", "para\n\n    # code\n    more\n", []),
    ("indented line continues a paragraph", "para\n    # lazy\n", []),
    ("fence inside a list item", "- step\n\n    ```\n    # shell\n    ```\n", []),
    # HTML blocks
    ("html block", "<div>\n# not\n</div>\n", []),
    ("html block ends at a blank line", "<div align=\"center\">\n\n# yes\n</div>\n", [(3, 1, "yes")]),
    ("html comment with blank lines", "<!--\n\n# no\n-->\n", []),
    ("details block", "<details>\n<summary>x</summary>\n\n## Inside\n</details>\n", [(4, 2, "Inside")]),
    # lists and blockquotes
    ("heading in a list item", "- # item heading\n", [(1, 1, "item heading")]),
    ("heading in a step's continuation", "1. step\n\n   ## Sub\n   text\n", [(3, 2, "Sub")]),
    ("setext in a list item", "- Title\n  ---\n", [(1, 2, "Title")]),
    ("heading in a blockquote", "> # quoted\n", [(1, 1, "quoted")]),
    ("setext in a blockquote", "> Title\n> ===\n", [(1, 1, "Title")]),
    # tables, BOM
    ("table delimiter is no setext", "| a | b |\n|---|---|\n| 1 | 2 |\n", []),
    ("byte order mark", "\ufeff# T\n", [(1, 1, "T")]),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_headings_are_what_markdown_it_renders(text: str, expected: list[tuple[int, int, str]]) -> None:
    assert found(text) == expected
    assert rendered_headings(text) == [(level, heading) for _, level, heading in expected]


def test_setext_heading_spans_its_text_and_underline() -> None:
    (h,) = blocks("intro\n\none\ntwo\n---\nbody\n").headings
    assert (h.start, h.end) == (2, 5)


def test_code_and_html_blocks_are_verbatim_ranges() -> None:
    text = "# A\n\n```\nx\n\ny\n```\n\n    code\n\n    more\n\n<!--\n\n-->\n"
    assert blocks(text).verbatim == ((2, 7), (8, 11), (12, 15))


def test_front_matter_gives_its_yaml_and_the_body_start() -> None:
    b = blocks("---\ntitle: T\ntags: [a]\n---\nbody\n")
    assert (b.body_start, b.front_matter) == (4, "title: T\ntags: [a]")
    assert blocks("--- not\ntitle: T\n---\n").front_matter is None, "the first line must be exactly ---"


def test_a_lone_carriage_return_ends_a_line_as_commonmark_says() -> None:
    """CommonMark ends a line at "\\n", "\\r\\n" or a lone "\\r" (issue 26: a CR-only note was one line)."""
    text = "a\rb\n# H\r\n\rc\n## I\n"
    assert split_lines(text) == ["a", "b", "# H", "", "c", "## I", ""]
    assert found(text) == [(3, 1, "H"), (6, 2, "I")]
    # The lines are markdown-it's own: its maps on the raw text say the same.
    raw = MarkdownIt("commonmark").parse(text)
    assert [t.map[0] + 1 for t in raw if t.type == "heading_open"] == [3, 6]


def mixed_endings(rng: random.Random, lf_text: str) -> str:
    """The same note with each line ending drawn from "\\n", "\\r\\n" and a lone "\\r" (never a lone "\\r"
    and, after an empty line, a "\\n": together they are one "\\r\\n")."""
    parts = lf_text.split("\n")
    out: list[str] = []
    ending = ""
    for i, part in enumerate(parts):
        out.append(part)
        if i < len(parts) - 1:
            ending = rng.choice(["\r\n", "\r"] if ending == "\r" and not part else ["\n", "\r\n", "\r"])
            out.append(ending)
    return "".join(out)


def test_cr_only_and_mixed_endings_give_the_blocks_of_the_lf_twin() -> None:
    rng = random.Random(26)
    for _ in range(400):
        lines = [rng.choice(_POOL) for _ in range(rng.randint(1, 40))]
        lf = "\n".join(lines) + rng.choice(["", "\n"])
        for text in (lf.replace("\n", "\r"), mixed_endings(rng, lf)):
            assert blocks(text) == blocks(lf), repr(text)
            raw = RENDERER.parse(text)  # markdown-it's own lines, not scree's
            assert [t.map[0] for t in raw if t.type == "heading_open"] == [h.start for h in blocks(lf).headings
                                                                          if not _html_heading(lf, h.start)]


def _html_heading(text: str, line: int) -> bool:
    return split_lines(text)[line].lstrip().lower().startswith("<h")


def test_heading_text_is_capped_and_never_raises_on_odd_characters() -> None:
    (h,) = blocks("# " + "é" * 200 + "\n").headings
    assert h.text == "é" * (MAX_HEADING_BYTES // 2)  # two bytes each
    assert found("# h\ud800 \x00\n") == [(1, 1, "h\ud800 \ufffd")], "NUL becomes U+FFFD, as CommonMark says"
    assert found("> " * 500 + "# deep\n") == [], "nesting past markdown-it's limit is not parsed"


def test_a_myst_role_in_a_heading_reads_as_its_text_and_a_code_span_stays() -> None:
    headings = blocks("# Add a Launch on {term}`Binder` button\n\n## See {ref}`the guide <guide-x>`\n\n"
                      "## The `{dropdown}` directive\n").headings
    assert [h.text for h in headings] == ["Add a Launch on Binder button", "See the guide", "The `{dropdown}` directive"]


def test_quarto_divs_are_markup_their_headings_are_the_pages_and_a_stray_closer_opens_nothing() -> None:
    # Quarto's grid: nested Pandoc divs, headings inside; markdown-it's colon fence made each div one opaque block,
    # and the outer div's last `:::` opened a fence that hid every later heading
    page = ("# Page\n\n::: {.grid}\n\n::: {.g-col-4}\n### Placeholder stub\n\nText.\n:::\n\n::: {.g-col-4}\n"
            "### Group stub\n:::\n\n:::\n\n:::{note}\n# Not a page heading\n:::\n\n## After `fmt()`{.qd-no-link}\n\n"
            "```{python}\n:::\n# a comment\n```\n\n## Last {#sec-last}\n")
    parsed = blocks(page)
    assert [h.text for h in parsed.headings] == ["Page", "Placeholder stub", "Group stub", "After `fmt()`",
                                                  "Last {#sec-last}"]
    lines = page.split("\n")
    assert {lines[i] for i in parsed.inert} == {"::: {.grid}", "::: {.g-col-4}", ":::"}
    stray = blocks("# A\n\n::: {.x}\ntext\n:::\n:::\n\n## B\n")
    assert [h.text for h in stray.headings] == ["A", "B"]


# Lines that change block structure depending on their neighbours.
_POOL = [
    "", "", "", "text", "more words", "# H1", "## H2", "### H3 ###", "   #### H4", "#", "===", "---", "***",
    "- item", "1. step", "   ## Nested", "  ---", "> quote", "> ## Q", "    indented # x", "\t# tab",
    "```", "~~~", "```py", "<div>", "</div>", "<!--", "-->", "| a | b |", "|---|---|", "[ref]: /u",
    "Title", "14.1.1 (2024-09-08)", "a # b", "\\# no", "- # L", "> Setext", "> ---",
]


def test_random_documents_agree_with_the_renderer() -> None:
    rng = random.Random(7)
    for _ in range(400):
        lines = [rng.choice(_POOL) for _ in range(rng.randint(1, 40))]
        text = "\n".join(lines) + rng.choice(["", "\n"])
        if rng.random() < 0.2:
            text = text.replace("\n", "\r\n")
        assert [(level, t) for _, level, t in found(text)] == rendered_headings(text), text
