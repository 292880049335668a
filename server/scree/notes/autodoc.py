"""The docstrings behind Sphinx autodoc directives: what each directive shows (`Resolver.documented`), read from
the folder's Python source. `notes/autodocpage.py` makes them sections of the page that holds the directives.

Many projects' API pages are nothing but `.. autoclass:: flask.Flask` and `.. autofunction::` lines:
Sphinx fills them from docstrings when it builds, so the reference an agent most needs is empty in the
source. Where the named object lives in the notes folder, its docstring is indexed as a section under
the directive's section, headed by the object's full name (`API > Application Object > flask.Flask`),
every chunk pointing at the directive's lines (the page's own text there). The source is read with
`ast`, never imported: no code of the repository runs.

Pure but for `find`, the caller's way to read a module's source by its dotted name (`notes/modules.py`
reads it under the notes policy). Resolution follows what autodoc would import, as far as the source
shows it: the module in effect (`.. currentmodule::`), the longest dotted prefix that is a module, then
names down classes, through `from x import Name` and `from x import *` re-exports (a package's `__init__.py`), a
few hops deep.
`:members:` adds each public member that has a docstring (`__all__` decides a module's public names), attributes
documented by a `#:` comment or a string after them included (ATTRIBUTE_MEMBERS), and
`:inherited-members:` those of its base classes that the folder defines (alone, it shows the members too, as
Sphinx does). What cannot be found (a compiled
module, a name made at run time, a base class from an installed package) is left out: the directive's line
stays the page's text, as before.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from . import pysource, rstblocks
from .mkdocsdirectives import DIRECTIVE as MKDOCSTRINGS
from .pymodule import all_list, all_of, imported_from, star_sources, statements
from ..records import AutodocRef
from .utf8 import cut_utf8


# A module's rel path and source text, or None when the notes folder has no such module.
ModuleFinder = Callable[[str], "tuple[str, str] | None"]

MAX_HOPS = 4  # re-exports followed for one name
MAX_OBJECTS_PER_PAGE = 500  # documented objects one page may add (a page of `:members:` of a huge package)
MAX_SIGNATURE_BYTES = 400
# Names bound in a module's `if` and `try` blocks are found as well as those at its top level (`pymodule.statements`).
# Measured (docs/benchmarks.md): BRANCHES_READ.
BRANCHES_READ = True
# A class member without a docstring shows its nearest base class's, as Sphinx's `autodoc_inherit_docstrings` (on by
# default) does: a builder's `name = "html"` is documented once, on `Builder.name`. Measured (docs/benchmarks.md):
# INHERITED_DOCSTRINGS.
INHERITED_DOCSTRINGS = True
# An object that is an instance of a class the folder defines (`pytest.fail`, `fail = _Fail()`) shows that class's
# docstring, as Python's `__doc__` and so Sphinx do. Measured (docs/benchmarks.md): CALLABLE_INSTANCES.
CALLABLE_INSTANCES = True

_DEFS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_Def = ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Documented:
    """One object autodoc would show: its full name, signature line, docstring and where it was read."""

    name: str
    signature: str
    doc: str
    where: str  # "src/flask/app.py, line 109"
    member: bool = False  # shown by a `:members:` option, not named by a directive of its own
    reexported_by: str = ""  # the module whose automodule shows it through `__all__`, not where it is defined


@dataclass
class _Module:
    name: str
    path: str
    tree: ast.Module
    package: str  # the package relative imports start from
    lines: list[str] = field(default_factory=list)  # the source, for `#:` doc-comments
    following: dict[int, ast.stmt] | None = None  # id of a statement -> the next one in its body (made on first use)

    def next_statement(self, node: ast.AST) -> ast.stmt | None:
        """The statement after `node` in the body that holds it, if any."""
        if self.following is None:
            self.following = {}
            for parent in ast.walk(self.tree):
                for attr in ("body", "orelse", "finalbody"):
                    body = getattr(parent, attr, None)
                    if isinstance(body, list):
                        self.following.update((id(a), b) for a, b in zip(body, body[1:]))
        return self.following.get(id(node))


class Resolver:
    """Names to their definitions in the notes folder's Python source, each module parsed once."""

    def __init__(self, find: ModuleFinder, *, summary_members: bool = False) -> None:
        self._find = find
        self._summary_members = summary_members  # a listed class's page shows its members (`rstblocks.CLASS_TEMPLATE`)
        self._modules: dict[str, _Module | None] = {}
        self._star_seen: set[tuple[str, str]] = set()  # (module, name) pairs being or already searched in vain

    def documented(self, ref: AutodocRef) -> list[Documented]:
        target = ref.target.split("(", 1)[0].strip().lstrip("~")
        if not target:
            return []
        if ref.directive == MKDOCSTRINGS:  # its kind is not written: a module is shown as automodule shows one
            ref = replace(ref, directive="automodule" if self._module(target) is not None else "autoclass")
        if ref.directive == rstblocks.AUTOSUMMARY:  # a listed name's page: a module's docstring alone, or the object's
            module = self._module(summary_name(ref)) or self._module(target)
            if module is not None:
                doc = ast.get_docstring(module.tree)
                return [Documented(module.name, module.name, doc, f"{module.path}, line 1")] if doc else []
            if self._summary_members:
                ref = replace(ref, options=frozenset({"members"}))  # on a function, the option shows nothing more
        if ref.directive == "automodule":
            mod = self._module(target)
            if mod is None:
                return []
            out = []
            doc = ast.get_docstring(mod.tree)
            if doc:
                out.append(Documented(mod.name, mod.name, doc, f"{mod.path}, line 1"))
            if _shows_members(ref.options):
                exported = all_list(mod.tree)
                public = set(exported) if exported is not None else None
                listed = _listed(mod.tree, _public(mod.tree, public), ref.members)
                for node in listed:
                    out.extend(replace(d, member=not ref.members) for d in
                               self._describe(node, f"{mod.name}.{node.name}", mod, ref.options))
                if REEXPORTED_MEMBERS:
                    out.extend(self._reexported(mod, ref, exported or []))
                if ATTRIBUTE_MEMBERS:
                    defined = {node.name for node in listed}
                    for attr, at, attr_doc in _attributes(mod.tree, mod, ref.members, public):
                        if attr in defined:
                            continue
                        out.append(Documented(f"{mod.name}.{attr}", f"data {mod.name}.{attr}", attr_doc,
                                              f"{mod.path}, line {at}", member=not ref.members))
            return _without_excluded(out, mod.name, ref)
        names = [target]
        if ref.module and not target.startswith(ref.module + "."):
            names.insert(0, f"{ref.module}.{target}")
        for full in names:
            found = self._resolve(full)
            if found is not None:
                if INHERITED_DOCSTRINGS and not _own_doc(*found):
                    found = self._inherited(full) or found
                if CALLABLE_INSTANCES and not _own_doc(*found) and (shown := self._instance_of(full, *found)):
                    return [shown]
                return _without_excluded(self._describe(found[0], full, found[1], ref.options, ref.members), full, ref)
        return []

    def _reexported(self, mod: _Module, ref: AutodocRef, exported: list[str]) -> list[Documented]:
        """The classes and functions an automodule's `:members:` shows that the module imports rather than defines:
        those its `__all__` lists (`exported`), in that order (or a `:members: a, b` list names), resolved where they
        are defined and shown under the module's name, as Sphinx does (`urllib3.util.Retry`, from
        `urllib3.util.retry`)."""
        out: list[Documented] = []
        for name in ref.members or exported:
            if _defined(mod.tree.body, name) is not None:
                continue  # defined here: shown with the module's own members
            found = self._resolve(f"{mod.name}.{name}")
            if found is not None and isinstance(found[0], _DEFS):
                out.extend(replace(d, member=not ref.members, reexported_by=mod.name) for d in
                           self._describe(found[0], f"{mod.name}.{name}", found[1], ref.options))
        return out

    def _instance_of(self, full: str, node: ast.AST, mod: _Module) -> Documented | None:
        """An object bound to an instance of a class the folder defines (`fail: _Fail = _Fail()` behind `pytest.fail`):
        what Sphinx shows, its class's docstring (an instance's `__doc__`), called as the class's `__call__` is."""
        call = getattr(node, "value", None)
        if not isinstance(call, ast.Call) or not isinstance(call.func, (ast.Name, ast.Attribute)):
            return None
        found = self._base(call.func, mod)
        doc = ast.get_docstring(found[0]) if found is not None else None
        if found is None or not doc:
            return None
        cls, where = found
        called = _defined(cls.body, "__call__")
        signature = _signature(called, full) if isinstance(called, (ast.FunctionDef, ast.AsyncFunctionDef)) else full
        return Documented(full, signature, doc, f"{where.path}, line {cls.lineno}")

    def _inherited(self, full: str) -> tuple[ast.AST, _Module] | None:
        """For a class member without a docstring of its own (`name = "html"` in a builder), the same member of the
        nearest base class that has one, as Sphinx shows it (`autodoc_inherit_docstrings`, on by default)."""
        owner_name, _, member = full.rpartition(".")
        owner = self._resolve(owner_name) if owner_name else None
        if owner is None or not isinstance(owner[0], ast.ClassDef):
            return None
        return self._from_bases(owner[0], owner[1], member, documented=True)

    def _from_bases(self, cls: ast.ClassDef, mod: _Module, name: str,
                    documented: bool = False) -> tuple[ast.AST, _Module] | None:
        """`name` as the nearest base class of `cls` that the folder defines has it (with a docstring of its own, when
        `documented`), and that base's module."""
        for base, base_mod in self._ancestors(cls, mod):
            node = _defined(base.body, name)
            if node is not None and (not documented or _own_doc(node, base_mod)):
                return node, base_mod
        return None

    def _describe(self, node: ast.AST, name: str, mod: _Module, options: frozenset[str],
                  listed: tuple[str, ...] = ()) -> list[Documented]:
        """`node`'s docstring, then (`:members:`) its members': those `listed`, named on the page, or else every
        public one, which only the option shows (`Documented.member`)."""
        out: list[Documented] = []
        doc = ast.get_docstring(node) if isinstance(node, _DEFS) else _attribute_doc(node, mod)
        undoc = UNDOC_MEMBERS and "undoc-members" in options
        if doc or (undoc and isinstance(node, _DEFS) and not _overload(node)):
            out.append(Documented(name, _signature(node, name), doc or "",
                                  f"{mod.path}, line {getattr(node, 'lineno', 1)}"))
        if not _shows_members(options) or not isinstance(node, ast.ClassDef):
            return out
        # The class's own members, then (`:inherited-members:`) those of its bases in the folder, nearest first.
        classes = [(node, mod)]
        if "inherited-members" in options:
            classes.extend(self._ancestors(node, mod))
        seen: set[str] = set()
        for cls, where in classes:
            for child in _listed(cls, _public(cls, None), listed):
                if child.name in seen:
                    continue
                child_doc = ast.get_docstring(child) or self._assigned_doc(cls, where, child.name)
                if not child_doc and undoc and not _overload(child):
                    inherited = self._from_bases(node, mod, child.name, documented=True)
                    child_doc = ast.get_docstring(inherited[0]) if inherited and isinstance(inherited[0], _DEFS) \
                        else None
                    child_doc = child_doc or ""  # shown with its signature alone, as Sphinx does
                elif not child_doc and MEMBERS_FOUND_DOCUMENTED:
                    continue  # an `@overload` stub before the definition, an override a base documents
                seen.add(child.name)
                if child_doc is not None:
                    full = f"{name}.{child.name}"
                    out.append(Documented(full, _signature(child, full), child_doc,
                                          f"{where.path}, line {child.lineno}", member=not listed))
            if ATTRIBUTE_MEMBERS:
                for attr, node_at, attr_doc in _attributes(cls, where, listed):
                    if attr not in seen:
                        seen.add(attr)
                        out.append(Documented(f"{name}.{attr}", f"attribute {name}.{attr}", attr_doc,
                                              f"{where.path}, line {node_at}", member=not listed))
        return out

    def _assigned_doc(self, cls: ast.ClassDef, mod: _Module, name: str) -> str | None:
        """The docstring a class body gives its member `name` after defining it: `get_chain.__doc__ = "..."`, or a
        documented method's, copied (`get_chain.__doc__ = Backend.get_chain.__doc__`: emcee's sampler, whose methods
        hand the work to its backend). Autodoc reads the attribute at run time; here the assignment is read."""
        if not ASSIGNED_DOCS:
            return None
        for stmt in cls.body:
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _doc_of(stmt.targets[0]) == name):
                continue
            value = stmt.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return inspect.cleandoc(value.value) or None
            source = value.value if isinstance(value, ast.Attribute) and value.attr == "__doc__" else None
            if isinstance(source, ast.Attribute):  # `Backend.get_chain`: a method of a class the folder defines
                found = self._base(source.value, mod)
                if found is not None:
                    member = _defined(found[0].body, source.attr)
                    return ast.get_docstring(member) if isinstance(member, _DEFS) else None
        return None

    def _ancestors(self, node: ast.ClassDef, mod: _Module, depth: int = 0) -> list[tuple[ast.ClassDef, _Module]]:
        """A class's base classes that the folder's source defines, breadth first, a few levels up."""
        out: list[tuple[ast.ClassDef, _Module]] = []
        if depth >= MAX_HOPS:
            return out
        for base in node.bases:
            found = self._base(base, mod)
            if found is not None:
                out.append(found)
                out.extend(self._ancestors(found[0], found[1], depth + 1))
        return out

    def _base(self, base: ast.expr, mod: _Module) -> tuple[ast.ClassDef, _Module] | None:
        """The class a base-class expression (`App`, `sansio.App`) names, when the folder defines it."""
        if not isinstance(base, (ast.Name, ast.Attribute)):
            return None
        head, _, rest = ast.unparse(base).partition(".")
        found: tuple[ast.AST, _Module] | None = None
        local = _defined(mod.tree.body, head)
        if isinstance(local, ast.ClassDef) and not rest:
            found = local, mod
        else:
            sources = imported_from(mod.tree.body, head, mod.package, branches=BRANCHES_READ)
            found = self._first(sources, [rest] if rest else [], 0)
        if found is not None and isinstance(found[0], ast.ClassDef):
            return found[0], found[1]
        return None

    def _resolve(self, full: str, hops: int = 0) -> tuple[ast.AST, _Module] | None:
        """The definition `full` (a dotted name) names, and the module it is in."""
        parts = full.split(".")
        for k in range(len(parts) - 1, 0, -1):
            mod = self._module(".".join(parts[:k]))
            if mod is not None:
                return self._within(mod, parts[k:], hops)
        return None

    def _first(self, sources: list[str], rest: list[str], hops: int) -> tuple[ast.AST, _Module] | None:
        """The first of `sources` (where branches import a name from: `try: from ._speedups import x` `except
        ImportError: from ._native import x`) in which `rest` resolves."""
        for source in sources:
            found = self._resolve(".".join([source, *rest]), hops)
            if found is not None:
                return found
        return None

    def _within(self, mod: _Module, path: list[str], hops: int) -> tuple[ast.AST, _Module] | None:
        node: ast.AST = mod.tree
        for depth, part in enumerate(path):
            body = getattr(node, "body", [])
            found = _defined(body, part)
            if found is None and depth == 0 and hops < MAX_HOPS:
                sources = imported_from(body, part, mod.package, branches=BRANCHES_READ)
                if sources:
                    return self._first(sources, path[1:], hops + 1)
                # `from ._core import *`: the last such module that exports the name, as at run time. Each
                # (module, name) is searched once: modules that star-import each other end, and so does a fan of them.
                for star in reversed(star_sources(body, mod.package, branches=BRANCHES_READ)):
                    if (star, part) in self._star_seen:
                        continue
                    self._star_seen.add((star, part))
                    other = self._module(star)
                    exported = all_of(other.tree) if other is not None else None
                    if other is not None and (part in exported if exported is not None else not part.startswith("_")):
                        inner = self._within(other, path, hops + 1)
                        if inner is not None:
                            self._star_seen.discard((star, part))  # found: the next directive may ask again
                            return inner
            value = getattr(found, "value", None)
            if (depth == 0 and hops < MAX_HOPS and isinstance(value, ast.Name) and found is not None
                    and _attribute_doc(found, mod) is None):
                # `ib = attr = attrib`, `attrib` imported
                sources = imported_from(body, value.id, mod.package, branches=BRANCHES_READ)
                if sources:
                    return self._first(sources, path[1:], hops + 1)
            if found is None and depth > 0 and isinstance(node, ast.ClassDef):
                found = _instance_attribute(node, part, mod)
            if found is None and depth > 0 and isinstance(node, ast.ClassDef) and INHERITED_DOCSTRINGS:
                # a member the class inherits (`DirectoryHTMLBuilder.format`): looked up its bases, as getattr does
                inherited = self._from_bases(node, mod, part)
                if inherited is not None:
                    found, mod = inherited
            if found is None:
                return None
            node = found
        return node, mod

    def _module(self, name: str) -> _Module | None:
        if name in self._modules:
            return self._modules[name]
        mod = None
        source = self._find(name)
        if source is not None:
            path, text = source
            tree = pysource.parse(text)
            if tree is not None:
                package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
                mod = _Module(name, path, tree, package, text.splitlines())
        self._modules[name] = mod
        return mod


def summary_name(ref: AutodocRef) -> str:
    """The full name of the object an autosummary list names: relative to the current module, as Sphinx reads it
    (`GeoSeries.area` under `.. currentmodule:: geopandas`), unless it starts with that module."""
    target = ref.target.split("(", 1)[0].strip().lstrip("~")
    return target if not ref.module or target.startswith(ref.module + ".") else f"{ref.module}.{target}"


def _instance_attribute(cls: ast.ClassDef, name: str, mod: _Module) -> ast.AST | None:
    """The assignment `self.<name> = ...` in `cls`'s `__init__` that documents it (a `#:` comment above it or a string
    after it, as Sphinx's analyzer reads instance attributes), else the first such assignment; None when none."""
    init = _defined(cls.body, "__init__")
    if not isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    first: ast.AST | None = None
    for node in ast.walk(init):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) \
            else []
        if any(isinstance(t, ast.Attribute) and t.attr == name and isinstance(t.value, ast.Name) and t.value.id == "self"
               for t in targets):
            if _attribute_doc(node, mod):
                return node
            first = first or node
    return first


# An automodule's `:members:` shows the names its `__all__` lists even where the module only imports them (Sphinx checks
# a member's `__module__` only when there is no `__all__`): `urllib3.util` re-exports `Retry`, `Timeout` and `Url` from
# its submodules. Measured (docs/benchmarks.md): REEXPORTED_MEMBERS.
REEXPORTED_MEMBERS = True


# `:members:` shows the attributes Sphinx's source analyzer finds documented, as well as functions and classes: a
# class's or module's assignment with a `#:` comment or a string after it, and a class's `self.name = ...` in a method
# (requests' `Response.elapsed`, werkzeug's `Request.max_content_length`). Measured (docs/benchmarks.md):
# ATTRIBUTE_MEMBERS.
ATTRIBUTE_MEMBERS = True


def _attributes(node: ast.ClassDef | ast.Module, mod: _Module, listed: tuple[str, ...] = (),
                public: set[str] | None = None) -> list[tuple[str, int, str]]:
    """The documented attributes of a class or module that `:members:` shows, as (name, line, docstring): those
    `listed` when a list names members, else the public ones (those in `public`, a module's `__all__`, when given),
    each once (its first documented assignment), in source order."""
    found: dict[str, tuple[int, str]] = {}

    def add(attr: str, at: ast.AST) -> None:
        if attr in found:
            return
        if listed and attr not in listed or not listed and (attr.startswith("_") if public is None
                                                               else attr not in public):
            return
        doc = _attribute_doc(at, mod)
        if doc:
            found[attr] = (getattr(at, "lineno", 1), doc)

    for stmt in statements(node.body):
        for target in _assigned(stmt):
            if isinstance(target, ast.Name):
                add(target.id, stmt)
        if isinstance(node, ast.ClassDef) and isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self_arg = (stmt.args.posonlyargs + stmt.args.args)[:1]
            for inner in ast.walk(stmt):
                for target in _assigned(inner):
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and self_arg \
                            and target.value.id == self_arg[0].arg:
                        add(target.attr, inner)
    ordered = sorted(found.items(), key=lambda item: item[1][0])
    if listed:
        ordered.sort(key=lambda item: listed.index(item[0]))
    return [(attr, at, doc) for attr, (at, doc) in ordered]


def _assigned(node: ast.AST) -> list[ast.expr]:
    """The targets an assignment statement binds (none for any other node)."""
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, ast.AnnAssign):
        return [node.target]
    return []


def _own_doc(node: ast.AST, mod: _Module) -> bool:
    """Whether a definition or assignment carries a docstring of its own."""
    return bool(ast.get_docstring(node) if isinstance(node, _DEFS) else _attribute_doc(node, mod))


def _attribute_doc(node: ast.AST, mod: _Module) -> str | None:
    """What Sphinx shows for an assignment (`.. autodata::`, `.. autoattribute::`): the string right after it
    (`NOTHING = ...`, then a string literal "Sentinel ..."), else its `#:` doc-comment, on lines right above it or
    after it on its line."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign)):
        return None
    after = mod.next_statement(node)
    if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str):
        return inspect.cleandoc(after.value.value) or None
    comments: list[str] = []
    at = node.lineno - 2  # 0-based index of the line above
    while 0 <= at < len(mod.lines) and mod.lines[at].lstrip().startswith("#:"):
        comments.insert(0, mod.lines[at].lstrip()[2:].strip())
        at -= 1
    if not comments and 0 < node.lineno <= len(mod.lines) and "#: " in mod.lines[node.lineno - 1]:
        comments.append(mod.lines[node.lineno - 1].split("#: ", 1)[1].strip())
    return "\n".join(comments).strip() or None


# `:undoc-members:` shows the public functions, classes and methods without a docstring too, each its signature alone
# (an override a base class documents shows that docstring; an `@overload` stub is never shown), as Sphinx does:
# urllib3's `HTTPResponse.release_conn`. Measured (docs/benchmarks.md): UNDOC_MEMBERS.
UNDOC_MEMBERS = True


def _overload(node: ast.AST) -> bool:
    """Whether a definition is an `@overload` (`@typing.overload`) stub."""
    return any((isinstance(d, ast.Name) and d.id == "overload")
               or (isinstance(d, ast.Attribute) and d.attr == "overload")
               for d in getattr(node, "decorator_list", []))


# `:exclude-members: a, b` leaves those members out of what a directive shows (requests, scrapy, tox, coverage and
# jsonschema use it), as Sphinx does. Measured (docs/benchmarks.md): EXCLUDED_MEMBERS.
EXCLUDED_MEMBERS = True


def _without_excluded(shown: list[Documented], owner: str, ref: AutodocRef) -> list[Documented]:
    """`shown` without the members (and their members) that the directive's `:exclude-members:` names."""
    excluded = set(rstblocks.option_names(dict(ref.values).get("exclude-members", "")))
    if not EXCLUDED_MEMBERS or not excluded:
        return shown
    return [d for d in shown if not (d.name.startswith(owner + ".")
                                      and excluded & set(d.name[len(owner) + 1:].split(".")))]


def _shows_members(options: frozenset[str]) -> bool:
    """Whether a directive shows the object's members: `:members:`, or `:inherited-members:` alone, which Sphinx reads
    as all members too (`want_all` in autodoc's `document_members`; marshmallow's `Schema` page gives only it)."""
    return "members" in options or "inherited-members" in options


def _listed(node: ast.AST, public: list[_Def], names: tuple[str, ...]) -> list[_Def]:
    """The members of `node` that a `:members: a, b` list names, in the list's order, private ones too (Sphinx
    shows what the list names); its `public` members when the list names none. A name not defined there is left
    out. Of an `@overload`ed name, the definition (the last)."""
    if not names:
        return public
    by_name = {child.name: child for child in getattr(node, "body", []) if isinstance(child, _DEFS)}
    return [by_name[n] for n in names if n in by_name]


def _defined(body: list[ast.stmt], name: str, depth: int = 0) -> ast.AST | None:
    """The last top-level definition or assignment of `name` in `body` (the one that wins at run time). An
    assignment that wraps the definition before it (`Factory = _add_hash(Factory, ...)`) or names another definition
    of `body` (`ib = attr = attrib`) gives that definition: the object autodoc imports is the same, and its
    docstring is the definition's."""
    found: ast.AST | None = None
    earlier: ast.AST | None = None
    body = statements(body) if BRANCHES_READ else body
    for node in body:
        if isinstance(node, _DEFS) and node.name == name and _accessor_of(node, name) and found is not None:
            continue  # `@shield.setter`: the property is still the getter's, and so is its docstring
        if isinstance(node, _DEFS) and node.name == name:
            found = earlier = node
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            found = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            found = node
    value = getattr(found, "value", None)
    if earlier is not None and value is not None and any(
            isinstance(n, ast.Name) and n.id == name for n in ast.walk(value)):
        return earlier
    if isinstance(value, ast.Name) and value.id != name and depth < MAX_HOPS:
        aliased = _defined(body, value.id, depth + 1)
        if isinstance(aliased, _DEFS):
            return aliased
    return found


def _accessor_of(node: _Def, name: str) -> bool:
    """True when `node` is decorated `@name.setter` or `@name.deleter`: it adds to the property `name`, whose
    docstring Sphinx shows is its getter's."""
    return any(isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter") and isinstance(d.value, ast.Name)
               and d.value.id == name for d in node.decorator_list)


# A member is the first definition of its name that has a docstring: the body of an `@overload`ed method after its
# stubs (werkzeug's `Request.get_json`), or a base class's documented method that a subclass overrides without one.
# Measured (docs/benchmarks.md): MEMBERS_FOUND_DOCUMENTED.
MEMBERS_FOUND_DOCUMENTED = True
# A member's docstring may be set in its class body after it (`get_chain.__doc__ = Backend.get_chain.__doc__`), as
# autodoc sees it at run time. Measured (docs/benchmarks.md): ASSIGNED_DOCS.
ASSIGNED_DOCS = True


def _doc_of(target: ast.expr) -> str | None:
    """The name whose `__doc__` an assignment target sets (`get_chain.__doc__`), or None."""
    if isinstance(target, ast.Attribute) and target.attr == "__doc__" and isinstance(target.value, ast.Name):
        return target.value.id
    return None


def _public(node: ast.AST, names: set[str] | None) -> list[_Def]:
    """A module's or class's public classes and functions, in source order, those of its `if` and `try` blocks too
    (BRANCHES_READ: alembic's `Operations` writes its methods, which it registers at import time, as documented stubs
    under `if TYPE_CHECKING:`); of a name defined twice, the first definition with a docstring."""
    body: list[ast.stmt] = getattr(node, "body", [])
    out: dict[str, _Def] = {}
    for child in statements(body) if BRANCHES_READ else body:
        if isinstance(child, _DEFS) and (child.name in names if names is not None else not child.name.startswith("_")):
            if child.name not in out or (not ast.get_docstring(out[child.name]) and ast.get_docstring(child)):
                out[child.name] = child
    return list(out.values())


def _signature(node: ast.AST, name: str) -> str:
    """`name(args)` as the source declares it (a class takes its `__init__`'s arguments but `self`)."""
    args: ast.arguments | None = None
    prefix = ""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = node.args
        if any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
            return f"property {name}"
    elif isinstance(node, ast.ClassDef):
        prefix = "class "
        init = _defined(node.body, "__init__")
        if isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = init.args
    if args is None:
        return f"{prefix}{name}"
    try:
        shown = ast.unparse(args)
    except Exception:  # noqa: BLE001 - a signature is a courtesy; the docstring is the content
        shown = "..."
    for first in ("self, ", "cls, ", "self", "cls"):
        if shown.startswith(first):
            shown = shown[len(first):]
            break
    return cut_utf8(f"{prefix}{name}({shown})", MAX_SIGNATURE_BYTES)
