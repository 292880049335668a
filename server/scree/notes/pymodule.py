"""What a Python module's syntax tree says at its top level, for autodoc (`notes/autodoc.py`): its statements with those
of its `if` and `try` blocks in their place, the module a `from ... import` reads, where a name was imported from, and
its `__all__`.

Pure: `ast` nodes in, names and nodes out.
"""

from __future__ import annotations

import ast


def statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """`body`'s statements with those of its `if` and `try` blocks in their place, in source order: a module defines
    many names in branches (`if TYPE_CHECKING: <typed stubs> else: run_process = _run_process`; `try: from ._speedups
    import escape except ImportError: ...`), and a name the last branch binds is, as a rule, what runs."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        if isinstance(node, ast.If):
            out.extend(statements(node.body))
            out.extend(statements(node.orelse))
        elif isinstance(node, ast.Try):
            out.extend(statements(node.body))
            for handler in node.handlers:
                out.extend(statements(handler.body))
            out.extend(statements(node.orelse))
            out.extend(statements(node.finalbody))
    return out


def from_module(node: ast.ImportFrom, package: str) -> str:
    """The absolute name of the module a `from ... import` reads, relative dots resolved against `package`."""
    base = node.module or ""
    if node.level:
        parts = package.split(".") if package else []
        up = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
        base = ".".join([*up, base] if base else up)
    return base


def imported_from(body: list[ast.stmt], name: str, package: str, *, branches: bool = True) -> list[str]:
    """The dotted names `name` was imported from (`from .app import Flask` in package `flask`: `flask.app.Flask`), in
    source order: more than one where branches import it (a compiled speed-up, then its fallback); `branches=False`
    reads the top level only."""
    out = []
    for node in statements(body) if branches else body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    base = from_module(node, package)
                    out.append(f"{base}.{alias.name}" if base else alias.name)
    return out


def star_sources(body: list[ast.stmt], package: str, *, branches: bool = True) -> list[str]:
    """The modules `body` imports everything from (`from ._core import *` in package `pkg`: `pkg._core`), in
    order."""
    out = []
    for node in statements(body) if branches else body:
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            if base := from_module(node, package):
                out.append(base)
    return out


def all_of(tree: ast.Module) -> set[str] | None:
    """A module's `__all__` when it is a literal list or tuple of strings."""
    names = all_list(tree)
    return set(names) if names is not None else None


def all_list(tree: ast.Module) -> list[str] | None:
    """A module's `__all__` in its order, when it is a literal list or tuple of strings, with the literal names its top
    level (branches too) adds to it: `__all__ += [...]` in a `try` block (ccdproc's `block_replicate`, only when its
    optional dependency imports), `.extend([...])`, `.append("x")`."""
    names: list[str] | None = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            if isinstance(node.value, (ast.List, ast.Tuple)):
                names = _strings(node.value)
                break
    if names is None:
        return None
    for node in statements(tree.body):
        value: ast.expr | None = None
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == "__all__":
            value = node.value
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name) \
                and node.value.func.value.id == "__all__" and len(node.value.args) == 1:
            arg = node.value.args[0]
            value = ast.List(elts=[arg], ctx=ast.Load()) if node.value.func.attr == "append" else arg
        if isinstance(value, (ast.List, ast.Tuple)):
            names += _strings(value)
    return names


def _strings(node: ast.List | ast.Tuple) -> list[str]:
    return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
