"""A name whose punctuation is the name (issue 38): `path:` (a search operator), `%%comment%%`, `{{date}}`,
`[[Page]]`. The keyword index drops that punctuation, so `path:` looked like the word "path" in every note and
the section that defines the operator was not in the top 5. Pure parts directly; the ranking on a real index."""

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
from scree.search.route import named_identifiers, operator_names
from scree.search.names import spelled_counter
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names


@pytest.mark.parametrize(("query", "names"), [
    ("path:", ["path:"]), ("`path:` operator", ["path:"]), ("what does %%comment%% do", ["%%comment%%"]),
    ("use {{date}} in a template", ["{{date}}"]), ("[[Page]] links", ["[[page]]"]), ("#tag search", ["#tag"]),
    ("note: this is prose", []), ("is it 50% faster?", []), ("histogram_quantile()", ["histogram_quantile"]),
    # an operator given a value names the whole token and the operator; a URL, a time or a drive does not
    ("why does under:ops match ops-archive", ["under:ops", "under:"]), ("path:docs/ only", ["path:docs/", "path:"]),
    ("who needs the printers:admin scope?", ["printers:admin", "printers:"]),
    ("at 10:30 today", []), ("C:\\Users", []), ("see https://example.org", ["https://example.org"]),
    # a word of punctuation alone in a question is syntax named on purpose; a sentence's own marks are not
    ("What does the ?? operator do?", ["??"]), ("mark text with == to highlight it", ["=="]),
    ("link to a block with #^?", ["#^"]), ("`??` or \"==\"", ["??", "=="]),
    ("wait... what -- really ? !", []), ("is it {? text ?}?", ["{? text ?}"]),
    # a key named with its `=` and no value: a keyword argument, a setting, a URL fragment's key
    ("how do I use requires= to order sessions", ["requires="]), ("#egg=", ["#egg="]),
    ("what is &subdirectory= for?", ["&subdirectory="]), ("set x = 3 or a=b", []),
    # a tool's comment directive, with its one value; a config file's section header named alone
    ("# fmt: skip", ["# fmt: skip"]), ("After # isort: off, how do I turn it on?", ["# isort: off"]),
    ("what does #noqa:E501 do", ["#noqa:e501", "# noqa: e501"]), ("fixed in issue #12: see", []),
    ("[flake8]", ["[flake8]"]), ("`[tool.black]`", ["[tool.black]"]), ("[run] relative_files", ["relative_files"]),
])
def test_syntax_tokens_are_names_that_keep_their_punctuation(query: str, names: list[str]) -> None:
    assert named_identifiers(query) == names


def test_a_name_ending_in_punctuation_is_spelled_before_a_value() -> None:
    spelled = spelled_counter(["path:", "%%comment%%", "--type"])
    assert spelled("use path:docs/ to narrow") == 1 and spelled("a path to it") == 0
    assert spelled("wrap it in %%comment%% marks") == 1
    assert spelled("--type-add is another flag") == 0  # a flag still ends at a word boundary


def test_a_config_key_of_several_words_is_spelled_by_its_flag() -> None:
    spelled = spelled_counter(["force-exclude"])
    assert spelled("#### `--force-exclude`") == 1 and spelled("force-exclude = '^/vendored/'") == 1
    assert spelled("--force-exclude-all") == 0 and spelled("no-force-exclude") == 0 and spelled("---force-exclude") == 0
    assert spelled_counter(["pre"])("--pre") == 0  # a one-word name is a word: `--pre` is not the word `pre`


def _index(root: Path):
    index = open_index(index_location(root, load_config()), root)
    sync(index, NotesPolicy.load(root), FakeEmbedder())
    return index


def _hits(root: Path, index, query: str, mode: str) -> list:
    return search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(query, k=5, mode=mode)).hits


@pytest.fixture
def vault(tmp_path: Path):
    root = tmp_path / "vault"
    for n in range(30):  # the word everywhere, the operator nowhere
        write(root, f"notes/n{n:02}.md", f"# Note {n}\n\nThe path to folder {n} is long; the path matters. Path path.\n")
    write(root, "search.md", "# Search\n\n## Operators\n\n`path:` limits results to files under a folder, "
                             "e.g. `path:daily/`.\n\n## Comments\n\nText between %%comment%% markers is hidden.\n"
                             "\n## Defaults\n\nThe `??` operator gives a default: `{{title ?? \"Untitled\"}}`.\n"
                             "\n## Ordering\n\nList the sessions to run first with ``requires=``: "
                             "`@session(requires=[\"tests\"])`.\n")
    # A page about the operators of templates in general, which never spells `??`.
    write(root, "templates.md", "# Templates\n\n## Operators\n\nWhat does each operator do in a template? "
                                "Template operators compare, join and test values in a template.\n"
                                "\n## Sessions\n\nOne session requires another when you make it depend on "
                                "another session: a session requires what it needs to make its pages.\n")
    index = _index(root)
    yield root, index
    index.close()


@pytest.mark.parametrize(("query", "trail"), [("path:", "Search > Operators"),
                                              ("which notes does path:daily/ match", "Search > Operators"),
                                              ("what does %%comment%% do", "Search > Comments"),
                                              ("What does the ?? operator do in a template?", "Search > Defaults"),
                                              ("how do I use requires= to make one session depend on another",
                                               "Search > Ordering")])
def test_the_section_that_spells_the_token_comes_first(vault, query: str, trail: str) -> None:
    root, index = vault
    for mode in ("auto", "keyword", "hybrid"):
        hits = _hits(root, index, query, mode)
        assert hits and (hits[0].path, hits[0].heading) == ("search.md", trail), (mode, [h.heading for h in hits])


@pytest.mark.parametrize(("query", "names"), [
    ("Why does under:ops also return pages from ops-archive/?", ["under:ops", "under:"]),
    ("`stale:`", ["stale:"]), ("by:", ["by:"]), ("property:set", ["property:set", "property:"]),
    ("the note: it is prose", []), ("at 10:30, see https://example.org", []),
])
def test_search_operators_are_read_with_their_value_then_alone(query: str, names: list[str]) -> None:
    assert operator_names(query) == names


@pytest.fixture
def operators(tmp_path: Path):
    """A reference that titles each operator, and a FAQ and a guide that spell one applied to a value more often."""
    root = tmp_path / "codex"
    write(root, "docs/reference/operators.md", "# Query operators\n\n## Place\n\n### `under:`\n\nMatches pages whose "
                                               "folder path starts with the value: a prefix, not a folder.\n\n"
                                               "### `in:`\n\nMatches pages in exactly that folder.\n")
    write(root, "docs/faq.md", "# FAQ\n\n## Searching\n\nWhy does under:ops return pages from ops-archive? "
                               "Use under:ops/ to stop at the folder: under:ops and under:ops/ differ. Pages "
                               "return from ops-archive because under:ops is what you typed.\n")
    write(root, "docs/guide.md", "# Searching\n\n## Narrowing by place\n\nType under:ops to keep pages under ops, "
                                 "or under:ops/runbooks for one folder. Why pages return is the place.\n")
    index = _index(root)
    yield root, index
    index.close()


def test_a_question_applying_an_operator_answers_from_the_operators_entry(operators, monkeypatch) -> None:
    root, index = operators
    question = "Why does under:ops also return pages from ops-archive/?"

    def first(mode: str) -> tuple[str, str]:
        hits = _hits(root, index, question, mode)
        return hits[0].path, hits[0].heading

    for mode in ("auto", "keyword", "hybrid"):
        assert first(mode) == ("docs/reference/operators.md", "Query operators > Place > `under:`"), mode
    monkeypatch.setattr(names_module, "OPERATOR_ENTRIES", False)  # the miss: the FAQ spells `under:ops` more
    assert first("hybrid")[0] != "docs/reference/operators.md"


def test_a_tools_comment_and_section_header_find_the_section_that_spells_them(tmp_path: Path) -> None:
    # The tool's name is on every page; one section spells the ini header, one the file-wide comment.
    root = tmp_path / "docs"
    for n in range(12):
        write(root, f"guide/p{n:02}.md", f"# Page {n}\n\nRun flake8 on the code; flake8 reports noqa use. Flake8 "
                                         f"reads its options, and a comment at the top of a file is read too.\n")
    write(root, "config.md", "# Configuration\n\n## Project configuration\n\nPut the options in a section:\n\n"
                             "```ini\n[flake8]\nmax-line-length = 100\n```\n")
    write(root, "ignoring.md", "# Ignoring\n\n## Whole files\n\nA line `# flake8: noqa` makes flake8 skip the file.\n")
    index = _index(root)
    try:
        for query, want in [("[flake8]", ("config.md", "Configuration > Project configuration")),
                            ("what does a # flake8: noqa comment at the top of a file do", ("ignoring.md",
                                                                                           "Ignoring > Whole files"))]:
            hits = _hits(root, index, query, "auto")
            assert hits and (hits[0].path, hits[0].heading) == want, (query, [h.heading for h in hits])
    finally:
        index.close()



def test_a_flag_spelled_by_few_sections_among_many_that_say_its_words_is_still_found(tmp_path: Path,
                                                                                    monkeypatch) -> None:
    """The names tier orders BM25's pool: where more sections than the pool holds say "rendered by" in prose, the
    one that spells `--rendered-by` fell outside it (platen's notes at 100k chunks) and a lookup answered with prose."""
    from scree.search import keyword as keyword_module

    root = tmp_path / "notes"
    for i in range(140):
        write(root, f"log/day{i:03}.md", f"# Day {i}\n\nThe label was rendered by router {i}, rendered by it again.\n")
    write(root, "runbooks/render.md", "# Render errors\n\n## Find the jobs\n\nList them with `platenctl jobs list "
                                      "--rendered-by <pod>` and then check each one of the jobs that the pod rendered "
                                      "in the last hours, its glyph cache and its fonts, before restarting it.\n")
    index = open_index(index_location(root, load_config()), root)
    try:
        sync(index, NotesPolicy.load(root), FakeEmbedder())

        def first(mode: str) -> str:
            hits = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query("--rendered-by", k=5,
                                                                                          mode=mode)).hits
            return hits[0].path

        assert first("keyword") == first("auto") == "runbooks/render.md"
        monkeypatch.setattr(keyword_module, "LITERAL_LOOKUPS", False)  # the miss: only the pool's prose
        assert first("keyword") != "runbooks/render.md"
    finally:
        index.close()


def test_a_one_letter_flag_is_named_spelled_and_titled_in_its_own_case_only() -> None:
    from scree.notes.sectiontext import titled_by

    assert named_identifiers("-L", set()) == ["-L"] and named_identifiers("what does `ssh -R` do", set())[0] == "-R"
    assert named_identifiers("--Verbose", set()) == ["--verbose"]  # a long flag is folded as any name is
    spelled = spelled_counter(["-L"])
    assert spelled("use -L 8080:db:5432") == 1 and spelled("use -l to list keys") == 0
    assert titled_by("SSH(1) > -L", ["-L"]) and not titled_by("SSH-ADD(1) > -l", ["-L"])


def test_a_one_letter_flag_lookup_answers_from_the_entry_in_its_case(tmp_path: Path, monkeypatch) -> None:
    """ssh-add's `-l` (list the keys) answered a lookup of ssh's `-L` (a local forward): getopt tells them apart."""
    from scree.notes import sectiontext

    root = tmp_path / "man"
    write(root, "add.md", "# ssh-add\n\n## -l\n\nLists fingerprints of all identities the agent holds.\n")
    write(root, "ssh.md", "# ssh\n\n## -L\n\nForwards a local port to a host and port on the remote side.\n")
    index = _index(root)
    try:
        assert [h.path for h in _hits(root, index, "-L", "keyword")][:1] == ["ssh.md"]
        assert [h.path for h in _hits(root, index, "-l", "keyword")][:1] == ["add.md"]
        monkeypatch.setattr(sectiontext, "FLAG_CASE", False)  # the miss: both are "-l", one answer for the two
        assert _hits(root, index, "-L", "keyword")[0].path == _hits(root, index, "-l", "keyword")[0].path
    finally:
        index.close()


@pytest.mark.parametrize(("heading", "flags"), [
    ("-k, --keep-going", ["-k", "--keep-going"]), ("-J destination", ["-J"]), ("`-v`, `--verbose`", ["-v", "--verbose"]),
    ("-j [jobs], --jobs[=jobs]", ["-j", "--jobs"]), ("--output-sync[=type]", ["--output-sync"]),
    ("`--frozen` and `--locked`", []), ("- a bullet", []), ("Options, flags", []), ("-x - y", []), ("--", []),
    ("`--jobs` number (-j)", ["--jobs", "-j"]), ("`--trace`{=output} (-t)", ["--trace", "-t"]),
    ("--all (-A)", ["--all", "-A"]), ("--foo (deprecated)", ["--foo"]), ("--a and --b (-x)", [])])
def test_a_heading_that_lists_an_option_s_spellings_is_titled_by_each(heading: str, flags: list[str]) -> None:
    from scree.notes.sectiontext import heading_flags, titled_by

    assert heading_flags(heading) == flags
    for flag in flags:
        assert titled_by(f"MAKE(1) > OPTIONS > {heading}", [flag])
    assert not titled_by("MAKE(1) > OPTIONS > -k, --keep-going", ["-K"])  # a one-letter flag's case is its name
