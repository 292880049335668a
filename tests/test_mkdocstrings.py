"""A MkDocs page's mkdocstrings directives (`::: pkg.Engine`) show the docstrings the built site shows, as Sphinx's
autodoc directives do, once `formats.MKDOCSTRINGS_DIRECTIVES` is on (it is off: docs/benchmarks.md): the reader's
references (pure), the source roots mkdocs.yml names, and a monorepo indexed for real with the fake embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write
from fake_embedder import FakeEmbedder
from scree.config import load_config
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.mcpserver import read_output
from scree.notes.policy import NotesPolicy
from scree.notes.sectiontext import titled_by
from scree.search import ranking
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names
from scree.notes import formats
from scree.notes.autodocpage import autodoc_chunks
from scree.notes.chunker import chunk_note
from scree.notes.mdblocks import parse_blocks, split_lines
from scree.notes.mkdocsdirectives import mkdocs_source_roots, mkdocstrings_directives


@pytest.fixture(autouse=True)
def _directives_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(formats, "MKDOCSTRINGS_DIRECTIVES", True)


def refs(page: str):
    lines = split_lines(page)
    return mkdocstrings_directives(lines, parse_blocks(lines).verbatim)


def test_directive_lines_outside_code_are_read_with_the_options_that_change_what_they_show() -> None:
    page = ("# API\n\n::: pkg.Engine\n    options:\n      members: [start, stop]\n      inherited_members: true\n\n"
            "::: pkg.helpers\n    options:\n      members: false\n\n::: pkg.spin\n\n"
            "```markdown\n::: pkg.example_only\n```\n\n:::note Not a directive\n\n::: {.pandoc}\n\n"
            "::: pkg.broken\n    options: [unclosed\n")
    found = refs(page)
    assert [(r.target, r.line, r.end) for r in found] == [("pkg.Engine", 2, 6), ("pkg.helpers", 7, 10),
                                                           ("pkg.spin", 11, 12), ("pkg.broken", 21, 23)]
    engine, helpers, spin, broken = found
    assert engine.options == {"members", "inherited-members"} and engine.members == ("start", "stop")
    assert helpers.options == frozenset()  # `members: false` shows none
    assert spin.options == {"members"} and spin.members == ()  # the default: every documented member
    assert broken.options == {"members"}  # options that are not YAML change nothing


def test_a_heading_that_is_a_directive_holds_the_objects_docstring_as_its_own_text(monkeypatch) -> None:
    # griffe's `docs/reference/api/models/class.md`: `# ::: griffe.Class`, then `## **Utilities**`; the trail keeps the
    # heading as the page writes it, as every trail does (mkdocs' own labels name `Handling Errors > ::: mkdocs...`)
    page = "# ::: pkg.Engine\n\n## **Utilities**\n\n::: pkg.spin\n"
    modules = {"pkg": ("src/pkg/__init__.py", 'class Engine:\n    """An engine."""\n\n    def start(self):\n'
                       '        """Starts."""\n\n\ndef spin():\n    """Spins."""\n')}
    note = chunk_note(page, formats.MARKDOWN)
    shown = autodoc_chunks(note, modules.get)
    assert [c.heading for c in shown] == ["::: pkg.Engine", "::: pkg.Engine > pkg.Engine.start",
                                          "::: pkg.Engine > Utilities > pkg.spin"]
    assert shown[0].text.startswith("class pkg.Engine") and "An engine." in shown[0].text
    assert shown[0].text.endswith("(docstring of pkg.Engine, shown by mkdocstrings: src/pkg/__init__.py, line 1)")
    assert titled_by("::: pkg.Engine", ["pkg.Engine"])  # a lookup of the object finds its heading
    # off (the default), the page is its own lines, no docstring
    monkeypatch.setattr(formats, "MKDOCSTRINGS_DIRECTIVES", False)
    off = chunk_note(page, formats.MARKDOWN)
    assert not autodoc_chunks(off, modules.get) and off.chunks[0].heading == "::: pkg.Engine > Utilities"


def test_a_module_shows_its_public_documented_members_and_a_class_its_own(monkeypatch) -> None:
    page = "# Reference\n\n## Module\n\n::: pkg.util\n\n## Class\n\n::: pkg.util.Pool\n    options:\n      members: [get]\n"
    util = ('"""Utilities."""\n\n__all__ = ["Pool", "tune"]\n\n\nclass Pool:\n    """A pool."""\n\n'
            '    def get(self):\n        """Gets one."""\n\n    def put(self):\n        """Puts one back."""\n\n'
            '    def _grow(self):\n        """Private."""\n\n\ndef tune():\n    """Tunes."""\n\n\ndef hidden():\n'
            '    """Not public."""\n')
    modules = {"pkg.util": ("src/pkg/util.py", util)}
    shown = autodoc_chunks(chunk_note(page, formats.MARKDOWN), modules.get)
    assert [c.heading for c in shown] == [
        "Reference > Module > pkg.util", "Reference > Module > pkg.util.Pool", "Reference > Module > pkg.util.Pool.get",
        "Reference > Module > pkg.util.Pool.put", "Reference > Module > pkg.util.tune",
        "Reference > Class > pkg.util.Pool", "Reference > Class > pkg.util.Pool.get"]
    monkeypatch.setattr(formats, "MKDOCSTRINGS_DIRECTIVES", False)
    assert autodoc_chunks(chunk_note(page, formats.MARKDOWN), modules.get) == []


def test_mkdocs_yml_names_the_source_roots_inside_the_folder_whatever_its_tags() -> None:
    config = """\
site_name: x
plugins:
- search
- mkdocstrings:
    enabled: !ENV [MKDOCSTRINGS_ENABLED, true]
    handlers:
      python:
        paths: [packages/lib/src, ./scripts, ., ../outside, /abs/path]
        options:
          show_source: true
markdown_extensions:
- pymdownx.emoji:
    emoji_index: !!python/name:material.extensions.emoji.twemoji
"""
    assert mkdocs_source_roots(config) == ("packages/lib/src/", "scripts/", "")
    assert mkdocs_source_roots("plugins: [search]\n") == ()
    assert mkdocs_source_roots("plugins: [unclosed\n") == ()


API = """\
# API

## Engine

::: lib.Engine
    options:
      members: [ignite]

## Helpers

::: lib.spin_wheel
"""
LIB = '''\
"""The lib package."""

__all__ = ["Engine", "spin_wheel"]


class Engine:
    """Turns quasarflux into motion."""

    def ignite(self, fuel: str) -> bool:
        """Lights the zephyrine burner with the given fuel."""
        return True

    def stop(self) -> None:
        """Halts the xylophone gently."""


def spin_wheel(n: int) -> None:
    """Spins the wheel exactly n times, counterclockwise by default."""
'''
MKDOCS = "site_name: proj\nplugins:\n- mkdocstrings:\n    handlers:\n      python:\n        paths: [packages/lib/src]\n"


@pytest.fixture
def repo(tmp_path: Path):
    root = tmp_path / "proj"
    for rel, text in {"mkdocs.yml": MKDOCS, "docs/index.md": "# Proj\n\nThe guide.\n", "docs/api.md": API,
                      "packages/lib/src/lib/__init__.py": LIB, "packages/lib/pyproject.toml": "[project]\n"}.items():
        write(root, rel, text)
    index = open_index(index_location(root, load_config()), root)
    sync(index, NotesPolicy.load(root), FakeEmbedder())
    yield root, index
    index.close()


def search(repo, query: str) -> list:
    root, index = repo
    return search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(query, k=3, mode="keyword")).hits


def test_a_monorepos_docstrings_are_found_under_the_page_that_shows_them(repo) -> None:
    (hit, *_) = search(repo, "zephyrine burner")
    assert (hit.path, hit.heading) == ("docs/api.md", "API > Engine > lib.Engine.ignite")
    assert "(docstring of lib.Engine.ignite, shown by mkdocstrings: packages/lib/src/lib/__init__.py, line 9)" in hit.text
    page = (repo[0] / "docs/api.md").read_text().split("\n")
    assert page[hit.start_line - 1] == "::: lib.Engine"  # the lines are the directive's
    (cls, *_) = search(repo, "quasarflux")
    assert cls.heading == "API > Engine"  # the section its title names holds it, as on a Sphinx page
    (fn, *_) = search(repo, "counterclockwise")
    assert fn.heading == "API > Helpers > lib.spin_wheel"
    assert not search(repo, "xylophone")  # `members: [ignite]` leaves `stop` out


def test_read_doc_returns_the_docstring_a_directive_shows(repo) -> None:
    out = read_output(repo[0], "docs/api.md", heading="lib.Engine.ignite", start_line=None, end_line=None,
                      max_file_bytes=10 << 20, max_bytes=100_000)
    assert "zephyrine burner" in out.text and out.heading == "API > Engine > lib.Engine.ignite"
    assert out.note and "autodoc" in out.note


def test_the_docs_own_sections_go_before_mkdocstrings_entries_among_the_first_hits(repo, monkeypatch) -> None:
    root, index = repo
    write(root, "docs/guide.md", "# Guide\n\n## Starting the engine\n\nCall `ignite` with the fuel you have; the "
                                 "burner lights and the engine turns.\n")
    sync(index, NotesPolicy.load(root), FakeEmbedder())
    hits = search(repo, "ignite")
    assert hits[0].heading == "Guide > Starting the engine"
    assert "API > Engine > lib.Engine.ignite" in [h.heading for h in hits]  # still answers, after the guide
    monkeypatch.setattr(ranking, "GUIDES_BEFORE_MKDOCSTRINGS", False)  # the entry, which spells it most, led
    assert search(repo, "ignite")[0].heading == "API > Engine > lib.Engine.ignite"
