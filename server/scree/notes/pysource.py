"""Python source read with `ast` whatever Python scree runs on: newer syntax written out in older terms.

scree reads a repository's code (autodoc's docstrings, `literalinclude :pyobject:`, the vocabulary of names) with the
`ast` of the Python it runs on, often 3.11, while the code may already use 3.12's syntax: a `type X = ...` alias, a
generic `def first[T](items: list[T]) -> T`, a `class Box[T]:`. One such line made the whole module unreadable, and
every docstring in it vanished from the index (Sphinx 9's own builders: 24 of its 243 modules). When a module does
not parse, `parse` reads its statements with `tokenize` (which knows 3.12's statements as plain names and brackets,
and never mistakes a string for code), rewrites each of them at once (a generic's type parameters dropped, a `type`
alias turned into `pass` and blank lines) and parses once more. Line numbers never move (a docstring's note names its
line); a module that still does not parse is left unread, as before. Linear in the module's size: one tokenize pass,
two parses at most.

Pure: text in, tree or None out.
"""

from __future__ import annotations

import ast
import io
import tokenize

_SKIPPED = frozenset({tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT})


def parse(text: str) -> ast.Module | None:
    """`text`'s syntax tree; statements in syntax newer than this Python's rewritten as described above. None when
    the module cannot be read."""
    try:
        return ast.parse(text)
    except SyntaxError:
        pass
    except (ValueError, RecursionError, MemoryError):
        return None
    rewritten = _older_terms(text)
    if rewritten is None:
        return None
    try:
        return ast.parse(rewritten)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _older_terms(text: str) -> str | None:
    """`text` with each `type` alias and each generic's type parameters rewritten, or None when there is none or
    `tokenize` cannot read the text."""
    lines = text.split("\n")
    edits: list[tuple[int, int, int, int, str]] = []  # (row, col, end row, end col, replacement), 1-based rows
    statement: list[tokenize.TokenInfo] = []  # the significant tokens of the logical line being read
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NEWLINE or tok.type == tokenize.ENDMARKER:
                edits.extend(_edits(statement))
                statement = []
            elif tok.type not in _SKIPPED:
                if statement and statement[-1].type == tokenize.OP and statement[-1].string == ":" and \
                        _opens_block(statement):
                    edits.extend(_edits(statement))  # `class Box[T]: pass` on one line: the header is its statement
                    statement = []
                statement.append(tok)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    if not edits:
        return None
    for row, col, end_row, end_col, new in sorted(edits, reverse=True):
        if row == end_row:
            line = lines[row - 1]
            lines[row - 1] = line[:col] + new + line[end_col:]
        else:  # over several lines: the first keeps what precedes the edit and what follows it, the rest go blank
            lines[row - 1] = lines[row - 1][:col] + new + lines[end_row - 1][end_col:]
            for r in range(row, end_row):
                lines[r] = ""
    return "\n".join(lines)


def _opens_block(statement: list[tokenize.TokenInfo]) -> bool:
    """Whether `statement` (ending in `:`) is a whole `def`/`class` header at bracket depth 0."""
    if not statement or statement[0].string not in ("def", "class", "async"):
        return False
    depth = 0
    for tok in statement:
        if tok.type == tokenize.OP:
            depth += (tok.string in "([{") - (tok.string in ")]}")
    return depth == 0


def _edits(statement: list[tokenize.TokenInfo]) -> list[tuple[int, int, int, int, str]]:
    """The rewrite of one logical line, if it is a `type` alias or a generic `def`/`class` header."""
    if len(statement) >= 3 and statement[0].string == "type" and statement[1].type == tokenize.NAME and \
            statement[2].string in ("=", "["):
        first, last = statement[0], statement[-1]
        return [(first.start[0], first.start[1], last.end[0], last.end[1], "pass")]
    head = statement[1:] if statement and statement[0].string == "async" else statement
    if len(head) >= 3 and head[0].string in ("def", "class") and head[1].type == tokenize.NAME and \
            head[2].string == "[":
        depth = 0
        for tok in head[2:]:
            if tok.type == tokenize.OP:
                depth += (tok.string in "([{") - (tok.string in ")]}")
            if depth == 0:
                return [(head[2].start[0], head[2].start[1], tok.end[0], tok.end[1], "")]
    return []
