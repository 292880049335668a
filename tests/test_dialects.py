"""MyST, MDX, GitHub and Obsidian notes (issue 19): each case's headings are checked against the expected
lines and against the rendering of markdown-it with the same mdit-py-plugins the note's dialect calls for,
and its markup-only lines (targets, ESM, bare tags, toctree entries) against what a reader never sees."""

from __future__ import annotations

import html
import re

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin

from scree.notes.chunker import chunk_markdown
from scree.notes.mdblocks import HTML_HEADING_LEVEL, parse_blocks, split_lines
from scree.notes.sections import find_section

# Renderers as each dialect's tool configures markdown-it: MyST (myst-parser uses these two plugins for
# targets, comments and colon fences) and plain CommonMark + GFM tables for the rest.
MYST = MarkdownIt("commonmark").enable("table").use(front_matter_plugin).use(myst_block_plugin).use(colon_fence_plugin)
PLAIN = MarkdownIt("commonmark").enable("table").use(front_matter_plugin)
_H = re.compile(r"<h([1-6])(?:\s[^<>]*)?>(.*?)</h\1>", re.DOTALL)
_TAGS = re.compile(r"<[^>]+>")


def rendered_headings(renderer: MarkdownIt, text: str) -> list[tuple[int, str]]:
    out = renderer.render("\n".join(split_lines(text)))
    return [(int(level), " ".join(html.unescape(_TAGS.sub("", inner)).split())) for level, inner in _H.findall(out)]


# (name, renderer, text, headings as (line, level, text), markup-only lines (1-based))
CASES = [
    ("myst target above a heading", MYST, "(setup)=\n## Setup\n\ntext\n", [(2, 2, "Setup")], [1]),
    ("stacked targets", MYST, "(a)=\n(b)=\n\n# T\nx\n", [(4, 1, "T")], [1, 2]),
    ("myst comment", MYST, "(x)=\n# T\n% a comment\nbody\n", [(2, 1, "T")], [1, 3]),
    ("directive fence hides its heading", MYST, "```{note}\n# inside\n```\n# out\n", [(4, 1, "out")], []),
    ("colon fence hides its heading", MYST, ":::{myst-example}\n# My nifty title\n:::\n## Real\n",
     [(4, 2, "Real")], []),
    ("nested colon fences", MYST, "::::{tab-set}\n:::{tab-item} Pip\n# no\n:::\n::::\n# yes\n", [(6, 1, "yes")], []),
    ("toctree entries are navigation", MYST, "# Index\n\n```{toctree}\n:maxdepth: 2\nintro\nsetup\n```\n",
     [(1, 1, "Index")], [3, 4, 5, 6, 7]),
    ("docusaurus admonition with a title", MYST, ":::note Rolling restarts\nDrain first.\n:::\n", [], []),
    ("mdx imports", PLAIN, "import Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\n\n## Install\n",
     [(4, 2, "Install")], [1, 2]),
    ("mdx export function spans its paragraph", PLAIN, "export function X() {\n  return 1;\n}\n\n# T\n",
     [(5, 1, "T")], [1, 2, 3]),
    ("jsx wrappers are markup, tab labels are not", PLAIN,
     "<Tabs groupId=\"pm\">\n<TabItem value=\"npm\" label=\"npm\">\n\nnpm i\n\n</TabItem>\n</Tabs>\n",
     [], [1, 6, 7]),
    ("self-closing jsx anchor", PLAIN, "<HiddenHeading id=\"old\" />\n\n### projectService\n", [(3, 3, "projectService")], [1]),
    ("html heading in a readme", PLAIN, "<h2 align=\"center\">Quick <b>start</b></h2>\n\ntext\n",
     [(1, HTML_HEADING_LEVEL, "Quick start")], []),
    ("html heading inside a centred div", PLAIN, "<div align=\"center\">\n<h1>scree</h1>\n</div>\n",
     [(2, HTML_HEADING_LEVEL, "scree")], [1, 3]),
    ("summary text is prose", PLAIN, "<details>\n<summary>Why not grep?</summary>\n\nBecause.\n</details>\n",
     [], [1, 5]),
    ("github alert is a quote", PLAIN, "> [!NOTE]\n> Useful.\n", [], []),
    ("obsidian callout is a quote", PLAIN, "> [!tip] Title\n> Body.\n", [], []),
    # A plain note keeps CommonMark: without a MyST marker `%` is text, without `:::` nothing is fenced.
    ("percent line in a plain note is text", PLAIN, "# T\n% of users\n", [(1, 1, "T")], []),
    ("mkdocstrings autodoc lines are no fence", PLAIN, "# API\n\n::: httpx.Client\n\n## Next\n",
     [(1, 1, "API"), (5, 2, "Next")], []),
    ("prose import is not esm", PLAIN, "import the data first\n\n# T\n", [(3, 1, "T")], []),
]


@pytest.mark.parametrize(("renderer", "text", "headings", "markup"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_dialect_headings_are_what_its_renderer_shows(renderer: MarkdownIt, text: str,
                                                      headings: list[tuple[int, int, str]], markup: list[int]) -> None:
    blocks = parse_blocks(split_lines(text))
    assert [(h.start + 1, h.level, h.text) for h in blocks.headings] == headings
    rendered = rendered_headings(renderer, text)
    assert [t for _, t in rendered] == [t for _, _, t in headings]
    # An HTML heading is drawn at its tag's level, but sits below every Markdown heading in the outline.
    assert [lvl for (lvl, _), (_, ours, _) in zip(rendered, headings) if ours != HTML_HEADING_LEVEL] == \
        [ours for _, ours, _ in headings if ours != HTML_HEADING_LEVEL]
    assert sorted(i + 1 for i in (*blocks.targets, *blocks.inert)) == markup


def test_a_target_goes_with_the_section_it_names_and_never_stands_alone() -> None:
    text = "# Guide\n\nIntro text.\n\n(install)=\n\n## Install\n\nRun it.\n\n(usage)=\n## Usage\n\nCall it.\n"
    chunks = chunk_markdown(text).chunks
    assert [(c.heading, c.start_line, c.end_line) for c in chunks] == [
        ("Guide", 1, 3), ("Guide > Install", 5, 9), ("Guide > Usage", 11, 14)]
    lines = text.split("\n")
    for c in chunks:  # line ranges are the file's own (grep -n)
        assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line])
    assert chunks[1].text.startswith("(install)=")


@pytest.mark.parametrize("text", [
    "(only-a-label)=\n",
    "import Tabs from '@theme/Tabs';\n",
    "---\ntitle: T\n---\nimport A from './a';\nexport const b = 1;\n",
    "# T\n\n<Tabs>\n</Tabs>\n",
    "# Index\n\n```{toctree}\nintro\n```\n",
])
def test_markup_alone_is_no_chunk(text: str) -> None:
    assert chunk_markdown(text).chunks == []


def test_markup_stays_in_the_text_of_a_chunk_with_content() -> None:
    text = "import Tabs from '@theme/Tabs';\n\nSet it up:\n\n<Tabs>\n<TabItem value=\"a\" label=\"Pip\">\n\npip i\n"
    (chunk,) = chunk_markdown(text).chunks
    assert (chunk.start_line, chunk.end_line) == (1, 8) and chunk.text == text.rstrip("\n")


def test_read_doc_finds_a_readme_html_heading_and_the_markdown_sections_after_it() -> None:
    text = "<h1 align=\"center\">scree</h1>\n\nintro\n\n## Install\n\nrun\n"
    assert [(s.start_line, s.end_line) for s in find_section(text, "scree").matches] == [(1, 4)]
    assert [(s.start_line, s.end_line) for s in find_section(text, "Install").matches] == [(5, 7)]


def test_html_headings_never_parent_the_markdown_headings_after_them() -> None:
    # Issue 38: an Obsidian page showing <h1>..<h6> as examples ("to avoid cluttering the Outline") made
    # "This is a heading 1" the root of every later trail: "This is a heading 1 > Comments".
    examples = "".join(f"<h{n}>This is a heading {n}</h{n}>\n" for n in range(1, 7))
    text = f"# Formatting\n\nHeadings as HTML:\n\n{examples}\n## Comments\n\nUse %%comment%%.\n"
    chunks = chunk_markdown(text).chunks
    assert chunks[-1].heading == "Formatting > Comments", [c.heading for c in chunks]
    # Each labels its own line, which stays searchable text.
    assert ("Formatting > This is a heading 3", "<h3>This is a heading 3</h3>") in [(c.heading, c.text) for c in chunks]


@pytest.mark.parametrize(("text", "headings", "markup"), [
    # Issue 26: MDX reads an ESM block on while its code is unfinished; a `# ` line in a multi-line template
    # literal is JavaScript text, not a heading (markdown-it alone made it one, and a chunk).
    ("export const meta = `\n# Not a heading\n\nmore text\n`;\n\n# Real\n\nBody.\n", [(7, 1, "Real")], [1, 2, 3, 4, 5]),
    ("import X from 'x';\nexport const a = `\n## Nested ${`inner ${1}`} here\n\n`, b = {\n  c: 1,\n};\n\n## Real\n",
     [(9, 2, "Real")], [1, 2, 3, 4, 5, 6, 7]),
    ("export const note = () => <p>Don't {\"do\"} this</p>;\n\n# T\n", [(3, 1, "T")], [1]),  # a quote in JSX text
    # Never finished (a stray backtick): MDX would refuse the file; the paragraph alone stays inert.
    ("export const x = `oops\n\n# Real\n\ntext\n", [(3, 1, "Real")], [1]),
    # A template literal in a fenced example is not ESM.
    ("# Docs\n\n```js\nexport const s = `\n# in code\n```\n\n## Next\n", [(1, 1, "Docs"), (8, 2, "Next")], []),
])
def test_an_mdx_esm_block_runs_until_its_code_is_finished(text: str, headings: list[tuple[int, int, str]],
                                                          markup: list[int]) -> None:
    blocks = parse_blocks(split_lines(text))
    assert [(h.start + 1, h.level, h.text) for h in blocks.headings] == headings
    assert sorted(i + 1 for i in blocks.inert) == markup
    chunks = chunk_markdown(text).chunks
    assert not any("Not a heading" in c.heading or "Nested" in c.heading for c in chunks)
    assert all(c.heading for c in chunks), chunks  # the ESM block alone is no chunk
