"""A lookup's linked entry (issue 38): where the sections that spell a name send a reader when they link it. MyST's
three mentions of `eval-rst` link "[`eval-rst` directive](#syntax/directives/parsing)", and pytest's reference links
`usefixtures` to its how-to with ":ref:`usefixtures`"; the section they point to explains the name in other words
and ranked below the mentions. Pure parts directly; the ranking on real indexes."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write
from fake_embedder import FakeEmbedder
from scree.config import load_config
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.notes import sectiontext
from scree.search import links
from scree.search import names as names_module
from scree.search.links import named_links, resolve_path, slug
from scree.search.names import link_names
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names


@pytest.mark.parametrize(("text", "name", "found"), [
    ("Wrap it in the [`eval-rst` directive](#syntax/parsing):", "eval-rst", [("url", "#syntax/parsing")]),
    ("See [allowDefaultProject](../../packages/parser#allowdefaultproject).", "allowdefaultproject",
     [("url", "../../packages/parser#allowdefaultproject")]),
    ("**Tutorial**: :ref:`usefixtures`", "usefixtures", [("label", "usefixtures")]),
    (":ref:`--import-mode=importlib <import-modes>` now tries", "--import-mode", [("label", "import-modes")]),
    ("{ref}`myst_heading_anchors <syntax/anchors>`", "myst_heading_anchors", [("label", "syntax/anchors")]),
    ("refer to [[Plugin security#Restricted mode|Restricted Mode]].", "restricted mode",
     [("wiki", "Plugin security#Restricted mode")]),
    ("see [[#Restricted mode]]", "restricted mode", [("wiki", "#Restricted mode")]),
    # a wikilink to a page names the page; one to a block names no section
    ("[[Customize your site|publish.js]] and [[Page#^block1|publish.js]]", "publish.js",
     [("wiki", "Customize your site")]),
    # a link about something else that mentions the name; a longer name; an object role (a reference entry)
    ("[Changes to extraFileExtensions with projectService](perf.md#changes)", "extrafileextensions", []),
    ("[`eval-rst-extra` directive](#other)", "eval-rst", []),
    ("the :func:`usefixtures` mark", "usefixtures", []),
    # a link in the list item that defines the name, whatever its text, its continuation line included
    ("- `wrap_dict_values`: Add parentheses around long values.\n  ([see below](labels/wrap-dict))\n- `other`: x",
     "wrap_dict_values", [("url", "labels/wrap-dict")]),
    # an item defining another name, or prose that mentions it next to a link
    ("- `other`: unlike `wrap_dict_values`, see [below](labels/other)", "wrap_dict_values", []),
    ("Turn on `wrap_dict_values` ([see below](labels/wrap-dict)).", "wrap_dict_values", []),
])
def test_a_link_counts_when_its_text_opens_with_the_name(text: str, name: str, found: list) -> None:
    assert named_links(text, name) == found


def test_anchors_and_paths_resolve_as_the_renderers_make_them() -> None:
    assert slug("`allowDefaultProject`") == "allowdefaultproject"
    assert slug("HTTP_PROXY, HTTPS_PROXY, ALL_PROXY") == "http_proxy-https_proxy-all_proxy"
    paths = ["docs/packages/Parser.mdx", "docs/guide/index.md", "docs/troubleshooting/faq.md"]
    assert resolve_path("docs/troubleshooting/faq.md", "../packages/parser", paths) == "docs/packages/Parser.mdx"
    assert resolve_path("docs/troubleshooting/faq.md", "../guide", paths) == "docs/guide/index.md"
    assert resolve_path("docs/troubleshooting/faq.md", "", paths) == "docs/troubleshooting/faq.md"
    assert resolve_path("docs/troubleshooting/faq.md", "../../../outside.md", paths) is None
    assert resolve_path("docs/troubleshooting/faq.md", "missing.md", paths) is None


def _first(root: Path, query: str, mode: str = "auto") -> tuple[str, str]:
    index = open_index(index_location(root, load_config()), root)
    try:
        sync(index, NotesPolicy.load(root), FakeEmbedder())
        hits = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(query, k=5, mode=mode)).hits
    finally:
        index.close()
    assert hits, query
    return hits[0].path, hits[0].heading


def _mentions(root: Path, link: str) -> None:
    """Three short pages that use `eval-rst` in passing, each linking it with `link`."""
    for n in range(3):
        write(root, f"uses{n}.md", f"# Use {n}\n\n## Including rST {n}\n\nWrap it in the {link} to include "
                                   "rST:\n\n```{eval-rst}\n.. include:: snippet.rst\n```\n")


@pytest.mark.parametrize("link", ["[`eval-rst` directive](#syntax/parsing)",
                                  "[`eval-rst` directive](directives.md#how-directives-parse-content)"])
def test_a_lookup_ranks_first_the_section_its_mentions_link_to(tmp_path: Path, link: str) -> None:
    root = tmp_path / "docs"
    write(root, "directives.md", "# Directives\n\n## Syntax\n\nDirectives are written in fences.\n\n"
                                 "(syntax/parsing)=\n\n## How directives parse content\n\nSome directives parse "
                                 "their content as Markdown. For special cases there is also the `eval-rst` "
                                 "directive, which parses its content as reStructuredText instead of Markdown, "
                                 "so any role or directive of docutils works inside it, at the cost of the "
                                 "Markdown syntax that the rest of the page uses.\n")
    _mentions(root, link)
    assert _first(root, "eval-rst") == ("directives.md", "Directives > How directives parse content")
    assert _first(root, "eval-rst", mode="keyword") == ("directives.md", "Directives > How directives parse content")


def test_a_question_and_a_switched_off_rule_keep_the_order_of_the_words(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "docs"
    write(root, "directives.md", "# Directives\n\n(syntax/parsing)=\n\n## How directives parse content\n\nSome "
                                 "directives parse their content as Markdown; `eval-rst` parses reStructuredText, "
                                 "with every docutils role and directive available inside it.\n")
    _mentions(root, "[`eval-rst` directive](#syntax/parsing)")
    assert _first(root, "How do I include rST with eval-rst?")[0].startswith("uses")
    monkeypatch.setattr(links, "LINKED_ENTRIES", False)
    assert _first(root, "eval-rst")[0].startswith("uses")


def test_a_ref_role_points_at_the_label_above_a_rst_title(tmp_path: Path) -> None:
    root = tmp_path / "doc"
    write(root, "conf.py", "project = 'x'\n")
    write(root, "reference.rst", "Reference\n=========\n\nMarks\n-----\n\nusefixtures\n~~~~~~~~~~~\n\n"
                                 "**Tutorial**: :ref:`usefixtures`\n\nMark a test as using ``usefixtures`` names.\n")
    write(root, "howto.rst", "How to use fixtures\n===================\n\n.. _`usefixtures`:\n\n"
                             "Use fixtures in classes and modules\n-----------------------------------\n\n"
                             "Sometimes test functions do not directly need access to a fixture object. "
                             "Mark the class with ``usefixtures`` and every test in it runs in a clean "
                             "directory, whatever the tests themselves ask for. The mark takes several "
                             "fixture names, and a module can apply it to all its tests with pytestmark.\n")
    assert _first(root, "usefixtures") == ("howto.rst", "How to use fixtures > Use fixtures in classes and modules")


def test_a_wikilink_named_by_a_lookup_points_at_its_heading(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    write(root, "Plugin security.md", "# Plugin security\n\n## Restricted mode\n\nWith it on, no community plugin "
                                      "runs: Obsidian loads only its own core plugins.\n")
    for n in range(3):  # settings pages that name the mode in passing, each linking it
        write(root, f"Settings {n}.md", f"## Community plugins {n}\n\n[[Plugin security#Restricted mode|Restricted "
                                        "mode]] is on: turn off restricted mode to install one. Restricted mode.\n")
    assert _first(root, "Restricted mode") == ("Plugin security.md", "Plugin security > Restricted mode")


def test_a_link_to_a_page_lifts_the_pages_best_section_unless_the_page_leads(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    write(root, "Customize your site.md", "# Customize your site\n\n## Theme\n\nPick colours and fonts for the "
                                          "site.\n\n## Static assets\n\nUpload a file named publish.js to the "
                                          "site's root to run your own script on every page; a publish.css next to "
                                          "it styles the pages, and favicon files set the icon browsers show.\n")
    for n in range(3):  # short pages that name the file in passing
        write(root, f"Note {n}.md", f"## Visitors {n}\n\nVisitors run publish.js too.\n")
    write(root, "Analytics.md", "## Other services\n\nAdd their snippet with [[Customize your site|publish.js]].\n")
    assert _first(root, "publish.js") == ("Customize your site.md", "Customize your site > Static assets")


# Each: notes, a lookup, its entry, and the rule (module, flag) without which the entry is not first.
_LIST_ITEM_CASES = {
    # Black's list of preview features: each item names a feature and links "see below" to the MyST label of the
    # section that explains it in other words; the changelog spells the name more often.
    "a features list item points its name at the section it links to": (
        {"style.md": "# Style\n\n## Preview style\n\nCurrently, the following features are included:\n\n"
                     "- `wrap_dict_values`: Add parentheses around long values in dictionaries.\n"
                     "  ([see below](labels/wrap-dict))\n- `hug_parens`: Hug brackets.\n\n"
                     "(labels/wrap-dict)=\n\n### Improved parentheses management in dicts\n\nFor dict literals "
                     "with long values, they are now wrapped in parentheses; unnecessary ones are removed.\n",
         "CHANGES.md": "# Changes\n\n## 26.1\n\n- `wrap_dict_values` is faster\n\n## 25.9\n\n"
                       "- Add `wrap_dict_values` to the preview style\n"},
        "wrap_dict_values", ("style.md", "Style > Preview style > Improved parentheses management in dicts"),
        (links, "ENTRY_LINKS")),
    # Pydantic's list of model methods: each item's term is a link to the API entry (mkdocs' autorefs) and the item
    # links the guide section that explains it in other words; a plugin page titles a section by the name, in passing.
    "a method list whose terms are links points each name at its guide section": (
        {"models.md": "# Models\n\n## Methods\n\nModels have these methods:\n\n"
                      "* [`model_copy()`][pydantic.BaseModel.model_copy]: Returns a copy. See [Copies](#copies).\n"
                      "* [`model_construct()`][pydantic.BaseModel.model_construct]: Creates models without running "
                      "validation. See [Creating models without validation](#creating-models-without-validation).\n\n"
                      "## Copies\n\nA copy is shallow unless deep is set.\n\n"
                      "## Creating models without validation\n\nThe construct method makes a model **without "
                      "validation**, for data already known to be valid.\n",
         "mypy.md": "# Mypy plugin\n\n## Generate a typed signature for `model_construct`\n\n"
                    "The plugin types `model_construct` so static checks catch errors.\n"},
        "model_construct", ("models.md", "Models > Creating models without validation"),
        (sectiontext, "LINKED_TERMS")),
}


@pytest.mark.parametrize("case", list(_LIST_ITEM_CASES))
def test_a_list_item_defining_the_name_sends_the_lookup_where_its_links_point(case: str, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    notes, lookup, entry, (module, flag) = _LIST_ITEM_CASES[case]
    root = tmp_path / "docs"
    for path, text in notes.items():
        write(root, path, text)
    assert _first(root, lookup) == entry
    monkeypatch.setattr(module, flag, False)
    assert _first(root, lookup) != entry


@pytest.mark.parametrize(("lookup", "names"), [
    ("pixi global install", ["pixi global install"]),  # the program opens every command's link
    ("uv pip compile", ["uv pip compile"]),
    ("eval-rst", ["eval-rst"]),  # no command: its names as they are
])
def test_a_commands_links_are_followed_by_the_whole_command(lookup: str, names: list[str]) -> None:
    assert link_names(lookup, frozenset({"pixi", "uv", "eval-rst"})) == names


def _commands(root: Path) -> None:
    """Two command pages, and a getting-started list linking every command by a link text that opens with the
    program (pixi's)."""
    write(root, "docs/getting_started.md", "# Getting started\n\n## Managing global installations\n\n"
                                           "- [`pixo global install`](cli/install.md) - install a package globally.\n"
                                           "- [`pixo global sync`](cli/sync.md) - sync the globally installed "
                                           "environments.\n")
    write(root, "docs/cli/install.md", "# pixo global install\n\nInstalls packages globally.\n\n## Usage\n\n"
                                       "```\npixo global install [OPTIONS] [PACKAGE]...\n```\n")
    write(root, "docs/cli/sync.md", "# pixo global sync\n\nSync the global manifest. Unlike pixo global install, "
                                    "it reads the manifest.\n")
    write(root, "pyproject.toml", '[project]\nname = "pixo"\n\n[project.scripts]\npixo = "pixo.cli:main"\n')
    write(root, "src/pixo/cli.py", "def main():\n    pass\n")


def test_a_command_lookup_is_not_sent_to_another_commands_page_by_its_program(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    _commands(root)
    assert _first(root, "pixo global install", mode="keyword")[0] == "docs/cli/install.md"
    monkeypatch.setattr(names_module, "COMMAND_LINKS_WHOLE", False)
    assert _first(root, "pixo global install", mode="keyword")[0] == "docs/cli/sync.md"
