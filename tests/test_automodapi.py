"""sphinx-automodapi's `.. automodapi:: pkg` (astropy's family: astroplan, ccdproc) is a whole API page in one line: the
module's docstring, then a page per public function and class, a class's with its methods. scree read the line as
markup and indexed none of those docstrings. Pure functions, then the sync and search of a small project (fake
embedder)."""

from __future__ import annotations

from pathlib import Path

from scree.notes import formats, modapi
from scree.notes.autodocpage import autodoc_chunks, docstring_excerpt
from scree.notes.chunker import chunk_note
from scree.notes.modapi import api_names
from sphinx_project import first_hit, synced_project

MODULES = {
    # no `__all__`: what it defines and imports from its own package, never another package's names
    "pkg": ("pkg/__init__.py", '"""Plans observations."""\nfrom .site import *\nfrom .tools import clip, _hidden\n'
                               'from numpy import array\n\n\ndef helper():\n    """Helps."""\n\n\n'
                               'def _private():\n    """Not shown."""\n'),
    "pkg.site": ("pkg/site.py", '__all__ = ["Site", "tonight"]\n\n\nclass Site:\n    """An observing site."""\n\n'
                                '    def sunset(self, time):\n        """When the sun sets."""\n\n'
                                '    def to_table(self, unused=False):\n        pass\n\n\n'
                                'def tonight():\n    """Tonight\'s time range."""\n\n\nclass Unlisted:\n    """Not in __all__."""\n'),
    "pkg.tools": ("pkg/tools.py", '__all__ = ["clip"]\n\n\ndef clip(data):\n    """Clips."""\n\n\n'
                                  'try:\n    def extra():\n        """Extra."""\n    __all__ += ["extra"]\n'
                                  'except ImportError:\n    pass\n'),
}


def test_the_api_is_all_or_else_the_public_names_defined_and_imported_from_the_package() -> None:
    assert api_names("pkg.site", MODULES.get) == ["Site", "tonight"]
    assert api_names("pkg.tools", MODULES.get) == ["clip", "extra"]  # `__all__ +=` in a try block
    assert api_names("pkg", MODULES.get) == ["Site", "tonight", "clip", "helper"]
    assert api_names("nowhere", MODULES.get) == []
    # modules that star-import each other: each is read once
    cycle = {f"loop.m{i}": (f"loop/m{i}.py", "".join(f"from loop.m{j} import *\n" for j in range(12)) +
                            f"def f{i}():\n    pass\n") for i in range(12)}
    reads: list[str] = []
    assert sorted(api_names("loop.m0", lambda name: reads.append(name) or cycle.get(name))) == sorted(
        f"f{i}" for i in range(12))
    assert len(reads) <= 2 * len(cycle)


def test_a_name_a_branch_adds_to_all_is_found_through_a_star_import() -> None:
    # ccdproc's `block_replicate`: `__all__ += [...]` in a `try` block of the module a package star-imports
    modules = {**MODULES, "star": ("star/__init__.py", "from pkg.tools import *\n")}
    page = "API\n===\n\n.. autofunction:: star.extra\n"
    assert [c.heading for c in autodoc_chunks(chunk_note(page, formats.RST), modules.get)] == ["API > star.extra"]


def test_an_automodapi_line_shows_the_module_docstring_then_each_object_with_its_members(monkeypatch) -> None:
    page = "API\n===\n\n.. automodapi:: pkg\n   :skip: helper\n   :skip: clip\n\nAfter.\n"
    shown = autodoc_chunks(chunk_note(page, formats.RST), MODULES.get)
    assert [c.heading for c in shown] == ["API > pkg", "API > pkg.Site", "API > pkg.Site.sunset", "API > pkg.Site.to_table",
                                          "API > pkg.tonight"]
    assert "Plans observations." in shown[0].text and "When the sun sets." in shown[2].text
    # automodapi's class template documents every method: one without a docstring by its signature
    assert shown[3].text.startswith("pkg.Site.to_table(unused=False)")
    assert all(c.start_line == 4 for c in shown)  # each points at the directive
    bare = page.replace("   :skip: helper\n   :skip: clip\n", "   :no-main-docstr:\n   :include: clip\n")
    assert [c.heading for c in autodoc_chunks(chunk_note(bare, formats.RST), MODULES.get)] == ["API > pkg.clip"]
    monkeypatch.setattr(modapi, "MODAPI_PAGES", False)
    assert autodoc_chunks(chunk_note(page, formats.RST), MODULES.get) == []


def test_read_doc_of_an_automodapi_entry_returns_its_docstring() -> None:
    page = "API\n===\n\n.. automodapi:: pkg\n"
    found = docstring_excerpt(page, formats.RST, "API > pkg.Site.sunset", MODULES.get, 10_000)
    assert found is not None and "When the sun sets." in found.text and found.start_line == 4


def test_a_myst_automodapi_fence_is_read_the_same_way() -> None:
    page = "# API\n\n```{automodapi} pkg.site\n:no-main-docstr:\n```\n"
    shown = autodoc_chunks(chunk_note(page, formats.MARKDOWN), MODULES.get)
    assert [c.heading for c in shown] == ["API > pkg.site.Site", "API > pkg.site.Site.sunset", "API > pkg.site.Site.to_table",
                                          "API > pkg.site.tonight"]
    page = "# API\n\n```{automodapi} pkg\n:skip: Site\n:skip: clip\n:skip: helper\n```\n"
    assert [c.heading for c in autodoc_chunks(chunk_note(page, formats.MARKDOWN), MODULES.get)] == [
        "API > pkg", "API > pkg.tonight"]


def test_a_synced_project_finds_a_method_an_automodapi_line_shows(tmp_path: Path) -> None:
    index = synced_project(tmp_path, {
        "docs/api.rst": "Reference/API\n=============\n\n.. automodapi:: pkg\n",
        "docs/guide.rst": "Guide\n=====\n\nPick a site, then ask when the sun sets there.\n",
        **{path: source for path, source in MODULES.values()}})
    assert first_hit(tmp_path, index, "Site.sunset") == ("docs/api.rst", "Reference/API > pkg.Site.sunset")
