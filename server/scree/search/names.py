"""The verbatim-name tier: which chunks spell a query's names exactly, and how a lookup's sections are ordered
among those that spell them as often (titled by the name, defining it, mostly a list, a docstring yielding); and
a dotted name's or search operator's own entry (`dotted_entries`, `entries_first`), which reference pages title by
the name or by its last part.

FTS5 splits identifiers into words and drops punctuation, the user did not: a chunk that spells `--pre`,
`GH_REPO` or `%%comment%%` verbatim outranks one that only matches its parts (`keyword.keyword_ranking` applies
the tier to its pool; `search._Ranker` asks `exact_chunks` whether a name is rare).
"""

from __future__ import annotations

import re
from typing import AbstractSet, Callable, Hashable, Sequence

from ..db import queries
from ..index.store import Index
from ..notes import sectiontext
from ..notes.sectiontext import TRAIL_SEPARATOR
from . import ranking
from .keyspelling import spelled_in_table, spelled_in_yaml
from .route import dotted_names, named_identifiers, operator_names
from ..records import FileScope


# A config key of several words names the flag of the same name too (`force-exclude` in `pyproject.toml` is
# `--force-exclude`), so a lookup of the key counts the flag's entry as spelling it (issue 38; measured: black +1,
# no other cell moved). Not a one-word name: `pre` is a word, not `--pre`.
FLAG_SPELLS_KEY = True


def verbatim_pattern(name: str) -> re.Pattern[str]:
    # Not inside a longer word or flag: `--type` must not match `--type-add`, nor `pre` match `pre_stop`. A
    # name that starts or ends with other punctuation is bounded by it (`path:` in `path:docs/`, `%%x%%`).
    # A name of several words (`{{ page.title }}`: `route.phrase_names`) matches with any whitespace between them.
    before = r"(?<![\w-])" if name[:1].isalnum() or name[:1] in "_-" else ""
    if FLAG_SPELLS_KEY and name[:1].isalpha() and "-" in name:
        before += "(?:--)?"  # a config key of several words is also its flag: `force-exclude`, `--force-exclude`
    after = r"(?![\w-])" if name[-1:].isalnum() or name[-1:] in "_-" else ""
    return re.compile(before + r"\s+".join(re.escape(word) for word in name.split()) + after)


# A dotted config key is spelled by a TOML or INI table and a key in it: `resolution.respect-source-order` by
# "[tool.pdm.resolution]" and, under it, "respect-source-order = true", as a pyproject.toml example writes it
# (`keyspelling.spelled_in_table`). Measured (docs/benchmarks.md): TABLE_KEYS.
TABLE_KEYS = True
# And by YAML nesting: `html.baseurl` by a line "html:" and, indented under it, "baseurl: ''", as a `_config.yml` or
# `mkdocs.yml` example (or the project's file of defaults a page includes) writes it (`keyspelling.spelled_in_yaml`).
# Measured (docs/benchmarks.md): YAML_KEYS.
YAML_KEYS = True
_DOTTED_KEY = re.compile(r"[a-z_][a-z0-9_-]*(?:\.[a-z_][a-z0-9_-]*)+")


# A code path of three parts or more is spelled by its last two too: a guide that imports the module writes
# `to_thread.run_sync` for `anyio.to_thread.run_sync` (`from anyio import to_thread`), `Session.mount` for
# `requests.Session.mount`, as a heading may title it so (DOTTED_TAIL_ENTRIES). Measured (docs/benchmarks.md):
# DOTTED_TAILS.
DOTTED_TAILS = True
_CODE_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,}")


def spelling(name: str) -> str:
    """What spells `name` verbatim: the name, or a code path's last two parts (DOTTED_TAILS), which the whole
    path spells too."""
    if DOTTED_TAILS and _CODE_PATH.fullmatch(name):
        return ".".join(name.rsplit(".", 2)[-2:])
    return name


def spelled_counter(names: Sequence[str]) -> Callable[[str], int]:
    """A function counting how many of `names` (case-folded) a text spells verbatim (`spelling`)."""
    # Each name's regex is compiled on its first substring hit: a long query names hundreds of words
    # most chunks lack, and compiling them all up front cost more than the search (issue 21).
    patterns: dict[str, re.Pattern[str]] = {}
    spelt = {n: spelling(n) for n in names if n.strip()}
    heads = [(n, s.split()[0] if " " in s else s) for n, s in spelt.items()]  # what a substring test looks for

    def verbatim(name: str) -> re.Pattern[str]:
        if name not in patterns:
            patterns[name] = verbatim_pattern(spelt[name])
        return patterns[name]

    tabled = [(n, n.rpartition(".")[2]) for n in names if TABLE_KEYS and _DOTTED_KEY.fullmatch(n)]
    # a one-letter flag is spelled in its own case only (`sectiontext.FLAG_CASE`): read in the text as written
    cased = {n for n in spelt if sectiontext.cased_name(n)}

    def spelled(text: str) -> int:
        hay = text.casefold()
        # The substring test first: most chunks lack the name, and the bounded regex is 10x slower.
        found = {n for n, first in heads if first in (text if n in cased else hay)
                 and verbatim(n).search(text if n in cased else hay)}
        return len(found) + sum(1 for n, key in tabled
                                if n not in found and key in hay and (("[" in hay and spelled_in_table(hay, n))
                                                                      or (YAML_KEYS and ":" in hay
                                                                          and spelled_in_yaml(hay, n))))

    return spelled


def spells_any(index: Index, ids: Sequence[int], spelled: Callable[[str], int], batch: int = 8) -> bool:
    """True when one of the chunks `ids` spells what `spelled` counts (`spelled_counter`); their texts read `batch`
    at a time, as the first usually spells it."""
    for start in range(0, len(ids), batch):
        if any(spelled(text) for text in queries.chunk_texts(index.conn, ids[start:start + batch]).values()):
            return True
    return False


def exact_chunks(index: Index, name: str, limit: int, file_ids: FileScope | None) -> list[int]:
    """Ids of up to `limit` chunks that spell `name` (case-folded) verbatim, as `_verbatim` bounds it."""
    exact = verbatim_pattern(name)
    found = queries.spelling_chunks(index.conn, name, limit, file_ids)
    texts = queries.chunk_texts(index.conn, found)
    cased = sectiontext.cased_name(name)  # a one-letter flag as written
    return [cid for cid in found if exact.search(texts.get(cid, "") if cased else texts.get(cid, "").casefold())]


# A command's entry is titled by its subcommand under the tool's reference ("Available tool commands > check" for
# `scrapy check`, whose text gives its syntax, `scrapy check [-l] <spider>`): a lookup of a command is titled by the
# words after the program's, in a section that spells the whole command. Measured (docs/benchmarks.md):
# SUBCOMMAND_TITLES.
SUBCOMMAND_TITLES = True
_COMMAND = re.compile(r"[a-z][a-z0-9_.-]*(?: [a-z][a-z0-9_-]*){1,2}")


# A lookup is titled by the whole of it too, not only by the names it spells ("Command Line Reference > towncrier
# check" for `towncrier check`, whose only name is `towncrier`). 1 on, 0 off. Measured (docs/benchmarks.md):
# WHOLE_TITLES.
WHOLE_TITLES = 1


# A heading repeated under one page root more often than this is a category there, and titles no lookup
# (`_untitle_repeated`): towncrier's release notes have a "Misc" section in each release, and a lookup of the
# fragment type `misc` took them all. The same bound as a dotted name's entries (ENTRY_MAX_SECTIONS); 0 is off.
# Measured (docs/benchmarks.md): REPEATED_TITLES_MAX.
REPEATED_TITLES_MAX = 2

# A lookup of a word is titled by its plural too: a guide titles the section on `chord` "Chords", as it titles
# "Signals" and "Fixtures". Measured (docs/benchmarks.md): PLURAL_TITLES.
PLURAL_TITLES = True
# A name is titled without the marks that open it, too: `_subdirectory`, the key as `copier.yml` writes it, under
# "Available settings > `subdirectory`"; `.editorconfig` under "EditorConfig". Not a flag's dashes: a CLI reference
# titles `--pool` with them, and "Pool" is another topic. Measured (docs/benchmarks.md): BARE_TITLES.
BARE_TITLES = True
_OPENING_MARKS = "_@.$:"


def title_forms(titles: Sequence[str]) -> list[str]:
    """`titles`, the English plural of each that is one lower-case word (`chord`: "chords", `match`: "matches";
    PLURAL_TITLES), and each without the marks that open it (`_subdirectory`: "subdirectory"; BARE_TITLES)."""
    plurals = [t + ("es" if t.endswith(("s", "x", "z", "ch", "sh")) else "s")
               for t in titles if PLURAL_TITLES and t.isalpha() and t.islower()]
    bare = [b for t in titles if BARE_TITLES and (b := t.lstrip(_OPENING_MARKS)) != t and b[:1].isalnum()]
    return [*titles, *plurals, *bare]


def lookup_names(lookup: str, vocabulary: AbstractSet[str]) -> list[str]:
    """A lookup's names (`route.named_identifiers`) and the whole of it, case-folded: `Restricted mode` is looked up
    as itself too."""
    whole = sectiontext.fold_name(lookup.strip().strip("`").strip())
    names = named_identifiers(lookup, vocabulary)
    return [*names, whole] if whole and whole not in names else names


# A command lookup's links are followed by the whole command, not by its program: in pixi's getting-started list every
# link opens with `pixi`, and the one other command page among the candidates (`pixi global sync`) was taken for
# `pixi global install`'s entry. Measured (docs/benchmarks.md): COMMAND_LINKS_WHOLE.
COMMAND_LINKS_WHOLE = True


def link_names(lookup: str, vocabulary: AbstractSet[str]) -> list[str]:
    """The names a lookup's links are followed by (`links.linked_entries`): its names and the whole of it
    (`lookup_names`: a link named "Restricted mode" for `Restricted mode`), but a command's program (`pixi` of
    `pixi global install`), which opens the link to every other command (COMMAND_LINKS_WHOLE)."""
    found = lookup_names(lookup, vocabulary)
    if COMMAND_LINKS_WHOLE and command_tail(lookup.strip()):
        program = lookup.split(None, 1)[0].casefold()
        found = [name for name in found if name != program]
    return found


def one_word_name(lookup: str) -> list[str]:
    """A lookup of one word as the name it looks up, case-folded (`diagnose`, which the vocabulary may not hold);
    none for a longer one."""
    return [sectiontext.fold_name(lookup.strip().strip("`"))] if len(lookup.split()) == 1 else []


def lookup_titles(lookup: str, vocabulary: AbstractSet[str]) -> list[str]:
    """What titles a lookup's own entry: its names and the whole of it (`lookup_names`), and their other forms
    (`title_forms`)."""
    return title_forms(lookup_names(lookup, vocabulary))


def entry_heading(trail: str, titles: Sequence[str]) -> bool:
    """True when a section below its page's title has one of `titles` for its own heading (`lookup_titles`)."""
    if not titles or TRAIL_SEPARATOR not in trail:
        return False
    return ranking.titled_by(trail.rsplit(TRAIL_SEPARATOR, 1)[-1], titles)


def command_tail(lookup: str) -> str:
    """The subcommand a lookup of a command names (`scrapy check`: `check`; `uv pip compile`: `pip compile`): the words
    after the first, for a lookup of two or three lower-case words; "" for anything else."""
    return lookup.split(" ", 1)[1] if SUBCOMMAND_TITLES and _COMMAND.fullmatch(lookup) else ""


def names_first(ranked: Sequence[tuple[int, float]], texts: dict[int, str],
                names: Sequence[str], lookup: str = "") -> list[tuple[int, float]]:
    """`ranked` re-ordered by how many of `names` (case-folded) each chunk's text spells verbatim,
    most first; equal counts keep their order (BM25's), except that for a `lookup` (the query's text) a
    section whose heading trail has a heading that is one of the names comes first
    (`ranking.titled_by`), then one holding an entry that defines the lookup (`ranking.defines`: a table row,
    list item or term opening with it), then one whose last heading speaks of every word of it (`ranking.speaks_all`:
    "Modal screens" for `ModalScreen`) or holds it as its one code span (`ranking.heading_codes`: "`Exit` a CLI
    program" for `typer.Exit`), and a section that spells it only in autodoc directive lines
    (`ranking.named_only_by_directives`) or is mostly a list (`ranking.mostly_list`) comes after the others; then the
    name's own docstring entry goes before other objects' docstrings, which go after the docs' own sections of its
    tier (OWN_DOCSTRING_FIRST, OTHER_DOCSTRINGS_AFTER); last, the first docstring entry of a tier yields its place to
    the docs' own section whose heading speaks of the lookup (`ranking.DOCSTRINGS_YIELD`; not one naming it only in
    directive lines), or, on an API stub page
    (`on_stub_page`), to the docs' best-ranked own section whatever its heading; then the entries of the looked-up
    class's members go after the rest of their tier (`MEMBERS_AFTER`).

    Scores stay in step with the order: each name spelled adds the pool's whole BM25 range, so a
    fusion that reads scores (not only ranks) sees the verbatim tier as far above the rest."""
    if not ranked:
        return []
    spelled = spelled_counter(names)
    counts = {cid: spelled(texts.get(cid, "")) for cid, _ in ranked}
    titled: dict[int, bool] = {}
    defined: dict[int, bool] = {}
    listed: dict[int, bool] = {}
    directed: dict[int, bool] = {}
    worded: dict[int, bool] = {}
    member: dict[int, bool] = {}
    own: dict[int, bool] = {}
    doc_of: dict[int, bool] = {}
    if lookup:
        # What a lookup looks up is the whole of it: `platenctl jobs requeue` is defined by its own entry,
        # not by one that opens with `platenctl`.
        terms = [lookup.strip().strip("`").strip()]
        subcommand = command_tail(terms[0])
        # a command is spoken of by its subcommand's words: "Reinstall all" for `pipx reinstall-all`
        parts = ranking.name_parts([subcommand] if subcommand else terms)
        in_words = len(parts) >= ranking.NAMED_IN_WORDS > 0
        whole = verbatim_pattern(terms[0].casefold()) if subcommand else None
        # a command's program titles the tool's own pages, not the command's: `pipx` of `pipx reinstall-all`
        program = terms[0].split(" ", 1)[0].casefold() if subcommand else ""
        titles = title_forms([*(n for n in names if n != program), *terms[:WHOLE_TITLES]])
        coded = ranking.code_span_forms(terms[0]) if ranking.CODE_SPAN_HEADINGS else set()
        for cid, _ in ranked:
            text = texts.get(cid, "")
            trail, _, body = text.partition("\n")
            titled[cid] = ranking.TITLED_FIRST and (ranking.titled_by(trail, titles) or bool(
                whole and ranking.titled_by(trail, [subcommand]) and whole.search(text.casefold())))
            # the heading first: a docstring's note is looked for at the end of the whole text
            documented = ranking.docstring_of(text)
            defined[cid] = ranking.DEFINED_FIRST and not titled[cid] and ranking.defines(body, terms)
            own[cid] = (OWN_DOCSTRING_FIRST or OTHER_DOCSTRINGS_AFTER) and _documents(documented, terms[0])
            doc_of[cid] = bool(documented)
            listed[cid] = ranking.LISTS_LAST and ranking.mostly_list(body)
            directed[cid] = ranking.DIRECTIVE_MENTIONS_LAST and ranking.named_only_by_directives(body, names)
            worded[cid] = ((in_words and ranking.speaks_all(trail, parts)) or bool(
                coded and ranking.heading_codes(trail, coded))) and not documented
            member[cid] = MEMBERS_AFTER and _member_of(documented, terms[0])
    if lookup and REPEATED_TITLES_MAX:
        _untitle_repeated(titled, texts, titles)
    ordered = sorted(ranked, key=lambda item: (-counts[item[0]], not titled.get(item[0], False),
                                               not defined.get(item[0], False), directed.get(item[0], False),
                                               not worded.get(item[0], False), listed.get(item[0], False)))
    if any(own.values()):
        ordered = _own_docstring_first(ordered, counts, own, doc_of)
    if lookup and ranking.DOCSTRINGS_YIELD:
        ordered = _yield_to_own_section(ordered, counts, texts, parts, directed)
    if any(member.values()):  # after the yield, which reads where the docstrings first stand
        ordered = sorted(ordered, key=lambda item: (-counts[item[0]], member.get(item[0], False)))
    span = max(s for _, s in ranked) - min(s for _, s in ranked) or 1.0
    return [(cid, s + counts[cid] * span) for cid, s in ordered]


# A lookup of a class (`HTTPAdapter`) is answered by the class's entry, not by its members' (`requests.adapters.
# HTTPAdapter.close`, `.add_headers`, ...), each of which spells the class in its heading and signature and, being
# short, outranks the class's long docstring in BM25: a member's entry goes after the sections that are not one
# (once a docstring has yielded its place to the docs' own section, `_yield_to_own_section`).
# Measured (docs/benchmarks.md): MEMBERS_AFTER.
MEMBERS_AFTER = True


# A name's own docstring entry (`werkzeug.wrappers.Request.max_content_length` for `max_content_length`) goes before
# the docstring entries of other objects that spell the name as often, which only list it (`:param
# max_content_length:` of `get_input_stream` and `parse_form_data`): of the code's entries, the name's own defines it.
# The docs' own sections keep their places. Measured (docs/benchmarks.md): OWN_DOCSTRING_FIRST.
OWN_DOCSTRING_FIRST = True


# Once the name's own docstring entry is among them, the docstrings of other objects that spell the name as often
# (`flask.views.View.as_view` and `View` for `init_every_request`) only use it: they go after the docs' own sections
# of that tier, which may explain it ("View Lifetime and self"). Measured (docs/benchmarks.md): OTHER_DOCSTRINGS_AFTER.
OTHER_DOCSTRINGS_AFTER = True


def _own_docstring_first(ordered: list[tuple[int, float]], counts: dict[int, int], own: dict[int, bool],
                         doc_of: dict[int, bool]) -> list[tuple[int, float]]:
    """`ordered` with the first of the name's `own` docstring entries moved just ahead of the first docstring entry
    of another object (`doc_of`) above it that spells the names as often (OWN_DOCSTRING_FIRST), and then the other
    objects' docstring entries of that tier after its other sections (OTHER_DOCSTRINGS_AFTER)."""
    at = next(i for i, (cid, _) in enumerate(ordered) if own.get(cid))
    tier = counts[ordered[at][0]]
    for i, (cid, _) in enumerate(ordered[:at] if OWN_DOCSTRING_FIRST else []):
        if doc_of.get(cid) and not own.get(cid) and counts[cid] == tier:
            ordered = [*ordered[:i], ordered[at], *ordered[i:at], *ordered[at + 1:]]
            break
    if not OTHER_DOCSTRINGS_AFTER:
        return ordered
    other = lambda cid: counts[cid] == tier and doc_of.get(cid, False) and not own.get(cid, False)  # noqa: E731
    return sorted(ordered, key=lambda item: (-counts[item[0]], other(item[0])))


def _documents(documented: str, lookup: str) -> bool:
    """True when `documented` (a docstring entry's full name) is what `lookup` names: the whole or its last part, in
    the same case (loguru's level `SUCCESS` is not its method `success`)."""
    return bool(documented) and (documented == lookup or documented.endswith("." + lookup))


def _member_of(documented: str, lookup: str) -> bool:
    """True when `documented` (a docstring entry's full name) is a member of what `lookup` names: the lookup is the
    entry's owner path or its last part (`HTTPAdapter`, `requests.adapters.HTTPAdapter` for
    `requests.adapters.HTTPAdapter.close`)."""
    owner = documented.rpartition(".")[0].casefold()
    name = lookup.casefold()
    return bool(owner) and (owner == name or owner.endswith("." + name))


def _untitle_repeated(titled: dict[int, bool], texts: dict[int, str], titles: Sequence[str]) -> None:
    """Takes the title off the sections whose own heading (the last of the trail) is one of `titles` when more than
    REPEATED_TITLES_MAX such sections share one page root: a heading repeated under one root is a category there
    ("Release notes > 17.4.0 > Misc", once a release), not the name's entry."""
    groups: dict[str, list[int]] = {}
    for cid in (cid for cid, is_titled in titled.items() if is_titled):
        trail = texts.get(cid, "").partition("\n")[0]
        if entry_heading(trail, titles):
            groups.setdefault(trail.split(TRAIL_SEPARATOR, 1)[0].strip().casefold(), []).append(cid)
    for members in groups.values():
        if len(members) > REPEATED_TITLES_MAX:
            for cid in members:
                titled[cid] = False


def _yield_to_own_section(ordered: list[tuple[int, float]], counts: dict[int, int], texts: dict[int, str],
                          parts: AbstractSet[str], directed: dict[int, bool]) -> list[tuple[int, float]]:
    """`ordered` with the best-ranked docs section that speaks of the name's `parts` (`ranking.speaks_of`) moved
    just ahead of the first docstring entry above it that spells the names as often (`ranking.DOCSTRINGS_YIELD`);
    when none speaks of it and that docstring is on an API stub page (`on_stub_page`), the best-ranked docs section
    spelling the names as often. A word of the docstring's module path speaks of the package, not of the name: every
    heading of pytest's docs may say "pytest"."""
    for i, (cid, _) in enumerate(ordered):
        text = texts.get(cid, "")
        owner = ranking.docstring_of(text)
        if not owner:
            continue
        own = parts - ranking.module_parts(owner)
        # the code's words under a page the docs' authors wrote none on: their own section goes first whatever it says
        stub = STUB_PAGES_UNPINNED and on_stub_page(text.partition("\n")[0], text)
        chosen = 0  # the section taking the docstring's place; 0 is none (it is always below the docstring)
        for j in range(i + 1, len(ordered)) if own or stub else ():
            other = ordered[j][0]
            if counts[other] != counts[cid]:
                break
            other_text = texts.get(other, "")
            if ranking.docstring_of(other_text) or directed.get(other, False):
                continue
            if own and ranking.speaks_of(other_text.partition("\n")[0], own):
                chosen = j
                break
            if stub and not chosen:
                chosen = j
        if chosen:
            return [*ordered[:i], ordered[chosen], *ordered[i:chosen], *ordered[chosen + 1:]]
        return ordered
    return ordered


# A dotted name's entry is the section its reference titles by it (issue 38): "API > `pytest.approx`",
# "Settings > `virtualenvs.in-project`", or by its last part under what holds it: "The `tool.poetry` section >
# requires-plugins" for `tool.poetry.requires-plugins`, "Developer Interface > `Proxy`" for `httpx.Proxy` when
# `httpx` is one of the repo's names (its package). A question or lookup spelling the whole dotted path asks for
# that entry. Measured (docs/benchmarks.md): on the 13 sets every query whose dotted name has such an entry
# expected it; on twenty-one, 22 of 26 do (the others: anyio's three lookups, labelled with its guides, and a
# question on when `click.File` opens its file).
DOTTED_ENTRIES = True
# A search operator's entry is the section its reference titles by it, as a dotted name's is: "Query operators >
# `under:`" for "Why does under:ops also return pages from ops-archive/?", the operator with its value looked up
# first (`property:set` titles its own entry). Measured (docs/benchmarks.md): sigil identifier top1 80 -> 83 in
# auto, 70 -> 73 in keyword and hybrid; no other cell moved (the other operator queries already led with it).
OPERATOR_ENTRIES = True
# When no heading titles it, a dotted name's entry may be a table row or list item among the candidates that defines
# it (`defined_entries`). Measured: it fires on 4 queries of 2 sets (sigil, obsidian), each time on the labelled
# answer; sigil identifier top1 77 -> 80 in auto, 60 -> 70 in hybrid, none lower.
DEFINED_ENTRIES = True
# A name with more entries than this is not pinned to one: the rule has nothing to choose by.
ENTRY_MAX_SECTIONS = 2
# An entry titled by the name qualified by its modules is its entry too: autodoc titles `Coverage.switch_context`'s
# `coverage.Coverage.switch_context`. Measured (docs/benchmarks.md): coverage (held out) identifier top1 87 -> 93 in
# auto; no other cell moved.
QUALIFIED_ENTRIES = True
# An API stub page, titled by a module's path with nothing but its autodoc directive under it (as sphinx-apidoc writes
# them: "rich.progress", `.. automodule:: rich.progress`), holds the code's docstrings and no words of the docs' own:
# its docstring is no dotted name's pinned entry, and as the first docstring of a lookup's tier it yields its place to
# the docs' own best-ranked section whatever its heading (`_yield_to_own_section`). A docstring under a title in words
# ("The Coverage class") stays an entry.
# Measured (docs/benchmarks.md): rich (held out) identifier top1 47 -> 63 unpinned, 70 -> 80 by the yield; no other
# set has such pages. Every docstring unpinned cost coverage and attrs two lookups each.
STUB_PAGES_UNPINNED = True
# A module's own docstring shown under its stub page's title ("celery.worker.autoscale", `.. automodule::` alone) is
# on a stub page too. Measured (docs/benchmarks.md): MODULE_STUBS.
MODULE_STUBS = True
HEADING_WORDS = re.compile(r"[^\W_]+")  # a heading's words, as the word index splits them


# A package re-exports its names, and its docs title the entry by the shorter path (`.. autoexception::
# requests.ConnectTimeout`), while the code, and a user reading it, spell where the name is defined
# (`requests.exceptions.ConnectTimeout`): an entry titled by the path without some of its middle modules is the
# name's entry. Measured (docs/benchmarks.md): REEXPORTED_ENTRIES.
REEXPORTED_ENTRIES = True


# A heading that spells a dotted name's last parts, two or more, is its entry: the docs drop a path every reader
# knows (`hot.accept(cb)` for `import.meta.hot.accept`, `Session.mount` for `requests.Session.mount`), as a leaf
# of the last part alone is one under a heading that spells the rest. Measured (docs/benchmarks.md):
# DOTTED_TAIL_ENTRIES.
DOTTED_TAIL_ENTRIES = True


def _shorter_path(leaf: str, name: str) -> bool:
    """True when dotted `leaf` is `name` with some of its middle parts left out, its first and last kept."""
    if " " in leaf or "." not in leaf:
        return False
    short, full = leaf.split("."), name.split(".")
    if len(short) >= len(full) or short[0] != full[0] or short[-1] != full[-1]:
        return False
    rest = iter(full)
    return all(part in rest for part in short)  # a subsequence, in order


def entry_of(trail: str, name: str, head_is_name: bool = False, exact: bool = True) -> bool:
    """True when a section with heading `trail` is dotted `name`'s entry: its last heading (markup and a
    signature's arguments aside) is the whole name (in any case unless `exact`: `pytest.Approx` is not
    `pytest.approx`) or it qualified by its modules (`coverage.Coverage.switch_context`), or exactly the name's last
    part (`Proxy` is not `proxy`) while a heading above spells the rest (`tool.poetry` above `requires-plugins`) or
    the name's first part is one of the repo's names (`head_is_name`: `httpx` of `httpx.Proxy`)."""
    heads = [h.strip().strip("`").strip() for h in trail.split(TRAIL_SEPARATOR)]
    leaf = heads[-1].split("(", 1)[0].strip().strip("`").strip()
    if leaf == name or (not exact and leaf.casefold() == name.casefold()):
        return True
    if QUALIFIED_ENTRIES and leaf.endswith("." + name) and " " not in leaf:
        return True
    if REEXPORTED_ENTRIES and _shorter_path(leaf, name):
        return True
    if DOTTED_TAIL_ENTRIES and "." in leaf and " " not in leaf and name.endswith("." + leaf):
        return True
    prefix, _, tail = name.rpartition(".")
    if leaf != tail:
        return False
    if head_is_name:
        return True
    above = verbatim_pattern(prefix.casefold())
    return any(above.search(h.casefold()) for h in heads[:-1])


def dotted_entries(index: Index, query: str, vocabulary: AbstractSet[str], limit: int,
                   file_ids: FileScope | None) -> tuple[list[int], list[str]]:
    """One chunk id per section titled by each dotted name or search operator `query` spells (`entry_of`,
    `route.operator_names`), names in order, a name with more than ENTRY_MAX_SECTIONS such sections giving none;
    and the names no heading titles (for `defined_entries`)."""
    out: list[int] = []
    untitled: list[str] = []
    operators = operator_names(query) if OPERATOR_ENTRIES else []
    for name in (dotted_names(query) if DOTTED_ENTRIES else []) + operators:
        head_is_name = name.split(".", 1)[0] in vocabulary
        sections: dict[tuple[int, str], int] = {}
        found: list[tuple[int, int, str]] = []
        # Headings spelling the whole name, then (when none is its entry) those spelling its last part; the name
        # as typed first, in another case only when nothing has it so.
        for words, exact in ((name, True), (name.rpartition(".")[2], True), (name, False)):
            if exact:
                found += queries.headed_chunks(index.conn, HEADING_WORDS.findall(words), limit, file_ids)
            for cid, fid, trail in found:
                if (fid, trail) not in sections and entry_of(trail, name, head_is_name, exact):
                    sections[(fid, trail)] = cid
            if sections:
                break
        if sections and STUB_PAGES_UNPINNED:
            texts = queries.chunk_texts(index.conn, list(sections.values()))
            sections = {key: cid for key, cid in sections.items() if not on_stub_page(key[1], texts.get(cid, ""))}
            if not sections:
                continue  # only a stub's docstring titles it: the names tier and the fused order place it
        if not sections:
            untitled.append(name)
        elif len(sections) <= ENTRY_MAX_SECTIONS:
            out += [cid for cid in sections.values() if cid not in out]
    return out, untitled


def on_stub_page(trail: str, text: str) -> bool:
    """True when a chunk (`text`, with heading `trail`) is a docstring shown under a section titled by its own module's
    path, an API stub page ("rich.progress > rich.progress.Progress.get_default_columns"), or is the module's own
    docstring under that title ("celery.worker.autoscale"), not under a title in words ("The Coverage class >
    coverage.Coverage.switch_context")."""
    owner = ranking.docstring_of(text)
    if not owner:
        return False
    if TRAIL_SEPARATOR not in trail:
        return MODULE_STUBS and trail.strip().strip("`").strip() == owner
    parent = trail.rsplit(TRAIL_SEPARATOR, 2)[-2].strip().strip("`").strip()
    return bool(parent) and " " not in parent and owner.startswith(parent + ".")


# A dotted config key's entry may define only its last part, under the table a TOML example in the same section
# writes it in: mdBook's "HTML renderer options" shows `[output.html]` / `site-url = "/example-book/"`, then
# "- **site-url:** The url where the book will be hosted" (`output.html.site-url`). Measured (docs/benchmarks.md):
# TABLE_DEFINED_ENTRIES.
TABLE_DEFINED_ENTRIES = True


SectionChunks = Callable[[list[Hashable]], dict[Hashable, list[tuple[int, str]]]]
_HALF_READ = 4  # sections whose other chunks are read for the half they lack; more is no one key's entry


def _table_defined(candidates: Sequence[tuple[int, Hashable, str]], name: str,
                   section_chunks: SectionChunks | None = None) -> dict[Hashable, int]:
    """The sections of `candidates` that define a dotted key's last part and write the key in its table
    (`spelled_in_table`), the two perhaps in different chunks of one long section (`section_chunks` reads the ones
    the candidates lack): each section's chunk that defines it."""
    head, _, last = name.rpartition(".")
    if not head or not last:
        return {}
    folded, key_part = name.casefold(), last.casefold()
    defining: dict[Hashable, int] = {}
    tabled: set[Hashable] = set()

    def read(cid: int, key: Hashable, text: str) -> None:
        if key not in defining and ranking.defines(text, [last]):
            defining[key] = cid
        if key not in tabled and key_part in (hay := text.casefold()) and spelled_in_table(hay, folded):
            tabled.add(key)

    for cid, key, text in candidates:
        read(cid, key, text)
    half = [key for key in defining if key not in tabled] + [key for key in tabled if key not in defining]
    if half and section_chunks is not None and len(half) <= _HALF_READ:
        for key, chunks in section_chunks(half).items():
            for cid, text in chunks:
                read(cid, key, text)
    return {key: cid for key, cid in defining.items() if key in tabled}


def defined_entries(candidates: Sequence[tuple[int, Hashable, str]], names: Sequence[str],
                    section_chunks: SectionChunks | None = None) -> list[int]:
    """Of `candidates` ((chunk id, section key, text), best first), one chunk per section holding an entry that
    defines each of `names` (`ranking.defines`: "| `embed.max_depth` | 4 | ... |"), a name defined in more than
    ENTRY_MAX_SECTIONS sections giving none."""
    out: list[int] = []
    for name in names if DEFINED_ENTRIES else ():
        sections: dict[Hashable, int] = {}
        for cid, key, text in candidates:
            if key not in sections and ranking.defines(text, [name]):
                sections[key] = cid
        if TABLE_DEFINED_ENTRIES and not sections:
            sections = _table_defined(candidates, name, section_chunks)
        if len(sections) <= ENTRY_MAX_SECTIONS:
            out += [cid for cid in sections.values() if cid not in out]
    return out


def entries_first(ranked: Sequence[tuple[int, float]], entries: Sequence[int],
                  section: Callable[[tuple[int, float]], object]) -> list[tuple[int, float]]:
    """`ranked` with the chunks of the `entries`' sections first (each section once, at its best-ranked chunk,
    in the entries' order), scored above the rest so a reader of scores sees the order."""
    if not entries or not ranked:
        return list(ranked)
    wanted = {section((cid, 0.0)): i for i, cid in enumerate(entries)}
    first: dict[object, tuple[int, float]] = {}
    rest: list[tuple[int, float]] = []
    for item in ranked:
        key = section(item)
        if key in wanted and key not in first:
            first[key] = item
        else:
            rest.append(item)
    if not first:
        return list(ranked)
    top = max(s for _, s in ranked)
    span = top - min(s for _, s in ranked) or 1.0
    lead = sorted(first.items(), key=lambda kv: wanted[kv[0]])
    return [(cid, top + span * (len(lead) - i)) for i, (_, (cid, _s)) in enumerate(lead)] + rest
