"""Pure ranking steps applied around fusion: how sections are scored and ordered once ranked.

Every function takes ranked lists and section keys and returns a new ranked list; nothing here reads
the index, so each rule is tested directly and measured on the benchmark (benchmarks/quality.py)
by switching its constant off.
"""

from __future__ import annotations

import re

from typing import AbstractSet, Callable, Hashable, Sequence, TypeVar

# The predicates on a section's trail and text live in an import-free module the grep hint shares;
# search reaches them here, beside the rules that use them.
from ..notes.sectiontext import (DIRECTIVE_MENTIONS_LAST, HEADING_DIRECTIVE, MKDOCSTRINGS_MARK,  # noqa: F401
                                TRAIL_SEPARATOR, defines, mostly_list, named_only_by_directives, titled_by)
from .route import CODE_SPAN

T = TypeVar("T")

# How far below a section its own subsection may rank and still be moved above it (0 = off).
SPECIFIC_WINDOW = 2
# Not above a lookup's own entry, a section below the page's title whose own heading is the name
# (`names.entry_heading`): "Canvas > The Primitives > Chords" for `chord`, not its "Error handling".
# Measured (docs/benchmarks.md): OWN_ENTRY_KEPT.
OWN_ENTRY_KEPT = True


def is_ancestor(parent: tuple[int, str], child: tuple[int, str]) -> bool:
    """True when `parent` is a section that contains `child` (same file, trail a proper prefix).

    Text before a file's first heading (trail "") contains nothing: it is a preamble, not a parent.
    """
    return (parent[0] == child[0] and bool(parent[1])
            and child[1].startswith(parent[1] + TRAIL_SEPARATOR))


def _section(k: Hashable) -> tuple[int, str] | None:
    if isinstance(k, tuple) and len(k) == 2 and isinstance(k[1], str):
        return k  # type: ignore[return-value]
    return None


def specific_first(ranked: Sequence[T], key: Callable[[T], Hashable], window: int,
                   kept: Callable[[T], bool] | None = None) -> list[T]:
    """Move a subsection above its own parent section when both rank and it is close behind.

    A parent's introduction shares the words and topic of every subsection under it, so it ranks with
    them on a specific question; the subsection that holds the specific answer is inside the parent
    and says more about less. When a section ranks above all of its own descendants and one of them
    is at most `window` places below it, the best-ranked such descendant takes the parent's place and
    the parent follows it. A parent that already follows one of its subsections stays where it is;
    sections that are not nested keep their order. Keys that are not (file, trail) pairs are left alone, and so is
    a parent that is `kept`.
    """
    if window <= 0:
        return list(ranked)
    items = list(ranked)
    out: list[T] = []
    # Every section that has a placed descendant: "is an ancestor of something placed" in one lookup
    # (the list is up to 100 sections deep and this runs on every query).
    above_placed: set[tuple[int, str]] = set()
    moved: set[int] = set()
    for i, item in enumerate(items):
        if i in moved:
            continue
        parent = _section(key(item))
        if parent is not None and parent[1] and parent not in above_placed and not (kept and kept(item)):
            for j in range(i + 1, min(len(items), i + 1 + window)):
                child = _section(key(items[j]))
                if j not in moved and child is not None and is_ancestor(parent, child):
                    out.append(items[j])
                    above_placed.update(_ancestors(child))
                    moved.add(j)
                    break
        out.append(item)
        if parent is not None:
            above_placed.update(_ancestors(parent))
    return out


# A section ranked below one of its own subsections goes this many places further down (0 = off): the subsection
# already stands for it, and its place goes to another answer. Measured (docs/benchmarks.md): PARENT_DEFER.
PARENT_DEFER = 2


def parents_deferred(ranked: Sequence[T], key: Callable[[T], Hashable], gap: int,
                     last: Callable[[T], bool] | None = None) -> list[T]:
    """`ranked` with each section that follows one of its own subsections (`is_ancestor`) moved `gap` places further
    down, after `gap` other items, or last when fewer follow; never behind an item that is `last` (a release entry
    moved down for not answering). A parent's introduction leads into the subsections under it; once one of them
    ranks above it, the two hits point the reader at one place. Keys that are not (file, trail) pairs, and a file's
    text before its first heading, are left where they are."""
    if gap <= 0:
        return list(ranked)
    out: list[T] = []
    placed: set[tuple[int, str]] = set()  # every ancestor of a placed section
    waiting: list[tuple[int, T]] = []  # (items still to place before it, deferred item)
    for item in ranked:
        sec = _section(key(item))
        if sec is not None and sec[1] and sec in placed:
            waiting.append((gap, item))
            continue
        if waiting and last is not None and last(item):
            out += [w for _, w in waiting]
            waiting = []
        out.append(item)
        if sec is not None:
            placed.update(_ancestors(sec))
        due = [w for n, w in waiting if n <= 1]
        waiting = [(n - 1, w) for n, w in waiting if n > 1]
        out += due
    return out + [w for _, w in waiting]


def _ancestors(section: tuple[int, str]) -> list[tuple[int, str]]:
    """Every (file, trail) that `is_ancestor` of `section`: its trail cut at each separator."""
    f, trail = section
    out: list[tuple[int, str]] = []
    at = trail.find(TRAIL_SEPARATOR)
    while at > 0:
        out.append((f, trail[:at]))
        at = trail.find(TRAIL_SEPARATOR, at + 1)
    return out


# A lookup (a bare name, `route.is_lookup`) puts the sections titled by the name first among those that
# spell it as often: reference pages title an entry by the name it documents (an environment variable,
# a config key, a class), while the how-tos and sibling pages that mention it do not. Only for lookups:
# in a question the name is context (a heading "Linux" is no answer to a question naming Linux).
# Measured (docs/benchmarks.md): identifier top1 80% -> 85% on queries_dev, 72% -> 76% on httpx, no
# stratum lower in any mode; applied to every named query it cost a keyword-mode mixed question.
TITLED_FIRST = True


# Among the sections a lookup's tier leaves equal (same verbatim count, both titled or both not), a section
# that is mostly a list (bullets, numbered items, table rows) goes after one that uses the name in prose or
# code: a list indexes the name among many (an exception hierarchy, a table of settings), a paragraph or an
# example explains it. Lookups only, like TITLED_FIRST. Measured (docs/benchmarks.md): httpx identifier
# 76% (92) -> 80% (96), three lookups each one place better; the other two sets unchanged, at thresholds
# from a half to 0.7 of the lines; a third of the lines cost queries_dev two lookups.
LISTS_LAST = True

# Among a lookup's sections equal so far (same verbatim count, none titled by the name), one holding an entry
# that defines the name (`sectiontext.defines`: a table row whose first cell is the name, a list item or line
# opening with the name set off by markup and a separator, a definition-list term) comes first (issue 38).
DEFINED_FIRST = True

# The note ends the chunk's text; in a ranked text the note's page's other names (its front-matter title and
# aliases, one a line: `db.queries.chunk_texts`) may follow it: textual's API pages are titled `textual.screen`.
_DOCSTRING_NOTE = re.compile(
    r"\((?:docstring|options) of ([\w.]+)(?:, a member of [\w.]+)?(, re-exported by [\w.]+)?(?:" + re.escape(MKDOCSTRINGS_MARK)
    + r")?: ([^\n]*, line \d+)\)\s*(?:\n[^\n()]*){0,8}$")


def docstring_of(body: str) -> str:
    """The full name of the object whose docstring a chunk shows (`notes.autodocpage.docstring_note`), or ""."""
    found = _DOCSTRING_NOTE.search(body[-400:])
    return found.group(1) if found else ""


def module_parts(full_name: str) -> set[str]:
    """The words of the modules in an object's full name (`pytest` and `hookspec` of
    `_pytest.hookspec.pytest_collection_modifyitems`): the package's, which any heading of its docs may spell. A
    capitalised part is a class, not a module (`Config` of `flask.Config.from_prefixed_env` stays)."""
    modules = [p for p in full_name.split(".")[:-1] if p[:1].islower() or p[:1] == "_"]
    return name_parts(modules)


# A lookup's docstring entry yields its place to the docs' own section whose last heading speaks of the name, when
# that section spells the name as often: "Utilities > Finding Application Folders" for `get_app_dir`, "Pager
# Support" for `echo_via_pager`, "Streaming with Context" for `stream_with_context`, ahead of the API page's
# `click.get_app_dir`. The docstring is the code's (an agent reads it there too); the section the docs' authors
# titled for the name explains it. Only such a section moves, and only past the docstring: moving every section
# whose heading shares a word with the name cost httpx and platen a lookup each. Measured (docs/benchmarks.md):
# flask identifier top1 53 -> 80 in auto, click (held out) 63 -> 83; none lower. Every docstring after the docs'
# own sections, with no heading asked for, cost pytest a lookup (its hook's reference entry is the label).
DOCSTRINGS_YIELD = True
_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_WORD = re.compile(r"[A-Za-z]+")


def name_parts(names: Sequence[str]) -> set[str]:
    """The case-folded words of `names` (3 letters or more): `get_app_dir` is get, app, dir; `ParameterSource`
    is parameter, source."""
    return {p.casefold() for n in names for p in _PART.findall(n) if len(p) >= 3}


def speaks_of(trail: str, parts: AbstractSet[str]) -> bool:
    """True when a word of the last heading of `trail` opens with one of `parts`: "Finding Application Folders"
    speaks of `app`, "Token Normalization" of `token`."""
    stems = [_singular(p) for p in parts]
    return any(w.startswith(stem) for w in _leaf_words(trail) for stem in stems)


# A lookup's section whose last heading speaks of every word of the name ("Capacity limiters" for `CapacityLimiter`,
# "Modal screens" for `ModalScreen`) is the docs' section about it in words: it follows the titled and defining
# sections and goes before the rest that spell the name as often. Names of this many words or more (one word shared
# with a heading is `speaks_of`, which the docstrings' yield reads). Measured (docs/benchmarks.md): anyio identifier
# top1 57 -> 60, textual 73 -> 77; none lower.
NAMED_IN_WORDS = 2


def speaks_all(trail: str, parts: AbstractSet[str]) -> bool:
    """True when each of `parts` (or its singular) opens a word of the last heading of `trail`: "Capacity limiters"
    speaks of all of `capacity` and `limiter`, "Dependency overrides" of `override-dependencies`."""
    words = _leaf_words(trail)
    return bool(parts) and all(any(w.startswith(stem) for w in words) for stem in map(_singular, parts))


# A lookup's section whose last heading holds the name as its one code span ("`Exit` a CLI program" for `typer.Exit`,
# the last part of a dotted name; "Calling `create_all()`") is about it, as one whose heading speaks of its words: it
# goes in that tier. Measured (docs/benchmarks.md): typer identifier top1 +1, sqlmodel top3 +1; none lower.
CODE_SPAN_HEADINGS = True


def code_span_forms(lookup: str) -> set[str]:
    """The case-folded forms a heading's code span may give `lookup` in: the whole, and a dotted name's last part."""
    whole = lookup.strip().strip("`").strip().casefold()
    forms = {whole} if whole else set()
    if "." in whole.strip("."):
        forms.add(whole.rsplit(".", 1)[-1])
    return {f for f in forms if f}


def heading_codes(trail: str, forms: AbstractSet[str]) -> bool:
    """True when the last heading of `trail` holds one code span, and that span, call parentheses off, is one of
    `forms` ("Mapping from `BeforeValidator`, `AfterValidator` and `WrapValidator`" is about more than one)."""
    spans = CODE_SPAN.findall(trail.rsplit(TRAIL_SEPARATOR, 1)[-1])
    if len(spans) != 1:
        return False
    code = spans[0].strip().casefold()
    if code.endswith(")") and "(" in code:
        code = code[:code.index("(")]
    return code in forms


# A name's plural part is spoken of by its singular: `override-dependencies` by "Dependency overrides".
# Measured (docs/benchmarks.md): SINGULAR_PARTS.
SINGULAR_PARTS = True


def _singular(part: str) -> str:
    """`part` without a plural ending, as a prefix of its forms: "dependencies" -> "dependenc", "classes" -> "class"."""
    if not SINGULAR_PARTS or len(part) < 5 or not part.endswith("s") or part.endswith(("ss", "us", "is")):
        return part
    if part.endswith("ies"):
        return part[:-3]
    if part.endswith(("sses", "ches", "shes", "xes")):
        return part[:-2]
    return part[:-1]


def _leaf_words(trail: str) -> list[str]:
    """The case-folded words of the last heading of `trail`."""
    return [w.casefold() for w in _WORD.findall(trail.rsplit(TRAIL_SEPARATOR, 1)[-1])]


# How many places a release history's section moves down when a plain question does not ask about
# releases (0 = off). Measured on both dev sets (docs/benchmarks.md): 1-3 and 100 all lift plain
# questions on both; 3 takes a changelog entry out of the first three when three other hits follow it.
HISTORY_DEMOTE = 3
# A blog's posts (MkDocs Material's `docs/blog/posts/`, Docusaurus' `blog/`) are dated announcements, a release
# history told as stories: a folder named `blog` holds history (a page named so, Flask's tutorial `blog.rst`, does
# not). Measured (docs/benchmarks.md): textual plain 50 / 70 -> 60 / 90 and identifier 70 -> 73, hatch plain 50 -> 60
# and hybrid identifier +1; 18 cells better, none worse.
BLOG_IS_HISTORY = True
_HISTORY_NAMES = {"changelog", "changelogs", "changes", "history", "news", "releases", "release-notes", "release_notes",
                  "whatsnew", "whats-new", "relnotes"}  # Git's `Documentation/RelNotes/2.3.0.adoc`, RuboCop's `relnotes/`
# The same names written as one word, and a history named for what it lists (`versionhistory.rst`: AnyIO's).
_JOINED_HISTORY_NAMES = {"changelog", "releasenotes", "whatsnew", "versionhistory", "releasehistory",
                         "changehistory"}
# Release intent is decided on strong signals only: words that name releases themselves, a version
# number, or a "when" question about a change. How-to words that also appear in release notes ("change",
# "new", "fix", "added", "since", "when" alone) are ordinary in questions: "inspect or change models" asks
# how, and read as release intent it let a changelog entry rank first.
_RELEASE_WORDS = {"release", "released", "releases", "releasing", "version", "versions", "versioned",
                  "changelog", "changelogs", "regression", "regressions", "deprecated", "deprecation",
                  "deprecations"}
# A "when" question is about history only in the past tense, asking when something happened to the
# project: "when did the library stop guessing charsets", "when was the flag added". "When a header is
# added", "when should I retry" and "when the pool is full" ask how it behaves, not when it changed.
_CHANGE_EVENTS = {"added", "introduced", "removed", "dropped", "changed", "fixed", "renamed", "deprecated"}


def is_blog(path: str) -> bool:
    """True for a file in a folder named `blog` (MkDocs Material's `docs/blog/posts/`, Docusaurus' `blog/`)."""
    return "blog" in path.casefold().split("/")[:-1]


# A history split by year or release series names its part beside the history's name (`2012-news.md`, titled
# "Changelog - 2012"; `changes-2.x.md`; data.table's `NEWS.0.md`, `NEWS.1.md` after a dot): the name is read without
# it. Measured (docs/benchmarks.md): DATED_HISTORIES.
DATED_HISTORIES = True
_STEM_PARTS = re.compile(r"[-_ ]|\.(?=v?\d)")
_YEAR_OR_SERIES = re.compile(r"v?\d+(?:\.(?:\d+|x))*")


# For a query naming something, how many places a section of the README at the notes' root moves down, past hits that
# spell the query's names as often (0 = off). The README is the project's front page: it sums up the options the docs
# explain, so its section on one is a shorter copy of the docs' own. Not for a plain question: a README's tour may be
# its best answer (loguru's, which its docs include). Measured (docs/benchmarks.md): README_DEMOTE.
README_DEMOTE = 1
# A lookup of one word (`diagnose`, which the keyword half already takes as a name) names something too, for this
# move. Measured (docs/benchmarks.md): README_LOOKUP_WORD.
README_LOOKUP_WORD = True


# A stem ending in `changelog` after a `-` or `_` names a changelog; not so the other history words, which end the names of
# how-tos and features ("manage-releases", "git-history", "Version history", "gauging_changes").
# Measured (docs/benchmarks.md): NAMED_CHANGELOGS.
NAMED_CHANGELOGS = True
_CHANGELOG_NAMES = {"changelog", "changelogs"}


# The suffixes of a front page: a note format's (`README.md`, `README.rst`, `README.txt`), or none (`README`, plain
# text). A README named for what it covers (`README.platform`, `README.privsep`: OpenSSH's) is a page of its own.
_FRONT_SUFFIXES = frozenset({"", "md", "mdx", "markdown", "rst", "rest", "adoc", "asciidoc", "org", "pod", "texi",
                             "texinfo", "rdoc", "txt", "text"})


def is_front_readme(path: str) -> bool:
    """True for the README at the notes' root (`README.md`, `README.rst`, `README`): the project's front page; not one
    named for what it covers (`README.platform`)."""
    if "/" in path:
        return False
    low = path.casefold()
    return low.partition(".")[0] == "readme" and (low.rpartition(".")[2] if "." in low else "") in _FRONT_SUFFIXES


def is_history_file(path: str) -> bool:
    """True for a release history (CHANGELOG.md, HISTORY.md, NEWS.md, changelog/…, changelogs/…, versionhistory.rst,
    release-history.md, blog/…): it tells when and in which release something changed, not how it works."""
    parts = path.casefold().split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    if DATED_HISTORIES and any(c.isdigit() for c in stem):  # one per year or series: `2012-news.md`, `notes-3.x.md`
        stem = "-".join(t for t in _STEM_PARTS.split(stem) if not _YEAR_OR_SERIES.fullmatch(t)) or stem
    # a folder of histories: uv's `changelogs/0.3.x.md`, towncrier's fragments in `changelog.d/`
    folders = [p.removesuffix(".d") for p in parts[:-1]]
    if stem in _HISTORY_NAMES or any(p in _HISTORY_NAMES for p in folders) or (BLOG_IS_HISTORY and is_blog(path)):
        return True
    joined = stem.replace("-", "").replace("_", "").replace(" ", "")  # `version_history`, `Release Notes`
    if joined in _JOINED_HISTORY_NAMES:
        return True
    # a changelog named for its project or hidden from the site's navigation: `telescope_changelog.txt`, `_changelog.md`
    return NAMED_CHANGELOGS and _STEM_PARTS.split(stem)[-1] in _CHANGELOG_NAMES


# A lookup of a name (a bare name, no question) is not answered by an upgrade guide's note on it ("Upgrading to 2.0 >
# Use OneOf instead of fields.Select"): such a note tells what changed in a release, as a changelog entry does, and
# moves down as one. A question keeps it where it ranks ("My old code awaits TaskGroup.spawn ..."): there the change
# may be what is asked. Measured (docs/benchmarks.md): UPGRADE_NOTES_LATER.
UPGRADE_NOTES_LATER = True
_UPGRADE_WORDS = re.compile(r"\b(?:upgrad|migrat)\w*", re.IGNORECASE)
# a release: `2.0`, `2.x`, `v3`, or a major number alone ("AnyIO 2"); not a proposal's number ("PEP 639")
_RELEASE_NUMBER = re.compile(r"(?<![\w.])v?(?:\d+\.(?:\d+|x)(?:\.\d+)*|\d{1,2})(?![\w.])")


def is_upgrade_note(trail: str) -> bool:
    """True for a section under an upgrade guide's release heading: a heading of the trail with an upgrade or
    migration word and a release number ("Upgrading to 3.0", "Migrating from AnyIO 2 to AnyIO 3", "Migration to
    2.x"; not "Migrating to PEP 639 License Expressions")."""
    return any(_UPGRADE_WORDS.search(h) and _RELEASE_NUMBER.search(h) for h in trail.split(TRAIL_SEPARATOR))


def _words(query: str) -> list[str]:
    return [w for w in (raw.strip("\"'`()[]{}<>,;:!?.") for raw in query.casefold().split()) if w]


def _is_version_number(word: str) -> bool:
    """`0.8`, `v14.1.1`: dotted numbers, optionally after a `v`."""
    bare = word[1:] if word.startswith("v") else word
    nums = bare.split(".")
    return len(nums) >= 2 and nums[0].isdigit() and all(n.isdigit() for n in nums if n)


def asks_about_releases(query: str) -> bool:
    """True when a query asks about history: a release word (release, version, changelog, regression,
    deprecated), a version number (`0.8`, `v14.1.1`), "since when", or a past-tense "when" question
    about the project ("when did the option appear", "when was the flag added")."""
    words = _words(query)
    if any(w in _RELEASE_WORDS or _is_version_number(w) for w in words):
        return True
    for i, w in enumerate(words):
        if w == "since" and i + 1 < len(words) and words[i + 1] == "when":
            return True
        if w == "when" and i + 1 < len(words):
            aux = words[i + 1]
            if aux == "did" or (aux in ("was", "were") and any(e in _CHANGE_EVENTS for e in words[i + 2:])):
                return True
    return False


def history_later(ranked: Sequence[T], is_history: Callable[[T], bool], places: int) -> list[T]:
    """Move each release-history hit `places` positions down (stable among themselves): a changelog
    entry names the feature it changed, so it matches a how-to question as well as the page that
    documents the feature, but it answers "when", not "how"."""
    if places <= 0:
        return list(ranked)
    keyed = [(i + (places + 0.5 if is_history(item) else 0), i, item) for i, item in enumerate(ranked)]
    return [item for _, _, item in sorted(keyed, key=lambda t: (t[0], t[1]))]


def history_later_in_tier(ranked: Sequence[T], is_history: Callable[[T], bool], tier: Callable[[T], int],
                          places: int) -> list[T]:
    """`history_later` for a query that names something: a release-history hit moves down past at most
    `places` following non-history hits, and only past hits that spell at least as many of the query's
    names verbatim (`tier`). A changelog entry that is the only note spelling a name keeps its place;
    one that merely repeats a name the documentation also spells goes below that documentation."""
    if places <= 0:
        return list(ranked)
    items = list(ranked)
    for i in range(len(items) - 1, -1, -1):
        if not is_history(items[i]):
            continue
        j = i
        while (j - i < places and j + 1 < len(items) and not is_history(items[j + 1])
               and tier(items[j + 1]) >= tier(items[j])):
            items[j], items[j + 1] = items[j + 1], items[j]
            j += 1
    return items


def place_scores(scores: Sequence[float]) -> list[float]:
    """Scores as shown beside hits in rank order: each at most the one above it (a running minimum).

    The rules that reorder after fusion (names first, release histories later, subsections first)
    move hits without rescoring them, and a deeper search's extra hits come after the fixed depth's
    on a scale of their own, so raw scores can rise down the list (1.004, 0.856, 0.959) and read as
    a ranking that disagrees with the order. Capping keeps every hit at or below its own evidence.
    """
    out: list[float] = []
    for s in scores:
        out.append(min(s, out[-1]) if out else s)
    return out


# A docstring an automodule shows only because its module's `__all__` re-exports the name (`.. automodule::
# marshmallow` over `marshmallow.Schema`, documented on its own page as `marshmallow.schema.Schema`) is a second copy:
# where its other copy is among the ranked sections too, that copy takes the re-exported one's place (when it ranks
# lower) and the re-exported copy leaves. A name no other page documents (urllib3's `urllib3.util.Retry`) keeps its
# only copy. Measured (docs/benchmarks.md): REEXPORTS_GIVE_WAY.
REEXPORTS_GIVE_WAY = True
_REEXPORTED = ", re-exported by "


def reexports_give_way(ranked: Sequence[tuple[int, float]], texts: dict[int, str]) -> list[tuple[int, float]]:
    """`ranked` with each re-exported docstring copy replaced by the best-ranked other copy of the same docstring
    (`texts`: the ranked chunks' texts), which leaves its own place."""
    if not REEXPORTS_GIVE_WAY or not any(_REEXPORTED in texts.get(cid, "") for cid, _ in ranked):
        return list(ranked)  # most searches: no re-exported copy to read the notes for
    notes = {cid: _DOCSTRING_NOTE.search(texts.get(cid, "")[-400:]) for cid, _ in ranked}
    own: dict[str, int] = {}  # a docstring's source -> the place of its best-ranked copy that is not re-exported
    for place, (cid, _) in enumerate(ranked):
        found = notes[cid]
        if found and not found.group(2):
            own.setdefault(found.group(3), place)
    if not own:
        return list(ranked)
    out: list[tuple[int, float]] = []
    moved: set[int] = set()  # places whose chunk took a re-exported copy's place above it
    for place, (cid, score) in enumerate(ranked):
        found = notes[cid]
        other = own.get(found.group(3)) if found and found.group(2) else None
        if other is None:
            if place not in moved:
                out.append((cid, score))
            continue
        if other > place and other not in moved:
            moved.add(other)
            out.append((ranked[other][0], score))
    return out


# A docstring a mkdocstrings directive shows (`::: pkg.Name`, `notes/mkdocsdirectives.py`) is the generated
# reference of a MkDocs site; among the first GUIDES_WINDOW hits, the docs' own sections go before such entries, which
# answer where no section of the docs speaks of the name. A heading written as the directive (`#### ::: mkdocs.
# exceptions.PluginError`) is the page's own section for the object, its docstring that section's text: it keeps its
# place. Measured (docs/benchmarks.md): GUIDES_BEFORE_MKDOCSTRINGS.
GUIDES_BEFORE_MKDOCSTRINGS = True
GUIDES_WINDOW = 5
_MKDOCSTRINGS_NOTE = MKDOCSTRINGS_MARK + ": "  # then the note's source


def guides_before_mkdocstrings(ranked: Sequence[tuple[int, float]], texts: dict[int, str],
                               heading_of: Callable[[int], str]) -> list[tuple[int, float]]:
    """`ranked` with the mkdocstrings entries among its first GUIDES_WINDOW hits (`texts`: the ranked chunks'; read
    their headings with `heading_of` only when one is such an entry) after the other hits of those places, each group
    in its order; scores stay with the places."""
    head = list(ranked[:GUIDES_WINDOW])
    marked = [_MKDOCSTRINGS_NOTE in texts.get(cid, "")[-400:] for cid, _ in head] if GUIDES_BEFORE_MKDOCSTRINGS else []
    if not any(marked):
        return list(ranked)  # most searches: no such entry
    generated = [m and not heading_of(cid).rsplit(TRAIL_SEPARATOR, 1)[-1].startswith(HEADING_DIRECTIVE)
                 for m, (cid, _) in zip(marked, head)]
    if not any(generated) or all(generated):
        return list(ranked)
    order = [item for item, g in zip(head, generated) if not g] + [item for item, g in zip(head, generated) if g]
    return [(cid, score) for (cid, _), (_, score) in zip(order, head)] + list(ranked[GUIDES_WINDOW:])


# A man page (`git-rerere(1)`, `cargo-metadata(1)`) names itself in NAME (one line), lists its usage forms in SYNOPSIS
# (which spell every subcommand and flag), points elsewhere in SEE ALSO, and explains itself in DESCRIPTION: a hit on
# one of those stubs is a hit on the page, whose explanation is its DESCRIPTION. So the page's DESCRIPTION, when it
# ranks below the page's first stub, trades places with that stub; no other section moves.
MAN_PAGE_DESCRIPTION_FIRST = True
_MAN_TITLE = re.compile(r"[\w.+-]+\(\d[a-z]*\)")
_MAN_STUBS = {"NAME", "SYNOPSIS", "SEE ALSO"}


def man_page_part(trail: str) -> tuple[str, str] | None:
    """(the page's title, its section) when `trail` is a man page's top-level section ("git-rerere(1) > NAME"), else
    None."""
    parts = trail.split(TRAIL_SEPARATOR)
    if len(parts) != 2 or not _MAN_TITLE.fullmatch(parts[0].strip()):
        return None
    return parts[0].strip(), parts[1].strip()


def man_description_first(ranked: Sequence[T], place: Callable[[T], tuple[str, str]]) -> list[T]:
    """`ranked` with each man page's DESCRIPTION in the place of its first-ranked stub (NAME, SYNOPSIS, SEE ALSO) and
    that stub in the DESCRIPTION's, when the stub ranks above it; `place(item)` is the item's (path, trail)."""
    items = list(ranked)
    if not MAN_PAGE_DESCRIPTION_FIRST:
        return items
    stub: dict[tuple[str, str], int] = {}  # a page's first-ranked stub, by (path, title)
    description: dict[tuple[str, str], int] = {}
    for i, item in enumerate(items):
        path, trail = place(item)
        part = man_page_part(trail)
        if part is not None and part[1] in _MAN_STUBS:
            stub.setdefault((path, part[0]), i)
        elif part is not None and part[1] == "DESCRIPTION":
            description.setdefault((path, part[0]), i)
    for page, i in stub.items():
        j = description.get(page)
        if j is not None and j > i:  # the two trade places: no other section moves
            items[i], items[j] = items[j], items[i]
    return items
