"""Notes an agent reads only where the docs leave places: a Docusaurus site's copies of its docs for past releases,
the notes of test folders, and the instructions written for coding agents. Pure, import-free (the grep hint reads it).

Docusaurus keeps each released version's docs as a copy of the whole docs folder, `versioned_docs/version-30.4/`
(`<plugin>_versioned_docs/` for a second docs plugin), beside the current docs, which the repository's code goes with.
Every section is then there three or thirty times, and a search for a name found each copy: jest's set, with its three
versioned folders beside `docs/`, answered identifier questions first 17 times of 28 where `docs/` alone answered 27.
The copies filled the places of the other answers, and a name's entry, now a heading in four files, no longer counted
as its one entry (a heading many sections share is a category). Docusaurus' own search shows one version at a time.

A test folder's notes (`tests/`, `test/`, `t/`, `__tests__/`, `fixtures/`, `testdata/`, at any depth) are what the tests
feed the code: prettier's 297 Markdown fixtures (one a copy of its README) answered `@noprettier` and
`prettier-ignore-start` before its docs, mdBook's test books `{{#rustdoc_include}}` before its guide.

An agent's instructions (`CLAUDE.md`, `CLAUDE.local.md`, `AGENTS.md`, `GEMINI.md`, at any depth) are what the agent
already holds: Claude Code loads a `CLAUDE.md` into the session and the files it imports (`@AGENTS.md`, the whole
of most of them), other agents their own file. They sum up the docs for an agent (a project overview, the test
commands, the layout); handed back, a section of one takes the place of the docs' own answer.

So `search/secondarypass.py` searches the other notes first and these only for the places they leave free
(`later_files`), one hit per section of a page whatever the versions it is copied in (`one_per_section`). A query
that names a version (`29.7`, `v29.7`) searches that version's copies with the current docs: it asks about them. The
grep hint lists them after the other sections, and a copy only where no other version of it is listed
(`hookkit/hint.py`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import TypeVar

    T = TypeVar("T")

# Search the versioned copies after the current docs. Measured (docs/benchmarks.md): VERSIONED_COPIES_LATER.
VERSIONED_COPIES_LATER = True
# Search the notes of test folders after the others. Measured (docs/benchmarks.md): TEST_NOTES_LATER.
TEST_NOTES_LATER = True
# Search the agents' instruction files after the others. Measured (docs/benchmarks.md): AGENT_NOTES_LATER.
AGENT_NOTES_LATER = True
# Spelled as the agents look for them: griffe's API page `agents.md` is about its own "agents".
AGENT_FILES = frozenset({"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "GEMINI.md"})
FOLDER_MARK = "versioned_docs/version-"  # in every copy's path
# `t/` is git's test folder and every Perl distribution's (`t/README`, `t/lib/*.pm`: fixtures).
TEST_FOLDERS = frozenset({"tests", "test", "t", "__tests__", "fixtures", "__fixtures__", "testdata", "test_data",
                          "test-data"})
PERL_MODULES = (".pm", ".pod")
# What a path of either kind holds (what the search asks the index for, before `later_groups` decides).
PATH_MARKS = (FOLDER_MARK, "test", "/t/", "fixtures", "claude.", "agents.", "gemini.")  # in "/" + the path
_FOLDER = "versioned_docs"
_VERSION = "version-"


def versioned(path: str) -> tuple[str, str] | None:
    """(the version, the path below its folder) of a Docusaurus versioned copy (`website/versioned_docs/version-30.4/
    CLI.md`: `30.4`, `CLI.md`; `community_versioned_docs/` for a second docs plugin), None for any other path."""
    if FOLDER_MARK not in path:  # the common case, answered without splitting
        return None
    parts = path.split("/")
    for i in range(len(parts) - 2):
        folder, version = parts[i], parts[i + 1]
        if (folder == _FOLDER or folder.endswith("_" + _FOLDER)) and version.startswith(_VERSION) \
                and len(version) > len(_VERSION):
            return version[len(_VERSION):], "/".join(parts[i + 2:])
    return None


def names_version(query: str, version: str) -> bool:
    """True when the query spells the version as a word of its own (`29.7`, `v29.7`, not `29.70` or `129.7`)."""
    start = query.find(version)
    while start >= 0:
        end = start + len(version)
        before = query[start - 1] if start else " "
        if before == "v":
            before = query[start - 2] if start > 1 else " "
        after = query[end:end + 2]
        if not (before.isalnum() or before in "._") and not (after[:1].isalnum() or after[:1] == "_" or (
                after[:1] == "." and after[1:2].isdigit())):
            return True
        start = query.find(version, start + 1)
    return False


def in_test_folder(path: str) -> bool:
    """True for a note below a test folder (`tests/format/markdown/ignore.md`, `pkg/__tests__/x.md`); the notes
    folder's own name does not count (a folder of notes named `test` is notes), nor a Perl module's namespace below
    `lib/` (`lib/Test/Mojo.pm` is the module `Test::Mojo`, documented in its POD)."""
    folders = path.split("/")[:-1]
    if path.endswith(PERL_MODULES) and "lib" in folders:
        folders = folders[:folders.index("lib")]
    return any(part.casefold() in TEST_FOLDERS for part in folders)


def agent_note(path: str) -> bool:
    """True for a coding agent's instruction file (`CLAUDE.md`, `AGENTS.md`, ..., at any depth)."""
    return path.rsplit("/", 1)[-1] in AGENT_FILES


def _always_later(path: str) -> bool:
    return (TEST_NOTES_LATER and in_test_folder(path)) or (AGENT_NOTES_LATER and agent_note(path))


def later(path: str) -> bool:
    """True for a note searched after the others (whatever the query): a versioned copy, a test folder's note or an
    agent's instructions."""
    return (VERSIONED_COPIES_LATER and versioned(path) is not None) or _always_later(path)


def later_groups(files: Iterable[tuple[int, str]]) -> tuple[frozenset[int], dict[str, frozenset[int]]]:
    """Of the notes (id, path), those searched after the others whatever the query (test folders' notes, agents'
    instructions), and the versioned copies by version: what a query needs of them read once (`later_of`)."""
    always: set[int] = set()
    by_version: dict[str, set[int]] = {}
    for file_id, path in files:
        if _always_later(path):
            always.add(file_id)
        elif VERSIONED_COPIES_LATER and (copy := versioned(path)) is not None:
            by_version.setdefault(copy[0], set()).add(file_id)
    return frozenset(always), {v: frozenset(ids) for v, ids in by_version.items()}


def later_of(groups: tuple[frozenset[int], dict[str, frozenset[int]]], query: str) -> set[int]:
    """The notes `later_groups` found that a query searches after the others: all but the copies of a version the
    query names (one check per version, not per note)."""
    always, by_version = groups
    out = set(always)
    for version, ids in by_version.items():
        if not names_version(query, version):
            out |= ids
    return out


def later_files(files: Iterable[tuple[int, str]], query: str) -> set[int]:
    """Of the notes (id, path), those searched after the others: test folders' notes, agents' instructions, and the
    versioned copies but those of a version the query names."""
    return later_of(later_groups(files), query)


def one_per_section(ranked: Sequence[T], place: Callable[[T], tuple[str, str]]) -> list[T]:
    """`ranked` with one item per section of a page across its versioned copies, the best-ranked; `place(item)` is
    its (path, heading trail)."""
    seen: set[tuple[str, str]] = set()
    out: list[T] = []
    for item in ranked:
        path, trail = place(item)
        copy = versioned(path)
        key = (copy[1], trail) if copy is not None else (path, trail)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out
