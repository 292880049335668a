"""A Jupyter notebook is a page of the docs Jupyter Book, nbsphinx and MyST-NB build: its Markdown cells are read as
Markdown, its code cells as fenced code, its outputs never. The conversion directly; the sync, search and read_doc with
a real index; a broken notebook is a skip with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synced import full_sync, keyword_hits, synced_index
from scree.errors import FileSkipped
from scree.mcpserver import read_output
from scree.notes import formats
from scree.notes.policy import NotesPolicy
from scree.notes.notebook import notebook_text
from scree.notes.sections import sections


def notebook(*cells: dict[str, object], language: str = "python") -> str:
    return json.dumps({"cells": list(cells), "metadata": {"language_info": {"name": language}},
                       "nbformat": 4, "nbformat_minor": 5})


def md(source: str | list[str]) -> dict[str, object]:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def code(source: str, output: str = "") -> dict[str, object]:
    outputs = [{"output_type": "stream", "name": "stdout", "text": [output]}] if output else []
    return {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": outputs, "source": source}


LAUNCH = notebook(
    md(["# Launch buttons\n", "\n", "Launch a page into an interactive interface.\n"]),
    md("## Binder\n\nSet `launch_buttons.binderhub_url` to the quasarhub server."),
    code("import zorblax\nzorblax.launch()", output="zephyrine printed this"),
    {"cell_type": "raw", "metadata": {}, "source": ".. note:: raw reST passes through"},
    md("## Colab\n\nSet `launch_buttons.colab_url`."),
)


def test_markdown_cells_are_the_text_code_cells_fenced_in_its_language_and_outputs_left_out() -> None:
    text = notebook_text("nb.ipynb", LAUNCH.encode())
    assert "# Launch buttons" in text and "quasarhub" in text and "raw reST passes through" in text
    assert "```python\nimport zorblax\nzorblax.launch()\n```" in text
    assert "zephyrine" not in text
    assert [s.trail for s in sections(text, formats.NOTEBOOK)] == [
        "Launch buttons", "Launch buttons > Binder", "Launch buttons > Colab"]


def test_a_code_cell_holding_a_fence_gets_a_longer_one_and_the_kernel_names_the_language() -> None:
    text = notebook_text("nb.ipynb", notebook(md("# T"), code("x = '''\n```\n'''\n# not a heading"),
                                              language="julia").encode())
    assert "````julia\nx = '''\n```\n'''\n# not a heading\n````" in text
    assert [s.trail for s in sections(text, formats.NOTEBOOK)] == ["T"]


def test_an_nbformat_3_notebook_reads_its_worksheets_and_heading_cells() -> None:
    old = {"worksheets": [{"cells": [{"cell_type": "heading", "level": 2, "source": ["Old style"]},
                                     {"cell_type": "code", "input": ["print(1)"], "language": "python"}]}],
           "metadata": {}, "nbformat": 3}
    text = notebook_text("old.ipynb", json.dumps(old).encode())
    assert text.startswith("## Old style\n\n```python\nprint(1)\n```")


@pytest.mark.parametrize("data, reason", [
    (b"{not json", "not UTF-8 JSON"), (b"\xff\xfe{}", "not UTF-8 JSON"), (b'{"a": 1}', "without a notebook's cells"),
    (b"[1, 2]", "without a notebook's cells"), (b"[" * 100_000, "not UTF-8 JSON"),
])
def test_a_file_that_is_no_notebook_is_skipped_with_its_reason(data: bytes, reason: str) -> None:
    with pytest.raises(FileSkipped, match=reason):
        notebook_text("bad.ipynb", data)


def test_a_synced_notebook_answers_by_section_and_read_doc_shows_its_text(tmp_path: Path) -> None:
    root = tmp_path / "book"
    files = {"docs/_toc.yml": "root: intro\n", "docs/interactive/launch.ipynb": LAUNCH,
             "docs/intro.md": "# Intro\n\nA book.\n", "docs/broken.ipynb": "{not json"}
    with synced_index(root, files) as index:
        report = full_sync(index, root)
        skipped = [(s.rel_path, "not UTF-8 JSON" in s.reason) for s in report.skipped]
        assert skipped == [("docs/broken.ipynb", True)]
        hits = keyword_hits(index, root, "quasarhub")
        assert [(h.path, h.heading) for h in hits] == [("docs/interactive/launch.ipynb", "Launch buttons > Binder")]
        assert keyword_hits(index, root, "zephyrine") == []
    out = read_output(root, "docs/interactive/launch.ipynb", heading="Binder", start_line=None, end_line=None,
                      max_file_bytes=1 << 20, max_bytes=100_000)
    assert out.heading == "Launch buttons > Binder" and "quasarhub" in out.text and "zorblax" in out.text
    assert "colab_url" not in out.text


@pytest.mark.parametrize("marker", ["doc/source/conf.py", "docs/_toc.yml", "docs/myst.yml"])
def test_a_notebook_is_a_note_in_a_docs_build_source_and_elsewhere_only_when_listed(tmp_path: Path,
                                                                                   marker: str) -> None:
    root = tmp_path / marker.split("/", 1)[0].replace(".", "_") / "repo"
    page = marker.rsplit("/", 1)[0] + "/guide/page.ipynb"
    for rel, text in {marker: "", page: LAUNCH, "examples/analysis.ipynb": LAUNCH}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    policy = NotesPolicy.load(root)
    assert policy.file_skip_reason(page) is None and policy.note_kind(page) == formats.NOTEBOOK
    assert "SCREE_NOTE_EXTENSIONS" in (policy.file_skip_reason("examples/analysis.ipynb") or "")
    listed = NotesPolicy.load(root, suffixes=(*formats.DEFAULT_SUFFIXES, ".ipynb"))
    assert listed.file_skip_reason("examples/analysis.ipynb") is None
    assert NotesPolicy.load(root, suffixes=(".md",)).file_skip_reason(page) is not None


def test_a_quarto_project_s_pages_and_notebooks_are_notes_and_elsewhere_only_when_listed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    pages = {"docs/_quarto.yml": "project:\n  type: website\n", "docs/guide/intro.qmd": "# Intro\n\nText.\n",
             "docs/examples/demo.ipynb": LAUNCH, "blog/post.qmd": "# Post\n", "conf/conf.py": "",
             "conf/page.qmd": "# Sphinx does not read it\n"}
    for rel, text in pages.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    policy = NotesPolicy.load(root)
    assert policy.file_skip_reason("docs/guide/intro.qmd") is None and policy.note_kind("docs/guide/intro.qmd") == \
        formats.MARKDOWN
    assert policy.file_skip_reason("docs/examples/demo.ipynb") is None
    for outside in ("blog/post.qmd", "conf/page.qmd"):
        assert "SCREE_NOTE_EXTENSIONS" in (policy.file_skip_reason(outside) or "")
    listed = NotesPolicy.load(root, suffixes=(*formats.DEFAULT_SUFFIXES, ".qmd"))
    assert listed.file_skip_reason("blog/post.qmd") is None and listed.file_skip_reason("docs/examples/demo.ipynb") is None
