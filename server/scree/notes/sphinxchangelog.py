"""The release sections a changelog written with sqlalchemyorg's `changelog` Sphinx extension shows (SQLAlchemy's,
Alembic's, Mako's): read from its directives, as the extension renders them. Pure.

In the source such a changelog is one title over a hundred `.. changelog::` directives, each a release:

    .. changelog::
        :version: 1.19.0
        :released: August 4, 2026

        .. change::
            :tags: bug, commands

            Fixed inconsistency where running ``stamp`` ...

The built page has a section per release, titled by its version, and in it a section per kind of change: each
change goes under the first of its tags, in the order written, that conf.py's `changelog_sections` lists (a section
of two words takes a change carrying both), or under "misc" when none is; a release none of whose changes has such a
tag shows them with no section between. So "Changelog > 1.19.0 > bug" is where an agent finds the release that fixed
something, where the source read as one section of 4,000 lines.

The changes of a kind are consecutive on the built page; here they stay in the source's order (a chunk cites its
lines), so a release whose kinds alternate has two sections of one name. conf.py is read when the page is indexed:
an edit of its `changelog_sections` alone re-indexes nothing until the page changes.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from . import pysource

# Read a changelog directive's releases and kinds of change as sections. Measured (docs/benchmarks.md):
# CHANGELOG_SECTIONS.
CHANGELOG_SECTIONS = True
CHANGELOG = "changelog"
CHANGE = "change"
DEFAULT_SECTION = "misc"  # the extension's ChangeLogDirective.default_section
CONF_SETTING = "changelog_sections"
DIRECTIVE_MARK = "changelog::"  # not in a page's text: no changelog directive, and conf.py is not looked for


def sections_of(conf: str) -> tuple[str, ...]:
    """The kinds of change a conf.py's `changelog_sections` list names, in order; read, never run (none when it sets
    none, or not as a literal list of strings)."""
    tree = pysource.parse(conf)
    out: tuple[str, ...] = ()
    for node in tree.body if tree is not None else []:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == CONF_SETTING and isinstance(node.value, (ast.List, ast.Tuple))):
            out = tuple(e.value.strip() for e in node.value.elts
                        if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.strip())
    return out


def tags_of(value: str) -> list[str]:
    """A change's `:tags:` value as its tags, in the order written (`bug, autogenerate`)."""
    return [t.strip() for t in value.split(",") if t.strip()]


def kind_of(tags: Sequence[str], sections: Sequence[str]) -> str:
    """The section a change with these tags goes under: a two-word section whose words it all carries, else the first
    of its tags that is a section, else DEFAULT_SECTION ("" when there are no sections: no section between)."""
    if not sections:
        return ""
    carried = set(tags)
    for section in sections:
        words = section.split()
        if len(words) > 1 and carried.issuperset(words):
            return section
    return next((t for t in tags if t in sections), DEFAULT_SECTION)


def release_kinds(tags: Sequence[Sequence[str]], sections: Sequence[str]) -> list[str]:
    """The section each of a release's changes (given by their tags) goes under: none ("") for any of them when no
    change of the release has a tag that is a section, as the extension renders such a release."""
    kinds = [kind_of(t, sections) for t in tags]
    if all(k in ("", DEFAULT_SECTION) for k in kinds):
        return [""] * len(kinds)
    return kinds
