"""The mkdocstrings directives of a Markdown page (`::: pkg.Name`), as `rstblocks` reports Sphinx's autodoc directives
(`AutodocRef`s, resolved by `notes/autodoc.py`).

MkDocs projects (pydantic, textual, griffe) write their API reference as lines of `::: griffe.GriffeLoader`, each with
an optional indented YAML block of options (mkautodoc, httpx's, writes `:docstring:` and `:members: get post` lines
instead, and shows members only when asked). mkdocstrings fills them from the docstrings when the site is built, so
the reference an agent most needs is empty in the source, as a Sphinx page of `.. autoclass::` lines is. mkdocstrings
shows the object's docstring, then its members that have one (a module's and a class's, a class's methods and
documented attributes), unless the options say otherwise:
- `members: false` (or an empty list) shows none, `members: [a, b]` those listed;
- `inherited_members: true` adds a class's inherited members.
The directive's kind is not written: `notes/autodoc.py` shows a module as Sphinx's `automodule` with `:members:`, any
other object as `autoclass` with `:members:` (a function has no members).

A directive may be a heading (`# ::: griffe.Class`): the object's docstring is then that heading's own text, as
mkdocstrings renders it; the trail keeps the heading as the page writes it, as every trail does.

Left out: the handler's site-wide options in `mkdocs.yml` (only the source roots it names are read:
`mkdocs_source_roots`), and `filters` other than the default one (no `_private` member).

Pure: lines and the page's verbatim blocks in, references out.
"""

from __future__ import annotations

import re

import yaml

from ..records import AutodocRef

DIRECTIVE = "mkdocstrings"
# mkdocstrings' own pattern (`AutoDocProcessor.regex`): a line of `::: ` and one identifier, or a heading of them.
_LINE = re.compile(r"^(?:#{1,6}[ \t]+)?::: ([A-Za-z_][\w.]*)[ \t]*#*[ \t]*$")
# An indented line goes on with the directive's YAML block; the block ends at a blank line, as mkdocstrings reads one
# Markdown block.
_OPTION_LINE = re.compile(r"^[ \t]+\S")
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _ConfigLoader(_YAML_LOADER):  # type: ignore[valid-type,misc]
    """mkdocs.yml's loader: its `!ENV [...]` and `!!python/name:...` tags read as nothing, the rest as safe YAML."""


_ConfigLoader.add_multi_constructor("", lambda loader, suffix, node: None)


def mkdocstrings_directives(lines: list[str], verbatim: tuple[tuple[int, int], ...]) -> tuple[AutodocRef, ...]:
    """The `::: pkg.Name` directives of a Markdown page outside its code blocks, in order, each with the options
    that change what it shows."""
    if not any(line.startswith(":::") for line in lines):
        return ()
    in_code = [False] * len(lines)
    for start, end in verbatim:
        for i in range(start, min(end, len(lines))):
            in_code[i] = True
    out: list[AutodocRef] = []
    for i, line in enumerate(lines):
        found = _LINE.match(line) if not in_code[i] else None
        if found is None:
            continue
        end = i + 1
        # (indented lines right under a heading are a code block to a Markdown reader, options to mkdocstrings)
        while end < len(lines) and _OPTION_LINE.match(lines[end]):
            end += 1
        block = [line.strip() for line in lines[i + 1:end]]
        if block and block[0].startswith(":"):  # mkautodoc's `:docstring:` and `:members: a b` lines (httpx)
            members = next((line.split(None, 1)[1:] for line in block if line.startswith(":members:")), None)
            options: dict[str, object] = {"members": False if members is None else (members[0].split() or True)}
        else:
            options = _options(lines[i + 1:end])
        shown, listed = _members(options.get("members", True))
        names = {"members"} if shown else set()
        if options.get("inherited_members") is True:
            names.add("inherited-members")
        out.append(AutodocRef(i, end, DIRECTIVE, found.group(1), "", frozenset(names), listed))
    return tuple(out)


def _options(block: list[str]) -> dict[str, object]:
    """The `options:` mapping of a directive's indented YAML block; empty when there is none or it is not YAML."""
    if not block:
        return {}
    indent = min(len(line) - len(line.lstrip()) for line in block)  # every line of it is indented text
    try:
        data = yaml.load("\n".join(line[indent:] for line in block), Loader=_YAML_LOADER)
    except yaml.YAMLError:
        return {}
    options = data.get("options") if isinstance(data, dict) else None
    return options if isinstance(options, dict) else {}


def _members(value: object) -> tuple[bool, tuple[str, ...]]:
    """Whether the `members` option shows members, and the names it lists (none listed: every documented one)."""
    if isinstance(value, list):
        names = tuple(str(v) for v in value if isinstance(v, str) and v.isidentifier())
        return bool(names), names
    return value is not False, ()  # `members:` left empty (None) is the default: every documented member


def mkdocs_source_roots(config: str) -> tuple[str, ...]:
    """The folders (relative, each ending in "/"; "" for the top) that mkdocs.yml's mkdocstrings Python handler
    imports from (`plugins: - mkdocstrings: handlers: python: paths: [packages/griffelib/src]`), for a monorepo
    whose packages live below the usual source roots. Empty when it names none or is not YAML."""
    try:
        data = yaml.load(config, Loader=_ConfigLoader)
    except yaml.YAMLError:
        return ()
    plugins = data.get("plugins") if isinstance(data, dict) else None
    entries = plugins if isinstance(plugins, list) else [plugins]
    found: list[str] = []
    for entry in entries:
        plugin = entry.get("mkdocstrings") if isinstance(entry, dict) else None
        handlers = plugin.get("handlers") if isinstance(plugin, dict) else None
        python = handlers.get("python") if isinstance(handlers, dict) else None
        paths = python.get("paths") if isinstance(python, dict) else None
        for path in paths if isinstance(paths, list) else []:
            root = _relative_root(path)
            if root is not None and root not in found:
                found.append(root)
    return tuple(found)


def _relative_root(path: object) -> str | None:
    """A `paths` entry as a folder inside the notes folder ("src/", "" for "."); None for one outside it."""
    if not isinstance(path, str):
        return None
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    if path.startswith("/") or ".." in parts or any(":" in p for p in parts):
        return None
    return "".join(f"{p}/" for p in parts)
