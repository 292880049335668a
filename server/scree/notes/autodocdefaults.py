"""conf.py's `autodoc_default_options` (`{"members": True, "undoc-members": True}`): the options Sphinx gives every
autodoc directive that does not set them itself. Read from conf.py's dict literal, never run (`default_options`;
`ModuleFiles.autodoc_defaults` finds the page's conf.py), and given to a directive by `with_defaults`. Pure.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import replace

from . import pysource, rstblocks
from ..records import AutodocRef

# conf.py's `autodoc_default_options` (`{"members": True, "undoc-members": True}`) apply to every autodoc directive
# that does not give the option itself, as Sphinx applies them (a `:no-members:` turns one off). Off: the members it
# shows cost anyio's and isort's guide labels more than they gained cumin's entries (docs/benchmarks.md,
# DEFAULT_OPTIONS); turning it on sets the next CHUNKER_VERSION.
DEFAULT_OPTIONS = False
_DEFAULTED = frozenset({"automodule", "autoclass", "autoexception"})  # the directives whose options choose members


def with_defaults(ref: AutodocRef, defaults: Mapping[str, str]) -> AutodocRef:
    """`ref` with the project's default options (`default_options`: option to value, "" for a flag) it does not give
    itself or turn off (`:no-members:`)."""
    if not DEFAULT_OPTIONS or not defaults or ref.directive not in _DEFAULTED:
        return ref
    added = {k: v for k, v in defaults.items() if k not in ref.options and f"no-{k}" not in ref.options}
    if not added:
        return ref
    members = ref.members or (rstblocks.listed_members(added) if "members" in added else ())
    return replace(ref, options=ref.options | frozenset(added), members=members,
                   values=tuple({**added, **dict(ref.values)}.items()))


def default_options(conf: str) -> dict[str, str]:
    """The options a conf.py's `autodoc_default_options` dict literal sets (True or None: a flag, ""; a string: its
    value; False: not set), or its older `autodoc_default_flags` list; read, never run."""
    tree = pysource.parse(conf)
    out: dict[str, str] = {}
    for node in tree.body if tree is not None else []:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        name, value = node.targets[0].id, node.value
        if name == "autodoc_default_options" and isinstance(value, ast.Dict):
            out = {}
            for key, val in zip(value.keys, value.values):
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(val, ast.Constant)):
                    continue
                if val.value is None or val.value is True:
                    out[key.value] = ""
                elif isinstance(val.value, str):
                    out[key.value] = val.value
        elif name == "autodoc_default_flags" and isinstance(value, (ast.List, ast.Tuple)) and not out:
            out = {e.value: "" for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return out
