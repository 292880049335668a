"""The package layout reads as the data flow, and imports only flow down it.

server/scree/ holds a few shared modules and one package per stage: notes -> index -> search -> live
-> the server and the CLI (docs/architecture.md opens with the map). Each top-level name has a layer
in LAYERS; a module may import only names of a lower layer, or its own package. An import inside a
function counts (it runs, just later); one under `if TYPE_CHECKING:` does not (it never runs). There
is no import cycle between modules, whatever their layers.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterable, Mapping

import pytest

PKG = Path(__file__).resolve().parent.parent / "server" / "scree"

# Layer of each name directly under scree/ ("scree" is the package's own __init__). Lower layers never
# import higher ones; two names sharing a layer do not import each other. A new module or package
# gets its row here.
LAYERS = {
    # leaves: import nothing of scree's
    "scree": 0, "errors": 0, "records": 0, "settings_table": 0, "humantime": 0, "pids": 0, "memory": 0,
    "relay": 0,  # the session relay (stdlib only): runs before any environment exists
    "config": 1,  # the Config record, from the settings table
    "locate": 2,  # which folder, where its index lives
    "db": 2,  # all the SQL
    "notes": 3,  # which files are notes, reading and chunking one (pure Markdown work)
    "embed": 4,  # the embedders
    "hookkit": 4,  # the hooks' stdlib-only logic (reads notes.sectiontext, notes.secondary, config, locate)
    "index": 5,  # store, sync (stage one), embedstage (stage two), vectors, vocabulary
    "search": 6,  # answering a query from the index
    "workspace": 7,  # one folder's config, index location and lazy embedder
    "live": 8,  # the live index: writer lock, watcher, worker, read/write connections
    "doctor": 9,  # scree doctor and scree usage
    "stdio": 9,  # the MCP stdio transport's guards
    "mcpserver": 10,  # the MCP tools
    "engine": 11,  # the per-user engine: every session's MCP calls over a Unix socket
    "cli": 12,  # the scree command
}
MAX_TOP_LEVEL_MODULES = 12
# Packages whose __init__ is a docstring and nothing else: importing one stage's module (the hooks
# import scree.notes.sectiontext) must not load the rest of the stage.
DOCSTRING_ONLY = {"db", "notes", "index", "search", "live", "stdio", "doctor", "relay"}


# ----- the import graph -----------------------------------------------------------------------------


def module_name(path: Path, root: Path = PKG) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(source: str, module: str, is_package: bool, known: Iterable[str]) -> set[str]:
    """The modules of `known` that `module` imports when it runs (at import time or in a function),
    not counting `if TYPE_CHECKING:` bodies. `from pkg import name` is an import of `pkg.name` when
    that is a module, else of `pkg`."""
    known = set(known)
    package = module.split(".") if is_package else module.split(".")[:-1]
    found: set[str] = set()

    def add(target: str) -> None:
        if target in known:
            found.add(target)

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for other in child.orelse:
                    visit_one(other)
                continue
            visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
                source_module = ".".join(base)
            else:
                source_module = node.module or ""
            for alias in node.names:
                submodule = f"{source_module}.{alias.name}"
                add(submodule if submodule in known else source_module)
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            return
        visit(node)

    visit(ast.parse(source))
    found.discard(module)
    return found


def import_graph(root: Path = PKG) -> dict[str, set[str]]:
    paths = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    return {name: imports_of(p.read_text(encoding="utf-8"), name, p.name == "__init__.py", paths)
            for name, p in paths.items()}


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module (or a module importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def strongconnect(v: str) -> None:
        # iterative, so a long import chain cannot hit the recursion limit
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        while work:
            node, edges = work[-1]
            for w in edges:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == node:
                            break
                    if len(component) > 1 or node in graph.get(node, ()):
                        found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    return found


def top_name(module: str) -> str:
    """The name directly under scree/ that a module belongs to ("scree" for the package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


GRAPH = import_graph()


# ----- the reader itself, on made-up sources --------------------------------------------------------


def test_the_import_reader_resolves_relative_and_lazy_imports_and_skips_type_checking() -> None:
    known = {"scree", "scree.errors", "scree.notes", "scree.notes.walk", "scree.notes.policy", "scree.index",
             "scree.index.store", "scree.index.sync", "scree.live", "scree.live.live", "scree.db", "scree.db.queries"}
    source = (
        "from typing import TYPE_CHECKING\n"
        "import os\n"
        "from ..errors import ScreeError\n"  # two levels up: scree.errors
        "from ..notes import walk\n"  # a module imported from its package
        "from .store import Index\n"  # a name from a sibling module
        "from scree.db import queries as q\n"
        "if TYPE_CHECKING:\n"
        "    from ..live.live import LiveIndex\n"  # never runs
        "else:\n"
        "    import scree.notes.policy\n"
        "def later():\n"
        "    from .. import live\n"  # a lazy import still counts
    )
    assert imports_of(source, "scree.index.sync", False, known) == {
        "scree.errors", "scree.notes.walk", "scree.index.store", "scree.db.queries", "scree.notes.policy",
        "scree.live"}
    # in a package's __init__, one dot is the package itself
    assert imports_of("from .walk import x\nfrom . import policy\n", "scree.notes", True, known) == {
        "scree.notes.walk", "scree.notes.policy"}


def test_cycles_finds_a_loop_and_nothing_in_a_tree() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"a"}}) == [["a"]]


# ----- the layout ------------------------------------------------------------------------------------


def test_the_graph_is_read() -> None:
    # a sanity check that the reader sees this tree's imports, so the tests below can fail
    assert "scree.index.store" in GRAPH["scree.index.sync"]
    assert "scree.doctor.checks" in GRAPH["scree.doctor.api"]


def test_no_import_cycles() -> None:
    assert cycles(GRAPH) == []


def test_every_top_level_name_has_a_layer() -> None:
    names = {top_name(m) for m in GRAPH}
    assert names <= set(LAYERS), f"give {sorted(names - set(LAYERS))} a row in LAYERS"
    assert set(LAYERS) <= names, f"LAYERS names what is gone: {sorted(set(LAYERS) - names)}"


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_flow_down_the_layers(module: str) -> None:
    own = top_name(module)
    upward = sorted(target for target in GRAPH[module]
                    if top_name(target) != own and LAYERS[top_name(target)] >= LAYERS[own])
    assert upward == [], (f"{module} (layer {LAYERS[own]}) imports "
                          + ", ".join(f"{t} (layer {LAYERS[top_name(t)]})" for t in upward))


def test_the_top_level_holds_few_modules() -> None:
    modules = sorted(p.name for p in PKG.glob("*.py"))
    assert len(modules) <= MAX_TOP_LEVEL_MODULES, modules


@pytest.mark.parametrize("package", sorted(p.parent.name for p in PKG.glob("*/__init__.py")))
def test_every_package_says_what_it_is_for(package: str) -> None:
    tree = ast.parse((PKG / package / "__init__.py").read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree)
    assert doc, f"{package}/__init__.py needs a docstring: its job and its public names"
    if package in DOCSTRING_ONLY:
        assert len(tree.body) == 1, f"{package}/__init__.py must hold only its docstring (no imports)"
        # the docstring names every module of the package
        modules = {p.stem for p in (PKG / package).glob("*.py")} - {"__init__"}
        unnamed = sorted(m for m in modules if f"`{m}`" not in doc)
        assert unnamed == [], f"{package}/__init__.py does not name {unnamed}"
