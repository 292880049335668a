"""A reStructuredText page's `literalinclude` (and an `include` of a file that is no note) shows another file's
lines (AnyIO keeps every example in `docs/snippets/`): those lines are its section's text for search, chosen by the
directive's options as Sphinx chooses them, from any file of the notes folder the policy admits, and an edit of the
file reaches the page at the next sync; read_doc shows them too. Pure parts directly; the sync with real `scree`
processes and a real index."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write
from synced import full_sync, keyword_hits, synced_index
from fake_embedder import FakeEmbedder
from scree.config import load_config
from scree.db import queries
from scree.db.queries import INCLUDED_KIND
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.notes import formats
from scree.notes.chunker import chunk_note
from scree.mcpserver import read_output
from scree.notes.includes import candidates, included_chunks, select, with_included_lines
from scree.notes.sections import excerpt
from scree.notes.policy import NotesPolicy
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names

SNIPPET = '''\
import anyio


def helper():
    return 1


@anyio.run
async def main():
    # start
    result = await anyio.to_thread.run_sync(helper)
    # end
    print(result)


class Engine:
    def start(self):
        return "quasarflux"
'''


def test_the_directive_is_reported_with_its_options_under_its_section() -> None:
    page = "Threads\n=======\n\nWorker\n------\n\n.. literalinclude:: snippets/run.py\n   :lines: 2-4\n   :caption: x\n"
    note = chunk_note(page, formats.RST)
    (ref,) = note.autodoc
    assert (ref.directive, ref.target, dict(ref.values)) == ("literalinclude", "snippets/run.py",
                                                            {"lines": "2-4", "caption": "x"})
    assert note.autodoc_trails == ("Threads > Worker",)


@pytest.mark.parametrize(("options", "first", "last"), [
    ({}, "import anyio", '        return "quasarflux"'),
    ({"lines": "4-5"}, "def helper():", "    return 1"),
    ({"lines": "1,4"}, "import anyio", "def helper():"),
    ({"lines": "16-"}, "class Engine:", '        return "quasarflux"'),
    ({"pyobject": "main"}, "@anyio.run", "    print(result)"),  # decorators included
    ({"pyobject": "Engine.start"}, "    def start(self):", '        return "quasarflux"'),
    ({"start-after": "# start", "end-before": "# end"}, "    result = await anyio.to_thread.run_sync(helper)",
     "    result = await anyio.to_thread.run_sync(helper)"),
    ({"start-at": "# start", "end-at": "# end"}, "    # start", "    # end"),
])
def test_options_choose_the_lines_as_sphinx_does(options: dict, first: str, last: str) -> None:
    lines = select(SNIPPET.splitlines(), options)
    assert (lines[0], lines[-1]) == (first, last)


@pytest.mark.parametrize("options", [{"pyobject": "Missing"}, {"start-after": "no such marker"}])
def test_options_that_choose_nothing_show_nothing(options: dict) -> None:
    assert select(SNIPPET.splitlines(), options) == []


def test_paths_resolve_from_the_page_and_never_leave_the_folder() -> None:
    assert candidates("docs/threads.rst", "snippets/run.py") == ["docs/snippets/run.py"]
    assert candidates("docs/guide/threads.rst", "/snippets/run.py") == ["docs/guide/snippets/run.py",
                                                                       "docs/snippets/run.py", "snippets/run.py"]
    assert candidates("docs/threads.rst", "../../outside.py") == []
    assert candidates("threads.rst", "../x.py") == []


def test_a_file_of_any_kind_is_shown_and_each_chunk_says_where_it_came_from() -> None:
    page = ("Threads\n=======\n\n.. literalinclude:: snippets/run.py\n\n.. literalinclude:: snippets/defaults.yml\n\n"
            ".. literalinclude:: snippets/missing.txt\n")
    files = {"docs/snippets/run.py": SNIPPET, "docs/snippets/defaults.yml": "# The page's title\ntitle: My book\n"}
    read: list[str] = []

    def reader(rel: str) -> str | None:
        read.append(rel)
        return files.get(rel)

    chunks = included_chunks(chunk_note(page, formats.RST), "docs/threads.rst", reader)
    assert read == ["docs/snippets/run.py", "docs/snippets/defaults.yml", "docs/snippets/missing.txt"]
    assert [c.text.rpartition("\n")[2] for c in chunks] == ["(included from docs/snippets/run.py)",
                                                             "(included from docs/snippets/defaults.yml)"]
    assert all(c.heading == "Threads" for c in chunks) and [c.start_line for c in chunks] == [4, 6]
    assert "anyio.to_thread.run_sync(helper)" in chunks[0].text and "# The page's title" in chunks[1].text


def scree(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scree.cli", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=120)


def test_a_snippet_edit_reaches_the_page_that_includes_it_at_the_next_sync(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write(root, "docs/conf.py", "")
    write(root, "docs/threads.rst", "Threads\n=======\n\nWorker threads\n--------------\n\nTo run a callable:\n\n"
                                    ".. literalinclude:: snippets/run.py\n   :pyobject: main\n")
    write(root, "docs/snippets/run.py", SNIPPET.replace("helper)", "zephyrine_helper)"))
    db = ["--db", str(tmp_path / "index.db")]

    def found(query: str) -> list[str]:
        out = scree("search", "--json", "--no-sync", "--mode", "keyword", "--notes", str(root), *db, query)
        return [h["heading"] for h in json.loads(out.stdout)["results"]]

    assert scree("reindex", "--notes", str(root), *db).returncode == 0
    assert found("zephyrine_helper") == ["Threads > Worker threads"]
    write(root, "docs/snippets/run.py", SNIPPET.replace("helper)", "plasmatic_helper)"))
    done = scree("reindex", "--notes", str(root), *db)
    assert done.returncode == 0 and "1 updated" in done.stdout, done.stdout + done.stderr
    assert found("plasmatic_helper") == ["Threads > Worker threads"] and found("zephyrine_helper") == []


def test_an_include_of_a_fifo_a_link_out_or_a_huge_file_shows_nothing_and_loses_nothing(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    outside = tmp_path / "secret.py"
    outside.write_text("SECRET_TOKEN_NAME = 1\n")
    write(root, "docs/conf.py", "")
    write(root, "docs/page.rst", "Page\n====\n\nKeep this quasarflux paragraph.\n\n.. literalinclude:: fifo.py\n\n"
                                 ".. literalinclude:: link.py\n\n.. literalinclude:: huge.py\n\n"
                                 ".. literalinclude:: ../../secret.py\n")
    os.mkfifo(root / "docs" / "fifo.py")
    (root / "docs" / "link.py").symlink_to(outside)
    write(root, "docs/huge.py", "HUGE_NAME = 1\n" + "x = 1\n" * 400_000)  # over the 1 MB a module may have
    index = open_index(index_location(root, load_config()), root)
    try:
        sync(index, NotesPolicy.load(root), FakeEmbedder())
        policy = NotesPolicy.load(root)
        hits = search_with_names(index, policy, FakeEmbedder(), Query("quasarflux", k=5, mode="keyword")).hits
        assert [h.heading for h in hits] == ["Page"]
        for name in ("SECRET_TOKEN_NAME", "HUGE_NAME"):
            assert not search_with_names(index, policy, FakeEmbedder(), Query(name, k=5, mode="keyword")).hits
    finally:
        index.close()


def test_a_myst_literalinclude_fence_shows_its_file_and_an_example_of_one_does_not() -> None:
    page = ("# Threads\n\n## Worker\n\n```{literalinclude} snippets/run.py\n:pyobject: main\n:language: python\n```\n\n"
            "## Syntax\n\n````md\n```{literalinclude} snippets/other.py\n```\n````\n")
    note = chunk_note(page, formats.MARKDOWN)
    assert [(r.target, dict(r.values)) for r in note.autodoc] == [("snippets/run.py", {"pyobject": "main",
                                                                                      "language": "python"})]
    chunks = included_chunks(note, "docs/threads.md", {"docs/snippets/run.py": SNIPPET}.get)
    assert {c.heading for c in chunks} == {"Threads > Worker"} and chunks[0].start_line == 5
    assert "anyio.to_thread.run_sync(helper)" in chunks[0].text and "class Engine" not in chunks[0].text


CONFIG_PAGE = "Configuration\n=============\n\nThe defaults:\n\n.. literalinclude:: default_config.yml\n"
CONFIG_FILES = {"docs/conf.py": "", "docs/config.rst": CONFIG_PAGE,
                "docs/default_config.yml": "# zephyrine: the colour of the theme\ntheme: dark\n"}


def keyword_headings(index, root: Path, query: str) -> list[str]:
    return [h.heading for h in keyword_hits(index, root, query)]


def test_a_yaml_file_a_page_shows_is_searchable_and_its_edits_and_its_going_reach_the_page(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    with synced_index(root, CONFIG_FILES) as index:
        assert keyword_headings(index, root, "zephyrine") == ["Configuration"]
        row = queries.stored_code_files(index.conn)["docs/default_config.yml"]
        assert row.kind == INCLUDED_KIND and queries.name_counts(index.conn).files == 1  # conf.py alone is code
        assert full_sync(index, root).updated == []  # an unchanged file costs the page nothing
        write(root, "docs/default_config.yml", "# plasmatic: the colour of the theme\ntheme: dark\n")
        assert full_sync(index, root).updated == ["docs/config.rst"]
        assert keyword_headings(index, root, "plasmatic") == ["Configuration"]
        assert keyword_headings(index, root, "zephyrine") == []
        (root / "docs" / "default_config.yml").unlink()
        assert full_sync(index, root).updated == ["docs/config.rst"]
        assert keyword_headings(index, root, "plasmatic") == [] and keyword_headings(index, root, "defaults")
        assert "docs/default_config.yml" not in queries.stored_code_files(index.conn)


def test_an_include_a_one_note_sync_indexed_is_watched_by_the_next_full_sync(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    files = {"docs/conf.py": "", "docs/config.rst": "Configuration\n=============\n\nNothing yet.\n"}
    with synced_index(root, files) as index:
        write(root, "docs/config.rst", CONFIG_PAGE)  # as a watcher sees it: that page alone
        write(root, "docs/default_config.yml", "# zephyrine: the colour of the theme\ntheme: dark\n")
        assert sync(index, NotesPolicy.load(root), FakeEmbedder(), only=["docs/config.rst"]).updated \
            == ["docs/config.rst"]
        assert keyword_headings(index, root, "zephyrine") == ["Configuration"]
        full_sync(index, root)
        write(root, "docs/default_config.yml", "# plasmatic: the colour of the theme\ntheme: dark\n")
        assert full_sync(index, root).updated == ["docs/config.rst"]
        assert keyword_headings(index, root, "plasmatic") == ["Configuration"]


def test_a_hidden_or_ignored_file_is_never_shown(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    files = {".gitignore": "secrets.yml\n", "docs/conf.py": "",
             "docs/config.rst": "Configuration\n=============\n\nKeep this quasarflux paragraph.\n\n"
                                ".. literalinclude:: secrets.yml\n\n.. literalinclude:: .env.yml\n",
             "docs/secrets.yml": "token: IGNORED_TOKEN_VALUE\n", "docs/.env.yml": "token: HIDDEN_TOKEN_VALUE\n"}
    with synced_index(root, files) as index:
        assert keyword_headings(index, root, "quasarflux") == ["Configuration"]
        for secret in ("IGNORED_TOKEN_VALUE", "HIDDEN_TOKEN_VALUE"):
            assert keyword_headings(index, root, secret) == []
        assert not set(queries.stored_code_files(index.conn)) & {"docs/secrets.yml", "docs/.env.yml"}


def test_a_file_no_page_shows_any_more_is_forgotten_and_its_edits_cost_nothing(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    with synced_index(root, CONFIG_FILES) as index:
        assert "docs/default_config.yml" in queries.stored_code_files(index.conn)
        write(root, "docs/config.rst", "Configuration\n=============\n\nNo defaults shown.\n")
        full_sync(index, root)
        assert "docs/default_config.yml" not in queries.stored_code_files(index.conn)
        write(root, "docs/default_config.yml", "# plasmatic: the colour of the theme\ntheme: dark\n")
        assert full_sync(index, root).updated == []
        assert keyword_headings(index, root, "plasmatic") == []


TWO_SECTIONS = ("Threads\n=======\n\nWorker\n------\n\n.. literalinclude:: snippets/run.py\n   :pyobject: main\n\n"
                "Defaults\n--------\n\n.. literalinclude:: snippets/defaults.yml\n")
SNIPPETS = {"docs/snippets/run.py": SNIPPET, "docs/snippets/defaults.yml": "# zephyrine: the theme\ntheme: dark\n"}


def test_read_doc_of_a_section_shows_the_lines_its_directive_shows_after_its_own() -> None:
    ex = excerpt(TWO_SECTIONS, heading="Worker", kind=formats.RST)
    shown = with_included_lines(ex, TWO_SECTIONS, formats.RST, "docs/threads.rst", SNIPPETS.get, 100_000)
    assert shown.text.startswith(ex.text.rstrip("\n")) and "@anyio.run" in shown.text
    assert shown.text.endswith("(included from docs/snippets/run.py)") and "zephyrine" not in shown.text
    assert "class Engine" not in shown.text  # only what `:pyobject:` chooses
    assert shown.note == "after the lines, the lines its literalinclude directives show"
    whole = with_included_lines(excerpt(TWO_SECTIONS, kind=formats.RST), TWO_SECTIONS, formats.RST,
                                "docs/threads.rst", SNIPPETS.get, 100_000)
    assert whole.text.index("@anyio.run") < whole.text.index("zephyrine")  # each directive's lines, in order
    cut = with_included_lines(ex, TWO_SECTIONS, formats.RST, "docs/threads.rst", SNIPPETS.get, 120)
    assert len(cut.text.encode()) <= 120 and cut.note is not None
    assert cut.note.endswith("cut at 0 KB: the rest is in docs/snippets/run.py")
    plain = excerpt("Threads\n=======\n\nNo directive.\n", heading="Threads", kind=formats.RST)
    assert with_included_lines(plain, "Threads\n=======\n\nNo directive.\n", formats.RST, "docs/threads.rst",
                               SNIPPETS.get, 100_000) is plain


def test_read_doc_reads_the_included_file_under_the_folder_s_rules(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write(root, "docs/conf.py", "")
    write(root, "docs/threads.rst", TWO_SECTIONS)
    for rel, text in SNIPPETS.items():
        write(root, rel, text)
    out = read_output(root, "docs/threads.rst", heading="Defaults", start_line=None, end_line=None,
                      max_file_bytes=1 << 20, max_bytes=100_000)
    assert out.text.endswith("# zephyrine: the theme\ntheme: dark\n\n(included from docs/snippets/defaults.yml)")
    write(root, ".gitignore", "defaults.yml\n")  # ignored now: its lines are not shown
    out = read_output(root, "docs/threads.rst", heading="Defaults", start_line=None, end_line=None,
                      max_file_bytes=1 << 20, max_bytes=100_000)
    assert "zephyrine" not in out.text and out.note is None


def test_an_include_of_a_file_that_is_no_note_shows_its_text_and_one_of_a_note_does_not() -> None:
    page = ("Welcome\n=======\n\n.. include:: about.rst.inc\n\nChanges\n-------\n\n.. include:: ../CHANGES.rst\n\n"
            "Example\n-------\n\n.. include:: example/conftest.py\n   :literal:\n\n"
            "Part\n----\n\n.. include:: part.inc\n   :start-line: 1\n   :end-line: -1\n")
    files = {"docs/about.rst.inc": "About\n-----\n\nquasarflux is a tool.\n", "CHANGES.rst": "Changes\n=======\n",
             "docs/example/conftest.py": "def pytest_collect_file(parent, file_path):\n    return None\n",
             "docs/part.inc": "first\nsecond\nthird\n"}
    note = chunk_note(page, formats.RST)
    assert [(r.directive, r.target) for r in note.autodoc] == [
        ("include", "about.rst.inc"), ("include", "../CHANGES.rst"), ("literalinclude", "example/conftest.py"),
        ("include", "part.inc")]
    chunks = included_chunks(note, "docs/index.rst", files.get)
    assert [(c.heading, c.text.rpartition("\n")[2]) for c in chunks] == [
        ("Welcome", "(included from docs/about.rst.inc)"),
        ("Welcome > Example", "(included from docs/example/conftest.py)"),
        ("Welcome > Part", "(included from docs/part.inc)")]
    assert "quasarflux is a tool." in chunks[0].text and "def pytest_collect_file" in chunks[1].text
    assert chunks[2].text.startswith("second") and "first" not in chunks[2].text and "third" not in chunks[2].text


def test_a_myst_include_fence_of_a_file_that_is_no_note_shows_it() -> None:
    page = ("# Guide\n\n## About\n\n```{include} snippets/about.inc\n```\n\n"
            "## Readme\n\n```{include} ../README.md\n```\n\n## Code\n\n```{include} snippets/run.py\n:literal:\n```\n")
    files = {"docs/snippets/about.inc": "quasarflux is a tool.\n", "README.md": "# Readme\n",
             "docs/snippets/run.py": SNIPPET}
    note = chunk_note(page, formats.MARKDOWN)
    assert [r.directive for r in note.autodoc] == ["include", "include", "literalinclude"]
    chunks = included_chunks(note, "docs/guide.md", files.get)
    assert [c.heading for c in chunks] == ["Guide > About", "Guide > Code"]


def test_an_mdbook_include_line_shows_the_lines_its_suffix_chooses_and_an_escaped_one_does_not() -> None:
    page = ("# Preprocessors\n\n## A no-op\n\n```rust\n{{#include ../examples/nop.rs:2:3}}\n```\n\n"
            "## By anchor\n\n```rust\n{{#rustdoc_include ../examples/nop.rs:run}}\n```\n\n"
            "## Syntax\n\n```hbs\n\\{{#include file.rs}}\n```\n\n## Shared\n\n{{#include arg-watcher.md}}\n")
    files = {"guide/examples/nop.rs": "use std::io;\nfn main() {\n    quasarflux();\n}\n// ANCHOR: run\nfn run() {}\n"
                                      "// ANCHOR_END: run\n",
             "guide/src/arg-watcher.md": "# Watcher\n"}
    note = chunk_note(page, formats.MARKDOWN)
    assert [(r.target, dict(r.values)) for r in note.autodoc] == [
        ("../examples/nop.rs", {"lines": "2-3"}), ("../examples/nop.rs", {"start-after": "ANCHOR: run",
                                                                           "end-before": "ANCHOR_END: run"}),
        ("arg-watcher.md", {})]
    chunks = included_chunks(note, "guide/src/preprocessors.md", files.get)
    assert [(c.heading, c.text) for c in chunks] == [
        ("Preprocessors > A no-op", "fn main() {\n    quasarflux();\n\n(included from guide/examples/nop.rs)"),
        ("Preprocessors > By anchor", "fn run() {}\n\n(included from guide/examples/nop.rs)")]
