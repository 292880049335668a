"""`scree search`: stage one of a sync first (unless a writer keeps the index fresh), then the best chunks.

The search answers at once: it commits the changed notes' text and keyword rows (stage one, at most
`SCREE_SEARCH_BUDGET` seconds of it, 6 by default), answers from what is there, and leaves the vectors (stage two) to
a detached `scree reindex` it starts, as the plugin's session start does; `scree reindex` builds
everything in the foreground. Results go to stdout; progress, notes and errors go to stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import MODES, Config, add_embedder_flag
from ..errors import EmbedderError
from ._common import add_common, print_notices

if TYPE_CHECKING:
    from ..embed import Embedder
    from ..live.lock import WriterLock
    from ..records import Hit
    from ..notes.policy import NotesPolicy
    from ..index.store import Index
    from ..workspace import Workspace

log = logging.getLogger("scree")

# Seconds of stage one a search spends in the foreground before it answers from what is committed and
# leaves the rest to the background writer (SCREE_SEARCH_BUDGET, 6 by default): stage one takes about a
# second per 100 notes, so most folders finish within it (issue 29: a cold search of 1,000+ notes answers
# within 10 s).
# Stage two runs in the foreground too when its estimate (this, for starting the model, plus the missing
# chunks at the index's recorded rate) fits what is left of the budget: a few changed notes.
MODEL_START = 2.0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("search", help="search the notes at once (indexes new and changed notes first; "
                       "vectors that take longer are made by a background `scree reindex`)")
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
    left: str | None = None
    if args.no_sync:  # only reads: open read-only, so a read-only disk or data dir still answers
        index, synced = ws.open_index(create=False), False
    else:
        index, synced, left = open_synced(ws, policy, embedder, cfg)
    query = Query(" ".join(args.query), k=cfg.k, mode=cfg.mode, paths=tuple(args.path),
                  expected_answer=args.expect)
    background: str | None = None
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
            index, left = rebuilt
            result = search_with_names(index, policy, embedder, query)
        if left is not None:  # after the answer is ready: the writer's start must not slow it down
            background = start_background_sync(ws, left)
        building = _being_built(ws, index)
    finally:
        index.close()
    if building is not None:  # said instead of "the index is empty"
        result.notes[:] = [building] + [n for n in result.notes if not n.startswith("the index is empty")]
    if damage is not None:
        result.notes.insert(0, f"the index is damaged ({damage}): results may be incomplete; run "
                               "`scree reindex` to rebuild it (your notes are not touched)")
    if background is not None:
        result.notes.append(background)
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


def open_synced(ws: Workspace, policy: NotesPolicy, embedder: Embedder, cfg: Config,
                budget: float | None = None) -> tuple[Index, bool, str | None]:
    """The index to search, synced first unless a writer (scree serve, watch, reindex) holds the lock: it
    keeps the index fresh (and repairs it). Holding the lock, a damaged index (rows out of step, a schema
    its version does not hold; no quick_check, which may take seconds) is rebuilt from the notes, as
    `scree reindex` does. The sync keeps to `budget` seconds (`_sync_within`). Returns the index, whether
    this process synced it, and what is left for a background writer ("notes", "vectors" or None)."""
    from ..live.lock import WriterLock
    from ..live.writeindex import open_checked

    lock = WriterLock(ws.location.lock)
    if not lock.try_acquire():
        log.info("another process writes this index; searching what it has committed")
        index = ws.open_index()
        if _first_sync_seen(index, lock, cfg.search_budget if budget is None else budget):
            return index, False, None
        index.close()  # the writer left before its first sync ended: this process holds the lock and syncs
    try:
        index, damage = open_checked(ws, quick_check_seconds=0)
        if damage is not None:
            print(f"scree: {damage}; rebuilding it from the notes (they are not touched)", file=sys.stderr)
        try:
            left = _sync_within(index, policy, embedder, cfg, budget)
        except BaseException:
            index.close()
            raise
    finally:
        lock.release()
    return index, True, left


POLL_SECONDS = 0.05  # how often a search waiting for another process's first sync looks at the index


def _first_sync_seen(index: Index, lock: WriterLock, budget: float) -> bool:
    """Whether the index may be searched as another process left it. A search that finds the index being
    built for the first time (a writer holds the lock, no sync has finished) waits up to `budget` seconds
    for that writer's stage one, so it does not answer from half an index as if nothing matched (8 cold
    searches at once: 7 printed no result, issue 36 item 6). False when the writer let go of the lock
    before its first sync ended; then this process holds the lock and must sync."""
    deadline = time.monotonic() + budget
    while "last_sync" not in index.meta() and time.monotonic() < deadline:
        if lock.try_acquire():
            if "last_sync" not in index.meta():
                return False
            lock.release()
            return True
        time.sleep(POLL_SECONDS)
    return True


def rebuild_met_damage(ws: Workspace, index: Index, exc: Exception, policy: NotesPolicy, embedder: Embedder,
                       cfg: Config) -> tuple[Index, str | None] | None:
    """After a search met damage (`exc`): with the writer lock, delete the index, build it anew (within
    the search's budget, as `open_synced`) and return it (`index` is closed) with what is left for a
    background writer; None when `exc` is no damage or another process writes."""
    from ..db.connect import is_damage, is_db_error
    from ..live.lock import WriterLock
    from ..live.writeindex import rebuild_damaged

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
            left = _sync_within(index, policy, embedder, cfg)
        except BaseException:
            index.close()
            raise
    finally:
        lock.release()
    return index, left


def _sync_within(index: Index, policy: NotesPolicy, embedder: Embedder, cfg: Config,
                 budget: float | None = None) -> str | None:
    """Sync (the caller holds the writer lock) within `budget` seconds (SCREE_SEARCH_BUDGET).

    Stage one (text and keyword rows) runs first; stage two (vectors) runs here only when its estimate
    fits what is left of the budget (a few changed notes), else it is left to a background writer.
    Returns what is left for one: "notes" when stage one ran out of time, "vectors" when chunks lack
    their vectors, "names" when only the code's names were not all read (the vocabulary keeps to the
    budget too: issue 36, item 2), or None."""
    from ..db import queries
    from ..index.indexstatus import recorded_rate
    from ..index.progress import progress_for_stderr
    from ..index.sync import embed_stage_two, sync

    limit = cfg.search_budget if budget is None else budget
    deadline = time.monotonic() + limit
    cut: list[bool] = []

    def out_of_time() -> bool:
        if time.monotonic() > deadline:
            cut.append(True)
        return bool(cut)

    progress = progress_for_stderr()
    report = sync(index, policy, embedder, max_file_bytes=cfg.max_file_bytes, progress=progress,
                  should_stop=out_of_time, embed=False)
    vectors = queries.vector_progress(index.conn)
    missing = vectors.total - vectors.embedded
    fits = MODEL_START + missing / recorded_rate(index.meta()) < deadline - time.monotonic()
    foreground = bool(missing and not cut and fits)
    try:
        if foreground:
            # Held to the budget between batches (the estimate may be wrong on a loaded box); what is left
            # goes to the background writer. Never a shrink here: the explicit reindex checks for one.
            embed_stage_two(index, embedder, report, progress, should_stop=out_of_time, shrink=False)
            missing = report.vectors_missing
    except EmbedderError as exc:
        # A model that cannot load, an API refusing the key: the notes are keyword-searchable (stage
        # one committed them), their vectors wait for the fix.
        print(f"scree: warning: the vectors of new and changed notes were not made: {exc}", file=sys.stderr)
        return None
    print_notices(report)
    if cut and not foreground and not report.stage_one_complete:
        print(f"scree: stage one is taking longer than {limit:g} s: answering from the notes indexed so far",
              file=sys.stderr)
        return "notes"  # the background writer finishes it
    if missing:
        return "vectors"
    return "names" if report.names_left else None  # the code's names, read by the background writer


def start_background_sync(ws: Workspace, left: str = "vectors") -> str:
    """Start `scree reindex --quiet` for this index, detached (its own session, no terminal, stdin and
    stdout on /dev/null, stderr to the index's sync log), as the plugin's SessionStart hook does; it
    outlives this process, makes the missing vectors (and finishes stage one if the search cut it
    short), and exits quietly when another writer got the lock first. Returns the note to show."""
    from ..hookkit.bgsync import launch_detached

    cfg = ws.config
    env = dict(os.environ)
    # The child syncs exactly this index: the folder found here, with this command's flags (an index
    # file named by --db as such: SCREE_DB=<the default place> would name another writer lock).
    env.update(SCREE_NOTES=str(ws.folder), SCREE_EMBEDDER=cfg.embedder, SCREE_NOTE_EXTENSIONS=cfg.note_extensions)
    if cfg.db is not None:
        env["SCREE_DB"] = str(ws.location.db)
    log_path: Path | None = ws.location.sync_log
    cmd = [sys.executable, "-m", "scree.cli", "reindex", "--quiet"]
    try:
        log_fd = os.open(ws.location.sync_log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0),
                         0o600)
    except OSError:  # a read-only index folder: the sync still runs (and reports its own failure)
        log_fd = os.open(os.devnull, os.O_WRONLY)
        log_path = None
    try:
        os.write(log_fd, f"{time.strftime('%Y-%m-%dT%H:%M:%S')} scree search started: {' '.join(cmd)}\n".encode())
        pid = launch_detached(cmd, env, cwd=str(ws.folder), stderr=log_fd)
    except OSError as exc:
        return (f"could not start the background sync ({exc.strerror or exc}): run `scree reindex` to make "
                "the vectors; until then searches answer by keyword")
    finally:
        os.close(log_fd)
    if left == "names":
        where = f"; log: {log_path}" if log_path is not None else ""
        return (f"the repository's code names (for exact matches of a name) are being read in the background (pid "
                f"{pid}, `scree reindex`){where}")
    what = "the remaining notes and then the vectors are" if left == "notes" else "the vectors are"
    where = f"; log: {log_path}" if log_path is not None else ""
    return (f"{what} being indexed in the background (pid {pid}, `scree reindex`; `scree status` shows how "
            f"far): until every chunk has its vectors, auto searches answer by keyword{where}")


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
