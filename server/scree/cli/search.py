"""`scree search`: sync first (unless a writer keeps the index fresh), then print the best chunks.

Results go to stdout; progress, notes and errors go to stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING

from ..config import MODES, Config, add_embedder_flag
from ..errors import EmbedderError
from ._common import add_common, print_notices

if TYPE_CHECKING:
    from ..embed import Embedder
    from ..records import Hit
    from ..notes.policy import NotesPolicy
    from ..index.store import Index
    from ..workspace import Workspace

log = logging.getLogger("scree")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("search", help="search the notes (syncs first when the index is missing or stale)")
    add_common(p)
    add_embedder_flag(p)
    p.add_argument("query", nargs="*", help="what you look for, in words or names (a query starting with '-' "
                   "is taken as words too: `scree search --locked`)")
    p.add_argument("--mode", choices=MODES, help="auto (default): keyword for a bare name, hybrid otherwise")
    p.add_argument("-k", type=int, help="number of results (default 5); a larger k only adds results after the same first ones")
    p.add_argument("--path", action="append", default=[], metavar="GLOB",
                   help="only notes matching this gitignore-style glob (repeatable)")
    p.add_argument("--expect", metavar="TEXT", default="",
                   help="for a question in plain words: a sentence or two you expect the answer to say, in the "
                   "docs' words (widens the search; the query stays primary; not for a bare name or flag)")
    p.add_argument("--json", action="store_true", help="print results as JSON")
    p.add_argument("--no-sync", action="store_true", help="search what is indexed without syncing first")


def cmd_search(args: argparse.Namespace, cfg: Config) -> int:
    from ..db.invariants import out_of_step
    from ..search.search import Query
    from ..search.vocabsearch import search_with_names
    from ..workspace import Workspace

    ws = Workspace.from_config(cfg)
    policy = ws.policy()
    embedder = ws.embedder()
    if args.no_sync:  # only reads: open read-only, so a read-only disk or data dir still answers
        index, synced = ws.open_index(create=False), False
    else:
        index, synced = open_synced(ws, policy, embedder, cfg)
    query = Query(" ".join(args.query), k=cfg.k, mode=cfg.mode, paths=tuple(args.path),
                  expected_answer=args.expect)
    try:
        # A sync checked the rows (and rebuilt what it condemned); a reader can only say what it sees.
        damage = None if synced else out_of_step(index.conn)
        try:
            result = search_with_names(index, policy, embedder, query)
        except Exception as exc:
            # Damage only a search meets (a garbled keyword row): rebuilt as `scree serve` does, when this
            # process may write; otherwise the message says who rebuilds it.
            rebuilt = None if args.no_sync else rebuild_met_damage(ws, index, exc, policy, embedder, cfg)
            if rebuilt is None:
                raise
            index = rebuilt
            result = search_with_names(index, policy, embedder, query)
        building = _being_built(ws, index)
    finally:
        index.close()
    if building is not None:  # said instead of "the index is empty"
        result.notes[:] = [building] + [n for n in result.notes if not n.startswith("the index is empty")]
    if damage is not None:
        result.notes.insert(0, f"the index is damaged ({damage}): results may be incomplete; run "
                               "`scree reindex` to rebuild it (your notes are not touched)")
    for note in result.notes:
        print(f"scree: {note}", file=sys.stderr)
    if args.json:
        doc: dict[str, object] = {"results": [_hit_json(h) for h in result.hits], "mode": result.mode,
                                  "names": result.names}
        if result.notes:  # e.g. "keyword results only: the embeddings API ... is unavailable"
            doc["notes"] = result.notes
        print(json.dumps(doc, ensure_ascii=False))
        return 0
    for hit in result.hits:
        also = f"  (also in: {', '.join(hit.also_in)})" if hit.also_in else ""
        print(f"{_escape(hit.path)}:{hit.start_line}-{hit.end_line}  {_escape(hit.heading)}{also}")
        print(_compact(hit.text))
        print()
    return 0


def open_synced(ws: Workspace, policy: NotesPolicy, embedder: Embedder, cfg: Config) -> tuple[Index, bool]:
    """The index to search, synced first unless a writer (scree serve / watch) holds the lock: it keeps
    the index fresh (and repairs it). Holding the lock, a damaged index (rows out of step, a schema its
    version does not hold; no quick_check, which may take seconds) is rebuilt from the notes, as `scree
    reindex` does. Returns the index and whether this process synced it."""
    from ..live.lock import WriterLock
    from ..live.writeindex import open_checked
    from ..index.progress import progress_for_stderr
    from ..index.sync import sync

    lock = WriterLock(ws.location.lock)
    if not lock.try_acquire():
        log.info("another process writes this index; searching what it has committed")
        return ws.open_index(), False
    try:
        index, damage = open_checked(ws, quick_check_seconds=0)
        if damage is not None:
            print(f"scree: {damage}; rebuilding it from the notes (they are not touched)", file=sys.stderr)
        try:
            report = sync(index, policy, embedder, max_file_bytes=cfg.max_file_bytes, progress=progress_for_stderr())
        except EmbedderError as exc:
            # Changed notes cannot be embedded, but what is indexed can still be searched.
            print(f"scree: warning: changed notes were not indexed: {exc}", file=sys.stderr)
            return index, True
        except BaseException:
            index.close()
            raise
    finally:
        lock.release()
    print_notices(report)
    return index, True


def rebuild_met_damage(ws: Workspace, index: Index, exc: Exception, policy: NotesPolicy, embedder: Embedder,
                       cfg: Config) -> Index | None:
    """After a search met damage (`exc`): with the writer lock, delete the index, build it anew and
    return it (`index` is closed); None when `exc` is no damage or another process writes."""
    from ..db.connect import is_damage, is_db_error
    from ..live.lock import WriterLock
    from ..live.writeindex import rebuild_damaged
    from ..index.progress import progress_for_stderr
    from ..index.sync import sync

    if not (is_db_error(exc, index.driver) and is_damage(exc)):
        return None
    lock = WriterLock(ws.location.lock)
    if not lock.try_acquire():
        return None
    try:
        print(f"scree: the index {ws.location.db} was damaged ({exc}); rebuilding it from the notes (they are "
              "not touched)", file=sys.stderr)
        index.close()
        index = rebuild_damaged(ws)
        try:
            report = sync(index, policy, embedder, max_file_bytes=cfg.max_file_bytes, progress=progress_for_stderr())
        except EmbedderError as err:
            print(f"scree: warning: changed notes were not indexed: {err}", file=sys.stderr)
            return index
        except BaseException:
            index.close()
            raise
    finally:
        lock.release()
    print_notices(report)
    return index


def _being_built(ws: Workspace, index: Index) -> str | None:
    """While another process builds the index for the first time (it holds the lock and no sync
    has finished yet), say so with its progress so far."""
    from ..db import queries
    from ..live.lock import describe_holder, read_holder

    if "last_sync" in index.meta():
        return None
    holder = read_holder(ws.location.lock)
    if holder is None:
        return None
    c = queries.counts(index.conn)
    return (f"the index is being built by {describe_holder(holder)}: {c.files - c.incomplete_files} files "
            f"({c.chunks} chunks) indexed so far; results may be incomplete, search again shortly")


def _hit_json(hit: Hit) -> dict[str, object]:
    """A hit as the benchmark's JSON contract has it; `also_in` (its copies' languages) only when it has copies."""
    doc = asdict(hit)
    if not hit.also_in:
        del doc["also_in"]
    return doc


def _escape(name: str) -> str:
    """A file name or heading on one line: a newline, another control character or an undecodable
    byte is shown escaped (`\\n`, `\\x1b`, `\\udcff`), so `path:start-end` stays one parsable line."""
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in name)


def _compact(text: str, indent: str = "    ") -> str:
    """The chunk text indented, runs of blank lines squeezed to none."""
    return "\n".join(indent + line.rstrip() for line in text.splitlines() if line.strip())


COMMANDS = {"search": cmd_search}
