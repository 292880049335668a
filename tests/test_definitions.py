"""The section that defines a name comes first (issue 38). The shapes of the misses measured on unseen sets:

- mention beats definition: a table row whose first cell is the name, or a list entry opening with it, lost
  to a paragraph that only uses the name;
- a flag the model has never seen: the one section that spells it, first by keyword, ended 7th in hybrid;
- a plain-looking word that is a name (`cssclass`) got no names tier at all;
- a name of punctuation only (`%%`) was refused as "no searchable words";
- a dotted name's entry (`httpx.Proxy` documented under "Developer Interface > `Proxy`") lost to the changelog
  entries that spell the whole name, or was not among the candidates at all.

The predicate directly; the ranking on real indexes (fake embedder: hashed words, which know no flag either).
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest

from conftest import write
from fake_embedder import FakeEmbedder
from scree.config import load_config
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.notes.sectiontext import defines, points_at_entry
from scree.notes import sectiontext
from scree.search import keyword as keyword_module
from scree.search import search as search_module
from scree.search import names as names_module
from scree.db import queries
from scree.search.names import entry_of
from scree.search import route as route_module
from scree.search.route import (asked_name, dotted_names, is_syntax_name, lone_mark, named_identifiers,
                                phrase_names, punctuation_name)
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names


_LIST_TABLE = (".. list-table::\n    :header-rows: 1\n\n    * - Variable\n      - Meaning\n"
               "    * - ``PIPX_HOME``\n      - Root directory for pipx virtual environments.\n"
               "    - - ``PIPX_COMPLETION_DIR``\n      - Directory for shell completion symlinks.\n")


@pytest.mark.parametrize(("text", "name"), [
    ("| `PLATEN_RETRY_S` | `10` | Seconds before a retry |", "platen_retry_s"),
    ("| **retry_s** | how long to wait |", "retry_s"),
    ("* `--why`: When showing the full list, say why a package is there.", "--why"),
    ("- **timeout** - seconds to wait", "timeout"),
    ("- `paneType` (optional) where the note opens.", "panetype"),
    ("`SIGIL_HOME`: where the data lives.", "sigil_home"),
    ("- `-n N`, `--limit N` — print at most N results.", "--limit"),  # an alias and an argument
    ("- **`--color=WHEN`**: when to colour the output.", "--color"),
    ("retry_s\n: how long to wait before retrying", "retry_s"),
    ("retry_s\n    How long to wait before retrying.", "retry_s"),
    # a reStructuredText title underlined with tildes opens no fence: the table under it is read
    ("For\n~~~\n\nSpecial variables:\n\n+--------------+------+\n| `loop.index` | The iteration |\n", "loop.index"),
    # a docstring's parameter entries: reStructuredText fields, a Google-style argument with its type
    ("Create an environment.\n\n:param enable_async: Use async rendering.\n:return: the environment", "enable_async"),
    (":keyword str name: The name shown in help.", "name"),
    (":ivar meta: Values shared by every context.", "meta"),
    # a directive whose options name the keys it describes (tox's `.. conf::`)
    (".. conf::\n    :keys: allowlist_externals\n    :default: <empty list>\n\n    Commands allowed.", "allowlist_externals"),
    (".. conf::\n    :keys: basepython, base_python\n\n    Name or path to a Python interpreter.", "base_python"),
    ("Args:\n    weakref_slot (bool):\n        Make instances weak-referenceable.", "weakref_slot"),
    # reStructuredText's inline literals are double backticks: a list item's term, a definition list's
    ("* ``use_uvloop`` (``bool``, default=False): Use the faster uvloop event loop.", "use_uvloop"),
    ("``~`` (tilde)\n    Converts all operands into strings and concatenates them.", "~"),
    ("- **``--fast``**: skip the checks.", "--fast"),
    # a list item's term marked by a role, MyST's or Sphinx's; a `~` shows the last part of the path
    ("The key pieces are:\n  - {class}`CliRunner` - used to invoke commands.", "clirunner"),
    ("* :py:class:`~click.testing.Result` -- what an invocation returns.", "result"),
    # a reference written in paragraphs, each opening with its name
    ("`SIGIL_OFFLINE` set to `1` works offline.\n\n`SIGIL_THEME` overrides the theme.\n\n"
     "`SIGIL_PAGER` is the pager.", "sigil_offline"),
    # a reStructuredText list-table's row: its first cell, the row's other cells one level in
    (_LIST_TABLE, "pipx_home"), (_LIST_TABLE, "pipx_completion_dir"),
    # entries written one per line, each ending its sentence
    ("Options:\n`--fast` (flag): skip the checks.\n`--slow` (flag): run them all.", "--slow"),
    # a definition-list term with its classifiers, as every NumPy-style parameter is written
    ("Parameters\n----------\nenqueue : |bool|, optional\n    Whether messages pass through a queue.", "enqueue"),
    ("x, colorize : bool\n    Whether to colour the output.", "colorize"),
    # an AsciiDoc description list: the term bare before `::` (or `;;`), its description after it or under it
    ("nobreak:: The `nobreak` role prevents words from being broken.", "nobreak"),
    ("text-justify;; Aligns the text to the left margin.", "text-justify"),
    ("default-for-print::\nA variation of the `default` theme for print.", "default-for-print"),
    # the separator inside the markup (mdBook's references)
    ("- **site-url:** The url where the book will be hosted.", "site-url"),
    # no separator, but a sentence of its own after the term (Textual's pseudo classes)
    ("- `:focus` Matches widgets which have input focus.\n- `:focus-within` Matches widgets with a focused child.",
     ":focus-within"),
])
def test_an_entry_that_defines_the_name_is_a_definition(text: str, name: str) -> None:
    assert defines(text, [name])


@pytest.mark.parametrize(("text", "name"), [
    ("* [`model_construct()`][pydantic.main.BaseModel.model_construct]: Creates models without validation.",
     "model_construct"),  # a reference link (mkdocs' autorefs)
    ("- [`--reload`](#reload), [`--reload-dir`](#reload-dir): restart on changes.", "--reload-dir"),
    ("- [**retry_s**](config.md#retry) - how long to wait", "retry_s"),
])
def test_an_item_whose_term_is_a_link_points_at_the_entry_and_defines_nothing_itself(text: str, name: str) -> None:
    assert points_at_entry(text, [name])
    assert not defines(text, [name])


@pytest.mark.parametrize(("text", "name"), [
    ("Set `PLATEN_RETRY_S` to 20 when the printers are slow.", "platen_retry_s"),
    ("| 10 | `PLATEN_RETRY_S` |", "platen_retry_s"),  # not the first cell: a value, not the entry
    ("- `--why` now works with `--tree` (#4521).", "--why"),  # a changelog bullet: no separator after the name
    ("- `session.run` runs the command.", "session.run"),  # a sentence going on from the name
    ("`:focus-within` Matches widgets with a focused child.", ":focus-within"),  # a paragraph, not a list item
    ("- `--why` I, too, wanted this.", "--why"),  # one capital letter is no word of a sentence
    ("- `x-success` (optional) see [[#Callbacks]].", "x-success"),  # an entry that points elsewhere
    ("```\n| `PLATEN_RETRY_S` | 10 |\n```", "platen_retry_s"),  # inside code
    ("Settings:\n~~~\n| `PLATEN_RETRY_S` | 10 |\n~~~", "platen_retry_s"),  # a fence right after a paragraph line
    ("PLATEN_RETRY_S: 10", "platen_retry_s"),  # a bare `key: value` line is configuration, not an entry
    ("| `PLATEN_RETRY_S_MAX` | 60 |", "platen_retry_s"),  # another, longer name
    ("`SIGIL_OFFLINE` set to `1` works offline.", "sigil_offline"),  # a paragraph, as guides open them too
    # a guide's paragraphs: one opens with the name, most open in prose
    ("`SIGIL_OFFLINE` set to `1` works offline.\n\nThen run the sync.\n\n`sigil sync` talks to the relay.\n\n"
     "It retries twice.\n\nThe relay logs it.", "sigil_offline"),
    (":param other: Unlike enable_async, this is sync.", "enable_async"),  # another parameter's field
    (":returns: enable_async as set", "enable_async"),  # a field that is not a parameter's
    (":keys: allowlist_externals_extra", "allowlist_externals"),  # another key
    # an item that only sets a value (a profile's settings) sets the name, it does not explain it
    (" - **force_sort_within_sections**: `True`", "force_sort_within_sections"),
    ("- `line_length`: `88`", "line_length"), ("* `color`: false", "color"),
    ("**Default:** `force_sort_within_sections` is off", "force_sort_within_sections"),  # a label's value in prose
    (":default: allowlist_externals", "allowlist_externals"),  # a field naming a value, not a key
    ("weakref_slot (see below) makes instances weak-referenceable.", "weakref_slot"),  # prose with a remark
    ("* ``use_uvloop=True`` needs uvloop installed.", "use_uvloop"),  # an example value, no separator
    # a parenthesis glued to the next word is part of it, not an annotation such as "(optional)" (structlog's guide)
    ("- {func}`~structlog.make_filtering_bound_logger()` (re-)uses logging's levels.", "make_filtering_bound_logger"),
    # a line of prose wrapped at a role, and a role that links to the entry elsewhere
    ("Portals have a method like\n:meth:`TaskGroup.start() <.abc.TaskGroup.start>`:\n", "taskgroup.start"),
    ("* :ref:`usefixtures <usefixtures>` - use fixtures on a test function", "usefixtures"),
    ("* {doc}`CliRunner <testing>` - the testing page", "clirunner"),
    # a table of contents links each name and says nothing; a linked term that is part of a sentence
    ("- [`--reload`](#reload)\n- [`--workers`](#workers)", "--reload"),
    ("* [`model_construct()`][BaseModel.model_construct] skips validation: see below.", "model_construct"),
    ("- [`--reload`](#reload", "--reload"),  # an unclosed link is text
    ("See [`--reload`](#reload): it restarts.", "--reload"),  # a sentence, not a list item
    (_LIST_TABLE, "root directory for pipx virtual environments."),  # a row's second cell
    ("- - ``PIPX_HOME``", "pipx_home"),  # a nested list with nothing after: no row of a table
    ("Example::\n\n    nobreak = 1", "example"),
    ("enqueue : |bool|, optional\n    Whether messages pass through a queue.", "optional"),  # a classifier
    ("Set enqueue : True here\nand go on.", "enqueue"),  # a line of prose, nothing indented under it  # a reStructuredText paragraph introducing a literal block
    ("Use std::vector for it.", "std"), ("Set the nobreak:: role here.", "nobreak"),  # colons within a sentence
    ("- **site-url:**", "site-url"),  # a label with nothing after it
    ("- **site-url:** `/`", "site-url"),  # only a value
    # a sentence wrapped so that the name opens a line
    ("pipx links each script under\n``PIPX_COMPLETION_DIR`` (default ``~/.local/share``):", "pipx_completion_dir"),
    # a reStructuredText substitution opening a wrapped line is no table row (dramatiq's guide)
    ("schedule messages by calling\n|send_with_options| on actors and providing a ``delay``", "send_with_options"),
])
def test_a_mention_is_no_definition(text: str, name: str) -> None:
    assert not defines(text, [name])
    assert not points_at_entry(text, [name])


def test_without_the_rule_a_term_followed_by_a_sentence_defined_nothing(monkeypatch) -> None:
    monkeypatch.setattr(sectiontext, "CAPITAL_AFTER_TERM", False)
    assert not defines("- `:focus-within` Matches widgets with a focused child.", [":focus-within"])


def test_without_the_rule_a_classified_term_defined_nothing(monkeypatch) -> None:
    monkeypatch.setattr(sectiontext, "CLASSIFIED_TERMS", False)
    assert not defines("enqueue : |bool|, optional\n    Whether messages pass through a queue.", ["enqueue"])


def test_without_the_rules_a_list_table_row_defined_nothing_and_a_wrapped_line_did(monkeypatch) -> None:
    """The two misses the rules fix: pipx's table of environment variables, and its guide's wrapped sentence."""
    monkeypatch.setattr(sectiontext, "LIST_TABLE_ROWS", False)
    assert not defines(_LIST_TABLE, ["pipx_home"])
    monkeypatch.setattr(sectiontext, "WRAPPED_NO_ENTRY", False)
    assert defines("pipx links each script under\n``PIPX_COMPLETION_DIR`` (default ``~/.local/share``):",
                   ["pipx_completion_dir"])


_SPANNED = ("+--------------+------+---------------------+\n|**Timezone**  |ZZZ   |Asia/Baku, GMT ...   |\n"
            "+              +------+---------------------+\n|              |ZZ    |-07:00, -06:00 ...   |\n"
            "+--------------+------+---------------------+")


def test_a_grid_rows_term_is_its_first_filled_cell_when_a_category_spans_the_cells_before_it(monkeypatch) -> None:
    """arrow's token table: "Timezone" written once over `ZZZ` and `ZZ`, the rows below the first defining their
    tokens."""
    assert defines(_SPANNED, ["zz"])
    assert defines(_SPANNED, ["timezone"])  # the first row's first cell is the category's (left as it was)
    assert not defines(_SPANNED, ["-07:00"])  # a value, not the row's term
    assert not defines("| | | `ZZ` |", ["zz"])  # the last cell, nothing after it
    monkeypatch.setattr(sectiontext, "SPANNED_CELLS", False)  # the miss: the first cell was empty
    assert not defines(_SPANNED, ["zz"])


def test_without_the_rule_a_substitution_opening_a_wrapped_line_was_a_table_row(monkeypatch) -> None:
    text = "schedule messages by calling\n|send_with_options| on actors and providing a ``delay``"
    monkeypatch.setattr(sectiontext, "SUBSTITUTIONS_NO_ROW", False)
    assert defines(text, ["send_with_options"])
    # a table's row after its delimiter still defines its first cell
    monkeypatch.setattr(sectiontext, "SUBSTITUTIONS_NO_ROW", True)
    assert defines("| Name | Meaning |\n|---|---|\n| send_with_options | sends it later |", ["send_with_options"])


@pytest.mark.parametrize(("query", "token"), [("%%", "%%"), ("`[[##`", "[[##"), (" ?? ", "??"), ("==", "==")])
def test_one_token_of_punctuation_is_a_name(query: str, token: str) -> None:
    assert punctuation_name(query) == token


@pytest.mark.parametrize("query", ["?", ".", "?! ~~~", "%%comment%%", "a--b", ""])
def test_a_lone_mark_or_several_tokens_are_no_punctuation_name(query: str) -> None:
    assert punctuation_name(query) == ""


def _index(root: Path):
    index = open_index(index_location(root, load_config()), root)
    sync(index, NotesPolicy.load(root), FakeEmbedder())
    return index


def _first(root: Path, index, query: str, mode: str = "auto") -> tuple[str, str]:
    hits = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(query, k=5, mode=mode)).hits
    assert hits, (query, mode)
    return hits[0].path, hits[0].heading


@pytest.fixture
def ops(tmp_path: Path):
    """A runbook that mentions settings in passing, and the reference whose table defines them."""
    root = tmp_path / "ops"
    write(root, "runbooks/jam.md", "# Printer jam\n\n## Are jobs stuck?\n\nJobs aimed at a station move on after "
                                   "10 s (`PLATEN_STATION_FALLBACK_AFTER_S`), so a jam at one station is not "
                                   "an outage. Check the station first.\n")
    write(root, "docs/configuration.md", "# Configuration\n\n## Router\n\n| Variable | Default | Meaning |\n"
                                         "|---|---|---|\n| `PLATEN_STATION_FALLBACK_AFTER_S` | `10` | Primary "
                                         "unavailable this long, use the fallback |\n| `PLATEN_LEASE_S` | `30` | "
                                         "Lease length |\n| `PLATEN_SITES` | `all` | Sites served |\n")
    write(root, "docs/cli.md", "# Commands\n\n## show\n\nShows the installed packages, as a list or a tree.\n\n"
                               "### Options\n\n* `--tree`: list the dependencies as a tree.\n* `--why`: say "
                               "whether a package is a direct dependency or required by others.\n")
    for n in range(8):  # pages whose words the question shares: what hashed words (or a model) ranks first
        write(root, f"docs/page{n}.md", f"# Display page {n}\n\nWhat does the display show? The poetry display "
                                        f"shows page {n}, and what it does is display.\n")
    index = _index(root)
    yield root, index
    index.close()


def test_a_lookup_puts_the_table_row_that_defines_the_name_above_a_mention(ops) -> None:
    root, index = ops
    for mode in ("auto", "keyword"):
        assert _first(root, index, "PLATEN_STATION_FALLBACK_AFTER_S", mode) == (
            "docs/configuration.md", "Configuration > Router"), mode


def test_without_the_rule_the_mention_came_first(ops, monkeypatch) -> None:
    """The fixture holds the miss: the rule is what moves the definition up."""
    root, index = ops
    monkeypatch.setattr(search_module.ranking, "DEFINED_FIRST", False)
    assert _first(root, index, "PLATEN_STATION_FALLBACK_AFTER_S")[0] == "runbooks/jam.md"


def test_a_question_naming_a_rare_flag_answers_from_the_section_that_spells_it(ops, monkeypatch) -> None:
    root, index = ops
    question = "What does poetry show --why display?"
    for mode in ("auto", "hybrid"):
        assert _first(root, index, question, mode) == ("docs/cli.md", "Commands > show > Options"), mode
    monkeypatch.setattr(search_module, "RARE_NAME_SECTIONS", 0)  # the miss: the vectors' neighbours outvote it
    assert _first(root, index, question, "hybrid")[0] != "docs/cli.md"


def test_a_name_many_sections_spell_is_not_moved_ahead_in_hybrid(tmp_path: Path) -> None:
    """Only a rare name leads: one that most notes spell is context, and the fused order stands."""
    root = tmp_path / "many"
    for n in range(4):
        write(root, f"n{n}.md", f"# Note {n}\n\nThe `--verbose` flag prints more about step {n}.\n")
    write(root, "answer.md", "# Logging levels\n\nHow to make the output quieter or louder: logging levels.\n")
    index = _index(root)
    try:
        hits = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(),
                                 Query("how do logging levels make output louder with --verbose", k=5,
                                       mode="hybrid")).hits
        assert hits[0].path == "answer.md", [h.path for h in hits]
    finally:
        index.close()


def test_a_one_word_lookup_is_a_name_its_defining_entry_answers(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    write(root, "Format converter.md", "## Properties\n\nOld notes set a class like this:\n\n"
                                       "cssclass: custom-style cssclass cssclass\n\nThe converter rewrites it.\n")
    write(root, "Properties.md", "## Deprecated properties\n\n| Property | Description |\n|---|---|\n"
                                 "| `cssclass` | Deprecated alias for `cssclasses`. |\n| `tag` | Deprecated alias "
                                 "for `tags`. |\n| `alias` | Deprecated alias for `aliases`. |\n")
    index = _index(root)
    try:
        assert _first(root, index, "cssclass") == ("Properties.md", "Deprecated properties")
    finally:
        index.close()


def test_a_query_of_one_punctuation_token_finds_the_section_that_spells_it_most(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    write(root, "syntax.md", "# Syntax\n\n## Headings\n\n%% HTML headings here %%\n\n## Comments\n\nWrap text "
                             "in `%%` to hide it: %%hidden%%.\n\n%%\nA block comment.\n%%\n\n## Bold\n\n**bold**\n")
    index = _index(root)
    try:
        for query in ("%%", "`%%`"):
            assert _first(root, index, query) == ("syntax.md", "Syntax > Comments"), query
        result = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query("?", k=5))
        assert not result.hits and "no note sets '?' off as code" in result.notes[0]
    finally:
        index.close()


def test_one_mark_alone_finds_its_definition_where_the_docs_set_it_off_as_code(tmp_path: Path) -> None:
    # Jinja's shape: `~` is a path's home in the install guide, a mention under "Math", the operator's entry under
    # "Other Operators"; the mention comes first in the file and, counted, spells the mark as often.
    root = tmp_path / "docs"
    write(root, "install.rst", "Install\n=======\n\nKeep the cache in ~/.cache or ~/tmp, ~ being your home.\n")
    write(root, "templates.rst", "Expressions\n===========\n\nMath\n----\n\nAdd numbers with ``+``; to join "
                                 "strings, have a look at the ``~`` operator.\n\nOther Operators\n---------------"
                                 "\n\n``in``\n    Perform a sequence membership test.\n\n``~`` (tilde)\n"
                                 "    Converts all operands into strings and concatenates them.\n")
    index = _index(root)
    try:
        for query in ("~", "`~`"):
            hits = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(query, k=5)).hits
            assert [(h.path, h.heading) for h in hits] == [("templates.rst", "Expressions > Other Operators"),
                                                           ("templates.rst", "Expressions > Math")], query
        assert lone_mark("`|`") == "|" and lone_mark("~~") == lone_mark("a") == lone_mark("`") == ""
    finally:
        index.close()


@pytest.mark.parametrize(("query", "phrases"), [
    ("[= title =]", ["[= title =]"]),
    ("How do I resolve an open question written as {? text ?}?", ["{? text ?}"]),
    ("{{ page.title }} in a layout", ["{{ page.title }}"]),
    ("use .. code-block:: python", [".. code-block::"]),
    ('`|> default("text")`', ['|> default("text")']),
    ("What does `poetry show --why` display?", ["poetry show --why"]),
    ("a -- b -- c", []), ("what is this?? really!!", []), ("it (the pool) works.", []), ("`--why`", []),
])
def test_syntax_over_several_words_is_one_name(query: str, phrases: list[str]) -> None:
    assert phrase_names(query) == phrases
    assert all(p in named_identifiers(query) and is_syntax_name(p) for p in phrases)


def test_a_name_of_several_words_finds_the_section_that_spells_it_whatever_the_spacing(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    for n in range(6):  # the word everywhere, the placeholder nowhere
        write(root, f"guide{n}.md", f"# Guide {n}\n\n## Title\n\nThe title of page {n} is its title: what does "
                                    "the title insert? Set the title.\n")
    write(root, "templates.md", "# Templates\n\n## Placeholders\n\n`[=  title  =]`\n: the page name when the "
                                "template is applied.\n\n`[= today =]`\n: the date.\n\n`[= cursor =]`\n: where "
                                "the cursor goes.\n\n## Blocks\n\nBlocks repeat text.\n")
    index = _index(root)
    try:
        for query in ("[= title =]", "what does [= title =] insert?"):
            for mode in ("auto", "keyword", "hybrid"):
                assert _first(root, index, query, mode) == ("templates.md", "Templates > Placeholders"), (query, mode)
    finally:
        index.close()


@pytest.mark.parametrize(("query", "names"), [
    ("Which arguments does the httpx.Proxy class accept?", ["httpx.Proxy"]),
    ("How do I call `uvicorn.run()` from a script?", ["uvicorn.run"]),
    ("Does httpx.Client(http2=True) need the extra?", ["httpx.Client"]),
    ("What is tool.poetry.requires-plugins used for?", ["tool.poetry.requires-plugins"]),
    ("What does the proxy do. It hangs", []),  # a sentence's end is no dotted name
    ("version 1.2.3", []),
    (" ".join(f"mod{n}.name{n}" for n in range(50)), [f"mod{n}.name{n}" for n in range(4)]),  # a pasted log: the first
])
def test_dotted_names_are_read_as_typed(query: str, names: list[str]) -> None:
    assert dotted_names(query) == names


def test_a_dotted_keys_entry_may_define_its_last_part_under_the_table_a_chunk_of_its_section_writes(
        monkeypatch) -> None:
    """mdBook's "HTML renderer options": a TOML example in `[output.html]`, then "- **site-url:** The url ...", the
    two in different chunks of one long section; "404 handling" writes the key in its table and defines nothing."""
    from scree.search import names as names_module
    example = "```toml\n[output.html]\nsite-url = \"/example-book/\"\n```\n"
    definition = "- **site-url:** The url where the book will be hosted, for 404 pages.\n"
    candidates = [(1, "ci", "### 404 handling\n\n" + example + "Set `site-url` for the 404 page."),
                  (2, "html", "## HTML renderer options\n\n" + example), (3, "html", definition),
                  (4, "other", "## Other\n\n" + definition)]  # defines it, but writes no table
    assert names_module.defined_entries(candidates, ["output.html.site-url"]) == [3]
    # the section's example chunk is not among the candidates: its other chunks are read
    sections = {"html": [(2, "## HTML renderer options\n\n" + example), (3, definition)],
                "other": [(4, "## Other\n\n" + definition)], "ci": [(1, candidates[0][2])]}
    for gone in (2, 3):  # either chunk of the section may be missing from the candidates: its others are read
        alone = [c for c in candidates if c[0] != gone]
        assert names_module.defined_entries(alone, ["output.html.site-url"]) == []
        assert names_module.defined_entries(alone, ["output.html.site-url"],
                                            lambda keys: {k: sections[k] for k in keys if k in sections}) == [3]
    monkeypatch.setattr(names_module, "TABLE_DEFINED_ENTRIES", False)
    assert names_module.defined_entries(candidates, ["output.html.site-url"]) == []


def test_a_lookup_of_a_dotted_key_finds_the_long_section_that_defines_it_under_its_table(tmp_path: Path) -> None:
    """mdBook's renderer options: a TOML example, then one list item per key, cut into two chunks; a CI page writes
    the key in its table too, in a short section, and explains nothing else of it."""
    root = tmp_path / "book"
    items = "".join(f"- **option-{n}:** What option {n} changes in the rendered pages, and when to set it. "
                    f"Defaults to `false`, which most books keep.\n" for n in range(30))
    write(root, "guide/renderers.md", "# Configuring Renderers\n\n## HTML renderer options\n\n```toml\n"
                                      "[output.html]\nsite-url = \"/example-book/\"\n```\n\n" + items
                                      + "- **site-url:** The url where the book will be hosted, so that links in "
                                        "the 404 page work from any folder. Defaults to `/`.\n")
    write(root, "guide/ci.md", "# Continuous integration\n\n## 404 handling\n\n```toml\n[output.html]\n"
                               "site-url = \"/my-book/\"\n```\n\nSet `site-url` when the book is not at the "
                               "root.\n")
    index = _index(root)
    try:
        chunks = queries.chunks_of_file(index.conn, "guide/renderers.md")
        assert len({c.heading for c in chunks}) < len(chunks)  # the section is cut: its example and item apart
        assert _first(root, index, "output.html.site-url") == ("guide/renderers.md",
                                                               "Configuring Renderers > HTML renderer options")
    finally:
        index.close()


@pytest.mark.parametrize(("trail", "name", "head_is_name"), [
    ("API Reference > Functions > `pytest.approx`", "pytest.approx", False),  # the whole name
    ("Settings > `virtualenvs.in-project`", "virtualenvs.in-project", False),
    ("The `tool.poetry` section > requires-plugins", "tool.poetry.requires-plugins", False),  # the rest above it
    ("Developer Interface > `Proxy`", "httpx.Proxy", True),  # the package is the repo's own name
    ("Developer Interface > `Client(auth=None)`", "httpx.Client", True),  # a signature
    ("The Coverage class > coverage.Coverage.switch_context", "Coverage.switch_context", False),  # its full path
    # the path the package re-exports it by, the name's defining module left out
    ("Developer Interface > Exceptions > requests.ConnectTimeout", "requests.exceptions.ConnectTimeout", False),
    # the name's last parts, the path every reader knows left out (Vite's HMR API page)
    ("HMR API > `hot.accept(cb)`", "import.meta.hot.accept", False),
])
def test_a_section_titled_by_a_dotted_name_is_its_entry(trail: str, name: str, head_is_name: bool) -> None:
    assert entry_of(trail, name, head_is_name)


@pytest.mark.parametrize(("trail", "name", "head_is_name"), [
    ("Developer Interface > `Proxy`", "httpx.Proxy", False),  # `httpx` is no name of this repo, nor above
    ("Links > `backlinks`", "file.backlinks", False),  # a command of that name, not the property
    ("API Reference > Objects > Approx", "pytest.approx", True),  # the class, not the function
    ("API Reference > Objects > Approx > pytest.Approx", "pytest.approx", True),  # another case is another name
    ("Proxies > Proxy keys", "httpx.Proxy", True),
    ("API > coverage.MyCoverage.switch_context", "Coverage.switch_context", False),  # a longer name's end
    ("API > Calling Coverage.switch_context", "Coverage.switch_context", False),  # a title about it
    ("Exceptions > requests.Timeout", "requests.exceptions.ConnectTimeout", False),  # another name
    ("Exceptions > urllib3.ConnectTimeout", "requests.exceptions.ConnectTimeout", False),  # another package's
    ("Exceptions > requests.ConnectTimeout.args", "requests.exceptions.ConnectTimeout", False),  # a member of it
    ("HMR API > `accept(cb)`", "import.meta.hot.accept", False),  # its last part alone, nothing above spelling the rest
    ("HMR API > `meta.hot`", "import.meta.hot.accept", False),  # a middle of it
    ("HMR API > `xhot.accept`", "import.meta.hot.accept", False),  # a longer part
])
def test_a_heading_that_only_shares_a_part_is_no_entry(trail: str, name: str, head_is_name: bool) -> None:
    assert not entry_of(trail, name, head_is_name)


def test_a_lookup_of_a_class_puts_its_entry_before_its_members(monkeypatch) -> None:
    """requests' `HTTPAdapter`: each member's short entry spells the class and outranked the class's own."""
    from scree.search.names import names_first

    def entry(name: str) -> str:
        return (f"Developer Interface > {name}\n{name}()\n\nWhat it does.\n\n"
                f"(docstring of {name}: src/requests/adapters.py, line 1)")

    ranked = [(1, 9.0), (2, 8.9), (3, 8.0), (4, 7.0)]
    texts = {1: entry("requests.adapters.HTTPAdapter.close"), 2: entry("requests.adapters.HTTPAdapter.send"),
             3: entry("requests.adapters.HTTPAdapter"), 4: entry("requests.adapters.BaseAdapter")}
    for lookup in ("HTTPAdapter", "requests.adapters.HTTPAdapter"):
        assert [cid for cid, _ in names_first(ranked, texts, [lookup.casefold()], lookup=lookup)][:1] == [3], lookup
    monkeypatch.setattr(names_module, "MEMBERS_AFTER", False)  # the class's own docstring still leads its members'
    assert [cid for cid, _ in names_first(ranked, texts, ["httpadapter"], lookup="HTTPAdapter")][:1] == [3]
    monkeypatch.setattr(names_module, "OWN_DOCSTRING_FIRST", False)
    monkeypatch.setattr(names_module, "OTHER_DOCSTRINGS_AFTER", False)
    assert [cid for cid, _ in names_first(ranked, texts, ["httpadapter"], lookup="HTTPAdapter")][:1] == [1]


@pytest.fixture
def package(tmp_path: Path):
    """A package's reference titles `Proxy` without spelling `demopkg.Proxy`; its changelog spells the whole
    name in several releases."""
    root = tmp_path / "demopkg"
    write(root, "pyproject.toml", '[project]\nname = "demopkg"\nversion = "1.0"\n')
    write(root, "docs/api.md", "# Developer Interface\n\n## `Client`\n\nSends requests.\n\n## `Proxy`\n\n"
                               "```python\n>>> proxy = Proxy(\"http://proxy.example.com:8030\")\n```\n\n"
                               "* `def __init__(url, auth=None, headers=None)`\n")
    write(root, "CHANGELOG.md", "# Changelog\n\n" + "".join(
        f"## 0.{n}.0\n\n* Fix `demopkg.Proxy` configuration arguments in release {n}.\n\n" for n in range(6)))
    write(root, "docs/pyproject.md", "# The file\n\n## The `tool.demo` section\n\n### requires-plugins\n\n"
                                     "Plugins the project needs, installed on first run.\n\n### name\n\n"
                                     "The project's name.\n")
    write(root, "docs/plugins.md", "# Plugins\n\n## Project plugins\n\nA project that needs plugins lists "
                                   "them in `tool.demo.requires-plugins`, and what is it used for? Plugins used "
                                   "by the project.\n")
    write(root, "docs/configuration.md", "# Configuration reference\n\n## Links and embeds\n\n| Key | Default | "
                                         "Meaning |\n|---|---|---|\n| `embed.max_depth` | `4` | Deeper embeds show "
                                         "as a link |\n| `embed.fold` | `true` | Fold long embeds |\n")
    write(root, "docs/guide.md", "# Embeds\n\n## How deep embeds go\n\nEmbeds nested deeper than "
                                 "`embed.max_depth` happen to show as links: embeds nested in embeds nested deeper "
                                 "are what happens when embeds go deeper than `embed.max_depth`.\n")
    index = _index(root)
    yield root, index
    index.close()


def test_a_question_naming_a_dotted_name_answers_from_the_row_that_defines_it(package, monkeypatch) -> None:
    root, index = package
    question = "What happens to embeds nested deeper than embed.max_depth?"
    for mode in ("auto", "keyword", "hybrid"):
        assert _first(root, index, question, mode) == ("docs/configuration.md",
                                                       "Configuration reference > Links and embeds"), mode
    monkeypatch.setattr(names_module, "DEFINED_ENTRIES", False)  # the miss: the guide spells it more
    assert _first(root, index, question, "keyword")[0] == "docs/guide.md"


def test_a_question_naming_a_dotted_name_answers_from_its_entry(package) -> None:
    root, index = package
    for mode in ("auto", "keyword", "hybrid"):
        assert _first(root, index, "Which arguments does the demopkg.Proxy configuration class accept?", mode) == (
            "docs/api.md", "Developer Interface > `Proxy`"), mode
        assert _first(root, index, "What is tool.demo.requires-plugins used for?", mode) == (
            "docs/pyproject.md", "The file > The `tool.demo` section > requires-plugins"), mode


def test_without_the_entries_the_dotted_names_mentions_came_first(package, monkeypatch) -> None:
    root, index = package
    monkeypatch.setattr(names_module, "DOTTED_ENTRIES", False)
    assert _first(root, index, "Which arguments does the demopkg.Proxy configuration class accept?")[0] != (
        "docs/api.md")
    assert _first(root, index, "What is tool.demo.requires-plugins used for?", "hybrid")[0] != "docs/pyproject.md"


@pytest.fixture
def autodoc_repo(tmp_path: Path):
    """An API page of autodoc directives, and a guide whose sections use the documented names: one titled for what
    `warm_up_engine` does, one not titled for `spin_wheel`, one titled by the project's own name."""
    root = tmp_path / "turbine"
    write(root, "pyproject.toml", '[project]\nname = "turbine"\nversion = "1.0"\n')
    write(root, "docs/conf.py", "project = 'turbine'\n")
    write(root, "docs/api.rst", "API\n===\n\n.. module:: turbine\n\nEngine\n------\n\n.. autoclass:: Engine\n"
                                "   :members:\n\nHelpers\n-------\n\n.. autofunction:: turbine.spin_wheel\n\n"
                                ".. autofunction:: turbine.turbine_reset\n")
    write(root, "src/turbine/__init__.py", '"""The turbine package."""\n\n\nclass Engine:\n    """An engine."""\n\n'
                                           '    def warm_up_engine(self) -> None:\n        """Warms up."""\n\n\n'
                                           'def spin_wheel(n):\n    """Spins the wheel."""\n\n\n'
                                           'def turbine_reset():\n    """Resets."""\n')
    write(root, "docs/guide.rst", "Guide\n=====\n\nWarming the engine\n------------------\n\nCall ``warm_up_engine`` "
                                  "before the first run: a cold engine stalls, so the guide's first step is to warm "
                                  "it up, then check the gauges, then start it and watch the dials go green.\n\n"
                                  "Starting up\n-----------\n\nAfter that ``spin_wheel`` turns the wheel, when the "
                                  "engine is warm and the gauges read green on every dial of the board.\n\n"
                                  "Turbine basics\n--------------\n\nWhen the board is red, ``turbine_reset`` puts "
                                  "it back, and the gauges and the dials start again from green on every dial.\n")
    index = _index(root)
    yield root, index
    index.close()


def test_a_lookups_docstring_yields_to_the_docs_section_that_speaks_of_the_name(autodoc_repo, monkeypatch) -> None:
    root, index = autodoc_repo
    assert _first(root, index, "warm_up_engine") == ("docs/guide.rst", "Guide > Warming the engine")
    # a section whose heading does not speak of the name is a mention: the docstring keeps its place
    assert _first(root, index, "spin_wheel") == ("docs/api.rst", "API > Helpers > turbine.spin_wheel")
    # the project's own name speaks of the project, not of `turbine_reset`
    assert _first(root, index, "turbine_reset") == ("docs/api.rst", "API > Helpers > turbine.turbine_reset")
    # the miss: the docstring's entry led (the heading that says every word of the name puts the guide first too)
    monkeypatch.setattr(search_module.ranking, "DOCSTRINGS_YIELD", False)
    monkeypatch.setattr(search_module.ranking, "NAMED_IN_WORDS", 0)
    assert _first(root, index, "warm_up_engine") == ("docs/api.rst", "API > Engine > turbine.Engine.warm_up_engine")
    monkeypatch.setattr(search_module.ranking, "NAMED_IN_WORDS", 2)
    assert _first(root, index, "warm_up_engine") == ("docs/guide.rst", "Guide > Warming the engine")


def test_a_docstring_on_a_page_with_a_front_matter_title_is_still_known_as_one(tmp_path: Path) -> None:
    # The page's title follows the docstring's note in the text the ranking reads (`queries.chunk_texts`): textual's
    # API pages are titled `textual.screen`. Read as no docstring, the entry kept its place above the guide.
    root = tmp_path / "turbine"
    write(root, "pyproject.toml", '[project]\nname = "turbine"\nversion = "1.0"\n')
    write(root, "docs/conf.py", "project = 'turbine'\nextensions = ['myst_parser']\n")
    write(root, "docs/api.md", "---\ntitle: turbine.engine\n---\n\n```{autoclass} turbine.Engine\n:members:\n```\n")
    write(root, "src/turbine/__init__.py", 'class Engine:\n    """An engine."""\n\n    def warm_up_engine(self) -> None:\n'
                                           '        """Warms up the engine, once, before the first run."""\n')
    write(root, "docs/guide.md", "# Guide\n\n## Warming the engine\n\nCall `warm_up_engine` before the first run: a "
                                 "cold engine stalls, so warm it up, check the gauges, then start it.\n")
    index = _index(root)
    try:
        assert _first(root, index, "warm_up_engine") == ("docs/guide.md", "Guide > Warming the engine")
    finally:
        index.close()


@pytest.mark.parametrize("question", ["What does PLATEN_STATION_FALLBACK_AFTER_S do?",
                                      "what is `PLATEN_STATION_FALLBACK_AFTER_S` for ?",
                                      "What's PLATEN_STATION_FALLBACK_AFTER_S?",
                                      "what does PLATEN_STATION_FALLBACK_AFTER_S do"])  # an agent's, no question mark
def test_a_question_that_asks_only_what_a_name_is_answers_as_its_lookup(ops, question: str) -> None:
    root, index = ops
    result = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(question, k=5))
    assert result.mode == "keyword" and result.names == ["platen_station_fallback_after_s"]
    assert (result.hits[0].path, result.hits[0].heading) == ("docs/configuration.md", "Configuration > Router")


def test_without_the_rule_the_question_ran_hybrid(ops, monkeypatch) -> None:
    root, index = ops
    monkeypatch.setattr(route_module, "ASKED_NAMES", False)
    result = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(),
                               Query("What does PLATEN_STATION_FALLBACK_AFTER_S do?", k=5))
    assert result.mode == "hybrid"


@pytest.mark.parametrize("query", ["What does --why do to the tree?", "What is a display?", "What does it do?",
                                   "Why does PLATEN_LEASE_S matter?", "PLATEN_LEASE_S", "what does --why do to it"])
def test_only_a_question_of_one_name_is_read_as_its_lookup(query: str) -> None:
    assert asked_name(query, frozenset({"display"}) if "display" in query else frozenset()) is None


def _stub_repo(tmp_path: Path, api_title: str):
    """A guide that uses `Engine.start` in its example, a setup page naming `TURBINE_HOME`, and an API page of the
    module's docstrings titled `api_title`."""
    root = tmp_path / "turbine"
    write(root, "pyproject.toml", '[project]\nname = "turbine"\nversion = "1.0"\n')
    write(root, "docs/conf.py", "project = 'turbine'\n")
    write(root, "docs/reference/engine.rst", f"{api_title}\n{'=' * len(api_title)}\n\n.. automodule:: turbine.engine\n"
                                             "   :members:\n")
    write(root, "src/turbine/__init__.py", '"""The turbine package."""\n')
    write(root, "src/turbine/engine.py", '"""Engines."""\n\n\nclass Engine:\n'
                                         '    """An engine; reads ``TURBINE_HOME``."""\n\n'
                                         '    def start(self) -> None:\n        """Start the engine."""\n')
    write(root, "docs/setup.rst", "Setup\n=====\n\nEnvironment\n-----------\n\nSet ``TURBINE_HOME`` to the folder the "
                                  "engine keeps its logs, gauges and dials in, before the first start of the day. The "
                                  "engine reads it once when it starts, so changing it later needs a restart; keep "
                                  "the folder on a local disk, since a network share slows the gauges down and the "
                                  "dials then lag behind the engine by seconds.\n")
    write(root, "docs/guide.rst", "Guide\n=====\n\nStarting the engine\n-------------------\n\nWarm it first, then "
                                  "call ``Engine.start``:\n\n"
                                  ".. code-block:: python\n\n    engine = Engine()\n    engine.start()\n")
    return root


def test_a_stub_pages_docstring_is_no_pinned_entry_but_one_under_a_title_in_words_is(tmp_path: Path,
                                                                                     monkeypatch) -> None:
    # rich's shape: a reference page titled by its module's path with nothing but `automodule` under it
    stub = _stub_repo(tmp_path / "stub", "turbine.engine")
    index = _index(stub)
    try:
        assert _first(stub, index, "Engine.start") == ("docs/guide.rst", "Guide > Starting the engine")
        # a lookup both spell as often: the docs' own section before the stub's docstring
        assert _first(stub, index, "TURBINE_HOME") == ("docs/setup.rst", "Setup > Environment")
        monkeypatch.setattr(names_module, "STUB_PAGES_UNPINNED", False)  # the misses: the docstring led
        assert _first(stub, index, "Engine.start") == ("docs/reference/engine.rst",
                                                       "turbine.engine > turbine.engine.Engine.start")
        assert _first(stub, index, "TURBINE_HOME") == ("docs/reference/engine.rst",
                                                       "turbine.engine > turbine.engine.Engine")
        monkeypatch.setattr(names_module, "STUB_PAGES_UNPINNED", True)
    finally:
        index.close()
    # coverage's shape: the docs' authors titled the page in words, and its docstring is the name's entry
    titled = _stub_repo(tmp_path / "titled", "The engine")
    index = _index(titled)
    try:
        assert _first(titled, index, "Engine.start") == ("docs/reference/engine.rst",
                                                         "The engine > turbine.engine.Engine.start")
    finally:
        index.close()


def test_a_dotted_lookup_few_sections_spell_is_filled_with_the_sections_of_its_parts(tmp_path: Path,
                                                                                    monkeypatch) -> None:
    # `spinlib.Path` is one phrase to FTS5 ("spinlib path", adjacent): only the API page spells it so; the guide says
    # `Path` in its own words and must still be among the answers of a keyword lookup
    root = tmp_path / "docs"
    write(root, "api.md", "# API\n\n## Files\n\n`spinlib.Path` wraps a file path.\n")
    write(root, "paths.md", "# Working with files\n\n## Asynchronous path operations\n\nThe `Path` class runs each "
                            "disk operation in a worker thread, so awaiting a path never blocks.\n")
    write(root, "other.md", "# Other\n\n## Unrelated\n\nNothing about the files here.\n")
    index = _index(root)
    try:
        def found(mode: str) -> list[tuple[str, str]]:
            result = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(),
                                       Query("spinlib.Path", k=5, mode=mode))
            return [(h.path, h.heading) for h in result.hits]

        hits = found("keyword")
        assert hits[0] == ("api.md", "API > Files")  # the section spelling the whole name stays first
        assert ("paths.md", "Working with files > Asynchronous path operations") in hits
        assert found("auto") == hits  # a lookup: auto answers by keyword
        monkeypatch.setattr(keyword_module, "PARTS_FILL", False)
        assert found("keyword") == [("api.md", "API > Files")]
    finally:
        index.close()


def test_a_directive_naming_its_key_in_an_option_is_the_keys_definition(tmp_path: Path, monkeypatch) -> None:
    # tox's reference: dozens of `.. conf::` blocks under one heading, each naming its key in `:keys:`; the
    # guides use the key in their examples more often than the reference spells it.
    root = tmp_path / "docs"
    confs = "".join(f".. conf::\n    :keys: {key}\n    :default: False\n\n    {text}\n\n" for key, text in [
        ("recreate", "Always recreate the environment."), ("skip_install", "Do not install the current package."),
        ("ignore_errors", "Run every command even when one fails."), ("commands", "The commands to run.")])
    write(root, "config.rst", "Configuration\n=============\n\nRun\n---\n\n" + confs)
    write(root, "howto.rst", "How-to\n======\n\nLint without the package\n------------------------\n\n"
                             "Set ``skip_install = true``: a linter needs no package.\n\n.. code-block:: ini\n\n"
                             "    [testenv:lint]\n    skip_install = true\n    deps = ruff\n\n"
                             "With ``skip_install`` the environment is ready sooner; ``skip_install`` also "
                             "saves the build.\n")
    index = _index(root)
    assert _first(root, index, "skip_install", "keyword") == ("config.rst", "Configuration > Run")
    monkeypatch.setattr(sectiontext, "KEY_FIELDS", False)
    assert _first(root, index, "skip_install", "keyword") == ("howto.rst", "How-to > Lint without the package")
    index.close()


def test_a_list_of_settings_is_no_definition_of_the_names_it_sets(tmp_path: Path, monkeypatch) -> None:
    # isort's profiles page lists each profile's settings ("- **force_sort_within_sections**: `True`"); the options
    # page explains the option under a heading that speaks its words.
    root = tmp_path / "docs"
    settings = "".join(f" - **{key}**: `True`\n" for key in ("force_single_line", "force_sort_within_sections",
                                                           "lexicographical", "group_by_package"))
    write(root, "profiles.md", "# Built-in profiles\n\nProfiles set several options at once.\n\n#google\n\n" + settings)
    write(root, "options.md", "# Options\n\n## Force Sort Within Sections\n\nSort imports by module, whatever their "
                              "style.\n\n**Type:** Bool\n**Name:** force_sort_within_sections\n\n## Lexicographical\n\n"
                              "Sort strictly alphabetically.\n")
    index = _index(root)
    assert _first(root, index, "force_sort_within_sections", "keyword") == (
        "options.md", "Options > Force Sort Within Sections")
    monkeypatch.setattr(sectiontext, "VALUES_SET", False)
    assert _first(root, index, "force_sort_within_sections", "keyword")[0] == "profiles.md"
    index.close()


@pytest.mark.parametrize(("query", "vocabulary", "name"), [
    ("What does scrapy view do?", {"scrapy"}, "scrapy view"),
    ("what does `uv pip compile` do", {"uv"}, "uv pip compile"),
    ("What does the scrapy check command do?", {"scrapy"}, "scrapy check"),
    ("What does scrapy view do?", set(), None),  # the program is none of the repo's names
    ("What does scrapy view do to cookies?", {"scrapy"}, None),  # a case of it
    ("What does the engine do?", {"scrapy"}, None),
    ("What does scrapy Spider do?", {"scrapy"}, None),  # a class of the package, not a subcommand
])
def test_a_question_asking_only_what_a_command_does_names_the_command(query: str, vocabulary: set[str],
                                                                      name: str | None) -> None:
    assert asked_name(query, frozenset(vocabulary)) == name


@pytest.fixture
def commands(tmp_path: Path):
    """A tool reference titling each command by its subcommand, and a guide whose heading says the word more."""
    root = tmp_path / "docs"
    write(root, "commands.rst", "Command line tool\n=================\n\nAvailable tool commands\n"
                                "-----------------------\n\ncheck\n~~~~~\n\n* Syntax: ``spydr check [-l] <spider>``\n\n"
                                "Run contract checks.\n\nview\n~~~~\n\n* Syntax: ``spydr view <url>``\n\nOpen the URL in "
                                "a browser.\n")
    write(root, "contracts.rst", "Contracts\n=========\n\nDetecting check runs\n--------------------\n\nWhen "
                                 "``spydr check`` runs, the check flag is set, so a check can tell a check run from a "
                                 "crawl; ``spydr check`` sets it for every check.\n")
    write(root, "src/spydr/cli.py", "def spydr(argv):\n    return argv\n")  # the code's names: `spydr`
    # the program's own page, titled by it, spelling every command in its synopsis
    write(root, "man/spydr.1.rst", "spydr\n=====\n\nSYNOPSIS\n--------\n\nRun ``spydr check``, ``spydr view``, "
                                   "``spydr reinstall-all`` or ``spydr lint``; spydr reinstall-all and spydr lint "
                                   "take spydr's options.\n")
    write(root, "howto.rst", "Manage spiders\n==============\n\nReinstall all\n-------------\n\n.. code-block::"
                             " console\n\n    $ spydr reinstall-all\n\nAfter a new Python, every spider moves.\n")
    write(root, "cli.rst", "Command line reference\n======================\n\nspydr lint\n----------\n\nLint the "
                           "spiders.\n\n.. code-block:: console\n\n    $ spydr lint\n")
    index = _index(root)
    yield root, index
    index.close()


def test_a_command_lookup_answers_from_the_section_titled_by_its_subcommand(commands) -> None:
    root, index = commands
    assert _first(root, index, "spydr check", "keyword") == ("commands.rst",
                                                           "Command line tool > Available tool commands > check")


@pytest.mark.parametrize(("lookup", "first"), [
    ("spydr lint", ("cli.rst", "Command line reference > spydr lint")),  # titled by the whole command
    ("spydr reinstall-all", ("howto.rst", "Manage spiders > Reinstall all")),  # its subcommand in words
])
def test_a_commands_program_titles_the_tools_page_not_the_command(commands, lookup: str,
                                                                  first: tuple[str, str]) -> None:
    root, index = commands
    assert _first(root, index, lookup, "keyword") == first


def test_without_the_rules_the_programs_own_page_came_first(commands, monkeypatch) -> None:
    root, index = commands
    monkeypatch.setattr(names_module, "SUBCOMMAND_TITLES", False)
    monkeypatch.setattr(names_module, "WHOLE_TITLES", 0)
    assert _first(root, index, "spydr lint", "keyword")[0] == "man/spydr.1.rst"
    assert _first(root, index, "spydr reinstall-all", "keyword")[0] == "man/spydr.1.rst"


def test_without_the_rule_another_section_spelling_the_command_came_first(commands, monkeypatch) -> None:
    root, index = commands
    monkeypatch.setattr(names_module, "SUBCOMMAND_TITLES", False)
    assert _first(root, index, "spydr check", "keyword")[0] != "commands.rst"


@pytest.mark.parametrize(("lookup", "tail"), [
    ("scrapy check", "check"), ("uv pip compile", "pip compile"), ("--why", ""), ("check", ""),
    ("Scrapy Check", ""), ("a b c d", ""),
])
def test_a_commands_subcommand_is_the_words_after_the_program(lookup: str, tail: str) -> None:
    assert names_module.command_tail(lookup) == tail


def test_a_heading_repeated_under_one_page_is_a_category_that_titles_no_lookup(tmp_path: Path, monkeypatch) -> None:
    # each release has a "Misc" section; the fragment type `misc` is defined by the tutorial's list
    root = tmp_path / "docs"
    releases = "".join(f"Spool {n}.0\n{'-' * (len(str(n)) + 8)}\n\nMisc\n~~~~\n\n- #{n}0, #{n}1\n\n" for n in range(9, 3, -1))
    write(root, "NEWS.rst", "Release notes\n=============\n\n" + releases)
    write(root, "tutorial.rst", "Tutorial\n========\n\nFragments\n---------\n\nEach fragment has a type:\n\n"
                                "- ``feature``: a new feature.\n- ``misc``: an issue closed that users need not "
                                "read about.\n")
    index = _index(root)
    try:
        assert _first(root, index, "misc", "keyword") == ("tutorial.rst", "Tutorial > Fragments")
        monkeypatch.setattr(names_module, "REPEATED_TITLES_MAX", 0)
        assert _first(root, index, "misc", "keyword")[0] == "NEWS.rst"
    finally:
        index.close()


def test_a_pages_repeated_subsections_keep_the_title_of_the_page(tmp_path: Path) -> None:
    # the page is titled by the name; its "Example" subsections repeat, and stay the name's page
    root = tmp_path / "docs"
    examples = "".join(f"Case {n}\n{'-' * 6}\n\nExample\n~~~~~~~\n\nSet ``spool_root`` to /srv/{n}.\n\n"
                       for n in range(4))
    write(root, "spool_root.rst", "``spool_root``\n==============\n\n" + examples)
    write(root, "guide.rst", "Guide\n=====\n\nSpool root\n----------\n\nThe ``spool_root`` holds jobs; ``spool_root`` "
                             "must be writable, and ``spool_root`` is read once: spool root, spool root.\n")
    index = _index(root)
    try:
        assert _first(root, index, "spool_root", "keyword")[0] == "spool_root.rst"
    finally:
        index.close()


@pytest.mark.parametrize(("trail", "names", "titled"), [
    ("&lt;scalar&gt; > Syntax", ["scalar"], True),  # Markdown's escapes spell the heading `<scalar>`
    ("`<scalar>`", ["<scalar>"], True),  # a query may keep the brackets
    ("&lt;scalar&gt;", ["scalar"], True),
    ("Types > <number>", ["number"], True),
    ("Scalars &amp; numbers", ["scalars & numbers"], True),
    ("<details> element", ["details"], False),  # about more than the name
    ("<>", ["<>"], True),  # brackets alone are the name
    ("&lt;scalar&gt;", ["lt"], False),
])
def test_a_heading_is_read_as_rendered_and_a_placeholder_without_its_brackets(trail: str, names: list[str],
                                                                              titled: bool) -> None:
    assert sectiontext.titled_by(trail, names) is titled


def test_a_lookup_of_a_man_pages_command_answers_from_its_description_not_its_synopsis(tmp_path: Path,
                                                                                       monkeypatch) -> None:
    # cargo's and git's man pages: SYNOPSIS spells the command and every flag, DESCRIPTION says what it does
    root = tmp_path / "book"
    write(root, "commands/tool-sync.md",
          "# tool-sync(1)\n\n## NAME\n\ntool-sync --- Sync the workspace\n\n## SYNOPSIS\n\n`tool sync` "
          "[_options_]\n\n`tool sync --dry-run`\n\n## DESCRIPTION\n\nCopies every package of the workspace to the "
          "mirror and records the revision it copied, so a later run copies only what changed since.\n\n"
          "## OPTIONS\n\n`--dry-run`\n: Print what would be copied.\n\n## SEE ALSO\n\n[tool(1)](tool.md)\n")
    write(root, "commands/tool.md", "# tool(1)\n\n## NAME\n\ntool --- The workspace tool\n\n## DESCRIPTION\n\n"
                                    "Manages a workspace of packages.\n")
    with closing(_index(root)) as index:
        assert _first(root, index, "tool sync") == ("commands/tool-sync.md", "tool-sync(1) > DESCRIPTION")
        monkeypatch.setattr(search_module.ranking, "MAN_PAGE_DESCRIPTION_FIRST", False)
        assert _first(root, index, "tool sync")[1] in {"tool-sync(1) > SYNOPSIS", "tool-sync(1) > NAME"}
