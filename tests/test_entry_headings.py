"""A lookup's own entry by its heading: a word's plural titles it ("Chords" for `chord`), and the name without the marks
that open it (`subdirectory` for `_subdirectory`); its entry keeps its place above its own subsections, and a module's
docstring on its stub page yields to the docs' own section (issue 38); and a parent ranked below its own subsection
gives its place to other answers."""

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
from scree.search import names as names_module
from scree.search import ranking as ranking_module
from scree.search.names import entry_heading, lookup_titles, title_forms
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names


def _index(root: Path):
    index = open_index(index_location(root, load_config()), root)
    sync(index, NotesPolicy.load(root), FakeEmbedder())
    return index


def _hits(root: Path, index, query: str) -> list[tuple[str, str]]:
    hits = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(query, k=5, mode="keyword")).hits
    return [(h.path, h.heading) for h in hits]


@pytest.mark.parametrize("titles, forms", [
    (["chord"], ["chord", "chords"]),
    (["match", "box", "alias"], ["match", "box", "alias", "matches", "boxes", "aliases"]),
    (["task_acks_late", "AsyncResult", "celery multi"], ["task_acks_late", "AsyncResult", "celery multi"]),
    (["_subdirectory", ".editorconfig", "@validate_call", "$PIPX_HOME"],
     ["_subdirectory", ".editorconfig", "@validate_call", "$PIPX_HOME", "subdirectory", "editorconfig",
      "validate_call", "PIPX_HOME"]),
    (["--pool", "-v"], ["--pool", "-v"]),  # a flag keeps its dashes: "Pool" is another topic
    (["%%", "[[##"], ["%%", "[[##"]),  # nothing but marks: nothing left to title
])
def test_a_word_is_titled_by_its_plural_and_a_name_without_its_opening_marks(titles: list[str],
                                                                             forms: list[str]) -> None:
    assert title_forms(titles) == forms


@pytest.mark.parametrize("trail, lookup, entry", [
    ("Canvas > The Primitives > Chords", "chord", True),
    ("Canvas > The Primitives > Chords > Error handling", "chord", False),  # a detail of the entry
    ("Chords", "chord", False),  # the page's title: its subsections are the page's matter
    ("Settings > `beat_schedule`", "beat_schedule", True),
    ("Settings > beat_schedule_filename", "beat_schedule", False),
])
def test_an_entry_heading_is_the_lookups_own_below_the_page_title(trail: str, lookup: str, entry: bool) -> None:
    assert entry_heading(trail, lookup_titles(lookup, frozenset({"chord"}))) is entry


@pytest.fixture
def canvas(tmp_path: Path):
    """A guide whose section on `chord` is titled "Chords", with a subsection, and a settings page whose entries
    mention chords in passing."""
    root = tmp_path / "canvas"
    write(root, "src/canvas/__init__.py", "class chord:\n    pass\n\n\ndef chord_retry_interval() -> int:\n"
                                          "    return 1\n")
    write(root, "docs/canvas.rst", "Canvas\n======\n\nThe primitives\n--------------\n\nA signature wraps a call.\n\n"
                                   "Chords\n~~~~~~\n\nA chord is a group of header tasks and a body, a callback "
                                   "run once every task of the header has returned; the body gets their results "
                                   "in order, as one list. Its header runs in parallel across the workers, and "
                                   "a chord needs a result backend to count the header's results as they come "
                                   "back from the workers: the chord counter is kept there. A chord of one "
                                   "header task is a chain in effect.\n\n"
                                   "Error handling\n^^^^^^^^^^^^^^\n\nWhen a header task fails the body is not "
                                   "called, and the chord's errback runs instead with the failing task's id, its "
                                   "exception and traceback; the other header tasks run to the end regardless, and "
                                   "their results stay in the backend until they expire.\n")
    write(root, "docs/settings.rst", "Settings\n========\n\nResults\n-------\n\n``result_chord_retry_interval``\n"
                                     "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n\nDefault: 1 second. Retry a chord.\n\n"
                                     "``result_chord_join_timeout``\n~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n\nDefault: 3 "
                                     "seconds. Join a chord.\n")
    index = _index(root)
    yield root, index
    index.close()


def test_a_word_lookup_answers_from_the_section_its_plural_titles(canvas, monkeypatch) -> None:
    root, index = canvas
    assert _hits(root, index, "chord")[0] == ("docs/canvas.rst", "Canvas > The primitives > Chords")
    monkeypatch.setattr(names_module, "PLURAL_TITLES", False)  # the miss: a setting's short mention came first
    assert _hits(root, index, "chord")[0][0] == "docs/settings.rst"


def test_a_lookups_entry_stays_above_its_own_subsection(canvas, monkeypatch) -> None:
    root, index = canvas
    hits = _hits(root, index, "chord")
    entry = ("docs/canvas.rst", "Canvas > The primitives > Chords")
    detail = ("docs/canvas.rst", "Canvas > The primitives > Chords > Error handling")
    assert hits.index(entry) < hits.index(detail)
    monkeypatch.setattr(ranking_module, "OWN_ENTRY_KEPT", False)  # a subsection close behind its parent goes first
    hits = _hits(root, index, "chord")
    assert hits.index(detail) < hits.index(entry)


def test_a_modules_docstring_on_its_stub_page_yields_to_the_guide(tmp_path: Path, monkeypatch) -> None:
    # celery's shape: an internals page titled by the module's path, `automodule` alone, whose docstring names a flag
    root = tmp_path / "turbine"
    write(root, "pyproject.toml", '[project]\nname = "turbine"\nversion = "1.0"\n')
    write(root, "docs/conf.py", "project = 'turbine'\n")
    write(root, "src/turbine/__init__.py", '"""The turbine package."""\n')
    write(root, "src/turbine/autoscale.py", '"""Pool autoscaling.\n\nThe autoscale thread runs only with the '
                                            '``turbine worker --autoscale`` option."""\n\n\nclass Autoscaler:\n'
                                            '    """Grows and shrinks the pool."""\n')
    write(root, "docs/internals/turbine.autoscale.rst", "``turbine.autoscale``\n=====================\n\n"
                                                        ".. automodule:: turbine.autoscale\n   :members:\n")
    write(root, "docs/workers.rst", "Workers\n=======\n\nAutoscaling\n-----------\n\nThe pool can grow and shrink "
                                    "with the load: start the worker with ``--autoscale=10,3`` to keep between three "
                                    "and ten processes, adding one whenever work waits in the queue and taking one "
                                    "away after it has been idle for a while; the bounds may also be changed at run "
                                    "time from the control commands, and the worker logs each change it makes.\n")
    index = _index(root)
    try:
        assert _hits(root, index, "--autoscale")[0] == ("docs/workers.rst", "Workers > Autoscaling")
        monkeypatch.setattr(names_module, "MODULE_STUBS", False)  # the miss: the module's docstring led
        assert _hits(root, index, "--autoscale")[0][0] == "docs/internals/turbine.autoscale.rst"
    finally:
        index.close()


def test_a_key_written_with_its_mark_answers_from_the_entry_titled_without_it(tmp_path: Path, monkeypatch) -> None:
    # copier's shape: settings are `_name` in the template's file, and the reference titles each by its bare name
    root = tmp_path / "stencil"
    write(root, "src/stencil/template.py", "def subdirectory(config: dict) -> str:\n"
                                           "    return config.get('_subdirectory', '')\n")
    write(root, "docs/configuring.md", "# Configuring\n\n## Macros\n\nImport macros from the template root:"
                                       "\n\n```yaml\n_subdirectory: template\n```\n\nWith `_subdirectory` set, a macro in "
                                       "the subdirectory imports from the subdirectory.\n\n## Settings\n\n"
                                       "### `subdirectory`\n\n- Format: `str`\n\nThe folder of the template that "
                                       "is rendered, so the template's own metadata, its tests and its docs stay "
                                       "out of every generated project; the root when unset.\n\n```yaml\n"
                                       "_subdirectory: template\n```\n")
    index = _index(root)
    try:
        entry = ("docs/configuring.md", "Configuring > Settings > `subdirectory`")
        assert _hits(root, index, "_subdirectory")[0] == entry
        monkeypatch.setattr(names_module, "BARE_TITLES", False)  # the miss: the short mention came first
        assert _hits(root, index, "_subdirectory")[0] == ("docs/configuring.md", "Configuring > Macros")
    finally:
        index.close()


def test_a_parent_below_its_own_subsection_gives_its_place_to_other_pages(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "spools"
    write(root, "docs/tool.md", "# Tool\n\nThe spool tool spools jobs.\n\n## Faster variant\n\nThe spool tool spools "
                                "jobs faster: spool batches, one spool per printer.\n")
    write(root, "docs/other.md", "# Other\n\nAnother note on the spool.\n")
    write(root, "docs/third.md", "# Third\n\nA third note, which names the spool once among many other words.\n")
    index = _index(root)
    try:
        pages = [heading for _, heading in _hits(root, index, "spool")]
        assert pages[0] == "Tool > Faster variant" and pages.index("Tool") > pages.index("Other")
        monkeypatch.setattr(ranking_module, "PARENT_DEFER", 0)  # the parent took the second place
        assert [heading for _, heading in _hits(root, index, "spool")][:2] == ["Tool > Faster variant", "Tool"]
    finally:
        index.close()


@pytest.mark.parametrize("trail, lookup, coded", [
    ("Terminating > `Exit` a CLI program", "typer.Exit", True),  # a dotted name's last part
    ("Create the Database > Calling `create_all()`", "create_all", True),  # call parentheses off
    ("Printing > `typer.secho()` - style and print", "typer.secho", True),  # the whole name
    ("Validators > Mapping from `BeforeValidator`, `AfterValidator` and `WrapValidator`", "AfterValidator", False),
    ("Terminating > Exit with an error", "typer.Exit", False),  # the word, not the code
    ("`Exit` a CLI program > Details", "typer.Exit", False),  # a parent's heading, not the section's own
    ("Terminating > `Abort`", "typer.Exit", False),
])
def test_a_heading_holds_the_name_as_its_one_code_span(trail: str, lookup: str, coded: bool) -> None:
    assert ranking_module.heading_codes(trail, ranking_module.code_span_forms(lookup)) is coded


TERMINATING = """\
# Terminating

## Abort

Raise `typer.Abort()` rather than `typer.Exit()` to print "Aborted!"; like `typer.Exit()`, it stops the program.
`typer.Exit()` and `typer.Abort()` both end it at once.

## `Exit` a CLI program

To stop the program early, raise `typer.Exit()` from any function it calls, after printing what the user needs
to know about why it stopped, and with an exit code when that matters.
"""


def test_a_lookup_answers_from_the_section_whose_heading_holds_its_name_as_code(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "typer"
    write(root, "docs/terminating.md", TERMINATING)
    index = _index(root)
    try:
        assert _hits(root, index, "typer.Exit")[0] == ("docs/terminating.md", "Terminating > `Exit` a CLI program")
        monkeypatch.setattr(ranking_module, "CODE_SPAN_HEADINGS", False)  # BM25: the section saying it most first
        assert _hits(root, index, "typer.Exit")[0] == ("docs/terminating.md", "Terminating > Abort")
    finally:
        index.close()
