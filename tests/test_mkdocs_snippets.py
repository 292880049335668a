"""PyMdown's snippets (`--8<-- "docs/examples/app.py"`), MkDocs Material's include, read as the built page shows them
(issue 38): Textual keeps each style's example app and stylesheet in `docs/examples/` and includes them in a code
fence, so the section that shows a style at work held only the scissors line. The lines, their paths and suffixes
directly; the sections of a real index searched; read_doc."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write
from synced import full_sync, keyword_hits, synced_index
from scree.mcpserver import read_output
from scree.notes import formats, includes, mkdocssnippets
from scree.notes.chunker import chunk_note
from scree.notes.includes import included_chunks
from scree.notes.mkdocssnippets import snippets

PAGE = """\
# Scrollbar-gutter

## Example

```python
--8<-- "docs/examples/styles/gutter.py"
```

```css
  --8<-- 'docs/examples/styles/gutter.tcss:2:3'
```

## Syntax shown

;--8<-- "docs/examples/styles/escaped.py"

Cut along --8<-- "docs/examples/styles/prose.py" here.

## Shared

--8<--
docs/snippets/abbreviations.md
;docs/examples/styles/commented.py

docs/examples/styles/parts.py:setup
https://example.com/remote.md
--8<--

--8<-- "docs/images/dom.excalidraw.svg"
"""

FILES = {
    "docs/examples/styles/gutter.py": "from textual.app import App\n\nclass GutterApp(App):\n    CSS_PATH = 'x'\n",
    "docs/examples/styles/gutter.tcss": "Screen {\n    scrollbar-gutter: stable;\n    quasarflux: 1;\n}\n",
    "docs/examples/styles/escaped.py": "escaped_token = 1\n",
    "docs/examples/styles/prose.py": "prose_token = 1\n",
    "docs/examples/styles/commented.py": "commented_token = 1\n",
    "docs/examples/styles/parts.py": "before = 0\n# --8<-- [start:setup]\nsetup_token = 1\n# --8<-- [end:setup]\n",
    "docs/snippets/abbreviations.md": "*[CSS]: Cascading Style Sheets\n",
    "docs/images/dom.excalidraw.svg": '<svg><path d="M0 0"/><text>drawing_token</text></svg>\n',
}


def test_each_snippet_line_is_an_include_of_its_file_with_the_lines_its_suffix_chooses() -> None:
    refs = snippets(PAGE.splitlines())
    assert [(r.target, dict(r.values)) for r in refs] == [
        ("/docs/examples/styles/gutter.py", {}),
        ("/docs/examples/styles/gutter.tcss", {"lines": "2-3"}),
        ("/docs/snippets/abbreviations.md", {}),
        ("/docs/examples/styles/parts.py", {"start-after": "[start:setup]", "end-before": "[end:setup]"})]


@pytest.mark.parametrize(("suffix", "values"), [
    (":5", {"lines": "5-"}), (":5:", {"lines": "5-"}), ("::9", {"lines": "-9"}), (":5:9", {"lines": "5-9"}),
    ("", {}), (":", {}), (":run-app", {"start-after": "[start:run-app]", "end-before": "[end:run-app]"}),
])
def test_a_suffix_chooses_lines_as_the_extension_reads_it(suffix: str, values: dict[str, str]) -> None:
    (ref,) = snippets([f'--8<-- "app.py{suffix}"'])
    assert ref.target == "/app.py" and dict(ref.values) == values


def test_the_shown_lines_are_the_pages_and_a_note_is_left_to_itself() -> None:
    note = chunk_note(PAGE, formats.MARKDOWN)
    chunks = included_chunks(note, "docs/styles/gutter.md", FILES.get)
    assert [(c.heading, c.text.rpartition("\n")[2]) for c in chunks] == [
        ("Scrollbar-gutter > Example", "(included from docs/examples/styles/gutter.py)"),
        ("Scrollbar-gutter > Example", "(included from docs/examples/styles/gutter.tcss)"),
        ("Scrollbar-gutter > Shared", "(included from docs/examples/styles/parts.py)")]
    assert chunks[1].text.startswith("    scrollbar-gutter: stable;\n    quasarflux: 1;\n\n")
    assert chunks[2].text.startswith("setup_token = 1\n\n") and "before" not in chunks[2].text
    shown = "".join(c.text for c in chunks)
    assert not any(token in shown for token in ("escaped_token", "prose_token", "commented_token", "Cascading",
                                                "drawing_token"))


def test_a_path_is_read_from_the_nearest_folder_above_the_page_that_holds_it() -> None:
    files = {"docs/examples/app.py": "nearest_token = 1\n", "examples/app.py": "root_token = 1\n"}
    note = chunk_note('# Page\n\n--8<-- "examples/app.py"\n', formats.MARKDOWN)
    assert "nearest_token" in included_chunks(note, "docs/guide/page.md", files.get)[0].text
    assert "root_token" in included_chunks(note, "page.md", files.get)[0].text
    outside = chunk_note('# Page\n\n--8<-- "../outside.py"\n', formats.MARKDOWN)
    assert included_chunks(outside, "page.md", {"../outside.py": "x = 1\n"}.get) == []


def test_without_the_rule_a_snippet_line_shows_nothing(monkeypatch) -> None:
    monkeypatch.setattr(mkdocssnippets, "SNIPPETS", False)
    assert snippets(PAGE.splitlines()) == ()


def test_a_token_only_the_included_file_spells_finds_the_section_and_read_doc_shows_it(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    files = {"mkdocs.yml": "site_name: x\nmarkdown_extensions:\n  - pymdownx.snippets\n",
             "docs/styles/gutter.md": PAGE, **FILES}
    with synced_index(root, files) as index:
        assert [h.heading for h in keyword_hits(index, root, "quasarflux")] == ["Scrollbar-gutter > Example"]
        write(root, "docs/examples/styles/gutter.tcss", "Screen {\n    scrollbar-gutter: auto;\n    zephyrine: 2;\n}\n")
        assert full_sync(index, root).updated == ["docs/styles/gutter.md"]  # an edit of the file reaches the page
        assert [h.heading for h in keyword_hits(index, root, "zephyrine")] == ["Scrollbar-gutter > Example"]
    out = read_output(root, "docs/styles/gutter.md", heading="Scrollbar-gutter > Example", start_line=None,
                      end_line=None, max_file_bytes=1 << 20, max_bytes=100_000)
    assert "class GutterApp(App):" in out.text and "zephyrine: 2;" in out.text
    assert out.text.endswith("(included from docs/examples/styles/gutter.tcss)")


CLI_PAGE = """\
---
title: tool add
---
# [tool](index.md) add

Adds dependencies.

--8<-- "docs/cli/add_extender:description"

## Options

- `--pypi`: the dependencies are PyPI's.

## Description

Adds each spec to the manifest.

--8<-- "docs/cli/add_extender:example"

```markdown
--8<-- "docs/cli/fenced.txt"
```
"""

EXTENDER = """\
--8<-- [start:description]
The `add` command edits the manifest, then installs: ringwraith_token.
--8<-- [end:description]

--8<-- [start:example]
## Examples

```shell
tool add numpy  # quasarflux_token
```

### Adding from git

tool add --git https://example.com/repo boost  # zephyrine_token
--8<-- [end:example]
"""


def test_a_snippet_spliced_outside_code_brings_its_headings_where_their_levels_put_them() -> None:
    files = {"docs/cli/add_extender": EXTENDER, "docs/cli/fenced.txt": "## Not a heading here\ncode_token\n"}
    note = chunk_note(CLI_PAGE, formats.MARKDOWN)
    chunks = included_chunks(note, "docs/cli/add.md", files.get)
    assert [(c.heading, c.start_line) for c in chunks] == [
        ("tool add", 8),  # text before any heading stays where the line is
        ("tool add > Examples", 18),  # a level-2 heading closes the page's "Description", as the built page does
        ("tool add > Examples > Adding from git", 18),
        ("tool add > Description", 21)]  # inside a fence: code, whatever its lines look like or its file is
    assert "ringwraith_token" in chunks[0].text and "quasarflux_token" in chunks[1].text
    assert "zephyrine_token" in chunks[2].text and "quasarflux_token" not in chunks[2].text
    assert chunks[3].text.startswith("## Not a heading here\ncode_token")


def test_a_spliced_section_is_found_by_search_and_read_by_its_heading(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    files = {"docs/cli/add.md": CLI_PAGE, "docs/cli/add_extender": EXTENDER}
    with synced_index(root, files) as index:
        assert keyword_hits(index, root, "zephyrine_token")[0].heading == "tool add > Examples > Adding from git"
    out = read_output(root, "docs/cli/add.md", heading="tool add > Examples", start_line=None, end_line=None,
                      max_file_bytes=1 << 20, max_bytes=100_000)
    assert out.heading == "tool add > Examples" and "quasarflux_token" in out.text
    assert out.text.endswith("(included from docs/cli/add_extender)") and (out.start_line, out.end_line) == (18, 18)


def test_a_page_of_thousands_of_snippet_lines_reads_each_file_once_and_shows_a_bounded_part() -> None:
    reads: list[str] = []

    def read(rel: str) -> str | None:
        reads.append(rel)
        return "\n".join(f"line {n} of the included file" for n in range(500)) + "\n" if rel == "docs/big.txt" else None

    page = "# Flood\n\n```text\n" + '--8<-- "docs/big.txt"\n' * 5000 + "```\n"
    chunks = included_chunks(chunk_note(page, formats.MARKDOWN), "docs/flood.md", read)
    assert sorted(reads) == ["docs/big.txt", "docs/docs/big.txt"]  # each path tried once, not 5,000 times
    shown = sum(c.text.count("of the included file") for c in chunks)
    assert 0 < shown <= includes.MAX_PAGE_INCLUDED_LINES
    assert len({c.start_line for c in chunks}) <= includes.MAX_INCLUDES_PER_PAGE
