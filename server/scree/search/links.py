"""A name's linked entry (issue 38): the section the notes' own links, named by the name, point to.

Writers link a name to the place that explains it: "[`eval-rst` directive](#syntax/directives/parsing)",
":ref:`record_testsuite_property example`", "[allowDefaultProject](../../packages/parser#allowdefaultproject)".
When the sections that spell a query's name link it, the link's target is that name's entry, the section the
docs' own authors send a reader to, whatever words it uses (the MyST section titled "How directives parse
content" never ranked above three pages that only use `eval-rst`).

A link counts only when its text opens with the name: "Changes to extraFileExtensions with projectService" is a
link about something else. Links to sections and pages count (Markdown links, Obsidian's wikilinks, `:ref:`, MyST
`{ref}`), not object roles (`:func:`, `:class:`): those point at reference entries, which their titles already
find. A target is a MyST or reStructuredText label (`(label)=`, `.. _label:`), a heading's anchor (its slug, as
GitHub and Docusaurus make it) in the linking note or the note a relative path names, or a wikilink's heading. A
link to a whole page points at its best-ranked candidate section, unless the page already leads (its first section
is often its preamble); external links (`https:`, `inv:`) point at nothing in the notes.

`named_links`, `slug` and `resolve_path` are pure; `linked_entries` reads the index (`db.queries`).
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from typing import Hashable, Iterable, Sequence

from ..db import queries
from ..index.store import Index
from ..notes.wikilinks import resolve_wikilink
from ..notes.sectiontext import TRAIL_SEPARATOR, defines, points_at_entry
from .names import verbatim_pattern
from .ranking import docstring_of
from ..records import FileScope

LINKED_ENTRIES = True
# Links to more sections than this do not point at one entry: the rule has nothing to choose by.
MAX_TARGETS = 2
MAX_NAMES = 4  # a query's names looked up (a pasted log of names must not cost a lookup each)

_MD_LINK = re.compile(r"\[([^\]\n]{1,300})\]\(\s*<?([^)\s>]{1,500})>?(?:\s+\"[^\"\n]*\")?\s*\)")
_WIKI = re.compile(r"!?\[\[([^\[\]|#\n]*)(?:#([^\[\]|\n]*))?(?:\|([^\[\]\n]*))?\]\]")
# A role's text may wrap onto the next line (reStructuredText joins it), never past a blank line.
_REF_ROLE = re.compile(r"(?::(?:std:)?ref:|\{ref\})`((?:[^`\n]|\n(?![ \t]*\n)){1,300})`")
_SCHEME = re.compile(r"^[A-Za-z][\w+.-]*:")
_MARKUP = re.compile(r"[`*]+")  # code and emphasis marks; `_` is part of names
_SLUG_DROP = re.compile(r"[^\w\- ]", re.UNICODE)


def named_links(text: str, name: str) -> list[tuple[str, str]]:
    """The links of `text` whose text opens with `name` (case-folded, markup aside), as ("url", target) for a
    Markdown link, ("wiki", "Page#Heading" or "Page") for a wikilink and ("label", label) for a `:ref:` or
    `{ref}` role, in order; and a Markdown link in a list item that defines the name, whatever its text
    ("- `wrap_long_dict_values_in_parens`: Add parentheses ... ([see below](labels/wrap-long-dict-values))")."""
    out: list[tuple[str, str]] = []
    if not name.strip() or name.split()[0].casefold() not in text.casefold():  # a link named by it spells it: most texts are out here
        return out
    opens = verbatim_pattern(name.casefold())
    for m in _MD_LINK.finditer(text):
        if opens.match(_MARKUP.sub("", m.group(1)).strip().casefold()):
            out.append(("url", m.group(2)))
    if ENTRY_LINKS:
        out += [("url", target) for target in _entry_links(text, name) if ("url", target) not in out]
    for m in _WIKI.finditer(text):  # Obsidian's `[[Plugin security#Restricted mode|Restricted mode]]`
        page, heading, alias = (g.strip() if g else "" for g in m.groups())
        if heading.startswith("^") or not (page or heading):  # a block, not a section
            continue
        if opens.match(_MARKUP.sub("", alias or heading or page).casefold()):
            out.append(("wiki", f"{page}#{heading}" if heading else page))
    for m in _REF_ROLE.finditer(text):
        shown, target = _ref_parts(m.group(1))
        if target and opens.match(_MARKUP.sub("", shown).strip().casefold()):
            out.append(("label", target))
    return out


def _ref_parts(role: str) -> tuple[str, str]:
    """A `:ref:` role's shown text and target label: "optional <optionalhook>" is ("optional", "optionalhook"), a
    bare "callorder" both."""
    body = " ".join(role.split())
    lt = body.rfind("<")
    if lt > 0 and body.endswith(">"):
        return body[:lt].strip(), body[lt + 1:-1].strip()
    return body, body


# A link in the list item that defines the name points where the name is explained, whatever its text says; so do
# the links of an item whose term is itself a link ("* [`model_construct()`][ref]: ... See [...](#...)").
ENTRY_LINKS = True
_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+")


def _entry_links(text: str, name: str) -> list[str]:
    """The Markdown link targets of the list items of `text` that define `name` (`sectiontext.defines`), each
    item with its continuation lines."""
    lines = text.split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        if not _ITEM.match(line) or not (defines(line, [name]) or points_at_entry(line, [name])):
            continue
        end = i + 1
        while end < len(lines) and lines[end][:1] in (" ", "\t") and lines[end].strip() and not _ITEM.match(lines[end]):
            end += 1
        out += [m.group(2) for m in _MD_LINK.finditer("\n".join(lines[i:end]))]
    return out


def slug(heading: str) -> str:
    """A heading's anchor as GitHub and Docusaurus make it: markup dropped, lower case, punctuation but `-` and
    `_` dropped, spaces made dashes."""
    return _SLUG_DROP.sub("", _MARKUP.sub("", heading).strip().casefold()).replace(" ", "-")


def resolve_path(linking: str, target: str, paths: Iterable[str]) -> str | None:
    """The indexed note a link's path names from the note `linking` (relative to its folder, with or without
    its suffix, in any case: Docusaurus links `../packages/parser` for `packages/Parser.mdx`), or None."""
    if not target:
        return linking
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(linking), target)).strip("/")
    if joined.startswith(".."):
        return None
    want = joined.casefold()
    stem = posixpath.splitext(want)[0]
    for path in paths:
        low = path.casefold()
        if low == want or posixpath.splitext(low)[0] in (stem, f"{stem}/index", f"{stem}/readme"):
            return path
    return None


def _label_lines(label: str) -> re.Pattern[str]:
    """A line declaring `label` (case-folded): MyST's `(label)=`, reStructuredText's `.. _label:`."""
    esc = re.escape(label.casefold())
    return re.compile(rf"^(?:\({esc}\)=|\.\.\s+_`?{esc}`?:)\s*$", re.M)


def _labelled(index: Index, label: str, file_ids: FileScope | None) -> int | None:
    """The chunk whose text declares `label` (its section's first chunk: a label opens the section below it)."""
    line = _label_lines(label)
    folded = label.casefold()
    for needle in (f"({folded})=", f"_{folded}:", f"_`{folded}`:"):
        found = queries.spelling_chunks(index.conn, needle, 8, file_ids)
        texts = queries.chunk_texts(index.conn, found)
        for cid in found:
            if line.search(texts.get(cid, "").casefold()):
                return cid
    return None


def _anchored(chunks: Sequence[queries.ChunkRow], anchor: str) -> int | None:
    """The first of a note's `chunks` in the section that `anchor` names: a label it declares, else a heading
    whose slug is the anchor."""
    line = _label_lines(anchor)
    want = anchor.casefold()
    for row in chunks:
        if line.search(row.text.casefold()):
            return row.id
    for row in chunks:
        if row.heading and slug(row.heading.rsplit(TRAIL_SEPARATOR, 1)[-1]) == want:
            return row.id
    return None


def _headed(chunks: Sequence[queries.ChunkRow], heading: str) -> int | None:
    """The first of a note's `chunks` in the section whose own heading is `heading` (case-folded, markup aside), as
    Obsidian finds a wikilink's `#Heading`."""
    want = _MARKUP.sub("", heading).strip().casefold()
    for row in chunks:
        if row.heading and _MARKUP.sub("", row.heading.rsplit(TRAIL_SEPARATOR, 1)[-1]).strip().casefold() == want:
            return row.id
    return None


class _Targets:
    """Resolves one query's links to chunks, each link and each note read once (a page links a name again and
    again): labels and anchors as the docs mean them."""

    def __init__(self, index: Index, candidates: Sequence[tuple[int, Hashable, str, str]],
                 file_ids: FileScope | None) -> None:
        self.index, self.candidates, self.file_ids = index, candidates, file_ids
        self._ids: dict[str, int] | None = None
        self._chunks: dict[str, list[queries.ChunkRow]] = {}
        self._resolved: dict[tuple[str, str, str], int | None] = {}

    @property
    def ids(self) -> dict[str, int]:
        if self._ids is None:
            self._ids = {p: fid for fid, p in queries.file_paths(self.index.conn)}
        return self._ids

    def chunks(self, note: str) -> list[queries.ChunkRow]:
        if note not in self._chunks:
            self._chunks[note] = queries.chunks_of_file(self.index.conn, note)
        return self._chunks[note]

    def chunk(self, kind: str, target: str, linking: str) -> int | None:
        """The chunk a link of `kind` to `target` in the note `linking` points at, or None."""
        key = (kind, target, "" if kind == "label" else linking)  # a label means the same from every note
        if key not in self._resolved:
            self._resolved[key] = self._resolve(kind, target, linking)
        return self._resolved[key]

    def _resolve(self, kind: str, target: str, linking: str) -> int | None:
        if kind == "label":
            return _labelled(self.index, target, self.file_ids)
        if kind == "wiki":
            page, _, heading = target.partition("#")
            suffixes = tuple({posixpath.splitext(p)[1] for p in self.ids if "." in p})
            note = resolve_wikilink(page, self.ids, suffixes) if page else linking
            if note is None:
                return None
            return _headed(self.chunks(note), heading.rsplit("#", 1)[-1]) if heading else self.page(note)
        if _SCHEME.match(target):
            return None
        where, _, anchor = target.partition("#")
        note = resolve_path(linking, where, self.ids)
        found = None
        if note is not None:
            found = _anchored(self.chunks(note), anchor) if anchor else self.page(note)
        if found is None and anchor and not where:  # MyST's `#label` names a label of any note
            found = _labelled(self.index, anchor, self.file_ids)
        if found is None and note is None and not anchor and ENTRY_LINKS:
            found = _labelled(self.index, where, self.file_ids)  # MyST's `[text](label)`: a label, when no note
        return found

    def page(self, note: str) -> int | None:
        """A link to a whole page points at all of it: its best-ranked candidate section, unless the page already
        leads (its first section may be a preamble, not the part that answers: dev `api_host`) or has none."""
        fid = self.ids.get(note)
        among = [cid for cid, key, _, _ in self.candidates if isinstance(key, tuple) and key[0] == fid]
        if not among or among[0] == self.candidates[0][0]:
            return None
        return among[0]


def linked_entries(index: Index, candidates: Sequence[tuple[int, Hashable, str, str]], names: Sequence[str],
                   file_ids: FileScope | None) -> list[int]:
    """One chunk per section that the links named by each of `names` in `candidates` ((chunk id, section key,
    path, text), best first) point to; a name whose links point to more than MAX_TARGETS sections gives none,
    nor does a link back to its own section."""
    if not LINKED_ENTRIES or not candidates:
        return []
    out: list[int] = []
    targets = _Targets(index, candidates, file_ids)
    for name in names[:MAX_NAMES]:
        pointed: list[tuple[int, Hashable]] = []  # (target chunk, the linking section)
        for _cid, key, path, text in candidates:
            for kind, target in named_links(text, name):
                if (found := targets.chunk(kind, target, path)) is not None:
                    pointed.append((found, key))
        keys = queries.section_keys(index.conn, [cid for cid, _ in pointed])
        counts: Counter[int] = Counter()
        for cid, linking in pointed:
            section = keys.get(cid)
            if section is None or section == linking or (file_ids is not None and section[0] not in file_ids):
                continue
            counts[cid] += 1
        if counts and len({keys[cid] for cid in counts}) <= MAX_TARGETS:
            out += [cid for cid, _ in counts.most_common() if cid not in out]
    return out


# A docstring entry that links one place (pluggy's `HookImpl.trylast`: "Whether to try to order this hook
# implementation :ref:`last <callorder>`.") sends its reader there: among the first POINTER_WINDOW hits it never ranks
# above that section, which moves just ahead of it when it ranks lower. Measured (docs/benchmarks.md):
# POINTERS_AFTER_TARGETS.
POINTERS_AFTER_TARGETS = True
POINTER_WINDOW = 5
# A pointer is a sentence or two: a longer docstring that links one place explains the name itself and links a side
# topic (trio's `run_process`, `assert_checkpoints`).
POINTER_MAX_CHARS = 200
_NOTE_LINE = re.compile(r"\n\(docstring of [^\n]*\)\s*$")


def pointer_target(text: str) -> str | None:
    """The label a pointer docstring links (`text`: a chunk without its heading trail), or None when the chunk is not
    a whole docstring of at most POINTER_MAX_CHARS (its signature line and closing note aside) linking one label."""
    documented = docstring_of(text)
    signature, _, rest = text.partition("\n")
    if not documented or documented not in signature or len(_NOTE_LINE.sub("", rest).strip()) > POINTER_MAX_CHARS:
        return None  # not a docstring, a later part of a long one, or a long one
    labels = {_ref_parts(m.group(1))[1].casefold() for m in _REF_ROLE.finditer(rest)}
    return labels.pop() if len(labels) == 1 else None


def pointers_after_targets(index: Index, ranked: Sequence[tuple[int, float]], texts: dict[int, str],
                           file_ids: FileScope | None) -> list[tuple[int, float]]:
    """`ranked` with the section each pointer docstring among the first POINTER_WINDOW links to moved just ahead of
    it, when that section ranks below it (`texts`: each ranked chunk's text)."""
    out = list(ranked)
    if not POINTERS_AFTER_TARGETS:
        return out
    labels = {cid: label for cid, _ in out[:POINTER_WINDOW] if (label := pointer_target(texts.get(cid, "")))}
    if not labels:
        return out
    keys = queries.section_keys(index.conn, [cid for cid, _ in out])
    for i in range(min(POINTER_WINDOW, len(out))):
        label = labels.get(out[i][0])
        target = _labelled(index, label, file_ids) if label else None
        if target is None:
            continue
        section = queries.section_keys(index.conn, [target]).get(target)
        below = next((j for j in range(i + 1, len(out)) if keys.get(out[j][0]) == section), None)
        if section is not None and below is not None:
            out.insert(i, (out.pop(below)[0], out[i][1]))
    return out
