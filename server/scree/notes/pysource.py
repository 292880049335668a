"""Python source read with `ast` whatever Python scree runs on: newer syntax written out in older terms.

scree reads a repository's code (autodoc's docstrings, `literalinclude :pyobject:`, the vocabulary of names) with the
`ast` of the Python it runs on, often 3.11, while the code may already use 3.12's syntax: a `type X = ...` alias, a
generic `def first[T](items: list[T]) -> T`, a `class Box[T]:`. One such line made the whole module unreadable, and
every docstring in it vanished from the index (Sphinx 9's own builders: 24 of its 243 modules). `parse` retries a
module that fails, each time rewriting the statement the error points at: a generic's type parameters are dropped
(`def first(items: list[T]) -> T`), a `type` alias becomes blank lines. Line numbers never move (a docstring's note
names its line), and what cannot be rewritten leaves the module unread, as before.

Pure: text in, tree or None out.
"""

from __future__ import annotations

import ast
import re

MAX_REPAIRS = 200  # statements rewritten in one module before it is given up
_GENERIC = re.compile(r"^(\s*(?:async\s+def|def|class)\s+\w+)\s*\[")
_TYPE_ALIAS = re.compile(r"^(\s*)type\s+\w+\s*(?:\[|=)")
_OPENERS = {"(": ")", "[": "]", "{": "}"}


def parse(text: str) -> ast.Module | None:
    """`text`'s syntax tree; a statement in syntax newer than this Python's rewritten as described above. None when
    the module cannot be read."""
    lines = text.split("\n")
    for _ in range(MAX_REPAIRS):
        try:
            return ast.parse("\n".join(lines))
        except (ValueError, RecursionError, MemoryError):
            return None
        except SyntaxError as error:
            if not error.lineno or not _repair(lines, error.lineno - 1):
                return None
    return None


def _repair(lines: list[str], at: int) -> bool:
    """Rewrites, in place, the statement of 3.12 syntax on or just above line `at` (0-based); False when none is."""
    for i in range(at, max(at - 3, -1), -1):  # the error may point a line or two into the statement
        if i >= len(lines):
            continue
        line = lines[i]
        if (generic := _GENERIC.match(line)) is not None:
            end = _closing(line, generic.end() - 1)
            if end is None:
                return False
            lines[i] = line[:generic.end() - 1] + line[end + 1:]
            return True
        if (alias := _TYPE_ALIAS.match(line)) is not None:
            last = _statement_end(lines, i)
            lines[i] = alias.group(1) + "pass"
            for j in range(i + 1, last + 1):
                lines[j] = ""
            return True
    return False


def _closing(line: str, start: int) -> int | None:
    """The index of the bracket closing the one at `start` on `line`, or None when it does not close there."""
    stack: list[str] = []
    for i in range(start, len(line)):
        ch = line[i]
        if ch in _OPENERS:
            stack.append(_OPENERS[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return i
    return None


def _statement_end(lines: list[str], start: int) -> int:
    """The last line of the statement opening on line `start`: where its brackets close (strings and comments are
    not read apart: a type alias holds neither, as a rule)."""
    depth = 0
    for j in range(start, len(lines)):
        code = lines[j].split("#", 1)[0]
        depth += sum(code.count(o) for o in _OPENERS) - sum(code.count(c) for c in _OPENERS.values())
        if depth <= 0 and not code.rstrip().endswith("\\"):
            return j
    return len(lines) - 1
