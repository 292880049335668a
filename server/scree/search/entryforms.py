"""A looked-up name with no entry of its own, answered by the entry its docs write it in under another form (issue 38).

- **A flattened key.** A theme or config reference documents nested keys category by category: under the heading
  `page-numbering`, a table row `start-at` explains the key that a theme file writes as `page:` / `numbering:` /
  `start-at:`. Users, code and changelogs name the key flattened, the category's words and its own joined into one:
  `page_numbering_start_at`, `page-numbering-start-at`, `font_fallbacks`. A section whose own heading is the name's
  first words and which defines the rest (a table row, list item or term: `sectiontext.defines`) is its entry.
- **A flag documented by its inverse.** A command line reference documents the flag that changes the default:
  `--no-local-partial-types` once the types became the default, `--strict` but not `--no-strict`. A lookup of the
  other one (`--local-partial-types`) is answered by the inverse's entry: the section titled by it or defining it.

Only for a lookup (or a question asking only what the name is), and only when no candidate section is titled by the
name or defines it (`has_own_entry`): where the docs have an entry for the name as asked, it answers. A question
about a case of the name ("what does base_font_size affect besides body text?") is answered by the guide to that case.

`form_names`, `splits`, `inverse_flag`, `is_scoped_entry` and `has_own_entry` are pure; `form_entries` reads the index.
"""

from __future__ import annotations

import re
from typing import AbstractSet, Hashable, Sequence

from ..db import queries
from ..index.store import Index
from ..notes.sectiontext import TRAIL_SEPARATOR, defines, titled_by
from .route import asked_name, is_lookup
from ..records import FileScope

# Measured (docs/benchmarks.md): SCOPED_ENTRIES, INVERSE_FLAGS.
SCOPED_ENTRIES = True
INVERSE_FLAGS = True
# A name with more entries than this is not pinned to one: the rule has nothing to choose by.
MAX_SECTIONS = 2
# Chunks read for an inverse flag: the sections that may be its entry.
_POOL = 40

_COMPOUND = re.compile(r"[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+")
_FLAG = re.compile(r"--[a-z0-9]+(?:-[a-z0-9]+)*")
_SEPARATORS = re.compile(r"[-_.\s]+")


def form_names(query: str, vocabulary: AbstractSet[str] = frozenset()) -> list[str]:
    """The name a lookup (`route.is_lookup`) or a question asking only what it is (`route.asked_name`) names, as
    typed, when it may have its entry under another form: words in lower case joined by `_` or `-`
    (`font_fallbacks`, `page-numbering-start-at`) or a long flag (`--local-partial-types`); [] for anything else. Not
    a variable (`PLATEN_LEASE_S`): no theme's key. Not a name a question asks about a case of ("what does
    base_font_size affect besides body text?"): the guide to that case answers, not the key's entry."""
    asked = asked_name(query, vocabulary)
    name = (asked if asked is not None else query if is_lookup(query) else "").strip().strip("`").strip()
    return [name] if _COMPOUND.fullmatch(name) or _FLAG.fullmatch(name) else []


def splits(name: str) -> list[tuple[list[str], list[str]]]:
    """Each way to read a flattened `name` as a category's words and a key's: (category words, key words), the longest
    category first (`page_numbering_start_at`: `page numbering` / `start at` before `page` / `numbering start at`).
    [] for a flag: a flag is no key of a category."""
    if name.startswith("-"):
        return []
    words = [w for w in _SEPARATORS.split(name.casefold()) if w]
    return [(words[:k], words[k:]) for k in range(len(words) - 1, 0, -1)]


def inverse_flag(name: str) -> str:
    """The flag that turns `name`'s setting the other way (`--local-partial-types`: `--no-local-partial-types`, and
    back); "" for anything but a long flag."""
    if not _FLAG.fullmatch(name):
        return ""
    return "--" + name[5:] if name.startswith("--no-") else "--no-" + name[2:]


def _leaf_words(trail: str) -> list[str]:
    leaf = trail.split(TRAIL_SEPARATOR)[-1].strip().strip("`").strip()
    return [w for w in _SEPARATORS.split(leaf.casefold()) if w]


def spellings(words: Sequence[str]) -> list[str]:
    """The ways a key of `words` is written: dashed, underscored."""
    return ["-".join(words), "_".join(words)] if len(words) > 1 else list(words)


def is_scoped_entry(trail: str, text: str, category: Sequence[str], key: Sequence[str]) -> bool:
    """True when a section (heading `trail`, body `text`) is titled by the `category` words alone, in any spelling
    ("page-numbering", "Page numbering"), and holds an entry defining the `key` words (`sectiontext.defines`)."""
    return _leaf_words(trail) == list(category) and defines(text, spellings(key))


def has_own_entry(sections: Sequence[tuple[str, str]], name: str) -> bool:
    """True when one of `sections` ((heading trail, body text)) is titled by `name` or defines it (a key in either
    spelling): then the docs have an entry for the name as asked."""
    whole = [name] if name.startswith("-") else spellings([w for w in _SEPARATORS.split(name.casefold()) if w])
    return any(titled_by(trail, whole) or defines(text, whole) for trail, text in sections)


def form_entries(index: Index, names: Sequence[str], candidates: Sequence[tuple[int, Hashable, str, str]],
                 file_ids: FileScope | None = None) -> list[int]:
    """One chunk id per section that is the entry of each of `names` under another form, a name with more than
    MAX_SECTIONS such sections giving none: a flattened key's category entry among the `candidates` ((chunk id,
    section key, heading trail, body text): the lookup's sections, which hold every word of the key), a flag's
    inverse's entry wherever the index has it. None for a name one of `candidates` is titled by or defines
    (`has_own_entry`)."""
    out: list[int] = []
    for name in names:
        if has_own_entry([(trail, text) for _, _, trail, text in candidates], name):
            continue
        sections: dict[Hashable, int] = {}
        for category, key in splits(name) if SCOPED_ENTRIES else ():
            for cid, section, trail, text in candidates:
                if section not in sections and is_scoped_entry(trail, text, category, key):
                    sections[section] = cid
        if INVERSE_FLAGS and (inverse := inverse_flag(name)):
            for cid, fid, trail, text in queries.spelling_rows(index.conn, inverse, _POOL, file_ids):
                if (fid, trail) not in sections and (titled_by(trail, [inverse]) or defines(text, [inverse])):
                    sections[(fid, trail)] = cid
        if len(sections) <= MAX_SECTIONS:
            out += [cid for cid in sections.values() if cid not in out]
    return out
