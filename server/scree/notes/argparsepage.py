"""The CLI reference a sphinx-argparse directive renders: `.. argparse::` (sphinx-argparse) or `.. sphinx_argparse_cli::`
(sphinx-argparse-cli), with `:module: cumin.cli` and `:func: get_parser` (or `:ref: cumin.cli.get_parser`), and
`:prog:`.

Sphinx imports the module, calls the function and prints each option of the parser it returns with its help; in the
source the page holds only the directive, so the reference an agent needs for `--batch-sleep` was not there. scree
never runs the code: it reads the function and the module's functions it calls (`_add_install(subparsers, ...)`), and
takes each `add_argument(...)` call's option strings, `help=`, `choices=` and `default=` as written (a string built
from constants, a module-level string constant, a `textwrap.dedent` of one). A subcommand's options
(`add_parser("install", help=...)`) follow in the directive's section, introduced by `prog install` and its help
(sections of their own, titled as the built page titles them, cost more: docs/benchmarks.md); options added to a
parser a helper receives as an argument go to that parser's subcommand. What code computes (a help read from a variable
of another module, options added in a loop over data) is left out. Off (ARGPARSE_PAGES). Pure but for `find`.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field, replace

from . import pysource
from .autodoc import ModuleFinder
from .chunker import chunk_lines, chunk_note
from .rstblocks import ARGPARSE_DIRECTIVES
from .sections import Excerpt
from .utf8 import cut_utf8
from ..records import AutodocRef, Chunk, ChunkedNote

# Off: measured, the options it shows cost pipx's labels (which chose its guides, the CLI page being empty in the
# source) more than cumin gains (docs/benchmarks.md, ARGPARSE_PAGES); turning it on sets the next CHUNKER_VERSION.
ARGPARSE_PAGES = False
_SUPPRESS = "==SUPPRESS=="  # argparse.SUPPRESS
MAX_ARGUMENTS = 2000  # options read from one parser: a generated parser must not make a page of millions
MAX_DEPTH = 8  # helper calls followed, nested


@dataclass
class _Command:
    """One parser's options as the built page lists them: its help and each option's line."""

    help: str = ""
    options: list[str] = field(default_factory=list)


def cli_chunks(note: ChunkedNote, find: ModuleFinder) -> list[Chunk]:
    """The chunks of the CLI references every sphinx-argparse directive of `note` renders, in order."""
    if not ARGPARSE_PAGES:
        return []
    return [c for ref, trail in zip(note.autodoc, note.autodoc_trails) if ref.directive in ARGPARSE_DIRECTIVES
            for c in argparse_chunks(ref, trail, find)]


def with_cli_options(ex: Excerpt, text: str, kind: str, find: ModuleFinder, max_bytes: int) -> Excerpt:
    """read_doc of a part of a page holding a sphinx-argparse directive: its lines, then the options it renders, as
    search showed them. Any other excerpt is returned as it is."""
    if not ARGPARSE_PAGES or "argparse" not in ex.text:
        return ex
    note = chunk_note(text, kind)
    shown = [c for ref, trail in zip(note.autodoc, note.autodoc_trails)
             if ref.directive in ARGPARSE_DIRECTIVES and ex.start_line <= ref.line + 1 <= ex.end_line
             for c in argparse_chunks(ref, trail, find)]
    if not shown:
        return ex
    parts = [ex.text.rstrip("\n"), *(c.text if c.heading == shown[0].heading else f"{c.heading}\n\n{c.text}"
                                     for c in shown)]
    remark = "after the lines, the options its sphinx-argparse directive renders"
    return replace(ex, text=cut_utf8("\n\n".join(parts), max_bytes),
                   note=f"{ex.note}; {remark}" if ex.note else remark)


def argparse_chunks(ref: AutodocRef, trail: str, find: ModuleFinder) -> list[Chunk]:
    """The chunks of the CLI reference `ref` (a sphinx-argparse directive under `trail`) renders; none when its parser
    cannot be read."""
    values = dict(ref.values)
    module, func = values.get("module", "").strip(), values.get("func", "").strip()
    if not (module and func) and "." in values.get("ref", ""):
        module, _, func = values["ref"].strip().rpartition(".")
    found = find(module) if module and func else None
    tree = pysource.parse(found[1]) if found is not None else None
    if found is None or tree is None:
        return []
    reader = _Reader(tree)
    commands = reader.read(func)
    prog = values.get("prog", "").strip() or module.split(".", 1)[0]
    # Cited as a docstring is (`ranking.docstring_of`, `db.queries.files_citing`): text made from the code, which a
    # sync that sees the module change makes again, and which yields to the docs' own words as docstrings do.
    note = f"(options of {module}.{func}: {found[0]}, line {reader.line(func)})"
    out: list[Chunk] = []
    for name, command in commands.items():
        lines = [*textwrap.dedent(command.help).strip("\n").splitlines(), ""] if command.help.strip() else []
        lines += command.options
        if not any(line.strip() for line in lines):
            continue
        if name:
            lines = [f"{prog} {name}", "", *lines]
        chunks = chunk_lines([*lines, "", note], trail, ref.line + 1, max(ref.end, ref.line + 1))
        out.extend(chunks)
    return out


class _Reader:
    """Walks a parser-building function and the module's functions it calls."""

    def __init__(self, tree: ast.Module) -> None:
        self._functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self._strings = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign)
                         for t in n.targets if isinstance(t, ast.Name)}
        self._commands: dict[str, _Command] = {"": _Command()}
        self._count = 0

    def line(self, func: str) -> int:
        return self._functions[func].lineno if func in self._functions else 1

    def read(self, func: str) -> dict[str, _Command]:
        if func in self._functions:
            self._walk(self._functions[func], {}, 0)
        return self._commands

    def _walk(self, function: ast.FunctionDef | ast.AsyncFunctionDef, bound: dict[str, str], depth: int) -> None:
        """Reads `function`'s calls in order; `bound` maps a local name to the subcommand whose parser it holds."""
        local = dict(bound)
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                command = self._add_parser(node.value)
                if command is not None:
                    local.update((t.id, command) for t in node.targets if isinstance(t, ast.Name))
        for node in sorted((n for n in ast.walk(function) if isinstance(n, ast.Call)),
                           key=lambda n: (n.lineno, n.col_offset)):
            callee = node.func
            if isinstance(callee, ast.Attribute) and callee.attr == "add_argument":
                owner = callee.value.id if isinstance(callee.value, ast.Name) else ""
                self._argument(node, local.get(owner, ""))
            elif isinstance(callee, ast.Name) and callee.id in self._functions and depth < MAX_DEPTH \
                    and callee.id != function.name:
                helper = self._functions[callee.id]
                params = [a.arg for a in helper.args.args]
                passed = {p: local[a.id] for p, a in zip(params, node.args) if isinstance(a, ast.Name) and a.id in local}
                self._walk(helper, passed, depth + 1)

    def _add_parser(self, call: ast.Call) -> str | None:
        """The subcommand an `add_parser("name", help=...)` call makes (its help kept), or None for any other call."""
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "add_parser" and call.args):
            return None
        name = self._text(call.args[0])
        if not name:
            return None
        command = self._commands.setdefault(name, _Command())
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        command.help = command.help or self._text(keywords.get("description")) or self._text(keywords.get("help"))
        return name

    def _argument(self, call: ast.Call, command: str) -> None:
        if self._count >= MAX_ARGUMENTS:
            return
        flags = [text for text in (self._text(a) for a in call.args) if text]
        if not flags:
            return
        self._count += 1
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        line = ", ".join(flags)
        help_text = self._text(keywords.get("help"))
        if help_text == _SUPPRESS:  # hidden from the help, and so from the page
            return
        if help_text:
            line += f": {' '.join(help_text.split())}"
        choices = keywords.get("choices")
        if isinstance(choices, (ast.List, ast.Tuple, ast.Set)):
            named = [t for t in (self._text(e) for e in choices.elts) if t]
            if named:
                line += f" (choices: {', '.join(named)})"
        default = keywords.get("default")
        if isinstance(default, ast.Constant) and isinstance(default.value, (str, int, float)) \
                and not isinstance(default.value, bool):
            line += f" (default: {default.value})"
        self._commands.setdefault(command, _Command()).options.append(line)

    def _text(self, node: ast.expr | None, depth: int = 0) -> str:
        """A string the code writes without computing it: constants, their `+` and implicit joins, an f-string's
        constant parts, a module-level string constant, a `dedent(...)` of one; "" for anything else."""
        if node is None or depth > 4:
            return ""
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else ""
        if isinstance(node, ast.JoinedStr):
            return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self._text(node.left, depth + 1) + self._text(node.right, depth + 1)
        if isinstance(node, ast.Name) and node.id in self._strings:
            return self._text(self._strings[node.id], depth + 1)
        if isinstance(node, ast.Attribute) and node.attr == "SUPPRESS":
            return _SUPPRESS
        if isinstance(node, ast.Call) and node.args and getattr(node.func, "attr", getattr(node.func, "id", "")) \
                == "dedent":
            return self._text(node.args[0], depth + 1)
        return ""
