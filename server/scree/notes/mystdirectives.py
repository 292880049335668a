"""The Sphinx directives of a MyST Markdown page whose content lives elsewhere, as `rstblocks` reports them for
reStructuredText (`AutodocRef`s, resolved by `notes/autodoc.py` and `notes/includes.py`).

MyST writes any directive as a fence: ```` ```{autoclass} pkg.Engine ```` with `:members:` option lines, and a
reStructuredText island as ```` ```{eval-rst} ```` (structlog's legacy page: `.. module::` then `.. autofunction::`
lines). Sphinx builds both into the page as it builds a `.rst` one, so the docstrings they show are the page's text;
read as plain code fences they were only their directive lines. A `{currentmodule}` or `{module}` fence sets the
module later names are relative to, as `.. currentmodule::` does. One written inside another fence is an example of
the syntax, not a directive.

Pure: lines and the page's verbatim blocks in, references out.
"""

from __future__ import annotations

import re

from ..records import AutodocRef
from . import rstblocks

_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,}|:{3,})\{([\w:-]+)\}[ \t]*(.*?)[ \t]*$")
_OPTION = re.compile(r"^:([\w-]+):[ \t]*(.*)$")
_MODULES = frozenset({"module", "currentmodule", "py:module", "py:currentmodule"})


def myst_directives(lines: list[str], verbatim: tuple[tuple[int, int], ...]) -> tuple[AutodocRef, ...]:
    """The `literalinclude`, autodoc and `eval-rst` fences of a MyST page, in order, each as the `AutodocRef`s it
    holds (an `eval-rst` island's own lines as `rstblocks.parse_rst` reads them, at their lines in the page)."""
    out: list[AutodocRef] = []
    module = ""
    for start, end in verbatim:
        found = _FENCE.match(lines[start]) if start < len(lines) else None
        if found is None:
            continue
        name, target = found.group(1).lower(), found.group(2)
        body_end = end - 1 if end - 1 > start and lines[end - 1].strip().startswith(("```", "~~~", ":::")) else end
        if name == "eval-rst":
            for ref in rstblocks.parse_rst(lines[start + 1:body_end]).autodoc:
                out.append(AutodocRef(ref.line + start + 1, ref.end + start + 1, ref.directive, ref.target,
                                      ref.module or module, ref.options, ref.members, ref.values))
            continue
        if name in _MODULES:
            module = target.strip()
            continue
        short = name.split(":", 1)[1] if name.startswith("py:") else name
        summary = short == rstblocks.AUTOSUMMARY and rstblocks.AUTOSUMMARY_PAGES  # its names are its body, not args
        if not (target or summary) or (short not in rstblocks.AUTODOC_DIRECTIVES
                                       and short not in rstblocks.FILE_DIRECTIVES) \
                or (short == rstblocks.AUTOSUMMARY and not summary):
            continue
        values: dict[str, str] = {}
        body = start + 1
        for line in lines[start + 1:body_end]:
            option = _OPTION.match(line.strip())
            if option is None:
                break
            name = option.group(1).lower()  # automodapi's `:skip:` may be given once per name, as in reStructuredText
            values[name] = f"{values[name]}, {option.group(2).strip()}" if name in values else option.group(2).strip()
            body += 1
        if summary:
            if "toctree" in values:
                out.extend(rstblocks.autosummary_items(lines[:body_end], body, -1, module))
            continue
        if short in rstblocks.FILE_DIRECTIVES:
            if any(ch.isspace() for ch in target):
                continue
            if short == "include":
                short = rstblocks.include_kind(values)
            out.append(AutodocRef(start, end, short, target, "", frozenset(values), (), tuple(values.items())))
            continue
        out.append(AutodocRef(start, end, short, target, module, frozenset(values), rstblocks.listed_members(values),
                              tuple(values.items())))
    return tuple(out)
