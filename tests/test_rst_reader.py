"""reStructuredText and AsciiDoc are read into the same sections as Markdown (issue 34): titles, trails, line
ranges, code kept whole, markup that never becomes prose, targets, autodoc directives. Pure functions."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from scree.notes import adocblocks, autodoc, autodocpage, docstringrst, formats, rstblocks
from scree.notes.autodocpage import autodoc_chunks, docstring_excerpt
from scree.notes.chunker import HARD_CHUNK_BYTES, chunk_note
from scree.notes.embedview import embed_body
from scree.notes.mdblocks import split_lines
from scree.notes.rstblocks import clean_rst_title, parse_rst
from scree.notes.sections import excerpt, sections

BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"


def trails(text: str, kind: str = formats.RST) -> list[str]:
    return [c.heading for c in chunk_note(text, kind).chunks]


PAGE = """\
:orphan:
:tocdepth: 2

.. _top:

=========
 Project
=========

Intro text about the project.

Install
=======

Run the installer.

.. code-block:: console

   $ pip install thing

   $ thing --version

Options
-------

The ``--fast`` flag, see :func:`~thing.core.run` and :ref:`the guide <guide>`.

.. toctree::
   :maxdepth: 2

   install
   usage

.. _guide:

Guide
=====

.. note::

   Admonitions are text.

.. |logo| image:: logo.png

.. this is a comment
   spanning two lines

Literal::

    x = 1

    y = 2

Last words.
"""


def test_titles_take_their_level_from_the_order_their_adornment_first_appears() -> None:
    lines = split_lines(PAGE)
    heads = [(h.level, h.text) for h in parse_rst(lines).blocks.headings]
    # The overlined "=" style came first, so it is the document title; "=" alone is level 2, "-" level 3.
    assert heads == [(1, "Project"), (2, "Install"), (3, "Options"), (2, "Guide")]
    assert trails(PAGE) == ["Project", "Project > Install", "Project > Install > Options", "Project > Guide"]


def test_an_rst_title_with_its_overline_is_never_a_chunk_of_its_own_and_lines_are_the_files() -> None:
    chunks = chunk_note(PAGE, formats.RST).chunks
    lines = PAGE.split("\n")
    for c in chunks:
        assert c.text == "\n".join(lines[c.start_line - 1:c.end_line])
    first = chunks[0]
    assert first.heading == "Project" and "Intro text" in first.text
    assert lines[first.start_line - 1] == ".. _top:"  # the target opens the section it names


def test_code_blocks_stay_whole_and_literal_blocks_are_verbatim() -> None:
    blocks = parse_rst(split_lines(PAGE)).blocks
    lines = split_lines(PAGE)
    spans = ["\n".join(lines[a:b]) for a, b in blocks.verbatim]
    assert any("pip install thing" in s and "thing --version" in s for s in spans)
    assert any("x = 1" in s and "y = 2" in s for s in spans)


def test_a_tabbed_code_block_is_code() -> None:
    page = ("Config\n======\n\n.. tabs::\n\n    .. code-tab:: toml\n        :caption: pyproject.toml\n\n"
            "        [tool.x.run]\n        branch = true\n\n        # a comment\n        y = 2\n\nAfter.\n")
    lines = split_lines(page)
    spans = ["\n".join(lines[a:b]) for a, b in parse_rst(lines).blocks.verbatim]
    assert any("[tool.x.run]" in s and "y = 2" in s for s in spans)
    assert not any("After." in s for s in spans)


def test_toctree_comments_substitutions_and_field_lists_are_markup_not_prose() -> None:
    lines = split_lines(PAGE)
    inert = {lines[i].strip() for i in parse_rst(lines).blocks.inert}
    assert {":orphan:", ":tocdepth: 2", ".. toctree::", "install", ".. |logo| image:: logo.png",
            ".. this is a comment", "spanning two lines"} <= inert
    assert "Admonitions are text." not in inert and ".. note::" not in inert
    # A section holding nothing but a toctree makes no chunk.
    nav = "Index\n=====\n\n.. toctree::\n\n   a\n   b\n\nUsage\n=====\n\nWords.\n"
    assert trails(nav) == ["Usage"]


def test_a_long_code_block_is_not_split_at_its_blank_lines() -> None:
    body = "\n\n".join(f"   step_{i} = compute({i})" for i in range(60))
    text = f"Title\n=====\n\nIntro.\n\n.. code-block:: python\n\n{body}\n\nAfter.\n"
    chunks = chunk_note(text, formats.RST).chunks
    holding = [c for c in chunks if "step_0 " in c.text]
    assert holding and all(len(c.text.encode()) <= HARD_CHUNK_BYTES for c in chunks)
    # Split only where the hard cap forced it, never at a blank line below the soft size.
    assert "step_30" in holding[0].text or len(holding[0].text.encode()) > 2000


def test_inline_markup_in_titles_is_what_a_reader_sees() -> None:
    assert clean_rst_title("The ``--fast`` flag") == "The --fast flag"
    assert clean_rst_title(":func:`~pkg.mod.run` and :ref:`Setup <setup>`") == "run and Setup"
    assert clean_rst_title("`Jinja <https://jinja.pocoo.org>`_ **templates**") == "Jinja templates"


def test_the_embedded_view_keeps_names_and_drops_rst_markup() -> None:
    view = embed_body("See :func:`~pkg.mod.run` and :ref:`the guide <guide>`.\n\n.. versionadded:: 2.1\n\n"
                      ".. code-block:: python\n   :caption: demo\n\n   run()\n")
    assert "`pkg.mod.run`" in view and "the guide" in view and "New in version 2.1" in view
    assert ":func:" not in view and "code-block" not in view and ":caption:" not in view and "run()" in view
    # Sphinx 7.3's hyphenated spelling reads the same.
    assert "Changed in version 7.1" in embed_body(".. version-changed:: 7.1\n\n   Now faster.\n")


def test_autodoc_directives_are_reported_with_the_module_in_effect_and_their_section() -> None:
    text = ("API\n===\n\n.. module:: pkg\n\nCore\n----\n\n.. autoclass:: Engine\n   :members:\n\n"
            ".. autofunction:: pkg.helpers.run(x)\n")
    note = chunk_note(text, formats.RST)
    refs = [(r.directive, r.target, r.module, "members" in r.options) for r in note.autodoc]
    assert refs == [("autoclass", "Engine", "pkg", True), ("autofunction", "pkg.helpers.run(x)", "pkg", False)]
    assert note.autodoc_trails == ("API > Core", "API > Core")


def test_each_chunk_of_a_long_member_docstring_says_whose_it_is_and_read_doc_says_it_once() -> None:
    page = "API\n===\n\n.. module:: pkg\n\nCore\n----\n\n.. autoclass:: Engine\n   :members:\n"
    long_doc = "\n\n".join(f"Paragraph {n} of the warm-up, about the gauges and the dials." * 8 for n in range(12))
    source = f'class Engine:\n    """An engine."""\n\n    def warm_up(self):\n        """{long_doc}"""\n'
    find = {"pkg": ("src/pkg/__init__.py", source)}.get
    chunks = [c for c in autodoc_chunks(chunk_note(page, formats.RST), find) if c.heading.endswith("warm_up")]
    note = "(docstring of pkg.Engine.warm_up, a member of pkg.Engine: src/pkg/__init__.py, line 4)"
    assert len(chunks) > 1 and all(c.text.endswith(note) for c in chunks)
    shown = docstring_excerpt(page, formats.RST, "pkg.Engine.warm_up", find, 1 << 20)
    assert shown is not None and shown.text.count(note) == 1 and shown.text.endswith(note)
    assert all(f"Paragraph {n} " in shown.text for n in range(12))
    # the class is the directive's own object, not a member
    (cls,) = [c for c in autodoc_chunks(chunk_note(page, formats.RST), find) if c.heading.endswith("pkg.Engine")]
    assert cls.text.endswith("(docstring of pkg.Engine: src/pkg/__init__.py, line 1)")


def test_a_members_list_shows_the_members_it_names_in_its_order_as_the_pages_own() -> None:
    page = ("API\n===\n\n.. module:: pkg\n\n.. autoclass:: Engine([options])\n    :members: stop, _tune,\n"
            "              start\n    :noindex:\n\n    .. attribute:: shared\n\n        Shared.\n")
    note = chunk_note(page, formats.RST)
    (ref,) = note.autodoc
    assert ref.members == ("stop", "_tune", "start") and ref.options == {"members", "noindex"}
    assert ref.end == 9  # the list's continuation line is an option line, the attribute after the blank is not
    source = ('class Engine:\n    """An engine."""\n\n    def start(self):\n        """Starts."""\n\n'
              '    def stop(self):\n        """Stops."""\n\n    def _tune(self):\n        """Tunes."""\n\n'
              '    def idle(self):\n        """Idles."""\n')
    find = {"pkg": ("src/pkg/__init__.py", source)}.get
    shown = [(c.heading.rsplit(" > ", 1)[-1], c.text.rsplit("\n", 1)[-1]) for c in autodoc_chunks(note, find)]
    assert [h for h, _ in shown] == ["pkg.Engine", "pkg.Engine.stop", "pkg.Engine._tune", "pkg.Engine.start"]
    assert not any("a member of" in n for _, n in shown)  # the page names each: none is a `:members:` pull-in
    everything = chunk_note(page.replace("stop, _tune,\n              start", ""), formats.RST)
    pulled = [c.text.rsplit("\n", 1)[-1] for c in autodoc_chunks(everything, find)]
    assert len(pulled) == 4 and all("a member of pkg.Engine" in n for n in pulled[1:])  # start, stop, idle


def test_inherited_members_alone_shows_the_members_as_sphinx_does() -> None:
    # marshmallow's Schema page: `.. autoclass:: marshmallow.schema.Schema` with `:inherited-members:` only
    page = "API\n===\n\n.. autoclass:: pkg.Engine\n    :inherited-members:\n"
    modules = {"pkg": ("src/pkg/__init__.py", 'class Base:\n    def stop(self):\n        """Stops."""\n\n'
                       'class Engine(Base):\n    """An engine."""\n\n    def start(self):\n        """Starts."""\n')}
    shown = [c.heading for c in autodoc_chunks(chunk_note(page, formats.RST), modules.get)]
    assert shown == ["API > pkg.Engine", "API > pkg.Engine.start", "API > pkg.Engine.stop"]
    alone = [c.heading for c in autodoc_chunks(chunk_note(page.replace("    :inherited-members:\n", ""),
                                                          formats.RST), modules.get)]
    assert alone == ["API > pkg.Engine"]


def test_a_docstring_the_class_body_assigns_after_a_method_is_that_methods(monkeypatch) -> None:
    # emcee's EnsembleSampler: `get_chain.__doc__ = Backend.get_chain.__doc__`, and a docstring written as a string
    page = "API\n===\n\n.. autoclass:: pkg.Sampler\n    :inherited-members:\n"
    source = ('class Backend:\n    def get_chain(self, thin=1):\n        """Get the stored chain, thinned by thin."""\n\n'
              'class Sampler:\n    """A sampler."""\n\n    def get_chain(self, **kwargs):\n        return 1\n\n'
              '    get_chain.__doc__ = Backend.get_chain.__doc__\n\n    def reset(self):\n        pass\n\n'
              '    reset.__doc__ = """Clear the chain."""\n\n    def hidden(self):\n        pass\n')
    find = {"pkg": ("src/pkg/__init__.py", source)}.get
    shown = autodoc_chunks(chunk_note(page, formats.RST), find)
    assert [c.heading for c in shown] == ["API > pkg.Sampler", "API > pkg.Sampler.get_chain", "API > pkg.Sampler.reset"]
    assert "thinned by thin" in shown[1].text and "Clear the chain." in shown[2].text
    monkeypatch.setattr(autodoc, "ASSIGNED_DOCS", False)
    assert [c.heading for c in autodoc_chunks(chunk_note(page, formats.RST), find)] == ["API > pkg.Sampler"]


def test_a_member_directive_in_a_class_body_documents_that_classs_member() -> None:
    # trio's CancelScope: `.. autoattribute:: shield` in `.. autoclass:: trio.CancelScope`'s body is the class's
    # property, whose docstring is its getter's (the setter after it has none); a member directive outside any class
    # body, or one that names its class itself, reads as written
    page = (".. currentmodule:: pkg\n\nAPI\n===\n\n.. autoclass:: pkg.Scope\n\n   .. autoattribute:: shield\n\n"
            "   .. automethod:: cancel(reason=None)\n\n   .. automethod:: Scope.close\n\n"
            ".. autofunction:: helper\n\n.. automethod:: cancel\n")
    source = ('class Scope:\n    """A scope."""\n\n    @property\n    def shield(self):\n        """Read-write: shielded."""\n\n'
              '    @shield.setter\n    def shield(self, value):\n        pass\n\n'
              '    def cancel(self, reason=None):\n        """Cancels."""\n\n'
              '    def close(self):\n        """Closes."""\n\n'
              'def helper():\n    """Helps."""\n')
    shown = autodoc_chunks(chunk_note(page, formats.RST), {"pkg": ("src/pkg/__init__.py", source)}.get)
    assert [c.heading for c in shown] == ["API > pkg.Scope", "API > pkg.Scope.shield", "API > pkg.Scope.cancel",
                                          "API > pkg.Scope.close", "API > pkg.helper"]
    assert "Read-write: shielded." in shown[1].text and "Cancels." in shown[2].text


def test_an_object_description_in_an_autoclass_body_is_a_subsection_of_the_classs_entry(monkeypatch) -> None:
    # trio's `.. attribute:: cancelled_caught`, written by hand in `.. autoclass:: CancelScope`'s body: Sphinx's table
    # of contents nests it under the class, as a `.. class::` body's descriptions already were here
    page = ("Cancellation\n============\n\n.. currentmodule:: trio\n\n.. autoclass:: CancelScope\n\n"
            "   .. autoattribute:: deadline\n\n   .. attribute:: cancelled_caught\n\n      True if it caught one.\n\n"
            "   .. method:: cancel()\n\n      Cancels this scope.\n\n   More about the scope.\n\n"
            "After the class.\n\n.. autoclass:: trio.Nursery\n\n   .. attribute:: child_tasks\n\n      The children.\n")
    assert trails(page) == ["Cancellation", "Cancellation > trio.CancelScope > cancelled_caught",
                            "Cancellation > trio.CancelScope > cancel", "Cancellation > trio.CancelScope",
                            "Cancellation", "Cancellation > trio.Nursery > child_tasks"]
    source = 'class CancelScope:\n    """A scope."""\n\nclass Nursery:\n    """A nursery."""\n'
    shown = autodoc_chunks(chunk_note(page, formats.RST), {"trio": ("src/trio/__init__.py", source)}.get)
    assert [c.heading for c in shown][:1] == ["Cancellation > trio.CancelScope"]  # the entry the members nest under
    assert excerpt(page, heading="cancelled_caught", kind=formats.RST).text.rstrip().endswith("True if it caught one.")
    monkeypatch.setattr(rstblocks, "AUTOCLASS_ENTRIES_NESTED", False)
    assert "Cancellation > cancelled_caught" in trails(page)


def test_an_object_description_in_a_docstring_is_a_subsection_of_the_objects_entry(monkeypatch) -> None:
    # trio's MockClock documents `autojump_threshold` only by an `.. attribute::` in its docstring, which Sphinx nests
    # under the class's entry; a title in a docstring (NumPy style) is no section and ends the descriptions
    page = "Time\n====\n\n.. autoclass:: trio.testing.MockClock\n"
    source = ('class MockClock:\n    """A clock for tests.\n\n    .. attribute:: autojump_threshold\n\n'
              '       The clock keeps an eye on the run loop.\n\n    Parameters\n    ----------\n    rate : float\n'
              '        The rate.\n    """\n')
    find = {"trio.testing": ("src/trio/testing/__init__.py", source)}.get
    shown = autodoc_chunks(chunk_note(page, formats.RST), find)
    assert [c.heading for c in shown] == ["Time > trio.testing.MockClock",
                                          "Time > trio.testing.MockClock > autojump_threshold",
                                          "Time > trio.testing.MockClock"]
    assert "keeps an eye" in shown[1].text and "The rate." in shown[2].text
    found = docstring_excerpt(page, formats.RST, "autojump_threshold", find, 10_000)  # read_doc finds the entry
    assert found is not None and found.heading == "Time > trio.testing.MockClock > autojump_threshold"
    assert "keeps an eye" in found.text and "The rate." not in found.text
    assert all(c.text.endswith("(docstring of trio.testing.MockClock: src/trio/testing/__init__.py, line 1)")
               for c in shown)
    monkeypatch.setattr(docstringrst, "DOCSTRING_ENTRIES", False)
    assert [c.heading for c in autodoc_chunks(chunk_note(page, formats.RST), find)] == ["Time > trio.testing.MockClock"]


def test_a_module_docstring_titles_its_page_and_shows_the_directives_it_holds(monkeypatch) -> None:
    # werkzeug's middleware pages hold only `.. automodule::`; the module's docstring opens with its title and ends
    # with `.. autoclass:: DispatcherMiddleware`, which Sphinx reads in that module
    page = ".. automodule:: pkg.dispatcher\n"
    source = ('"""\nApplication Dispatcher\n======================\n\nDispatches to mounted apps.\n\n'
              '.. autoclass:: DispatcherMiddleware\n"""\n\nclass DispatcherMiddleware:\n    """Combine apps."""\n')
    find = {"pkg.dispatcher": ("src/pkg/dispatcher.py", source)}.get
    shown = autodoc_chunks(chunk_note(page, formats.RST), find)
    assert [c.heading for c in shown] == ["Application Dispatcher",
                                          "Application Dispatcher > pkg.dispatcher.DispatcherMiddleware"]
    assert "Dispatches to mounted apps." in shown[0].text and "Combine apps." in shown[1].text
    monkeypatch.setattr(docstringrst, "MODULE_TITLES", False)
    monkeypatch.setattr(autodocpage, "INNER_DIRECTIVES", False)
    assert [c.heading for c in autodoc_chunks(chunk_note(page, formats.RST), find)] == ["pkg.dispatcher"]


def test_an_overloaded_member_shows_its_definitions_docstring_and_an_override_its_bases() -> None:
    # werkzeug's `Request.get_json`: two `@overload` stubs, then the definition with the docstring
    page = "API\n===\n\n.. autoclass:: pkg.Request\n   :members:\n   :inherited-members:\n"
    source = ('from typing import overload\n\nclass Base:\n    def close(self):\n        """Closes it."""\n\n'
              'class Request(Base):\n    """A request."""\n\n    @overload\n    def get_json(self, silent: bool): ...\n'
              '    @overload\n    def get_json(self): ...\n    def get_json(self, silent=False):\n'
              '        """Parse the body as JSON."""\n\n    def close(self):\n        pass\n')
    shown = autodoc_chunks(chunk_note(page, formats.RST), {"pkg": ("src/pkg/__init__.py", source)}.get)
    assert [c.heading for c in shown] == ["API > pkg.Request", "API > pkg.Request.get_json", "API > pkg.Request.close"]
    assert "Parse the body as JSON." in shown[1].text and "Closes it." in shown[2].text


def test_excluded_members_are_left_out_with_their_own_members(monkeypatch) -> None:
    page = ("API\n===\n\n.. autoclass:: pkg.Response\n   :members:\n   :exclude-members: close, Raw\n\n"
            ".. automodule:: pkg\n   :members:\n   :exclude-members: Response\n")
    source = ('"""The package."""\n\nclass Response:\n    """A response."""\n\n    def close(self):\n        """Closes."""\n\n'
              '    def json(self):\n        """Decodes."""\n\n    class Raw:\n        """Raw bytes."""\n\n'
              '        def read(self):\n            """Reads."""\n\ndef get(url):\n    """Sends a GET."""\n')
    find = {"pkg": ("src/pkg/__init__.py", source)}.get
    shown = [c.heading for c in autodoc_chunks(chunk_note(page, formats.RST), find)]
    assert shown == ["API > pkg.Response", "API > pkg.Response.json", "API > pkg", "API > pkg.get"]
    monkeypatch.setattr(autodoc, "EXCLUDED_MEMBERS", False)
    assert "API > pkg.Response.close" in [c.heading for c in autodoc_chunks(chunk_note(page, formats.RST), find)]


def test_names_bound_in_if_and_try_blocks_are_found_as_they_run() -> None:
    # trio's `run_process`: typed stubs under `if TYPE_CHECKING:`, the object that runs bound in its `else:`; and an
    # optional speed-up imported in a `try:`, its fallback in the `except` branch
    page = "API\n===\n\n.. autofunction:: pkg.run_process\n\n.. autofunction:: pkg.escape\n"
    modules = {
        "pkg": ("src/pkg/__init__.py", "try:\n    from ._speedups import escape\nexcept ImportError:\n"
                "    from ._native import escape\n\nfrom ._sub import run_process\n"),
        "pkg._native": ("src/pkg/_native.py", 'def escape(s):\n    """Escapes, natively."""\n'),
        "pkg._sub": ("src/pkg/_sub.py", 'from typing import TYPE_CHECKING\n\nasync def _run_process(cmd, deliver_cancel=None):\n'
                     '    """Runs a process; deliver_cancel kills it."""\n\nif TYPE_CHECKING:\n'
                     '    async def run_process(cmd):\n        """A typed stub."""\nelse:\n'
                     '    run_process = _run_process\n'),
    }
    shown = autodoc_chunks(chunk_note(page, formats.RST), modules.get)
    assert [c.heading for c in shown] == ["API > pkg.run_process", "API > pkg.escape"]
    assert "deliver_cancel kills it" in shown[0].text and "Escapes, natively." in shown[1].text


def test_a_class_s_members_written_in_its_if_blocks_are_shown_the_documented_definition_first() -> None:
    # alembic's `Operations`: the methods it registers at import time are written, documented, under
    # `if TYPE_CHECKING:` in the class body; a name defined in both branches is shown once, by its docstring
    page = "Ops\n===\n\n.. autoclass:: pkg.Operations\n    :members:\n"
    source = ('from typing import TYPE_CHECKING\n\nclass Operations:\n    """Migration operations."""\n\n'
              '    if TYPE_CHECKING:\n        def bulk_insert(self, table, rows):\n'
              '            """Issue a zephyrine INSERT of many rows."""\n\n'
              '        def get_bind(self):\n            ...\n    else:\n'
              '        def get_bind(self):\n            """The current connection."""\n\n'
              '    def invoke(self, operation):\n        """Run an operation."""\n')
    shown = autodoc_chunks(chunk_note(page, formats.RST), {"pkg": ("pkg/__init__.py", source)}.get)
    assert [c.heading for c in shown] == ["Ops > pkg.Operations", "Ops > pkg.Operations.bulk_insert",
                                          "Ops > pkg.Operations.get_bind", "Ops > pkg.Operations.invoke"]
    assert "zephyrine" in shown[1].text and "The current connection." in shown[2].text


def test_a_name_a_package_re_exports_with_a_star_import_is_found() -> None:
    page = "API\n===\n\n.. autoclass:: pkg.Engine\n\n.. autofunction:: pkg.start\n\n.. autofunction:: pkg._tune\n"
    modules = {
        "pkg": ("src/pkg/__init__.py", "from ._util import *\nfrom ._core import *\n"),
        "pkg._core": ("src/pkg/_core.py", '__all__ = ["Engine"]\n\nclass Engine:\n    """The engine."""\n\n'
                      'def start():\n    """Not exported: __all__ leaves it out."""\n'),
        "pkg._util": ("src/pkg/_util.py", 'def start():\n    """Starts."""\n\ndef _tune():\n    """Private."""\n'),
    }
    shown = [c.text.rsplit("\n", 1)[-1] for c in autodoc_chunks(chunk_note(page, formats.RST), modules.get)]
    assert shown == ["(docstring of pkg.Engine: src/pkg/_core.py, line 3)",
                     "(docstring of pkg.start: src/pkg/_util.py, line 1)"]  # a star import brings no private name


def test_modules_that_star_import_each_other_end_the_search_for_a_name_neither_has() -> None:
    page = "API\n===\n\n" + "".join(f".. autofunction:: pkg.missing{n}\n\n" for n in range(3)) + \
        ".. autofunction:: pkg.found\n\n.. autofunction:: pkg.found\n"
    modules = {"pkg": ("pkg/__init__.py", "from .a import *\n"),
               "pkg.a": ("pkg/a.py", "from .b import *\nfrom pkg import *\n"),
               "pkg.b": ("pkg/b.py", 'from .a import *\n\ndef found():\n    """Found."""\n')}
    shown = [c.heading for c in autodoc_chunks(chunk_note(page, formats.RST), modules.get)]
    assert shown == ["API > pkg.found", "API > pkg.found"]  # found twice: a name found once is not struck off


def test_no_chunk_of_a_docstring_is_its_note_alone() -> None:
    page = "API\n===\n\n.. module:: pkg\n\n.. autofunction:: run\n"
    note = "(docstring of pkg.run: pkg/__init__.py, line 1)"
    for n in range(20, 70):  # wherever the docstring's text ends against the chunk size
        doc = "\n\n    ".join(f"Paragraph {i} of the docstring." for i in range(n))
        find = {"pkg": ("pkg/__init__.py", f'def run():\n    """{doc}"""\n')}.get
        chunks = autodoc_chunks(chunk_note(page, formats.RST), find)
        assert all(c.text.endswith(note) and c.text.removesuffix(note).strip() for c in chunks), n
        assert sum("Paragraph" in c.text for c in chunks) == len(chunks), n


def test_autodata_shows_the_docstring_sphinx_reads_for_an_assignment() -> None:
    page = ("API\n===\n\n.. module:: pkg\n\n.. autodata:: NOTHING\n\n.. autodata:: LIMIT\n\n.. autodata:: RETRIES\n\n"
            ".. autodata:: BARE\n")
    source = ('NOTHING = object()\n"""Sentinel for a missing value."""\n\n#: How many at most.\n#: Counted per run.\n'
              'LIMIT: int = 10\n\nRETRIES = 3  #: Tries before giving up.\n\nBARE = 1\n')
    find = {"pkg": ("pkg/__init__.py", source)}.get
    shown = {c.heading.rsplit(" > ", 1)[-1]: c.text for c in autodoc_chunks(chunk_note(page, formats.RST), find)}
    assert set(shown) == {"pkg.NOTHING", "pkg.LIMIT", "pkg.RETRIES"}  # an assignment without a docstring shows none
    assert "Sentinel for a missing value." in shown["pkg.NOTHING"]
    assert "How many at most.\nCounted per run." in shown["pkg.LIMIT"]
    assert "Tries before giving up." in shown["pkg.RETRIES"]


def test_an_object_rebound_after_its_definition_shows_the_definitions_docstring() -> None:
    page = "API\n===\n\n.. autoclass:: pkg.Factory\n\n.. autofunction:: pkg.ib\n\n.. autofunction:: pkg.s\n"
    source = ('from ._make import attrs\n\nclass Factory:\n    """Makes defaults."""\n\n'
              'Factory = _add_hash(_add_repr(Factory))\n\ndef attrib():\n    """Defines an attribute."""\n\n'
              'ib = attr = attrib\ns = attributes = attrs\n')
    make = 'def attrs(maybe_cls=None):\n    """Decorates a class."""\n'
    find = {"pkg": ("pkg/__init__.py", source), "pkg._make": ("pkg/_make.py", make)}.get
    shown = [c.text.rsplit("\n", 1)[-1] for c in autodoc_chunks(chunk_note(page, formats.RST), find)]
    assert shown == ["(docstring of pkg.Factory: pkg/__init__.py, line 3)",
                     "(docstring of pkg.ib: pkg/__init__.py, line 8)",
                     "(docstring of pkg.s: pkg/_make.py, line 1)"]


def test_read_doc_sections_of_an_rst_page_match_its_chunks() -> None:
    found = {s.trail: (s.start_line, s.end_line) for s in sections(PAGE, formats.RST)}
    assert set(found) == {"Project", "Project > Install", "Project > Install > Options", "Project > Guide"}
    ex = excerpt(PAGE, heading="Options", kind=formats.RST)
    assert ex.heading == "Project > Install > Options" and "--fast" in ex.text and "Guide" not in ex.text


def test_txt_is_rst_only_in_a_sphinx_source_folder() -> None:
    assert formats.kind_of("docs/topics/http.txt", sphinx_source=True) == formats.RST
    assert formats.kind_of("notes/todo.txt") == formats.TEXT
    assert formats.kind_of("guide.adoc") == formats.ASCIIDOC
    assert formats.kind_of("page.qmd") == formats.MARKDOWN  # a suffix the user added is read as Markdown


def test_plain_text_is_chunked_by_paragraphs_under_no_heading() -> None:
    text = "\n\n".join(f"Paragraph {i} " + "word " * 120 for i in range(12))
    chunks = chunk_note(text, formats.TEXT).chunks
    assert len(chunks) > 1 and all(c.heading == "" for c in chunks)
    assert all(c.text.startswith("Paragraph") for c in chunks)  # split between paragraphs


ADOC = """\
= Handbook
:toc: left
// a comment

[[install]]
== Install

Run it.

[source,python]
----
x = 1

== not a title
----

=== Details

More.

////
hidden
////
"""


def test_asciidoc_titles_blocks_and_markup() -> None:
    assert trails(ADOC, formats.ASCIIDOC) == ["Handbook > Install", "Handbook > Install > Details"]
    lines = split_lines(ADOC)
    blocks = formats.structure(formats.ASCIIDOC, lines).blocks
    inert = {lines[i] for i in blocks.inert}
    assert {":toc: left", "// a comment", "hidden"} <= inert
    chunks = chunk_note(ADOC, formats.ASCIIDOC).chunks
    assert lines[chunks[0].start_line - 1] == "[[install]]"  # the anchor opens its section


MAN_PAGE = """\
git-push(1)
===========

NAME
----
git-push - Update remote refs

OPTIONS
-------
`--force-with-lease`::
\tProtect the refs.

Reusing a fix[[rerere]]
~~~~~~~~~~~~~~~~~~~~~~~
A paragraph
goes on
-------
a listing: the line above continues a paragraph, so it opens no title
-------

[source]
--------
an attribute line is never a title
--------

Too long for its mark
----
not a title: the mark is four characters short
----
"""


def test_asciidoc_two_line_titles_are_sections_not_listing_blocks() -> None:
    # Git's manual pages: a title over a line of one mark as long within one, read before delimiters; a title's own
    # anchor is no part of it, as Asciidoctor reads it
    assert trails(MAN_PAGE, formats.ASCIIDOC)[:3] == ["git-push(1) > NAME", "git-push(1) > OPTIONS",
                                                      "git-push(1) > OPTIONS > Reusing a fix"]
    assert set(trails(MAN_PAGE, formats.ASCIIDOC)) == {"git-push(1) > NAME", "git-push(1) > OPTIONS",
                                                       "git-push(1) > OPTIONS > Reusing a fix"}
    lines = split_lines(MAN_PAGE)
    verbatim = formats.structure(formats.ASCIIDOC, lines).blocks.verbatim
    blocks = [lines[start] for start, _ in verbatim]
    # after a paragraph line, after a block's attributes and under a line too long for it, `----` opens a block
    assert [lines[start - 1] for start, _ in verbatim] == ["goes on", "[source]", "Too long for its mark"]
    assert blocks == ["-------", "--------", "----"]


def test_asciidoc_two_line_titles_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adocblocks, "SETEXT_TITLES", False)
    assert set(trails(MAN_PAGE, formats.ASCIIDOC)) == {""}  # one long paragraph stream, as before


@pytest.mark.parametrize("kind", [formats.RST, formats.ASCIIDOC, formats.TEXT])
def test_any_text_is_read_without_raising_and_chunks_point_at_its_own_lines(kind: str) -> None:
    rng = random.Random(34)
    pieces = ["Title", "=====", "-----", "=====", "..", ".. note::", ".. code-block::", "   indented", "::",
              ".. _x:", ":field: v", "", "", "text", "`x <y>`_", ":func:`a`", "== T", "----", "////", "[[a]]",
              "\ufffd", "\t", "   .. toctree::", "+---+---+", "| a | b |", "x" * 4000]
    for _ in range(200):
        text = "\n".join(rng.choice(pieces) for _ in range(rng.randint(0, 60)))
        note = chunk_note(text, kind)
        lines = split_lines(text)
        for c in note.chunks:
            assert 1 <= c.start_line <= c.end_line <= len(lines)


@pytest.mark.skipif(not (BENCH / "score.py").is_file(), reason="benchmark scorer not present")
def test_titles_agree_with_the_benchmark_labeller_on_hostile_and_ordinary_pages() -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import score  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(BENCH))
    samples = [PAGE, "A\n=\n\nB\n-\n\nC\n=\n", "====\nTop\n====\n\nSub\n~~~\n\n  Indented\n  --------\n",
               "Para\nstill para\nTitle\n-----\n", "!!!!\n\n====\n====\n====\n"]
    for text in samples:
        mine = [(h.level, h.text) for h in parse_rst(split_lines(text)).blocks.headings]
        assert mine == [(lvl, t) for _, lvl, t in score.rst_headings(text)], text


def test_a_description_of_what_its_title_names_is_that_sections_text_not_a_subsection() -> None:
    # pytest's reference: a title per object, then the directive describing it. One entry, found once.
    text = ("API\n===\n\npytest.mark.usefixtures\n-----------------------\n\nMark a test.\n\n"
            ".. py:function:: pytest.mark.usefixtures(*names)\n\n    :param args: The names.\n\n"
            "After the description.\n\n"
            "capteesys\n---------\n\n.. py:function:: _pytest.capture.capteesys()\n\n    Tee it.\n\n"
            "Other marks\n-----------\n\n.. py:function:: pytest.mark.skip(reason)\n\n    Skip it.\n\n"
            ".. py:function:: pytest.mark.skip(reason)\n\n    The same name again, under another entry.\n")
    assert [(c.heading, c.text.split("\n")[-1]) for c in chunk_note(text, formats.RST).chunks] == [
        ("API > pytest.mark.usefixtures", "After the description."),
        ("API > capteesys", "    Tee it."),
        ("API > Other marks > pytest.mark.skip", "    Skip it."),
        ("API > Other marks > pytest.mark.skip", "    The same name again, under another entry."),
    ]
    # A class merged into its title keeps its members as entries under that title.
    nested = ("API\n===\n\nEngine\n------\n\n.. py:class:: pkg.Engine(torque)\n\n   An engine.\n\n"
              "   .. py:method:: ignite(fuel)\n\n      Lights it.\n\n   Back in the class.\n")
    assert [(c.heading, c.text.split("\n")[-1]) for c in chunk_note(nested, formats.RST).chunks] == [
        ("API > Engine", "   An engine."),
        ("API > Engine > ignite", "      Lights it."),
        ("API > Engine", "   Back in the class."),
    ]


def test_object_descriptions_are_entries_under_their_section_as_sphinx_lists_them() -> None:
    text = ("Config\n======\n\nGeneral\n-------\n\n.. confval:: html_theme\n   :type: str\n\n   The theme.\n\n"
            ".. option:: -D setting=value, --define setting=value\n\n   Override a setting.\n\n"
            ".. py:class:: Engine(torque)\n\n   An engine.\n\n   .. py:method:: ignite(fuel)\n\n      Lights it.\n\n"
            "Back in the section, after the descriptions.\n\n"
            "Other\n-----\n\nAfter the entries.\n")
    assert [(c.heading, c.text.split("\n")[-1]) for c in chunk_note(text, formats.RST).chunks] == [
        ("Config > General > html_theme", "   The theme."),
        ("Config > General > -D setting=value, --define setting=value", "   Override a setting."),
        ("Config > General > Engine", "   An engine."),
        ("Config > General > Engine > ignite", "      Lights it."),
        ("Config > General", "Back in the section, after the descriptions."),
        ("Config > Other", "After the entries."),
    ]
    # read_doc lists one section a trail: the text after the descriptions is part of "General" again.
    assert [s.trail for s in sections(text, formats.RST)].count("Config > General") == 1
    # read_doc finds an entry by its name.
    assert excerpt(text, heading="html_theme", kind=formats.RST).text.rstrip().endswith("The theme.")


def test_members_are_found_as_sphinx_finds_them_in_a_hand_described_class_its_bases_and_init() -> None:
    # Sphinx's builders page: `.. class:: HTMLBuilder` by hand, `.. autoattribute:: name` in its body; `name` carries
    # no docstring there (the base's `#:` comment documents it), `format` is only inherited, and `priority` is an
    # instance attribute documented by a `#:` comment in `__init__` (scrapy's `Request.priority`)
    page = (".. module:: pkg\n\nBuilders\n========\n\n.. class:: HTMLBuilder\n\n   The HTML builder.\n\n"
            "   .. autoattribute:: name\n\n   .. autoattribute:: format\n\n   .. autoattribute:: priority\n")
    source = ('class Builder:\n    #: The builder\'s name, chosen on the command line.\n    name = ""\n'
              '    #: The output format.\n    format = ""\n\n'
              'class HTMLBuilder(Builder):\n    name = "html"\n\n    def __init__(self, priority=0):\n'
              '        #: How soon the scheduler takes it.\n        self.priority = priority\n')
    shown = autodoc_chunks(chunk_note(page, formats.RST), {"pkg": ("pkg/__init__.py", source)}.get)
    assert [c.heading.rsplit(" > ", 1)[-1] for c in shown] == ["pkg.HTMLBuilder.name", "pkg.HTMLBuilder.format",
                                                               "pkg.HTMLBuilder.priority"]
    assert "chosen on the command line" in shown[0].text and "pkg/__init__.py, line 3" in shown[0].text
    assert "The output format." in shown[1].text and "How soon the scheduler takes it." in shown[2].text


def test_members_show_the_attributes_sphinx_finds_documented_in_the_class_its_init_and_the_module() -> None:
    # requests' `Response.elapsed` (a `#:` comment over `self.elapsed = ...` in `__init__`), werkzeug's
    # `Request.max_content_length` (a `#:` comment over a class attribute); undocumented and private ones stay out
    page = ("API\n===\n\n.. autoclass:: pkg.Response\n   :members:\n   :exclude-members: status\n\n"
            ".. automodule:: pkg.limits\n   :members:\n\n.. autoclass:: pkg.Listed\n   :members: size\n")
    source = ('class Response:\n    """A response."""\n\n    #: The largest body read, in bytes.\n'
              '    max_length: int | None = None\n    encoding = "utf-8"\n    """Decodes the text."""\n'
              '    status = 200  #: The status code.\n    _cache = None  #: Private.\n    undocumented = 1\n\n'
              '    def __init__(self):\n        #: The time between sending and the headers.\n'
              '        self.elapsed = 0\n        self.raw = None\n        #: Not shown: private.\n        self._seen = 0\n\n'
              '    def close(self):\n        """Closes."""\n\n'
              'class Listed:\n    """Listed."""\n\n    #: How many.\n    size = 0\n    #: Not listed.\n    other = 0\n')
    modules = {"pkg": ("src/pkg/__init__.py", source),
               "pkg.limits": ("src/pkg/limits.py", '__all__ = ["LIMIT"]\n\n#: Tries at most.\nLIMIT = 3\n\n'
                              '#: Not exported.\nOTHER = 4\n')}
    shown = autodoc_chunks(chunk_note(page, formats.RST), modules.get)
    trails = [c.heading.rsplit(" > ", 1)[-1] for c in shown]
    assert trails == ["pkg.Response", "pkg.Response.close", "pkg.Response.max_length", "pkg.Response.encoding",
                      "pkg.Response.elapsed", "pkg.limits.LIMIT", "pkg.Listed", "pkg.Listed.size"]
    by_name = {t: c.text for t, c in zip(trails, shown)}
    assert by_name["pkg.Response.elapsed"].startswith("attribute pkg.Response.elapsed")
    assert "The time between sending and the headers." in by_name["pkg.Response.elapsed"]
    assert "a member of pkg.Response: src/pkg/__init__.py, line 14" in by_name["pkg.Response.elapsed"]
    assert "Decodes the text." in by_name["pkg.Response.encoding"] and "Tries at most." in by_name["pkg.limits.LIMIT"]


def test_an_automodules_members_show_the_names_its_all_reexports(monkeypatch) -> None:
    # urllib3's `.. automodule:: urllib3.util` with `:members:`: `Retry` is defined in `urllib3/util/retry.py` and
    # only imported into the package, whose `__all__` lists it; Sphinx shows it under the package's name
    page = "Utilities\n=========\n\n.. automodule:: pkg.util\n   :members:\n"
    package = ('from .retry import Retry\nfrom .other import hidden\n\n__all__ = ("Retry", "helper")\n\n\n'
               'def helper():\n    """Helps."""\n')
    modules = {"pkg.util": ("src/pkg/util/__init__.py", package),
               "pkg.util.retry": ("src/pkg/util/retry.py", 'class Retry:\n    """Retry configuration."""\n\n'
                                  '    #: The methods retried by default.\n    DEFAULT_METHODS = ("GET",)\n\n'
                                  '    def sleep(self):\n        """Sleeps."""\n'),
               "pkg.util.other": ("src/pkg/util/other.py", 'def hidden():\n    """Not in __all__."""\n')}
    shown = autodoc_chunks(chunk_note(page, formats.RST), modules.get)
    trails = [c.heading.rsplit(" > ", 1)[-1] for c in shown]
    assert trails == ["pkg.util.helper", "pkg.util.Retry", "pkg.util.Retry.sleep", "pkg.util.Retry.DEFAULT_METHODS"]
    assert shown[1].text.endswith("(docstring of pkg.util.Retry, a member of pkg.util, re-exported by pkg.util: "
                                  "src/pkg/util/retry.py, line 1)")
    assert "re-exported" not in shown[0].text  # defined in the package itself
    # without `__all__` Sphinx shows only what the module defines; the rule off, the same
    bare = {**modules, "pkg.util": ("src/pkg/util/__init__.py", package.replace('__all__ = ("Retry", "helper")', ""))}
    assert [c.heading.rsplit(" > ", 1)[-1] for c in autodoc_chunks(chunk_note(page, formats.RST), bare.get)] == [
        "pkg.util.helper"]
    monkeypatch.setattr(autodoc, "REEXPORTED_MEMBERS", False)
    assert [c.heading.rsplit(" > ", 1)[-1] for c in autodoc_chunks(chunk_note(page, formats.RST), modules.get)] == [
        "pkg.util.helper"]


def test_members_show_no_attribute_with_the_rule_off(monkeypatch) -> None:
    monkeypatch.setattr(autodoc, "ATTRIBUTE_MEMBERS", False)
    page = "API\n===\n\n.. autoclass:: pkg.Response\n   :members:\n"
    source = 'class Response:\n    """A response."""\n\n    #: The largest body read.\n    max_length = None\n'
    shown = autodoc_chunks(chunk_note(page, formats.RST), {"pkg": ("src/pkg/__init__.py", source)}.get)
    assert [c.heading for c in shown] == ["API > pkg.Response"]


def test_a_myst_pages_autodoc_fences_and_eval_rst_islands_show_their_docstrings() -> None:
    # MyST writes any directive as a fence (```{autoclass} pkg.Engine```) and reStructuredText as an {eval-rst}
    # island (structlog's legacy page); a fence inside another fence is an example of the syntax
    page = ("# API\n\n```{currentmodule} pkg\n```\n\n## Engine\n\n```{autoclass} Engine\n:members: start\n```\n\n"
            "## Helpers\n\n```{eval-rst}\n.. module:: pkg.util\n\n.. autofunction:: tune\n```\n\n"
            "## Syntax\n\n````markdown\n```{autofunction} pkg.hidden\n```\n````\n")
    modules = {"pkg": ("src/pkg/__init__.py", 'class Engine:\n    """An engine."""\n\n    def start(self):\n'
                       '        """Starts."""\n\ndef hidden():\n    """Never shown."""\n'),
               "pkg.util": ("src/pkg/util.py", 'def tune():\n    """Tunes."""\n')}
    shown = autodoc_chunks(chunk_note(page, formats.MARKDOWN), modules.get)
    assert [c.heading for c in shown] == ["API > Engine", "API > Engine > pkg.Engine.start",  # the title names it
                                          "API > Helpers > pkg.util.tune"]
    assert shown[2].start_line == page.split("\n").index(".. autofunction:: tune") + 1


def test_an_instance_of_a_documented_class_shows_the_classs_docstring() -> None:
    # pytest's `fail: _Fail = _Fail()` behind `.. autofunction:: pytest.fail(reason, [pytrace=True])`
    page = "API\n===\n\n.. autofunction:: pkg.fail(reason, [pytrace=True])\n\n.. autodata:: pkg.LIMIT\n"
    source = ('class _Fail:\n    """Fails the test with the given reason."""\n\n'
              '    def __call__(self, reason: str = "", pytrace: bool = True) -> None:\n        raise RuntimeError\n\n'
              'fail: _Fail = _Fail()\nLIMIT = int("3")\n')
    shown = autodoc_chunks(chunk_note(page, formats.RST), {"pkg": ("src/pkg/__init__.py", source)}.get)
    assert [c.heading for c in shown] == ["API > pkg.fail"]  # `int` is no class of the folder: nothing to show
    assert shown[0].text.startswith("pkg.fail(reason: str='', pytrace: bool=True)")
    assert "Fails the test with the given reason." in shown[0].text


def test_undoc_members_shows_the_undocumented_members_by_their_signature_as_sphinx_does(monkeypatch) -> None:
    # urllib3's response page: `.. autoclass:: urllib3.response.HTTPResponse` with `:members:` and `:undoc-members:`;
    # `release_conn` has no docstring and Sphinx still lists it
    source = ('from typing import overload\n\n\nclass Base:\n    def close(self):\n        """Closes the pool."""\n\n\n'
              'class Response(Base):\n    """A response."""\n\n    def release_conn(self):\n        pass\n\n'
              '    def close(self):\n        pass\n\n    @overload\n    def read(self, n: int) -> bytes: ...\n\n'
              '    def read(self, n=None):\n        """Reads."""\n\n    def _private(self):\n        pass\n')
    modules = {"pkg": ("src/pkg/__init__.py", source)}
    page = "API\n===\n\n.. autoclass:: pkg.Response\n   :members:\n   :undoc-members:\n"
    shown = autodoc_chunks(chunk_note(page, formats.RST), modules.get)
    assert [c.heading.rsplit(" > ", 1)[-1] for c in shown] == [
        "pkg.Response", "pkg.Response.release_conn", "pkg.Response.close", "pkg.Response.read"]
    assert shown[1].text == ("pkg.Response.release_conn()\n\n(docstring of pkg.Response.release_conn, a member of "
                             "pkg.Response: src/pkg/__init__.py, line 12)")
    assert "Closes the pool." in shown[2].text  # an override shows the docstring its base class gives it
    assert "Reads." in shown[3].text  # the definition, not the `@overload` stub before it
    # without the option, or with the rule off, only the documented members
    documented = ["pkg.Response", "pkg.Response.read"]
    plain = page.replace("   :undoc-members:\n", "")
    assert [c.heading.rsplit(" > ", 1)[-1] for c in autodoc_chunks(chunk_note(plain, formats.RST), modules.get)] \
        == documented
    monkeypatch.setattr(autodoc, "UNDOC_MEMBERS", False)
    assert [c.heading.rsplit(" > ", 1)[-1] for c in autodoc_chunks(chunk_note(page, formats.RST), modules.get)] \
        == documented
