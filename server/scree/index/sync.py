"""Bring the index in line with the folder: walk -> hash -> chunk -> store text, then embed.

Pass one walks and hashes every note (cheap, no model). Stage one reads and chunks the changed files
and commits each one's text and keyword rows (keyword search works from its end); stage two
(embedstage.py) embeds the chunks still lacking vectors, batch by batch, in the background of a live
index or right after stage one for `scree index`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Protocol

from ..notes.autodocpage import autodoc_chunks
from ..notes.argparsepage import cli_chunks
from ..notes.includes import included_chunks
from ..notes.chunker import CHUNKER_VERSION, chunk_note, note_names
from ..notes.modules import ModuleFiles
from ..db import cjk, invariants, literal, queries, writes
from ..db.connect import damaged_index, is_damage, is_db_error
from ..embed import Embedder, Passage, readable_languages
from .embedstage import embed_pending, passage_of
from ..errors import EmbedderUnavailable, FileSkipped
from ..notes import language
from ..notes.policy import NotesPolicy
from ..notes.reader import hash_note, read_note
from ..records import Chunk, ChunkedNote, Skipped
from .space import give_space_back
from .store import Index, ensure_chunker, ensure_embedder
from .vocabsync import sync_vocabulary
from ..notes.walk import walk_notes

log = logging.getLogger(__name__)

# A note's other names (front-matter title, aliases: `chunker.note_names`) go into the keyword rows of
# every one of its chunks, as a heading's words do for the chunks under it (False: its first chunk only).
NAMES_ON_EVERY_CHUNK = True
RELEASE_IDENTIFIER_AFTER = 20  # notes read by one sync, past which the language identifier is dropped after it


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
    chunks: int = 0  # chunks embedded (stage two)
    chunked: int = 0  # chunks stored by stage one without vectors
    vectors_missing: int = 0  # chunks still without vectors when the sync returned
    keyword_seconds: float = 0.0  # from the start to the end of stage one: keyword search answers
    seconds: float = 0.0
    embed_seconds: float = 0.0
    reset: str | None = None  # set when the whole index was re-embedded for another embedder
    rechunked: str | None = None  # set when every file was re-chunked for a new chunker version
    left_out: list[str] = field(default_factory=list)  # notes SCREE_LANGUAGES leaves out (stored without chunks)
    keyword_only: int = 0  # notes stored keyword-only: the embedder does not read their language
    shrunk: str | None = None  # set when the sync gave space back (index/space.py)
    names_left: bool = False  # the code's names were not all read (the budget ran out): the next full sync reads them
    stage_one_complete: bool = False  # every planned note went through stage one (not stopped midway)

    @property
    def dropped_rows(self) -> bool:
        """True when this sync removed or replaced rows (notes removed, changed, left out by language, or
        every vector reset): the file may have space to give back once stage two is done."""
        return bool(self.removed or self.updated or self.reset or self.left_out)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)

    def summary(self) -> str:
        parts = [f"{len(self.added)} added", f"{len(self.updated)} updated", f"{len(self.removed)} removed",
                 f"{self.unchanged} unchanged"]
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped")
        if self.left_out:
            parts.append(f"{len(self.left_out)} not indexed for their language (SCREE_LANGUAGES)")
        tail = f"; {self.chunks} chunks embedded in {self.seconds:.1f}s"
        if self.vectors_missing:
            tail += f" ({self.vectors_missing} still without vectors: keyword search covers them)"
        if self.shrunk:
            tail += f"; {self.shrunk}"
        return ", ".join(parts) + tail


@dataclass(frozen=True)
class Plan:
    """Pass one's verdict: which notes to (re)index and which indexed paths to drop."""

    todo: list[str]
    new: set[str]
    remove: list[str]
    unchanged: int
    skipped: list[Skipped]
    layout: language.Layout = language.Layout.of(())  # the notes there are, for language markers in paths
    # (only built when there is something to read: `todo`)


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
        if (have is not None and have.sha256 == sha and not rechunk and have.lang is not None
                and have.indexed == language.admits(policy.languages, have.lang)):
            unchanged += 1
            if have.mtime_ns != mtime_ns:
                writes.touch_file(index.conn, item, mtime_ns, size)
            continue
        todo.append(item)
        if have is None:
            new.add(item)
    scope = stored.keys() if only is None else [p for p in only if p in stored]
    remove = sorted(p for p in scope if p not in seen and not p.startswith(tuple(kept_dirs)))
    if not todo:  # the layout only serves the notes read again: none (most syncs before a search)
        return Plan(todo=todo, new=new, remove=remove, unchanged=unchanged, skipped=skipped)
    # A stored note counts for the layout only while it stays (with `only`, the others are not walked).
    gone = set(remove)
    layout = language.Layout.of(seen | {p for p in stored if p not in gone})
    return Plan(todo=todo, new=new, remove=remove, unchanged=unchanged, skipped=skipped, layout=layout)


def _check_paths(policy: NotesPolicy, paths: Iterable[str]) -> Iterable[str | Skipped]:
    """Just these paths: admitted ones as paths; refused or vanished ones, and links to a note (indexed
    under the note's own name), are simply not yielded."""
    for rel in sorted(set(paths)):
        verdict = policy.inspect(rel)
        if verdict.admitted and verdict.alias_of is None:
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
    embed: bool = True,
    shrink: bool | None = None,
) -> SyncReport:
    """Index new and changed notes, drop deleted or newly ignored ones. `only` limits it to some paths.

    Stage one chunks each changed file and commits its text and keyword rows in one transaction with
    its hash written last (chunks whose text did not change keep their vectors; the others are stored
    as lacking them), so a kill leaves at most the file in hand unmatched and the next sync redoes it.
    Keyword search answers from the end of stage one. With `embed`, stage two (embedstage.py) then
    embeds every chunk still lacking vectors, this sync's or an earlier, interrupted one's; an
    embeddings API that is down ends it with a warning, the vectors known missing. Once every chunk has
    its vectors, the file may give space back (`space.give_space_back`): `shrink` None checks after a
    sync that removed or replaced rows, True always (an explicit reindex), False never.

    Raises IndexDamaged, before writing anything, when the rows are out of step (`invariants.out_of_step`).
    """
    t0 = time.perf_counter()
    progress = progress or NoProgress()
    # Rows deleted by hand (a chunk, a keyword row) would pass for "unchanged" for ever: the hashes still
    # match. The counts are cheap; the owner rebuilds what they condemn (IndexDamaged).
    wrong = invariants.out_of_step(index.conn)
    if wrong is not None:
        raise damaged_index(index.location.db, wrong)
    follow_cjk(index)  # before any write: a contentless row is deleted by making it again under its rules
    follow_literal(index)  # the same for the literal (trigram) rows
    report = SyncReport()
    report.reset = ensure_embedder(index, embedder.id, embedder.dimensions, embedder.max_windows)
    follow_languages(index, embedder)
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
    modules = ModuleFiles(policy)  # the Python source autodoc pages show, each module read once per sync
    try:
        for path in plan.todo:
            if should_stop():
                break
            prepared = prepare_note(index, policy, embedder, path, max_file_bytes=max_file_bytes, report=report,
                                    layout=plan.layout, modules=modules)
            if prepared is not None:
                _store_text(index, embedder, prepared, plan.new, report)
            progress.advance(0)
        else:
            completed = True
    finally:
        progress.finish()
    if only_list is None:
        # The repo's names, from its code and manifests (vocabsync.py), within the caller's budget: reading
        # 1,790 Python files took a first search 14.9 s past its own (issue 36, item 2).
        # The files pages show that are no code (a YAML file of defaults) are watched with the code, as they stand
        # in the index now: a page made by a watcher's one-note sync counts too, and a file no page shows any
        # longer is forgotten.
        vocab = sync_vocabulary(index, policy, should_stop, included=queries.included_sources(index.conn))
        report.names_left = vocab is not None and vocab.stopped
        if completed and vocab is not None and vocab.changed:
            _refresh_docstrings(index, policy, embedder, vocab.changed, plan, report, max_file_bytes, should_stop)
    # A sync cut short must not make readers believe the index is complete, and the chunker version
    # is recorded only once every file went through it (a stopped sync re-chunks again).
    report.stage_one_complete = completed
    if completed:
        writes.set_meta(index.conn, {"last_sync": str(time.time()), "chunker": CHUNKER_VERSION})
    report.keyword_seconds = time.perf_counter() - t0
    if len(plan.todo) >= RELEASE_IDENTIFIER_AFTER:
        # The language identifier holds ~75 MB; stage two and a watcher's later one-note syncs need it
        # rarely, and reloading it costs ~1 s (issue 37: the peak while indexing).
        language.release_identifier()
    if embed and completed:
        _stage_two(index, embedder, report, progress, should_stop, shrink)
    report.seconds = time.perf_counter() - t0
    return report


def _refresh_docstrings(index: Index, policy: NotesPolicy, embedder: Embedder, changed: list[str], plan: Plan,
                        report: SyncReport, max_file_bytes: int, should_stop: Callable[[], bool]) -> None:
    """Index again the autodoc pages whose docstrings come from code files that changed or went away since
    the last full sync (their own text did not change, so the plan kept them): a docstring shown on an API
    page follows the source."""
    done = set(plan.todo)
    pages = [p for p in queries.files_citing(index.conn, changed) if p not in done]
    if not pages:
        return
    modules = ModuleFiles(policy)
    layout = plan.layout if plan.todo else language.Layout.of(queries.stored_files(index.conn))
    for path in pages:
        if should_stop():
            return
        prepared = prepare_note(index, policy, embedder, path, max_file_bytes=max_file_bytes, report=report,
                                layout=layout, modules=modules)
        if prepared is not None:
            _store_text(index, embedder, prepared, plan.new, report)


def follow_cjk(index: Index) -> None:
    """The keyword rows of Chinese, Japanese and Korean text (`chunks_cjk`, db/cjk.py) follow the rules
    `cjk` makes them by: an index made before them (schema 6) or under other rules makes them again (one
    pass over the chunks' text, about a second for FastAPI's 16,000 chunks; never for an index that has
    them). Cheap otherwise: one meta read."""
    rules = cjk.version()
    if index.meta().get("cjk") != rules:
        made = writes.remake_cjk_rows(index.conn, rules)
        if made:
            log.info("made the CJK keyword rows of %d chunks (rules %s)", made, rules)


def follow_literal(index: Index) -> None:
    """The literal rows (`chunks_literal`, db/literal.py: each chunk's punctuated tokens) follow the rules
    `literal` makes them by: an index made before them (schema 7) or under other rules makes every row again
    (one pass over the chunks' text; never for an index that has them). Cheap otherwise: one meta read."""
    rules = literal.version()
    if index.meta().get("literal") != rules:
        made = writes.remake_literal_rows(index.conn, rules)
        if made:
            log.info("made the literal rows of %d chunks (rules %s)", made, rules)


def follow_languages(index: Index, embedder: Embedder) -> None:
    """Which stored notes are embedded follows the embedder's languages (SCREE_MODEL_LANGUAGES for an API
    model): notes it cannot read lose their vectors and become keyword-only, notes it now reads wait for
    stage two. Cheap when nothing changed (one query per distinct language)."""
    readable = readable_languages(embedder)
    shown = "all" if readable is None else " ".join(sorted(readable))
    if index.meta().get("embed_languages") == shown:  # stage one stores each note as this embedder reads it
        return
    unreadable = sorted(lang for lang in queries.stored_languages(index.conn) if not language.reads(readable, lang))
    writes.keep_vectors_for(index.conn, unreadable, embedder.max_windows)
    writes.set_meta(index.conn, {"embed_languages": shown})


def embed_stage_two(index: Index, embedder: Embedder, report: SyncReport, progress: SyncProgress | None = None,
                    should_stop: Callable[[], bool] = lambda: False, shrink: bool | None = None) -> None:
    """Stage two on its own, after a `sync(embed=False)` (what `sync` runs next when `embed` is set):
    embed every chunk still lacking vectors (until `should_stop()`, checked between batches), adding to
    `report`; `shrink` as `sync`'s."""
    _stage_two(index, embedder, report, progress or NoProgress(), should_stop, shrink)


def _stage_two(index: Index, embedder: Embedder, report: SyncReport, progress: SyncProgress,
               should_stop: Callable[[], bool], shrink: bool | None = None) -> None:
    shown = progress if hasattr(progress, "embedding") else None
    try:
        done = embed_pending(index, embedder, should_stop=should_stop, progress=shown)  # type: ignore[arg-type]
    except EmbedderUnavailable as exc:
        missing = queries.vector_progress(index.conn)
        report.vectors_missing = missing.total - missing.embedded
        report.warnings.append(f"vectors for {missing.embedded:,} of {missing.total:,} chunks: {exc}; keyword "
                               "search covers every note, and the next sync embeds the rest")
        return
    report.chunks += done.chunks
    report.embed_seconds += done.embed_seconds
    report.vectors_missing = done.remaining
    if done.remaining == 0 and (shrink or (shrink is None and report.dropped_rows)):
        # A sync that dropped many notes or vectors leaves the file as big as before.
        try:
            shrunk = give_space_back(index, embedder.id, embedder.dimensions)
        except Exception as exc:
            # Housekeeping, as in the live writer: a full disk cannot rewrite the file, and the index stays as
            # it was (each step is one transaction). Damage is the caller's to handle.
            if is_damage(exc) or not is_db_error(exc, index.driver):
                raise
            report.warnings.append(f"could not give space back ({exc}); the index keeps its size until the "
                                   "next sync that removes notes (free some space first if the disk is full)")
            shrunk = None
        report.shrunk = shrunk.describe() if shrunk else None
    if done.chunks:
        trim = getattr(embedder, "trim", None)  # the batches' working memory is not needed any more
        if trim is not None:
            trim()


def chunk_passages(path: str, text: str, kind: str = "markdown") -> list[Passage]:
    """The passages of every chunk of a note's text, as a sync would embed them (`passage_of`)."""
    chunked = chunk_note(text, kind)
    names = note_names(chunked)
    return [passage_of(path, c.heading, c.text, names) for c in chunked.chunks]


@dataclass
class PreparedNote:
    """A changed note read and chunked, with the vectors it can keep."""

    version: writes.FileVersion
    chunks: list
    known: dict  # (heading, text) -> stored vectors of chunks that did not change
    keyword_only: bool = False  # the embedder does not read the note's language


def prepare_note(index: Index, policy: NotesPolicy, embedder: Embedder, path: str, *,
                 max_file_bytes: int, report: SyncReport,
                 layout: language.Layout | None = None, modules: ModuleFiles | None = None) -> PreparedNote | None:
    """Read and chunk one note, and find which chunks keep their vectors. None when it was skipped
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
    modules = modules or ModuleFiles(policy)
    chunked = chunk_note(note.text, policy.note_kind(path), modules.changelog_sections(path, note.text))
    if chunked.front_matter_error is not None:  # read as before (no title, no aliases), but not in silence
        log.warning("%s: its front matter is not valid YAML (%s): its title and aliases are not used",
                    path, chunked.front_matter_error)
    # An edit usually touches one section: chunks whose heading and text are unchanged keep their
    # vectors (same path, same vector space: anything else was reset by ensure_embedder).
    # The note's other names are in every chunk's embedding header: when they changed, no vector is kept.
    names = note_names(chunked)
    # what a reader reads says the language: a module's POD, not the Perl code before it
    lang = language.decide(path, chunked.shown if chunked.shown is not None else note.text, declared=chunked.lang,
                           page_key=chunked.page_key, layout=layout)
    version = writes.FileVersion(path=path, sha256=note.sha256, mtime_ns=note.mtime_ns, size=note.size,
                                 title=chunked.title, names=names, lang=lang.lang, lang_by=lang.by, page=lang.page, alias=lang.alias,
                                 indexed=language.admits(policy.languages, lang.lang))
    if not version.indexed:  # SCREE_LANGUAGES leaves it out: its row remembers the language, nothing else
        return PreparedNote(version, [], {})
    chunks = _with_docstrings(chunked, modules, path)
    if not language.reads(readable_languages(embedder), lang.lang):
        return PreparedNote(version, chunks, {}, keyword_only=True)
    known = queries.stored_chunk_vectors(index.conn, path, embedder.max_windows, "\n".join(names))
    return PreparedNote(version, chunks, known)


def _with_docstrings(chunked: ChunkedNote, modules: ModuleFiles, path: str) -> list[Chunk]:
    """A page's chunks with the docstrings its autodoc directives show (`notes/autodocpage.py`) and the lines its
    literalinclude directives show (`notes/includes.py`: any file the policy admits; vocabsync.py watches it), each
    after the chunk holding its directive."""
    if not chunked.autodoc:
        return list(chunked.chunks)
    extra = autodoc_chunks(chunked, modules, modules.summary_members(path), modules.autodoc_defaults(path)) \
        + included_chunks(chunked, path, modules.text) + cli_chunks(chunked, modules)
    # Stable: a docstring chunk points at its directive's line, inside the section chunk that precedes it.
    return sorted([*chunked.chunks, *extra], key=lambda c: c.start_line)


def _store_text(index: Index, embedder: Embedder, note: PreparedNote, new: set[str], report: SyncReport) -> None:
    """Stage one for one file: its chunks and keyword rows in one transaction, hash last; the chunks
    whose text changed are stored without vectors (stage two makes them)."""
    vectors = [note.known.get((c.heading, c.text)) for c in note.chunks]
    writes.replace_file(index.conn, note.version, note.chunks, vectors, embedder.max_windows,
                        names_on_every_chunk=NAMES_ON_EVERY_CHUNK, keyword_only=note.keyword_only)
    if not note.version.indexed:
        report.left_out.append(note.version.path)
        return
    report.keyword_only += note.keyword_only
    report.chunked += 0 if note.keyword_only else sum(v is None for v in vectors)
    (report.added if note.version.path in new else report.updated).append(note.version.path)
