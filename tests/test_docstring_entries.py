"""A name's docstring entries (issue 38): what the code's own words say about a name, and where they send a reader.

The shapes of the misses measured on Sphinx projects:

- the name's own entry lost to other objects' docstrings that only list it (werkzeug's `max_content_length`, a
  `:param max_content_length:` of `get_input_stream` and `parse_form_data` above `Request.max_content_length`);
- once the name's own entry led, other objects' docstrings that use it (`View.as_view` for `init_every_request`)
  still stood above the guide that explains it;
- a one-line docstring that only points to the guide (pluggy's `HookimplOpts.trylast`: "Whether to try to order this
  hook implementation :ref:`last <callorder>`.") ranked above the section it points to.

Pure parts directly; the ranking on real indexes (fake embedder).
"""

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
from scree.search import links
from scree.search import names as names_module
from scree.search.links import named_links, pointer_target
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names

NOTE = "(docstring of pkg.Opts.{0}, a member of pkg.Opts: src/pkg/opts.py, line 3)"


def _doc(name: str, body: str) -> str:
    """A docstring chunk as `notes.autodocpage` writes it: signature line, docstring, closing note."""
    return f"attribute pkg.Opts.{name}\n\n{body}\n\n{NOTE.format(name)}"


@pytest.mark.parametrize(("text", "label"), [
    (_doc("trylast", "Whether to try to order it :ref:`last\n<callorder>`."), "callorder"),
    (_doc("trylast", "Ordered :ref:`last <callorder>`; see :ref:`callorder` again."), "callorder"),
    # two places: the docstring explains the name and links side topics
    (_doc("trylast", "Ordered last; see :ref:`callorder` and :ref:`wrappers`."), None),
    # a long docstring, a later part of one, a section that is no docstring, a link across a blank line
    (_doc("trylast", "Ordered last. " * 20 + ":ref:`callorder`"), None),
    ("more words about ordering :ref:`callorder`\n\n" + NOTE.format("trylast"), None),
    ("Call time order\n\nOrdered :ref:`last <callorder>`.", None),
    (_doc("trylast", "Ordered :ref:`last\n\n<callorder>`."), None),
])
def test_a_pointer_is_a_whole_short_docstring_linking_one_label(text: str, label: str | None) -> None:
    assert pointer_target(text) == label


def test_a_ref_role_wrapped_onto_the_next_line_is_read_whole() -> None:
    assert named_links("See :ref:`optionalhook\n<optional-validation>`.", "optionalhook") == [
        ("label", "optional-validation")]
    assert named_links("See :ref:`optionalhook\n\n<optional-validation>`.", "optionalhook") == []


def _project(root: Path, files: dict[str, str]):
    """A Sphinx project named for its folder, holding `files`, synced into its index (returned)."""
    write(root, "pyproject.toml", f'[project]\nname = "{root.name}"\nversion = "1.0"\n')
    write(root, "docs/conf.py", f"project = '{root.name}'\n")
    for path, text in files.items():
        write(root, path, text)
    index = open_index(index_location(root, load_config()), root)
    sync(index, NotesPolicy.load(root), FakeEmbedder())
    return index


def _top(root: Path, index, query: str, n: int = 3, mode: str = "auto") -> list[str]:
    hits = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(query, k=5, mode=mode)).hits
    return [h.heading.rsplit(" > ", 1)[-1] for h in hits[:n]]


@pytest.fixture
def hooks(tmp_path: Path):
    """pluggy's shape: a guide whose sections carry labels, and an API page whose `:members:` show options each
    documented by a `#:` comment that points to the guide."""
    root = tmp_path / "hooks"
    index = _project(root, {
        "docs/api.rst": "API\n===\n\n.. autoclass:: hooks.ImplOpts\n   :members:\n",
        "src/hooks/__init__.py": ('class ImplOpts:\n    """Options for an implementation."""\n\n'
                                  '    #: Whether to order this implementation :ref:`last <callorder>`.\n'
                                  '    trylast: bool\n'
                                  '    #: Whether validation is :ref:`optional <optional>`.\n'
                                  '    optionalhook: bool\n'),
        "docs/guide.rst": (
            "Guide\n=====\n\n.. _callorder:\n\nCall time order\n---------------\n\nBy default implementations are "
            "called in the reverse order of their registration. A plugin can ask to run first or last: ``tryfirst`` "
            "and ``trylast`` move it to the front or the back of the implementations, wrappers aside, which always "
            "wrap the whole call around every other implementation of the hook in the plugin manager.\n\n"
            ".. _optional:\n\nOptional validation\n-------------------\n\nAn implementation named for no known "
            "specification fails registration, unless it is marked ``optionalhook``: then the plugin manager "
            "accepts it and checks it against a specification only once one is added later on by some plugin.\n")})
    yield root, index
    index.close()


def test_a_pointer_docstring_never_ranks_above_the_section_it_points_to(hooks, monkeypatch) -> None:
    root, index = hooks
    question = "Does trylast order my hook implementation last?"
    for mode in ("auto", "hybrid", "keyword"):
        assert _top(root, index, question, 2, mode) == ["Call time order", "hooks.ImplOpts.trylast"], mode
    monkeypatch.setattr(links, "POINTERS_AFTER_TARGETS", False)  # the miss: the pointer led
    assert _top(root, index, question, 1, "keyword") == ["hooks.ImplOpts.trylast"]


def test_a_lookup_of_a_pointers_name_leads_with_the_section_it_points_to(hooks, monkeypatch) -> None:
    root, index = hooks
    assert _top(root, index, "optionalhook", 1) == ["Optional validation"]
    monkeypatch.setattr(links, "POINTERS_AFTER_TARGETS", False)
    assert _top(root, index, "optionalhook", 1) == ["hooks.ImplOpts.optionalhook"]


@pytest.fixture
def wrappers(tmp_path: Path):
    """werkzeug's and flask's shapes: functions whose docstrings list a parameter named as a class attribute, a
    class method whose docstring uses another attribute, and a guide that explains that one in other words."""
    root = tmp_path / "wrappers"
    index = _project(root, {
        "docs/api.rst": "API\n===\n\n.. automodule:: wrappers\n   :members:\n",
        "src/wrappers/__init__.py": (
            '__all__ = ["get_stream", "parse_form", "View"]\n\n\n'
            'def get_stream(environ, max_content_length=None):\n    """Returns the input stream.\n\n'
            '    :param max_content_length: stop at this many bytes.\n    """\n\n\n'
            'def parse_form(environ, max_content_length=None):\n    """Parses the form.\n\n'
            '    :param max_content_length: stop at this many bytes.\n    """\n\n\n'
            'class View:\n    """A view class. Set ``init_every_request`` to keep one instance."""\n\n'
            '    #: The maximum content length of a request body, in bytes: a larger body is refused with a 413\n'
            '    #: error before the view runs, and the form and files stay unread.\n'
            '    max_content_length = None\n\n'
            '    #: Make a new instance for every request.\n    init_every_request = True\n\n'
            '    @classmethod\n    def as_view(cls, name):\n        """Makes the view function; honours '
            '``init_every_request``."""\n'),
        "docs/views.rst": (
            "Views\n=====\n\nView lifetime and self\n----------------------\n\nBy default a new instance of the "
            "view class is made for every request, so that data set on ``self`` never leaks from one request to the "
            "next. Setting ``init_every_request`` to false makes one instance serve every request, which is faster "
            "but means ``self`` must hold nothing that belongs to one request.\n")})
    yield root, index
    index.close()


def test_the_names_own_docstring_comes_before_those_that_only_list_it(wrappers, monkeypatch) -> None:
    root, index = wrappers
    assert _top(root, index, "max_content_length", 1) == ["wrappers.View.max_content_length"]
    monkeypatch.setattr(names_module, "OWN_DOCSTRING_FIRST", False)
    monkeypatch.setattr(names_module, "OTHER_DOCSTRINGS_AFTER", False)
    assert _top(root, index, "max_content_length", 1) != ["wrappers.View.max_content_length"]


def test_other_objects_docstrings_follow_the_guide_once_the_names_own_entry_is_there(wrappers, monkeypatch) -> None:
    root, index = wrappers
    top = _top(root, index, "init_every_request", 5)
    assert top.index("View lifetime and self") < top.index("wrappers.View.as_view")
    monkeypatch.setattr(names_module, "OTHER_DOCSTRINGS_AFTER", False)
    top = _top(root, index, "init_every_request", 5)
    assert top.index("View lifetime and self") > top.index("wrappers.View.as_view")
