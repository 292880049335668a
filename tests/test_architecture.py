"""Structure the next engineer relies on: module sizes, who imports the heavy packages, who writes SQL.

The package layout and its layers (no import cycles, imports only flowing down) are tests/test_layout.py."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "server" / "scree"
MODULES = sorted(p for p in PKG.rglob("*.py"))

# Each heavy dependency is imported by exactly the module that owns it.
OWNERS = {
    "onnxruntime": {"embed/local.py"},
    "tokenizers": {"embed/local.py"},
    "sqlite_vec": {"db/connect.py"},
    "sqlean": {"db/connect.py"},
    "watchfiles": {"live/watcher.py"},
    "portalocker": {"live/lock.py"},
    "mcp": {"mcpserver.py", "stdio/stdioguard.py"},  # stdioguard.py: the stdio transport in front of the SDK
    "markdown_it": {"notes/mdblocks.py"},
    "pypdf": {"notes/pdftext.py"},
    "mdit_py_plugins": {"notes/mdblocks.py"},
    "httpx": {"embed/api.py"},
    "httpx2": {"embed/api.py"},  # httpx's successor, which scree uses
}
MAX_LINES = 650


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def rel(path: Path) -> str:
    return path.relative_to(PKG).as_posix()


@pytest.mark.parametrize("path", MODULES, ids=rel)
def test_module_is_small_enough_to_change_without_fear(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


@pytest.mark.parametrize("package", sorted(OWNERS))
def test_heavy_import_lives_in_its_owner_only(package):
    importers = {rel(p) for p in MODULES if package in _imports(p)}
    assert importers <= OWNERS[package], f"{package} imported by {sorted(importers - OWNERS[package])}"


def test_only_the_db_package_and_the_hook_readers_run_sql():
    allowed = ("db/", "hookkit/")
    offenders = [rel(p) for p in MODULES
                 if ".execute(" in p.read_text(encoding="utf-8") and not rel(p).startswith(allowed)]
    assert offenders == []


def test_hook_helpers_import_only_the_standard_library():
    import sys

    stdlib = set(sys.stdlib_module_names) | {"scree", "__future__"}
    for p in (PKG / "hookkit").glob("*.py"):
        assert _imports(p) <= stdlib, f"{rel(p)} imports {sorted(_imports(p) - stdlib)}"
