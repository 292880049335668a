"""A Docusaurus site's copies of its docs for past releases: searched after the current docs. Pure, import-free (the
grep hint reads it).

Docusaurus keeps each released version's docs as a copy of the whole docs folder, `versioned_docs/version-30.4/`
(`<plugin>_versioned_docs/` for a second docs plugin), beside the current docs, which the repository's code goes with.
Every section is then there three or thirty times, and a search for a name found each copy: jest's set, with its three
versioned folders beside `docs/`, answered identifier questions first 17 times of 28 where `docs/` alone answered 27.
The copies filled the places of the other answers, and a name's entry, now a heading in four files, no longer counted
as its one entry (a heading many sections share is a category). Docusaurus' own search shows one version at a time.

So `search.search` searches the current docs first and the copies only for the places they leave free
(`later_files`), one hit per section of a page whatever the versions it is copied in (`one_per_section`). A query
that names a version (`29.7`, `v29.7`) searches that version's copies with the current docs: it asks about them.
The grep hint lists a copy only where the current docs leave a place and no other version of it is listed
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
FOLDER_MARK = "versioned_docs/version-"  # in every copy's path (what `search.search` asks the index for)
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


def later_files(files: Iterable[tuple[int, str]], query: str) -> set[int]:
    """Of the notes (id, path), the versioned copies searched after the current docs: all of them but those of a
    version the query names."""
    out: set[int] = set()
    for file_id, path in files:
        copy = versioned(path)
        if copy is not None and not names_version(query, copy[0]):
            out.add(file_id)
    return out


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
