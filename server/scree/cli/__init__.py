"""The `scree` command line: one module per command, sharing `_common`.

`search`, `status`, `reindex` (alias `index`), `watch`, `serve` (also `scree-mcp`), and the plugin's
`doctor` and `usage`. Each module adds its parsers and maps command names to functions; the heavy
imports (the model, SQLite, the MCP SDK) happen inside the command functions, so parsing is cheap
and a bad flag fails fast. Results go to stdout; progress, notes and errors go to stderr.
"""

from __future__ import annotations

import os
import signal
import sys


def _quit_quietly(signum: int, frame: object) -> None:
    # Nothing is written before a command's own handlers take over (`Interrupts`, serve's and watch's):
    # a Ctrl-C while the interpreter still imports ends the process as cleanly as one mid-command.
    try:
        os.write(2, b"scree: interrupted\n")
    finally:
        os._exit(128 + signum)


# Run as the `scree`/`scree-mcp` command (not imported by a test or a library), SIGINT and SIGTERM end it
# quietly from its first statement: a signal during the imports printed a KeyboardInterrupt traceback,
# and SIGTERM killed it outright (-15), in a search that answers in half a second (issue 26).
if sys.argv and (sys.argv[0] == "-m" or os.path.basename(sys.argv[0]) in ("scree", "scree-mcp")):
    for _signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(_signum, _quit_quietly)

import argparse  # noqa: E402 - after the guard above
from contextlib import nullcontext
from typing import Callable, Sequence

from .. import __version__
from ..config import Config
from ..errors import ScreeError
from . import engine, plugin, reindex, search, serve, status, watch
from ._common import Interrupts, config_for, setup_logging

_MODULES = (search, status, reindex, serve, watch, plugin, engine)

COMMANDS: dict[str, Callable[[argparse.Namespace, Config], int]] = {
    name: fn for module in _MODULES for name, fn in module.COMMANDS.items()
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scree",
        description="Search a repository's docs and notes (Markdown, reStructuredText, AsciiDoc, text, PDF).")
    parser.add_argument("--version", action="version", version=f"scree {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in _MODULES:
        module.add_parsers(sub)
    return parser


def repaired_argv(argv: Sequence[str]) -> list[str]:
    """The arguments with bytes that are not UTF-8 read as U+FFFD, saying so on stderr (issue 36).

    Python hands such bytes over as lone surrogates (surrogateescape), which no encoder, tokenizer or
    UTF-8 reply can carry: a query holding one ended in a TypeError from the tokenizer. A noncharacter
    such as U+FFFF is valid Unicode and passes unchanged."""
    out = []
    for n, arg in enumerate(argv, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            try:  # the bytes as given, then decoded with U+FFFD for what is not UTF-8
                fixed = arg.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            except UnicodeEncodeError:  # a lone surrogate that came from no byte (a caller's own str)
                fixed = arg.encode("utf-8", "replace").decode("utf-8")
            # Named by its place, never quoted: it may be a secret (`--token`).
            print(f"scree: argument {n} held bytes that are not UTF-8; each was read as U+FFFD", file=sys.stderr)
            arg = fixed
        out.append(arg)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `scree`."""
    parser = build_parser()
    argv = repaired_argv(sys.argv[1:] if argv is None else argv)
    # Unknown dash-words in a search are part of the query (the benchmark appends queries like
    # `--locked` as the last argument); every other command stays strict.
    args, extra = parser.parse_known_args(argv)
    if extra:
        if args.command != "search":
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.query = [*args.query, *extra]
    if args.command == "search" and not " ".join(args.query).strip():
        # The search's own usage, not the top-level one: the question is what `search` is missing.
        _subparser(parser, "search").error("the query is missing: say what you look for, "
                                           "e.g. scree search \"how are tokens refreshed\"")
    if args.command == "search":
        from ..errors import BadPattern
        from ..notes.ignorerules import check_globs

        try:
            check_globs(args.path)
        except BadPattern as exc:
            parser.error(str(exc))
    # serve and watch end on a signal their own way (see there); every other command unwinds (Interrupts).
    with Interrupts() if args.command not in ("serve", "watch", "engine") else nullcontext(Interrupts()) as interrupts:
        return _run(args, interrupts)


def _run(args: argparse.Namespace, interrupts: Interrupts) -> int:
    try:
        cfg = config_for(args)
        setup_logging(cfg, getattr(args, "token", None))
        code = COMMANDS[args.command](args, cfg)
        sys.stdout.flush()  # a reader that went away (`| head`) shows up here, not at interpreter exit
        return code
    except BrokenPipeError:
        # The reader has what it wanted; point stdout at /dev/null so the final flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # what a shell reports for a command ended by SIGPIPE
    except ScreeError as exc:
        print(f"scree: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        interrupts.announce()
        return interrupts.exit_code  # 130 for SIGINT (Ctrl-C), 143 for SIGTERM
    except Exception as exc:
        # A database or disk fault met anywhere (full disk, damaged or read-only index): one clear
        # message naming the fix, not a traceback.
        explained = _explain_fault(exc, args)
        if explained is None:
            raise
        print(f"scree: error: {explained}", file=sys.stderr)
        return 1


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The parser of one subcommand (argparse keeps them in its subparsers action's choices)."""
    for action in parser._subparsers._group_actions if parser._subparsers else ():  # noqa: SLF001
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:  # noqa: SLF001
            return action.choices[name]
    return parser


def _explain_fault(exc: Exception, args: argparse.Namespace) -> ScreeError | None:
    import sqlite3

    from ..db.connect import choose_driver, explain

    if not isinstance(exc, (OSError, sqlite3.Error, choose_driver().Error)):
        return None
    try:
        from ..workspace import Workspace

        db: object = Workspace.from_config(config_for(args)).location.db
    except Exception:  # noqa: BLE001 - the message still helps without the path
        db = "of this folder"
    return explain(exc, db)  # type: ignore[arg-type]


def serve_main() -> int:
    """Entry point of `scree-mcp` (same as `scree serve`)."""
    return main(["serve", *sys.argv[1:]])
