"""Bring the index in line with the folder: walk -> hash -> (chunk -> embed -> store) for what changed.

Two passes keep memory flat and the model unloaded when nothing changed: pass one walks and hashes
every note (cheap, no model); pass two reads and chunks changed files, embeds their new chunks in
batches of about 64 passages, and writes each file in its own transaction.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Protocol

from .chunker import CHUNKER_VERSION, Chunk, chunk_markdown, embed_header
from .db import queries, writes
from .embed import Embedder, Passage
from .embedview import embed_body
from .embed.cache import CachingEmbedder
from .embed.pieces import embed_with_pieces
from .errors import FileSkipped
from .policy import NotesPolicy
from .reader import hash_note, read_note
from .records import Skipped
from .store import Index, ensure_chunker, ensure_embedder
from .vocabsync import sync_vocabulary
from .walk import walk_notes

log = logging.getLogger(__name__)


class SyncProgress(Protocol):
    """Receives progress of pass two (the files that need embedding)."""

    def start(self, total_files: int) -> None: ...
    def advance(self, chunks: int) -> None: ...
    def finish(self) -> None: ...


class NoProgress:
    def start(self, total_files: int) -> None:
        pass

    def advance(self, chunks: int) -> None:
        pass

    def finish(self) -> None:
        pass


@dataclass
class SyncReport:
    """What a sync did, for the CLI, `reindex` and the MCP status."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    chunks: int = 0
    seconds: float = 0.0
    embed_seconds: float = 0.0
    reset: str | None = None  # set when the whole index was re-embedded for another embedder
    rechunked: str | None = None  # set when every file was re-chunked for a new chunker version

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)

    def summary(self) -> str:
        parts = [f"{len(self.added)} added", f"{len(self.updated)} updated", f"{len(self.removed)} removed",
                 f"{self.unchanged} unchanged"]
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped")
        return ", ".join(parts) + f"; {self.chunks} chunks embedded in {self.seconds:.1f}s"


@dataclass(frozen=True)
class Plan:
    """Pass one's verdict: which notes to (re)index and which indexed paths to drop."""

    todo: list[str]
    new: set[str]
    remove: list[str]
    unchanged: int
    skipped: list[Skipped]


def plan_sync(index: Index, policy: NotesPolicy, *, max_file_bytes: int,
              only: Iterable[str] | None = None, rechunk: bool = False) -> Plan:
    """Walk (or check just `only`) and compare each note's SHA-256 with the index. Loads no model.
    With `rechunk`, every note is to be re-chunked, changed or not."""
    stored = queries.stored_files(index.conn)
    skipped: list[Skipped] = []
    todo: list[str] = []
    new: set[str] = set()
    unchanged = 0
    seen: set[str] = set()
    if only is None:
        candidates: Iterable[str | Skipped] = walk_notes(policy)
    else:
        candidates = _check_paths(policy, only)
    kept_dirs: list[str] = []
    for item in candidates:
        if isinstance(item, Skipped):
            skipped.append(item)
            if item.keep_rows:
                kept_dirs.append(item.rel_path.rstrip("/") + "/")
            continue
        try:
            sha, mtime_ns, size = hash_note(policy, item, max_bytes=max_file_bytes)
        except FileSkipped as exc:
            skipped.append(Skipped(item, exc.reason))
            continue
        seen.add(item)
        have = stored.get(item)
        if have is not None and have.sha256 == sha and not rechunk:
            unchanged += 1
            if have.mtime_ns != mtime_ns:
                writes.touch_file(index.conn, item, mtime_ns, size)
            continue
        todo.append(item)
        if have is None:
            new.add(item)
    scope = stored.keys() if only is None else [p for p in only if p in stored]
    remove = sorted(p for p in scope if p not in seen and not p.startswith(tuple(kept_dirs)))
    return Plan(todo=todo, new=new, remove=remove, unchanged=unchanged, skipped=skipped)


def _check_paths(policy: NotesPolicy, paths: Iterable[str]) -> Iterable[str | Skipped]:
    """Just these paths: admitted ones as paths; refused or vanished ones are simply not yielded."""
    for rel in sorted(set(paths)):
        if policy.file_skip_reason(rel) is None:
            yield rel


def sync(
    index: Index,
    policy: NotesPolicy,
    embedder: Embedder,
    *,
    max_file_bytes: int = 10 * 1024 * 1024,
    only: Iterable[str] | None = None,
    progress: SyncProgress | None = None,
    should_stop: Callable[[], bool] = lambda: False,
) -> SyncReport:
    """Index new and changed notes, drop deleted or newly ignored ones. `only` limits it to some paths.

    Each file is replaced in one transaction with its hash written last, so a sync killed at any point
    leaves at most the files in hand (one embed batch) unmatched, and the next sync redoes them.
    """
    t0 = time.perf_counter()
    progress = progress or NoProgress()
    report = SyncReport()
    report.reset = ensure_embedder(index, embedder.id, embedder.dimensions, embedder.max_windows)
    embedder = cache = CachingEmbedder(embedder, index.conn)  # a text embedded before is not embedded again
    report.rechunked = ensure_chunker(index, CHUNKER_VERSION,  # then every file, whatever `only` says
                                      reembedding=report.reset is not None)
    only_list = None if only is None or report.rechunked else list(only)
    plan = plan_sync(index, policy, max_file_bytes=max_file_bytes, only=only_list,
                     rechunk=report.rechunked is not None)
    report.unchanged = plan.unchanged
    report.skipped = plan.skipped
    for path in plan.remove:
        if writes.delete_file(index.conn, path, embedder.max_windows):
            report.removed.append(path)
    progress.start(len(plan.todo))
    completed = False
    # An API embedder asks for more per call, so several of its requests can be in flight at once.
    per_call = getattr(embedder, "batch_passages", EMBED_BATCH_PASSAGES)
    try:
        batch: list[PreparedNote] = []
        for path in plan.todo:
            if should_stop():
                break
            prepared = prepare_note(index, policy, embedder, path, max_file_bytes=max_file_bytes, report=report)
            if prepared is None:
                progress.advance(0)
                continue
            if len(prepared.chunks) > BIG_FILE_CHUNKS:
                if not _store_in_parts(index, embedder, prepared, plan.new, report, progress, should_stop):
                    break
                continue
            batch.append(prepared)
            if sum(len(p.passages) for p in batch) >= per_call:
                _embed_and_store(index, embedder, batch, plan.new, report, progress)
                batch = []
        else:
            completed = True
        if batch:
            _embed_and_store(index, embedder, batch, plan.new, report, progress)
    finally:
        progress.finish()
        if report.chunks:
            trim = getattr(embedder, "trim", None)  # the batches' working memory is not needed any more
            if trim is not None:
                trim()
    if only_list is None:
        sync_vocabulary(index, policy)  # the repo's names, from its code and manifests (vocabsync.py)
    # A sync cut short must not make readers believe the index is complete, and the chunker version
    # is recorded only once every file went through it (a stopped sync re-chunks again).
    if completed:
        writes.set_meta(index.conn, {"last_sync": str(time.time()), "chunker": CHUNKER_VERSION})
        cache.prune()
    report.seconds = time.perf_counter() - t0
    return report


def chunk_passage(path: str, chunk: Chunk, aliases: tuple[str, ...] = ()) -> Passage:
    """What the embedder reads of one chunk: its path (and the note's aliases) and heading trail, then its
    markup-free view."""
    return Passage(embed_header(path, chunk.heading, aliases), embed_body(chunk.text))


def chunk_passages(path: str, text: str) -> list[Passage]:
    """The passages of every chunk of a note's text, as a sync would embed them."""
    chunked = chunk_markdown(text)
    return [chunk_passage(path, c, chunked.aliases) for c in chunked.chunks]


# Passages gathered from several small files before one embed call: the model's length-sorted
# batches pad less and keep both threads busy (18% faster on the bench corpus than file by file),
# while memory stays bounded. Each file is still written in its own transaction, hash last.
EMBED_BATCH_PASSAGES = 64


@dataclass
class PreparedNote:
    """A changed note read and chunked, with the vectors it can keep; waiting for the rest."""

    version: writes.FileVersion
    chunks: list
    known: dict  # (heading, text) -> stored vectors of chunks that did not change
    todo: list[int]  # indexes of the chunks to embed
    passages: list[Passage]


def prepare_note(index: Index, policy: NotesPolicy, embedder: Embedder, path: str, *,
                 max_file_bytes: int, report: SyncReport) -> PreparedNote | None:
    """Read and chunk one note, and find which chunks need embedding. None when it was skipped
    (a note that became unreadable or binary is removed from the index: its old rows would lie)."""
    try:
        note = read_note(policy, path, max_bytes=max_file_bytes)
    except FileSkipped as exc:
        report.skipped.append(Skipped(path, exc.reason))
        if writes.delete_file(index.conn, path, embedder.max_windows):
            report.removed.append(path)
        return None
    for w in note.warnings:
        report.warnings.append(f"{path}: {w}")
    chunked = chunk_markdown(note.text)
    # An edit usually touches one section: chunks whose heading and text are unchanged keep their
    # vectors (same path, same vector space: anything else was reset by ensure_embedder).
    known = queries.stored_chunk_vectors(index.conn, path, embedder.max_windows)
    todo = [i for i, c in enumerate(chunked.chunks) if (c.heading, c.text) not in known]
    # An edit of the aliases alone re-embeds nothing: they change no chunk, and the next edit of a section
    # picks them up.
    passages = [chunk_passage(path, chunked.chunks[i], chunked.aliases) for i in todo]
    version = writes.FileVersion(path=path, sha256=note.sha256, mtime_ns=note.mtime_ns, size=note.size,
                                 title=chunked.title)
    return PreparedNote(version, list(chunked.chunks), known, todo, passages)


# A note with more chunks than this (a 10 MB single-line file makes thousands) is embedded and
# committed in parts of BIG_FILE_PART chunks, its hash written after the last part: a kill costs at
# most one part, because the next sync finds the committed parts' vectors and reuses them.
BIG_FILE_CHUNKS = 256
BIG_FILE_PART = 64


def _store_in_parts(index: Index, embedder: Embedder, note: PreparedNote, new: set[str], report: SyncReport,
                    progress: SyncProgress, should_stop: Callable[[], bool]) -> bool:
    """Write one big note part by part; False when stopped before its hash was written."""
    path, total = note.version.path, len(note.chunks)
    todo = set(note.todo)
    passage_of = dict(zip(note.todo, note.passages))
    within = getattr(progress, "within", None)  # optional: progress inside one file
    file_id = writes.begin_file(index.conn, path, embedder.max_windows)
    embedded = 0
    for start in range(0, total, BIG_FILE_PART):
        if should_stop():
            return False
        part = range(start, min(start + BIG_FILE_PART, total))
        need = [i for i in part if i in todo]
        t = time.perf_counter()
        fresh = dict(zip(need, embed_with_pieces(embedder, [passage_of[i] for i in need]))) if need else {}
        report.embed_seconds += time.perf_counter() - t
        vectors = [fresh[i] if i in fresh else note.known[(note.chunks[i].heading, note.chunks[i].text)]
                   for i in part]
        writes.append_chunks(index.conn, file_id, start, note.chunks[part.start:part.stop], vectors,
                             embedder.max_windows)
        embedded += len(need)
        log.info("%s: %d/%d chunks indexed", path, part.stop, total)
        if within is not None:
            within(path, part.stop, total)
    writes.finish_file(index.conn, file_id, note.version, total)
    report.chunks += embedded
    (report.added if path in new else report.updated).append(path)
    progress.advance(embedded)
    return True


def _embed_and_store(index: Index, embedder: Embedder, batch: list[PreparedNote], new: set[str],
                     report: SyncReport, progress: SyncProgress) -> None:
    """One embed call for the batch's passages, then each file in its own transaction."""
    passages = [p for note in batch for p in note.passages]
    t = time.perf_counter()
    vectors = embed_with_pieces(embedder, passages) if passages else []
    report.embed_seconds += time.perf_counter() - t
    at = 0
    for note in batch:
        fresh = dict(zip(note.todo, vectors[at:at + len(note.todo)]))
        at += len(note.todo)
        per_chunk = [fresh[i] if i in fresh else note.known[(c.heading, c.text)] for i, c in enumerate(note.chunks)]
        writes.replace_file(index.conn, note.version, note.chunks, per_chunk, embedder.max_windows)
        report.chunks += len(note.todo)
        (report.added if note.version.path in new else report.updated).append(note.version.path)
        progress.advance(len(note.todo))
