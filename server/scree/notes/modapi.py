"""What sphinx-automodapi's `.. automodapi:: pkg` shows (the astropy family's API pages): the module's docstring,
then a page for each public function and class it offers, a class's with all its methods and attributes (by their
signature when they have no docstring), as `automodsumm` lists them. Read from the syntax tree, never imported: the
names are the module's `__all__`, or else its public functions and classes with those it imports from its own
package (`from .core import *`, each such module's `__all__` or public definitions), as `find_mod_objs` keeps only an
object of the package. `:skip:` and `:include:` choose among them.

Pure but for `find` (`notes/autodoc.ModuleFinder`): the directive in, the autodoc references it stands for out.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from . import pysource, rstblocks
from .autodoc import ModuleFinder
from .pymodule import all_list, from_module, statements
from ..records import AutodocRef

DIRECTIVE = "automodapi"
# Measured (docs/benchmarks.md): MODAPI_PAGES. Off, the directive's line is the page's only trace of the API.
MODAPI_PAGES = True
MAX_DEPTH = 4  # star imports followed from one module (a package re-exporting its subpackages' re-exports)
_DEFS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def expanded(ref: AutodocRef, find: ModuleFinder) -> list[AutodocRef]:
    """The references an `automodapi` directive stands for: its module's docstring (unless `:no-main-docstr:`), then
    each function and class of its API (with the class's members), at the directive's lines."""
    module = ref.target.split()[0] if ref.target.split() else ""
    if not MODAPI_PAGES or not module:
        return []
    values = dict(ref.values)
    out = [] if "no-main-docstr" in ref.options else [replace(ref, directive="automodule", options=frozenset(),
                                                                members=(), values=())]
    skip = set(rstblocks.option_names(values.get("skip", "")))
    include = set(rstblocks.option_names(values.get("include", "")))
    # its class template writes `.. automethod::` for every method: one without a docstring shows its signature
    members = frozenset({"members", "undoc-members"} | ({"inherited-members"} & ref.options))
    for name in api_names(module, find):
        if name in skip or (include and name not in include):
            continue
        out.append(replace(ref, directive="autoclass", target=f"{module}.{name}", module="", options=members,
                           members=(), values=()))
    return out


def api_names(module: str, find: ModuleFinder, depth: int = 0, seen: set[str] | None = None) -> list[str]:
    """The names of the functions and classes `module` offers, in source order (`__all__`'s order when it has one).
    Each module is read once (`seen`): modules that star-import each other end, and so does a fan of them."""
    seen = set() if seen is None else seen
    if module in seen:
        return []
    seen.add(module)
    tree = _tree(module, find)
    if tree is None:
        return []
    exported = all_list(tree)
    if exported is not None:
        return exported
    package = module if _is_package(module, find) else module.rpartition(".")[0]
    top = module.split(".")[0]
    out: list[str] = []
    for node in statements(tree.body):
        if isinstance(node, _DEFS) and not node.name.startswith("_"):
            out.append(node.name)
        elif isinstance(node, ast.ImportFrom) and depth < MAX_DEPTH:
            source = from_module(node, package)
            if not (source == top or source.startswith(top + ".")):  # only the package's own objects
                continue
            for alias in node.names:
                if alias.name == "*":
                    out.extend(api_names(source, find, depth + 1, seen))
                elif not (alias.asname or alias.name).startswith("_"):
                    out.append(alias.asname or alias.name)
    return list(dict.fromkeys(out))


def _tree(module: str, find: ModuleFinder) -> ast.Module | None:
    found = find(module)
    return pysource.parse(found[1]) if found is not None else None


def _is_package(module: str, find: ModuleFinder) -> bool:
    found = find(module)
    return found is not None and found[0].endswith("__init__.py")
