"""Python source in 3.12 syntax is read on an older Python, its line numbers kept (`notes/pysource.py`)."""

from __future__ import annotations

import ast

from scree.notes import pysource

NEWER = '''import typing

type Pair[T] = tuple[
    T,  # first
    T,
]


def first[T: (int, str)](items: list[T]) -> T:
    """The first item."""
    return items[0]


class Box[T]:
    """A box."""

    type Inner = list[T]

    def get(self) -> T:
        """The content."""


async def fetch[T](url: str) -> T:
    """Fetches."""
'''


def test_generics_and_type_aliases_of_python_3_12_are_read_with_their_docstrings_and_lines() -> None:
    tree = pysource.parse(NEWER)
    assert tree is not None
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    assert ast.get_docstring(defs["first"]) == "The first item." and defs["first"].lineno == 9
    assert ast.get_docstring(defs["Box"]) == "A box." and defs["Box"].lineno == 14
    assert ast.get_docstring(defs["get"]) == "The content." and defs["get"].lineno == 19
    assert ast.get_docstring(defs["fetch"]) == "Fetches." and defs["fetch"].lineno == 23


def test_code_that_is_no_python_at_all_is_still_unread() -> None:
    assert pysource.parse("def broken(:\n    pass\n") is None
    assert pysource.parse("x = (\n") is None
    assert pysource.parse("") is not None  # an empty module is a module


def test_every_newer_statement_is_rewritten_in_one_pass_and_strings_are_left_alone() -> None:
    # hundreds of aliases (each once cost a parse of the whole module); a docstring showing the syntax keeps it
    code = "\n".join(f"type Alias{i} = list[int]\n\ndef f{i}(x):\n    return x\n" for i in range(400))
    code += '\ndef documented():\n    """Write it so:\n\n    type Pair = tuple[int, int]\n    """\n\ntype = "a name"\n'
    tree = pysource.parse(code)
    assert tree is not None
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert len(names) == 401 and names[-1] == "documented"
    assert "type Pair = tuple[int, int]" in (ast.get_docstring(tree.body[-2]) or "")
