"""The `scree` command line: index, search, status (serve, watch, reindex and doctor join later).

Results go to stdout; progress, notes and errors go to stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Sequence

from . import __version__, cli_live, cli_plugin, cli_serve
from .config import MODES, Config, add_embedder_flag, load_config
from .errors import EmbedderError, ScreeError

log = logging.getLogger("scree")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--notes", type=Path, help="the notes folder (default: $SCREE_NOTES, else the git root above "
                   "$CLAUDE_PROJECT_DIR or the current dir)")
    p.add_argument("--db", type=Path, help="the index file (default: one per folder under $XDG_DATA_HOME/scree)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="scree", description="Search a repository's Markdown notes.")
    parser.add_argument("--version", action="version", version=f"scree {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("index", help="index (sync) the notes folder")
    _common(p)
    add_embedder_flag(p)
    p.add_argument("--rebuild", action="store_true", help="delete the index and build it again from the notes")
    p.add_argument("--json", action="store_true", help="print the sync report as JSON")

    p = sub.add_parser("search", help="search the notes (syncs first when the index is missing or stale)")
    _common(p)
    add_embedder_flag(p)
    p.add_argument("query", nargs="*", help="what you look for, in words or names (a query starting with '-' "
                   "is taken as words too: `scree search --locked`)")
    p.add_argument("--mode", choices=MODES, help="auto (default): keyword for a bare name, hybrid otherwise")
    p.add_argument("-k", type=int, help="number of results (default 5)")
    p.add_argument("--path", action="append", default=[], metavar="GLOB",
                   help="only notes matching this gitignore-style glob (repeatable)")
    p.add_argument("--json", action="store_true", help="print results as JSON")
    p.add_argument("--no-sync", action="store_true", help="search what is indexed without syncing first")

    p = sub.add_parser("status", help="show the index of this folder")
    _common(p)
    p.add_argument("--json", action="store_true")

    # The live index (serve, watch, reindex) and the plugin's commands (doctor, usage) live in their
    # own modules; their heavy imports happen inside the command functions, not here.
    cli_serve.add_parser(sub)
    cli_live.add_parsers(sub)
    cli_plugin.add_parsers(sub)
    return parser


def _config(args: argparse.Namespace) -> Config:
    return load_config().with_overrides(
        notes=getattr(args, "notes", None), db=getattr(args, "db", None),
        mode=getattr(args, "mode", None), k=getattr(args, "k", None), embedder=getattr(args, "embedder", None),
    )


def _setup_logging(cfg: Config) -> None:
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, cfg.log_level.upper(), logging.WARNING),
                        format="scree: %(levelname)s: %(message)s")


def cmd_index(args: argparse.Namespace, cfg: Config) -> int:
    from .errors import LockHeld
    from .lock import WriterLock, describe_writer, read_holder
    from .progress import progress_for_stderr
    from .syncreport import print_notices, print_result
    from .sync import sync
    from .workspace import Workspace

    ws = Workspace.from_config(cfg)
    lock = WriterLock(ws.location.lock)
    if not lock.try_acquire():
        holder = read_holder(lock.path)
        raise LockHeld(f"the index of {ws.folder} is being written by {describe_writer(holder)}; "
                       "`scree reindex --wait` runs after it exits",
                       pid=holder.pid if holder else None)
    try:
        if args.rebuild:
            from .store import remove_index_files

            remove_index_files(ws.location)
        from .writeindex import open_checked

        index, damage = open_checked(ws)
        if damage:
            print(f"scree: {damage}; rebuilding it from the notes (they are not touched)", file=sys.stderr)
        try:
            report = sync(index, ws.policy(), ws.embedder(), max_file_bytes=cfg.max_file_bytes,
                          progress=progress_for_stderr())
        finally:
            index.close()
    finally:
        lock.release()
    print_notices(report)
    print_result(report, ws.folder, args.json)
    return 0


def cmd_search(args: argparse.Namespace, cfg: Config) -> int:
    from .search import Query
    from .vocabsearch import search_with_names
    from .workspace import Workspace

    ws = Workspace.from_config(cfg)
    # --no-sync only reads: open read-only, so a read-only disk or data dir still answers.
    index = ws.open_index(create=not args.no_sync)
    try:
        policy = ws.policy()
        embedder = ws.embedder()
        if not args.no_sync:
            _sync_if_no_writer(ws, index, policy, embedder, cfg)
        result = search_with_names(index, policy, embedder, Query(" ".join(args.query), k=cfg.k,
                                                                  mode=cfg.mode, paths=tuple(args.path)))
        building = _being_built(ws, index)
    finally:
        index.close()
    if building is not None:  # said instead of "the index is empty"
        result.notes[:] = [building] + [n for n in result.notes if not n.startswith("the index is empty")]
    for note in result.notes:
        print(f"scree: {note}", file=sys.stderr)
    if args.json:
        doc: dict[str, object] = {"results": [asdict(h) for h in result.hits], "mode": result.mode,
                                  "names": result.names}
        if result.notes:  # e.g. "keyword results only: the embeddings API ... is unavailable"
            doc["notes"] = result.notes
        print(json.dumps(doc, ensure_ascii=False))
        return 0
    for hit in result.hits:
        print(f"{_escape(hit.path)}:{hit.start_line}-{hit.end_line}  {_escape(hit.heading)}")
        print(_compact(hit.text))
        print()
    return 0


def _sync_if_no_writer(ws, index, policy, embedder, cfg: Config) -> None:  # noqa: ANN001
    """Sync before searching, unless a writer (scree serve / watch) holds the lock: it keeps the index fresh."""
    from .lock import WriterLock
    from .progress import progress_for_stderr
    from .sync import sync
    from .syncreport import print_notices

    lock = WriterLock(ws.location.lock)
    if not lock.try_acquire():
        log.info("another process writes this index; searching what it has committed")
        return
    try:
        report = sync(index, policy, embedder, max_file_bytes=cfg.max_file_bytes, progress=progress_for_stderr())
    except EmbedderError as exc:
        # Changed notes cannot be embedded, but what is indexed can still be searched.
        print(f"scree: warning: changed notes were not indexed: {exc}", file=sys.stderr)
        return
    finally:
        lock.release()
    print_notices(report)


def _being_built(ws, index) -> str | None:  # noqa: ANN001
    """While another process builds the index for the first time (it holds the lock and no sync
    has finished yet), say so with its progress so far."""
    from .db import queries
    from .lock import describe_holder, read_holder

    if "last_sync" in index.meta():
        return None
    holder = read_holder(ws.location.lock)
    if holder is None:
        return None
    c = queries.counts(index.conn)
    return (f"the index is being built by {describe_holder(holder)}: {c.files - c.incomplete_files} files "
            f"({c.chunks} chunks) indexed so far; results may be incomplete, search again shortly")


def _escape(name: str) -> str:
    """A file name or heading on one line: a newline, another control character or an undecodable
    byte is shown escaped (`\\n`, `\\x1b`, `\\udcff`), so `path:start-end` stays one parsable line."""
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in name)


def _compact(text: str, indent: str = "    ") -> str:
    """The chunk text indented, runs of blank lines squeezed to none."""
    return "\n".join(indent + line.rstrip() for line in text.splitlines() if line.strip())


def cmd_status(args: argparse.Namespace, cfg: Config) -> int:
    from .db import queries
    from .workspace import Workspace

    ws = Workspace.from_config(cfg)
    data: dict[str, object] = {"folder": str(ws.folder), "index": str(ws.location.db),
                               "exists": ws.location.db.exists()}
    if ws.location.db.exists():
        index = ws.open_index(create=False)
        try:
            c = queries.counts(index.conn)
            meta = index.meta()
            data.update(files=c.files, chunks=c.chunks, incomplete_files=c.incomplete_files,
                        embedder=meta.get("embedder"), dimensions=meta.get("dimensions"),
                        last_sync=float(meta["last_sync"]) if "last_sync" in meta else None,
                        schema=meta.get("schema_version"), sqlite=f"{index.driver.name} {index.driver.sqlite_version}",
                        size_bytes=ws.location.db.stat().st_size)
        finally:
            index.close()
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        from .humantime import when_and_age

        if isinstance(data.get("last_sync"), float):
            data["last_sync"] = when_and_age(data["last_sync"])  # type: ignore[arg-type]
        for key, value in data.items():
            print(f"{key:17} {value}")
    return 0


COMMANDS = {"index": cmd_index, "search": cmd_search, "status": cmd_status, "serve": cli_serve.cmd_serve,
            **cli_live.COMMANDS, **cli_plugin.COMMANDS}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    # Unknown dash-words in a search are part of the query (the benchmark appends queries like
    # `--locked` as the last argument); every other command stays strict.
    args, extra = parser.parse_known_args(argv)
    if extra:
        if args.command != "search":
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.query = [*args.query, *extra]
    if args.command == "search" and not " ".join(args.query).strip():
        parser.error("search needs a query")
    if args.command == "search":
        from .errors import BadPattern
        from .ignorerules import check_globs

        try:
            check_globs(args.path)
        except BadPattern as exc:
            parser.error(str(exc))
    try:
        cfg = _config(args)
        _setup_logging(cfg)
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
        print("scree: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        # A database or disk fault met anywhere (full disk, damaged or read-only index): one clear
        # message naming the fix, not a traceback.
        explained = _explain_fault(exc, args)
        if explained is None:
            raise
        print(f"scree: error: {explained}", file=sys.stderr)
        return 1


def _explain_fault(exc: Exception, args: argparse.Namespace) -> ScreeError | None:
    import sqlite3

    from .db.connect import choose_driver, explain

    if not isinstance(exc, (OSError, sqlite3.Error, choose_driver().Error)):
        return None
    try:
        from .workspace import Workspace

        db: object = Workspace.from_config(_config(args)).location.db
    except Exception:  # noqa: BLE001 - the message still helps without the path
        db = "of this folder"
    return explain(exc, db)  # type: ignore[arg-type]


def serve_main() -> int:
    """Entry point of `scree-mcp` (same as `scree serve`)."""
    return main(["serve", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
