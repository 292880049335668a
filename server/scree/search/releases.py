"""The release that first had a name (issue 38): "Which Black release introduced `--unstable`?" asks for a version.

A release history is a list of versions, each saying what it added, changed and fixed; a name's first appearance
in it is the release that added the name. The fused order cannot know that: every entry spelling the name matches
the question as well, and the newest ones (a fix to the flag, a note that it moved) often match it better. So a
question that asks which release first had something (`asks_first_release`) gets, as its entry, the history section
of the lowest version that spells the names the question spells by their shape (a flag, a setting, a dotted
name, a class), before the rest. A question asking which release deprecated, removed, renamed or dropped a name
(`release_event`) gets the lowest version's section that says that word beside the name; one asking when a name
changed or stopped doing something gets the highest version's section that says a change (`CHANGE_EVENTS`).

A section's version is the first version number of its heading trail ("Version 24.1.0 > Preview style",
"[7.4.0] - 2026-01-25 > Added", "2.4.1 > Add new CLI option"), so a history written oldest first or newest first
reads the same. A blog post is history too (`ranking.is_history_file`), but the release history is the record it
retells: only the record answers here.

`asks_first_release`, `release_version` and `earliest` are pure; `first_release_entries` reads the index.
"""

from __future__ import annotations

import re
from typing import AbstractSet, Hashable, Sequence, TypeVar

from ..db import queries
from ..index.store import Index
from ..notes.sectiontext import TRAIL_SEPARATOR
from . import ranking
from .names import spelled_counter, spells_any
from .route import named_identifiers
from ..records import FileScope

K = TypeVar("K", bound=Hashable)

# Measured (docs/benchmarks.md): black identifier top1 77 -> 83, hatch 80 -> 87 (with EVENTS), rich 63 -> 70;
# none lower.
FIRST_RELEASE = True
# A name marked as code by its punctuation (`--no-history`, `exclude_docs`, `rich.spinner`) is what a release adds;
# a word that is a name by its capitals alone is as often a product the question speaks of ("for deploying to GitHub
# Pages"), spelled by releases long before the feature. So a section spelling more marked names wins, the count of
# all names deciding between equals. Measured (docs/benchmarks.md): MARKED_FIRST.
MARKED_FIRST = True
# A lookup of a name only the release histories spell ("pdm fix", which one release added and later ones fixed) is
# answered by the release that added it, as "Which release added it?" is. Measured (docs/benchmarks.md):
# ADDED_LOOKUPS.
ADDED_LOOKUPS = True
# How many chunks spelling a looked-up name are read: one that only the histories spell is in a few entries, and
# one spelled more often is no feature one release added.
ADDED_POOL = 60
# How many chunks spelling a name are read for the history's among them.
RELEASE_POOL = 400

# "Which release", "what version", "in which Black release", "since which version", "since when".
# The words between "which" and "release" name whose release it is ("Which AnyIO release"), not what it added.
_WHICH_RELEASE = re.compile(r"\b(?:which|what)\s+((?:\S+\s+){0,2}?)(?:release|version)s?\b|\bsince\s+when\b",
                            re.IGNORECASE)
# Words that ask for a first appearance, not for a later change: "added", "introduced", "first", "appear", "new",
# "since which", "start honouring". "Changed" or "stopped" ask for another entry, often a later one ("broke after
# upgrading"); "deprecated" and "renamed" are events (`_EVENTS`).
_FIRST_WORDS = re.compile(r"\b(?:add|added|adds|introduce|introduced|introduces|first|appear|appeared|appears|new|"
                          r"since|start|started|starts|begin|began)\b", re.IGNORECASE)
# A pre-release is its version too: "Release v2.5.0b0", "1.5.0.alpha.7", "2.0.0rc1" (read as 2.5.0, 1.5.0, 2.0.0).
_VERSION = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+)+)(?:[-.]?(?:a|b|c|rc|alpha|beta|pre|preview|dev|post)[.-]?\d*)?"
                      r"(?![\w.]*\d)", re.IGNORECASE)


# Events a release does to a name once, which its entry says in a word: "The `hatch fmt` command is now deprecated".
_EVENTS = re.compile(r"\b(deprecat|remov|renam|dropp?)(?:e|ed|es|ing|ion|al|s)?\b", re.IGNORECASE)
EVENTS = True
# A change to what a name does ("In which release did that change", "In which version did exclude_docs stop keeping
# ...", "broke after upgrading"): the name existed before, so its first release is not the answer. Its entry says the
# change ("Changed `Select.BLANK` to `Select.NULL`", "no longer has any special behavior", under "### Changed"), and of
# the releases whose entries say so the latest is the one that changed it to what the question meets now.
# Measured (docs/benchmarks.md): CHANGE_EVENTS.
CHANGE_EVENTS = True
# Not "changing" or "stopping": "added the pointer style for changing the cursor" names what the feature does.
_CHANGES = re.compile(r"\b(?:change|changed|stop|stopped|broke|broken|no\s+longer)\b", re.IGNORECASE)
_CHANGE = "chang"  # the event `release_event` names a change by
_SAYS_CHANGE = ("chang", "no longer", "breaking")  # what an entry says a change with (case-folded)


def asks_first_release(query: str) -> bool:
    """True for a question asking which release first had something: "Which coverage.py release first added
    the source_dirs setting?", "In which version did --line-ranges first appear?", "Since which version does ...".
    Not "Which Node.js version do I need?" (no first appearance) nor "In which release was X deprecated?"."""
    return release_event(query) == ""


def release_event(query: str) -> str | None:
    """What a question asks the release of: "" for the first appearance of its names, a word's stem for an event
    done to them once ("deprecat" for "In which release was hatch fmt deprecated?", also "remov", "renam", "drop"),
    "chang" for a change ("In which release did that change?", "Which version stopped ..."), None for any other
    query ("Which Node.js version do I need?")."""
    if not _WHICH_RELEASE.search(query):
        return None
    event = _EVENTS.search(query) if EVENTS else None
    if event:
        stem = event.group(1).casefold()
        return "drop" if stem.startswith("drop") else stem  # "dropped" holds "dropp"
    if CHANGE_EVENTS and _CHANGES.search(query):
        return _CHANGE
    return "" if _FIRST_WORDS.search(query) else None


def release_version(trail: str) -> tuple[int, ...] | None:
    """The first version number in a heading trail, as integers: "Change Log > Version 24.1.0 > Preview style" is
    (24, 1, 0); None when no heading holds one (a date is no version: "2024-05-01")."""
    for heading in trail.split(TRAIL_SEPARATOR):
        found = _VERSION.search(heading)
        if found:
            return tuple(int(part) for part in found.group(1).split("."))
    return None


def earliest(sections: Sequence[tuple[K, tuple[int, ...] | None, int]], latest: bool = False) -> list[K]:
    """Of `sections` ((key, version or None, how many of the names it spells), best-ranked first), the keys of those
    spelling the most names that have the lowest version (the highest with `latest`), in the given order; [] when
    none has a version."""
    versioned = [(key, version, count) for key, version, count in sections if count > 0 and version is not None]
    if not versioned:
        return []
    most = max(count for _, _, count in versioned)
    pick = max if latest else min
    chosen = pick(version for _, version, count in versioned if count == most and version is not None)
    return [key for key, version, count in versioned if count == most and version == chosen]


def _says_change(trail: str, text: str) -> bool:
    """True when a history section's own headings or text say a change: its page's title does not ("Change Log")."""
    own = f"{TRAIL_SEPARATOR.join(trail.split(TRAIL_SEPARATOR)[1:])}\n{text}".casefold()
    return any(word in own for word in _SAYS_CHANGE)


def first_release_entries(index: Index, query: str, vocabulary: AbstractSet[str], ranked: Sequence[int],
                          file_ids: FileScope | None, added: bool = False) -> list[int]:
    """For a question asking which release first had a name (`asks_first_release`), one chunk per release-history
    section of the earliest version spelling the question's names (`earliest`; for an event, only sections saying it
    too; for a change, the latest version whose section says one); the chunks of `ranked` (the fused order) first,
    so a version with two sections keeps the search's order. With `added` (a lookup that no candidate section outside
    the release histories spells, and few history sections do), the lookup is read as asking which release added it,
    when no section outside the histories spells it (`ADDED_LOOKUPS`)."""
    event = release_event(query) if FIRST_RELEASE else None
    only_histories = False
    if event is None and ADDED_LOOKUPS and added:
        event, only_histories = "", True  # a lookup only the histories spell: the release that added it
    if event is None:
        return []
    # A first appearance is read from names by their shape only: a word of the code that reads as prose (`widget`,
    # `cursor`) is spelled long before the feature the question means. An event's entry says the event beside the
    # name, which pins it: any of the question's names (`fmt` of "hatch fmt").
    if only_histories:
        names = [query.strip().strip("`").strip().casefold()]
    else:
        names = named_identifiers(query, vocabulary) if event else named_identifiers(query)  # no vocabulary: by shape
    whose = _WHICH_RELEASE.search(query)
    owners = set(named_identifiers(whose.group(1) or "", vocabulary)) if whose else set()
    names = [n for n in names if n not in owners]
    if not names:
        return []
    # The chunks spelling a name, then which of them are history: listing every file to find the histories first
    # cost 7 ms at 10k chunks. A name spelled in more than RELEASE_POOL chunks may lose some of its history's, and
    # is no feature one release added.
    pool = ADDED_POOL if only_histories else RELEASE_POOL
    found = list(dict.fromkeys(cid for name in names
                               for cid in queries.spelling_chunks(index.conn, name, pool, file_ids)))
    if only_histories:
        # A section outside the histories spelling the lookup answers it: read the paths first, and the texts of
        # those few at a time, as the first usually spells it.
        paths = queries.chunk_paths(index.conn, found)
        outside = [cid for cid in found if cid in paths and not ranking.is_history_file(paths[cid])]
        if spells_any(index, outside, spelled_counter(names)):
            return []
        found = [cid for cid in found if cid in paths and ranking.is_history_file(paths[cid])]
    rows = queries.chunk_rows(index.conn, found)
    found = [cid for cid in found if cid in rows and ranking.is_history_file(rows[cid].path)
             and not ranking.is_blog(rows[cid].path)]
    if not found:
        return []
    order = {cid: i for i, cid in enumerate(ranked)}
    found.sort(key=lambda cid: (order.get(cid, len(order)), cid))
    spelled = spelled_counter(names)
    marked = spelled_counter([n for n in names if not n.isalnum()] if MARKED_FIRST else [])
    chunks: list[tuple[int, tuple[int, ...] | None, int]] = []
    for cid in found:
        row = rows[cid]
        whole = f"{row.heading}\n{row.text}"
        # marked names first: one more marked name outweighs every unmarked one
        says = _says_change(row.heading, row.text) if event == _CHANGE else event in whole.casefold()  # "" is in all
        count = marked(whole) * (len(names) + 1) + spelled(whole) if says else 0
        chunks.append((cid, release_version(row.heading), count))
    out: dict[tuple[str, str], int] = {}  # one chunk a section, the best-ranked
    for cid in earliest(chunks, latest=event == _CHANGE):
        out.setdefault((rows[cid].path, rows[cid].heading), cid)
    return list(out.values())

