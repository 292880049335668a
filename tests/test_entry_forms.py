"""A looked-up name with no entry of its own is answered by its entry under another form (issue 38): asciidoctor-pdf's
theme reference explains `start-at` in a table under the heading `page-numbering`, and a user looks up
`page_numbering_start_at`, which a guide spells in passing; mypy documents `--no-local-partial-types`, and a user looks
up `--local-partial-types`. And AsciiDoc's tables may write one cell per line. Pure parts directly; the lookup on a
real index."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from conftest import write
from fake_embedder import FakeEmbedder
from scree.config import load_config
from scree.index.store import Index, open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.notes import sectiontext
from scree.notes.policy import NotesPolicy
from scree.notes.sectiontext import defines
from scree.search import entryforms
from scree.search.entryforms import form_names, inverse_flag, is_scoped_entry, splits
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names

_ADOC_TABLE = ('[cols="3,4,5a"]\n|===\n|Key |Value Type |Example\n\n'
               "|catalog\n|Map\n|[source]\nfont:\n  catalog: {}\n\n"
               "|<<fallback,fallbacks>>\n|Array\n|[source]\nfont:\n  fallbacks:\n  - Noto Emoji\n\n"
               "|xref:images.adoc#bg[background-image]\n|Image\n|[source]\npage:\n  background-image: bg.png\n|===\n")


@pytest.mark.parametrize("name", ["catalog", "fallbacks"])
def test_an_asciidoc_row_written_one_cell_per_line_defines_its_first_cell(name: str) -> None:
    assert defines(_ADOC_TABLE, [name])


@pytest.mark.parametrize("name", [
    "map",  # a row's second cell
    "array",
    "background-image",  # a reference to another page points at the entry there
])
def test_an_asciidoc_rows_other_cells_and_links_elsewhere_define_nothing(name: str) -> None:
    assert not defines(_ADOC_TABLE, [name])


def test_without_the_rule_a_row_of_one_cell_per_line_defines_nothing(monkeypatch) -> None:
    monkeypatch.setattr(sectiontext, "ADOC_CELL_ROWS", False)
    assert not defines(_ADOC_TABLE, ["catalog"])


@pytest.mark.parametrize(("query", "names"), [
    ("page_numbering_start_at", ["page_numbering_start_at"]),
    ("`font-fallbacks`", ["font-fallbacks"]),
    ("what does page_margin_inner do", ["page_margin_inner"]),
    ("what does base_font_size affect besides body text?", []),  # a case of it: the guide answers
    ("--local-partial-types", ["--local-partial-types"]), ("what does --no-sync do", ["--no-sync"]),
    ("PLATEN_LEASE_S", []), ("fallbacks", []), ("httpx.Client", []), ("how do I add a font", []), ("-v", []),
    ("does --no-sync skip the lock?", []),
])
def test_a_lookup_of_a_key_or_flag_may_have_its_entry_under_another_form(query: str, names: list[str]) -> None:
    assert form_names(query) == names


def test_a_flattened_key_is_read_as_category_and_key_the_longest_category_first() -> None:
    assert splits("page_numbering_start_at") == [(["page", "numbering", "start"], ["at"]),
                                                 (["page", "numbering"], ["start", "at"]),
                                                 (["page"], ["numbering", "start", "at"])]
    assert splits("--no-sync") == []


@pytest.mark.parametrize(("flag", "inverse"), [
    ("--local-partial-types", "--no-local-partial-types"), ("--no-sync", "--sync"), ("--strict", "--no-strict"),
    ("no-sync", ""), ("-v", ""), ("page_margin_inner", ""),
])
def test_a_long_flags_inverse_turns_it_the_other_way(flag: str, inverse: str) -> None:
    assert inverse_flag(flag) == inverse


@pytest.mark.parametrize(("trail", "text", "entry"), [
    ("Page Category Keys > page-numbering", "|===\n|Key |Value\n\n|start-at\n|Integer\n|===", True),
    ("Keys > Page numbering", "- `start_at`: where numbering starts", True),
    ("Keys > page-numbering", "Set `start-at` to begin later.", False),  # a mention
    ("Keys > page-numbering > Examples", "|===\n|Key |Value\n\n|start-at\n|Integer\n|===", False),  # not its heading
    ("Keys > page", "|===\n|Key |Value\n\n|start-at\n|Integer\n|===", False),  # the category is all of the heading
])
def test_a_sections_own_heading_is_the_category_and_an_entry_in_it_the_key(trail: str, text: str, entry: bool) -> None:
    assert is_scoped_entry(trail, text, ["page", "numbering"], ["start", "at"]) is entry


@contextmanager
def _indexed(root: Path) -> Iterator[Index]:
    """`root`'s index, synced with the fake embedder, closed afterwards."""
    index = open_index(index_location(root, load_config()), root)
    try:
        sync(index, NotesPolicy.load(root), FakeEmbedder())
        yield index
    finally:
        index.close()


@pytest.fixture
def theme(tmp_path: Path):
    root = tmp_path / "docs"
    write(root, "page.adoc", "= Page Category Keys\n\n== page\n\nThe keys in the `page` category control the "
                             "size and margins.\n\n" + '[cols="3,4,5a"]\n|===\n|Key |Value Type |Example\n\n'
                             "|size\n|String\n|[source]\npage:\n  size: A4\n\n"
                             "|<<margins,margin-inner>>\n|Measurement\n|[source]\npage:\n  margin-inner: 0.75in\n|===\n\n"
                             "== page-numbering\n\n" + '[cols="3,4,5a"]\n|===\n|Key |Value Type |Example\n\n'
                             "|start-at\n|Integer\n|[source]\npage:\n  numbering:\n    start-at: 3\n|===\n")
    write(root, "prepress.adoc", "= Print and Prepress\n\n== Double-sided\n\nThe page margins for recto and verso "
                                 "pages swap the `page-margin-inner` and `page-margin-outer` values, so the "
                                 "inner margin is always by the binding. Set `page-margin-inner` wider for a "
                                 "thick book.\n")
    write(root, "numbers.adoc", "= Page Numbers\n\n== Start later\n\nIn the theme, `page-numbering-start-at: 3` "
                                "starts counting at the third page; `page-numbering-start-at` also takes `cover`.\n")
    with _indexed(root) as index:
        yield root, index


def _first(root: Path, index, query: str, mode: str = "auto") -> tuple[str, str]:
    hits = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(query, k=3, mode=mode)).hits
    return hits[0].path, hits[0].heading


@pytest.mark.parametrize(("query", "trail"), [
    ("page_margin_inner", "Page Category Keys > page"),
    ("page-numbering-start-at", "Page Category Keys > page-numbering"),
    ("what does page_numbering_start_at do?", "Page Category Keys > page-numbering"),
])
def test_a_flattened_key_answers_from_its_categorys_entry(theme, query: str, trail: str) -> None:
    root, index = theme
    assert _first(root, index, query) == ("page.adoc", trail)
    assert _first(root, index, query, "hybrid") == ("page.adoc", trail)


def test_without_the_rule_the_guide_that_spells_the_key_came_first(theme, monkeypatch) -> None:
    root, index = theme
    monkeypatch.setattr(entryforms, "SCOPED_ENTRIES", False)
    assert _first(root, index, "page_margin_inner")[0] == "prepress.adoc"
    assert _first(root, index, "page-numbering-start-at")[0] == "numbers.adoc"


def test_a_key_with_an_entry_of_its_own_keeps_it(tmp_path: Path) -> None:
    # `margin-inner` is itself defined: the `margin` section's `inner` row does not take its place
    root = tmp_path / "docs"
    write(root, "keys.md", "# Keys\n\n## margin\n\n| Key | Meaning |\n|---|---|\n| `inner` | the inner margin |\n\n"
                           "## Layout\n\n| Key | Meaning |\n|---|---|\n| `margin-inner` | the binding side's margin |\n")
    with _indexed(root) as index:
        assert _first(root, index, "margin-inner") == ("keys.md", "Keys > Layout")


@pytest.fixture
def flags(tmp_path: Path):
    root = tmp_path / "docs"
    write(root, "command_line.rst", "The command line\n================\n\nStrictness flags\n----------------\n\n"
                                    ".. option:: --strict\n\n    Enable every optional check.\n\n"
                                    ".. option:: --no-local-partial-types\n\n    Disable local partial types, for "
                                    "the legacy inference of containers.\n\nDaemon\n------\n\nThe daemon needs "
                                    "``--local-partial-types``, on by default; run it with ``--local-partial-types`` "
                                    "and ``--strict`` as any run.\n")
    write(root, "guide.rst", "Guide\n=====\n\nGetting strict\n--------------\n\nStart with ``--no-strict`` "
                             "and add checks one by one.\n")
    with _indexed(root) as index:
        yield root, index


def test_a_flag_documented_by_its_inverse_answers_from_the_inverses_entry(flags) -> None:
    root, index = flags
    assert _first(root, index, "--local-partial-types")[1].endswith("--no-local-partial-types")
    assert _first(root, index, "--no-strict")[1].endswith("--strict")


def test_without_the_rule_the_mention_of_the_flag_came_first(flags, monkeypatch) -> None:
    root, index = flags
    monkeypatch.setattr(entryforms, "INVERSE_FLAGS", False)
    assert _first(root, index, "--local-partial-types")[1] == "The command line > Daemon"
