"""The live index behind `scree serve` and `scree watch`: one writer per index, every other process reads.

Roles. The process holding the index's writer lock (`scree.live.lock.WriterLock`) is the writer: it syncs
in the background, then watches the folder and re-indexes what changes. Every other process on the
same index is a reader: it searches what is committed, holds no inotify watches, loads the model only
on its first semantic query, and retries the lock every `lock_retry` seconds; when the writer exits
(even by SIGKILL: the kernel drops the flock) it takes over, syncing first and then watching.

The lock is a `flock`: on NFS it may not hold (see docs/architecture.md, "One writer per index").

Threads of a writer. The worker thread owns the write connection and runs every sync, one at a
time; the watcher's threads only queue paths (or a rescan) for it, so reading events never waits for
embedding. Searches run on the caller's threads through one read connection, serialized by a lock;
WAL lets them read committed rows while the worker writes. A health monitor checks every
`health_interval` seconds that the folder and the index file are still the ones it started with;
if not, the writer stops, releases the lock and the status says "not_updating" while searches keep
serving what is indexed.

An embeddings API that cannot be reached (or answers with errors or garbage) pauses indexing, not
the writer: it waits `outage_pause` seconds (30, doubling up to 5 minutes), then runs a full sync,
so notes changed meanwhile are picked up without another edit. The status says "paused" and why;
searches answer from the keyword index meanwhile.

A sync runs in two stages (sync.py): stage one commits every changed note's text and keyword rows
(keyword search answers from its end, however big the folder); stage two (livestage.py) embeds in the
background between syncs, yielding to each new one, and the status says how far it is.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Callable

from ..db import queries
from ..db.connect import explain, is_damage, is_db_error
from ..embed import Embedder
from ..errors import EmbedderUnavailable, IndexDamaged, IndexError_, LockHeld, ScreeError
from .health import DEFAULT_INTERVAL, Change, HealthMonitor
from ..index.indexstatus import IndexStatus, Role, State, StatusChanges
from .jobqueue import Job, JobQueue, drop_stale_repair, repair_job
from .livestage import StageTwo
from .modelmemory import MODEL_IDLE_SECONDS, ModelMemory
from .lock import LockWaiter, WriterLock, describe_holder, describe_writer, read_holder
from ..notes.policy import NotesPolicy
from ..index.progress import CountingProgress
from .readindex import ReadIndex, damaged_note
from ..records import SearchResult
from ..search.route import route
from ..search.ahead import embedded_ahead
from ..search.search import Query
from ..index.store import Index, rebuild_in_place
from ..index.sync import SyncReport, sync
from ..search.vocabsearch import search_with_names as run_search
from .watcher import NotesWatcher
from ..workspace import Workspace
from .writeindex import QUICK_CHECK_SECONDS, WriteIndex, await_report

__all__ = ["IndexStatus", "LiveIndex"]

log = logging.getLogger(__name__)

READER_POLICY_TTL = 2.0  # a reader re-reads the ignore files at most this often
# After the embeddings API failed, indexing waits this long before a full resync, doubling per failure.
OUTAGE_PAUSE = (30.0, 300.0)
# How long `reindex()` waits for the worker to run the sync it asked for. The MCP client gives up
# after ~120 s anyway; past this the sync goes on in the background and the caller is told so.
REINDEX_WAIT = 600.0
DAMAGE_CHECK_EVERY = 600.0  # seconds between a writer's bounded quick_checks of its file


class LiveIndex:
    """One notes folder's index kept live; see the module docstring. Thread-safe public methods.

    `embedder` defaults to the workspace's (lazy) one; `on_fatal(reason)` is called once when the
    index stops being updated (folder or index file removed or replaced, index unusable), from a
    background thread: `scree watch` uses it to exit non-zero.
    """

    def __init__(self, workspace: Workspace, *, watch: bool = True, lock_retry: float = 5.0,
                 health_interval: float = DEFAULT_INTERVAL, debounce: float = 1.5,
                 embedder: Embedder | None = None, on_fatal: Callable[[str], None] | None = None,
                 model_idle: float = MODEL_IDLE_SECONDS,
                 outage_pause: tuple[float, float] = OUTAGE_PAUSE, damage_check: float = DAMAGE_CHECK_EVERY) -> None:
        self.workspace = workspace
        self._watch = watch
        self._lock_retry = lock_retry
        self._health_interval = health_interval
        self._debounce = debounce
        self._own_embedder = embedder is None
        self._embedder = embedder if embedder is not None else workspace.embedder()
        self._on_fatal = on_fatal
        self._lock = WriterLock(workspace.location.lock)
        self._progress = CountingProgress()
        # Guarded by _mu: role, lifecycle flags and the threads below.
        self._mu = threading.RLock()
        self._role: Role = "reader"
        self._started = self._stopping = False
        self._failure: str | None = None
        self._first_sync_done = False
        self._full_sync_running = False
        self._waiter: LockWaiter | None = None
        self._gate_stop = threading.Event()
        self._writer_stop: threading.Event | None = None
        self._worker: threading.Thread | None = None
        self._wx: WriteIndex | None = None  # the worker's write connection (only the worker touches it)
        self._health: HealthMonitor | None = None
        self._watcher: NotesWatcher | None = None
        self._damage_check = damage_check
        self._next_check = time.monotonic() + damage_check  # the writer checks at open; then this often
        self._repair_began = float("-inf")  # when the worker last began a repair (see drop_stale_repair)
        self._model = ModelMemory(self._embedder, model_idle)
        self._outage_pause = outage_pause
        self._pause = outage_pause[0]  # the next pause after an outage
        self._outage: str | None = None  # why indexing is paused, while it is
        self._jobs = JobQueue()  # what the worker should do next
        self._stage_two = StageTwo(self._embedder, str(self.folder), workspace.location.db)
        self._changes = StatusChanges()
        # The read side (its own lock). While this process's writer creates the file, opening it
        # here too would race its migrations; while the writer holds a file replaced since, opening
        # the new one would break both connections (see writeindex).
        self._reader = ReadIndex(workspace, self._reader_may_open,
                                 lambda: self._health.adopt_index() if self._health is not None else None)
        self._write_index_open = threading.Event()  # this process's writer has opened (created) the file
        self._policy: NotesPolicy | None = None
        self._policy_at = 0.0

    # ----- public ------------------------------------------------------------------------------

    @property
    def folder(self) -> Path:
        return self.workspace.folder

    @property
    def policy(self) -> NotesPolicy:
        """The current policy: the writer's latest (refreshed by every full sync); a reader's is re-read
        every few seconds so edited ignore files count."""
        with self._mu:
            stale = self._role != "writer" and time.monotonic() - self._policy_at > READER_POLICY_TTL
            if self._policy is None or stale:
                self._set_policy(self.workspace.policy())
            assert self._policy is not None
            return self._policy

    @property
    def role(self) -> Role:
        return self._role

    def start(self) -> None:
        """Return at once: become the writer (background sync, then watch) or a reader waiting for the lock.

        When the lock file cannot be opened at all (permissions, read-only disk) it only reads: the
        status says "not updating" and why.
        """
        with self._mu:
            if self._started:
                raise RuntimeError("a LiveIndex can be started only once; make a new one")
            self._started = True
            self._health = HealthMonitor(self.folder, self.workspace.location.db, self._fail,
                                         interval=self._health_interval, on_tick=self._tick,
                                         on_change=self._on_index_change)
            self._health.start()
            try:
                acquired = self._lock.try_acquire()
            except IndexError_ as exc:
                # The lock file cannot even be opened (a read-only disk or folder): nobody can write
                # here, but what is indexed can still be searched.
                self._failure = str(exc)
                log.warning("index not updating: %s; serving what is indexed", exc)
                return
            if acquired:
                self._start_writer_locked()
            else:
                holder = read_holder(self._lock.path)
                log.info("%s writes the index of %s; reading only", describe_holder(holder), self.folder)
                self._start_waiter_locked()

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop every thread and release the lock; True when the writer ended within `timeout`.

        A sync in progress stops between files; stage two stops between two of the model's batches,
        dropping the batch in hand (its chunks keep lacking vectors, as before it began). If that
        outlasts `timeout` this returns False and the lock goes with the worker (or the process).
        """
        deadline = time.monotonic() + timeout
        with self._mu:
            self._stopping = True
            waiter, self._waiter = self._waiter, None
            self._gate_stop.set()
            self._signal_writer_stop_locked()
            health = self._health
        if health is not None:
            health.stop(max(0.0, deadline - time.monotonic()))
        if waiter is not None:  # if it just took the lock, its callback saw _stopping and released it
            waiter.stop(max(0.0, deadline - time.monotonic()))
        with self._mu:
            worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(max(0.0, deadline - time.monotonic()))
        ended = worker is None or not worker.is_alive()
        self._reader.drop()
        if self._own_embedder and ended:
            self._embedder.close()
        return ended

    def status(self) -> IndexStatus:
        """The state of the index as this process sees it (cheap: a few count queries), with stage
        two's progress (chunks with vectors, of all)."""
        st = self._status()
        done, total = self._reader.vector_counts()
        state: State = "embedding" if st.state == "complete" and done < total else st.state
        # The run's clock as its writer commits it (this process's or another's); why it cannot store
        # vectors, only this process's writer knows.
        return replace(st, state=state, vectors_done=done, vectors_total=total, observed=time.time(),
                       stage_two_clock=self._reader.stage_two_clock(), stage_two_problem=self._stage_two.problem)

    def _status(self) -> IndexStatus:
        counts = self._reader.counts()
        files, chunks, synced_once = counts if counts is not None else (0, 0, False)
        done, total = self._progress.snapshot()
        with self._mu:
            role = self._role
            if self._failure is not None:
                return IndexStatus("not_updating", role, 0, 0, files, chunks, self._failure)
            if role == "writer" and self._outage is not None:
                return IndexStatus("paused", role, 0, 0, files, chunks, self._outage)
            if role == "writer":
                # After the first sync, only a full sync with notes to embed is worth reporting.
                if not self._first_sync_done or (self._full_sync_running and total > 0):
                    return IndexStatus("syncing", role, done, total, files, chunks, self._progress.current_file())
                watcher = self._watcher
                problem = watcher.error if watcher is not None else None
                state: State = "complete" if files else "empty"
                return IndexStatus(state, role, 0, 0, files, chunks,
                                   f"watching is degraded: {problem}" if problem else None)
        if not synced_once and read_holder(self._lock.path) is not None:
            return IndexStatus("syncing", role, 0, 0, files, chunks, None)
        return IndexStatus("complete" if files else "empty", role, 0, 0, files, chunks, None)

    def wake(self) -> None:
        """Wake every `wait_until` now (`scree watch` told to stop); safe in a signal handler (one RLock)."""
        self._changes.bump()

    def wait_until(self, predicate: Callable[[IndexStatus], bool], timeout: float) -> bool:
        """Wait until `predicate(self.status())` holds; False after `timeout` s. Woken by this process's
        own transitions (a sync done, a role taken or given up, a failure, a pause); what another
        process does (a reader's view of its writer) is re-read every half second."""
        return self._changes.wait_until(lambda: predicate(self.status()), timeout)

    def search(self, q: Query) -> SearchResult:
        """Answer from what is committed; notes say when the index is incomplete or not updating."""
        policy = self.policy
        embedder = embedded_ahead(self._embedder, q)  # a long query's model pass, outside the lock
        with self._reader.mu:
            index = self._reader.open_locked()
            if index is None:
                mode = route(q.text) if q.mode == "auto" else q.mode
                why = self._reader.error or "the index does not exist yet"
                result = SearchResult([], mode, [f"{why}; it is being built, try again shortly"])
            else:
                try:
                    result = run_search(index, policy, embedder, q)
                except Exception as exc:
                    if not is_damage(exc):
                        raise
                    result = self._damaged_locked(q, exc)
                if result.mode in ("semantic", "hybrid"):
                    self._model.used()
                self._stage_two.note_hits(h.path for h in result.hits)  # embedded first
        st = self.status()
        if st.state in ("syncing", "not_updating", "needs_reindex", "paused"):
            result.notes.insert(0, st.describe())
        return result

    def reindex(self, rebuild: bool = False) -> SyncReport:
        """Sync now (`rebuild`: re-embed every note) and return the report once it is done.

        The writer queues it on its worker; a reader that can take the lock becomes the writer and
        does it itself. Raises LockHeld (naming the holder's pid) when another process writes, and
        IndexError_ when the index is not updating any more.
        """
        future: Future = Future()
        with self._mu:
            self._check_usable_locked()
            queued = self._role == "writer"
            waiter: LockWaiter | None = None
            if queued:
                self._queue(Job("reindex", rebuild=rebuild, futures=[future]))
            else:
                waiter, self._waiter = self._waiter, None
        if queued:
            return self._await(future)
        if waiter is not None:
            waiter.stop()
        with self._mu:
            self._check_usable_locked()
            if self._role == "writer":  # the waiter took the lock while we stopped it
                self._queue(Job("reindex", rebuild=rebuild, futures=[future]))
            elif self._lock.try_acquire():
                self._start_writer_locked(Job("reindex", rebuild=rebuild, futures=[future]))
            else:
                holder = read_holder(self._lock.path)
                if waiter is not None:
                    self._start_waiter_locked()
                raise LockHeld(
                    f"the index of {self.folder} is written by {describe_writer(holder)}; wait for it, "
                    "or stop that process and try again",
                    pid=holder.pid if holder else None,
                )
        return self._await(future)

    def _await(self, future: Future) -> SyncReport:
        with self._mu:
            worker = self._worker
        return await_report(future, lambda: worker is not None and worker.is_alive(), lambda: self._failure,
                            REINDEX_WAIT)

    # ----- roles -------------------------------------------------------------------------------

    def _check_usable_locked(self) -> None:
        if not self._started:
            raise RuntimeError("call start() before reindex()")
        if self._failure is not None:
            raise IndexError_(f"index not updating: {self._failure}; restart scree to index again")
        if self._stopping:
            raise IndexError_("scree is shutting down; the index was not synced")

    def _start_waiter_locked(self) -> None:
        self._waiter = LockWaiter(self._lock, self._on_lock_acquired, interval=self._lock_retry)
        self._waiter.start()

    def _on_lock_acquired(self) -> None:
        """On the waiter's thread, the moment the previous writer let go."""
        with self._mu:
            self._waiter = None
            if self._stopping or self._failure is not None:
                self._lock.release()
                return
            log.info("the previous writer of %s exited; taking over", self.folder)
            self._start_writer_locked()

    def _reader_may_open(self) -> bool:
        if self._role != "writer":
            return True
        wx = self._wx
        return self._write_index_open.is_set() and not (wx is not None and wx.holds_replaced_file())

    def _start_writer_locked(self, first: Job | None = None) -> None:
        self._role = "writer"
        self._first_sync_done = False
        self._progress.reset()
        if self.workspace.location.db.exists():  # no file to create: reading it at once is safe
            self._write_index_open.set()
        stop = threading.Event()
        self._writer_stop = stop
        self._jobs.replace(first if first is not None else Job("full"))
        self._worker = threading.Thread(target=self._writer_main, args=(stop,),
                                        name="scree-writer", daemon=True)
        self._worker.start()
        self._changes.bump()

    def _signal_writer_stop_locked(self) -> None:
        if self._writer_stop is not None:
            self._writer_stop.set()
        self._jobs.wake()

    def _fail(self, reason: str) -> None:
        """Stop updating for good: the writer stops and lets go of the lock; searches go on."""
        with self._mu:
            if self._failure is not None or self._stopping:
                return
            self._failure = reason
            waiter, self._waiter = self._waiter, None
            self._gate_stop.set()
            self._signal_writer_stop_locked()
        log.warning("index not updating: %s; serving what is indexed", reason)
        if waiter is not None:
            waiter.stop()
        if self._on_fatal is not None:
            self._on_fatal(reason)
        self._changes.bump()  # after on_fatal: a waiter woken here sees the whole transition

    def _on_index_change(self, change: Change) -> bool:
        """On the health thread: the index file or the writer's WAL changed. True when handled."""
        with self._mu:
            writer = self._role == "writer"
        if change.kind == "wal":
            if self._health is not None:
                self._health.forget_wal()  # adopted again once the worker reopened
            if writer:
                log.warning("%s", change.reason)
                self._queue(Job("reopen"))
            return True
        if writer:
            return False  # a writer must not go on writing into a file nobody else sees
        # A reader only reads: the writer (another process) rebuilt or replaced the file; read the new one.
        log.info("%s; reading the new file", change.reason)
        self._reader.drop()
        if self._health is not None:
            self._health.forget_index()
        return True

    # ----- the writer's worker -----------------------------------------------------------------

    def _writer_main(self, stop: threading.Event) -> None:
        try:
            health = self._health
            reason = health.check_now() if health is not None else None
            if reason is not None:
                self._fail(reason)
                return
            self._wx = WriteIndex(self.workspace, health, retry=self._lock_retry, drop_readers=self._reader.drop)
            index = self._wx.open(stop)
            if index is None:
                return  # stopped while waiting for space
            self._write_index_open.set()
            self._serve_jobs(stop)
        except ScreeError as exc:
            self._fail(str(exc))
        except Exception as exc:
            log.exception("the index writer stopped unexpectedly")
            self._fail(f"the index writer stopped unexpectedly ({exc}); restart scree")
        finally:
            if self._wx is not None:
                self._wx.close()
            leftover = self._jobs.replace(Job("none"))
            for future in leftover.futures:
                if not future.done():
                    future.set_exception(IndexError_("the index writer stopped before this reindex ran"))
            with self._mu:
                self._lock.release()
                self._role = "reader"
                self._full_sync_running = False
            self._changes.bump()

    def _serve_jobs(self, stop: threading.Event) -> None:
        watcher: NotesWatcher | None = None
        try:
            while True:
                job = self._next_job(stop)
                if job is None:
                    return
                assert self._wx is not None
                if job.kind == "reindex" and self._wx.damage() is not None:
                    job = repair_job(job.futures, job.rebuild)  # asked for: check too
                job = drop_stale_repair(job, self._repair_began)
                if job.kind == "repair":
                    self._repair_began = time.monotonic()
                if job.kind in ("repair", "reopen"):
                    if self._wx.reopen(stop, repair=job.kind == "repair") is None:
                        return
                    job = Job("full", futures=job.futures, rebuild=job.rebuild)
                assert self._wx.index is not None
                report = self._run_job(self._wx.index, job, stop)
                self._changes.bump()
                if report is None or stop.is_set():
                    continue
                if report.chunks:
                    self._model.used()
                if not self._first_sync_done:
                    self._model.after_big_sync(report.chunks, always_trim=True)
                    if self._watch:
                        watcher = NotesWatcher(self.folder, self.workspace.policy, self._on_paths,
                                               self._on_rescan, debounce=self._debounce)
                        watcher.start()
                        self._watcher = watcher
                        # Edits made during the first sync came before the watch: one cheap pass
                        # (hashes only, unless something changed) catches them.
                        self._queue(Job("full"))
                    with self._mu:  # "complete" from here on means watching too
                        self._first_sync_done = True
                    self._changes.bump()
                    log.info("%s: first sync done: %s", self.folder, report.summary())
                else:
                    self._model.after_big_sync(report.chunks)
        finally:
            self._watcher = None
            if watcher is not None:
                watcher.stop(timeout=2.0)

    def _next_job(self, stop: threading.Event) -> Job | None:
        """Stage two while no sync waits (it yields between batches), then the next job."""
        while not stop.is_set() and not self._jobs.has_work():
            if not self._embed_pending(stop, lambda: stop.is_set() or self._jobs.has_work()):
                break
        return self._jobs.take(stop)

    def _embed_pending(self, stop: threading.Event, should_yield: Callable[[], bool]) -> bool:
        """Run stage two until done or `should_yield()`; True when it should go on (it embedded something,
        or a database error waits a retry). An outage pauses it (keyword search covers every note)."""
        assert self._wx is not None and self._wx.index is not None
        index = self._wx.index
        if self._stage_two.waiting_for_space():  # a full disk: no model work until there is room
            return not stop.wait(self._lock_retry)
        self._model.set_busy(True)
        try:
            done = self._stage_two.run(index, should_yield, stop.is_set)
        except EmbedderUnavailable as exc:
            self._pause_indexing(str(exc), stop)
            return False
        except Exception as exc:
            if not (isinstance(exc, OSError) or is_db_error(exc, index.driver)):
                raise
            self._stage_two.failed(explain(exc, self.workspace.location.db) or exc, self._lock_retry)
            self._changes.bump()  # told to every client (search answers, reindex, status), not only the log
            return not stop.wait(self._lock_retry)
        finally:
            self._model.set_busy(False)
        with self._mu:
            self._outage, self._pause = None, self._outage_pause[0]
        if done.chunks:
            self._model.used()
            self._changes.bump()
            if done.remaining == 0:
                self._model.after_big_sync(done.chunks)
        return done.chunks > 0

    def _queue(self, job: Job) -> None:
        """Merge `job` into the pending work (a reindex beats a full sync, which beats paths)."""
        self._jobs.put(job)

    def _on_paths(self, paths: set[str]) -> None:
        self._queue(Job("paths", set(paths)))

    def _on_rescan(self) -> None:
        self._queue(Job("full"))

    def _run_job(self, index: Index, job: Job, stop: threading.Event) -> SyncReport | None:
        """Run one sync. Database and disk errors are retried later; anything else ends the writer."""
        full = job.kind != "paths"
        policy = self.workspace.policy() if full else self.policy
        self._model.set_busy(True)
        with self._mu:
            if full:
                self._set_policy(policy)
                self._full_sync_running = True
        self._progress.reset()
        try:
            if job.rebuild:
                rebuild_in_place(index, self._embedder.id, self._embedder.dimensions, self._embedder.max_windows)
            report = sync(index, policy, self._embedder, max_file_bytes=self.workspace.config.max_file_bytes,
                          only=None if full else job.paths, progress=self._progress, should_stop=stop.is_set,
                          embed=False)  # stage two runs between jobs (_next_job)
        except Exception as exc:
            if isinstance(exc, EmbedderUnavailable):
                for future in job.futures:
                    future.set_exception(exc)
                self._pause_indexing(str(exc), stop)
                return None
            if isinstance(exc, IndexDamaged):  # the sync's own check: rows out of step (deleted by hand)
                log.warning("%s; rebuilding it now", exc)
                self._queue(repair_job(job.futures, job.rebuild))  # a reindex asked for gets the rebuilt index
                return None
            if not (isinstance(exc, OSError) or is_db_error(exc, index.driver)):
                for future in job.futures:
                    future.set_exception(exc)
                raise
            explained = explain(exc, self.workspace.location.db)
            for future in job.futures:  # the caller gets the clear message, not SQLite's
                future.set_exception(explained or exc)
            if isinstance(explained, IndexDamaged):
                log.warning("%s; rebuilding it now", explained)
                self._queue(repair_job())
                return None
            log.warning("syncing %s failed (%s); retrying in %.0f s", self.folder, explained or exc,
                        self._lock_retry)
            if not stop.wait(self._lock_retry):
                self._queue(Job("paths", job.paths) if job.kind == "paths" else Job("full"))
            return None
        finally:
            self._model.set_busy(False)
            with self._mu:
                self._full_sync_running = False
        if report.dropped_rows:
            self._stage_two.dropped_rows()
        if job.futures:  # a reindex asked for returns once its vectors are made too
            self._embed_pending(stop, lambda: stop.is_set())
            self._stage_two.tell(report, *self._reader.vector_counts())
        for future in job.futures:
            future.set_result(report)
        for s in report.skipped:
            log.info("skipped %s: %s", s.rel_path, s.reason)
        if report.changed:
            log.info("%s: %s", self.folder, report.summary())
        return report

    def _pause_indexing(self, reason: str, stop: threading.Event) -> None:
        """The embeddings API failed: wait (30 s, doubling up to 5 min), then resync everything."""
        with self._mu:
            pause = self._pause
            self._pause = min(pause * 2, self._outage_pause[1])
            self._outage = f"{reason}; next try in {pause:g} s"
        self._changes.bump()
        log.warning("indexing %s paused for %g s: %s", self.folder, pause, reason)
        self._jobs.wait_for_reindex(stop, pause)
        if not stop.is_set():
            self._queue(Job("full"))

    def _tick(self) -> None:
        """The health thread's housekeeping: release an idle model; a writer re-checks the file now
        and then, so damage met only by another process's reader is rebuilt too."""
        self._model.release_if_idle()
        with self._mu:
            due = self._role == "writer" and self._first_sync_done and time.monotonic() >= self._next_check
        if due:
            self._next_check = time.monotonic() + self._damage_check
            damage = self._reader.damage(QUICK_CHECK_SECONDS)
            if damage is not None:
                log.warning("the index %s is damaged (%s); rebuilding it", self.workspace.location.db, damage)
                self._queue(repair_job())

    # ----- the read side -----------------------------------------------------------------------

    def _set_policy(self, policy: NotesPolicy) -> None:
        self._policy, self._policy_at = policy, time.monotonic()

    def _damaged_locked(self, q: Query, exc: BaseException) -> SearchResult:
        """A search met a damaged file: say so once, clearly; the writer rebuilds it (it is a cache)."""
        replaced = self._reader.replaced_locked()  # then it is already being rebuilt: the next search reads it
        self._reader.close_locked()
        with self._mu:
            writer = self._role == "writer"
        if writer and not replaced:
            self._queue(repair_job())
        log.warning("the index %s is damaged (%s)", self.workspace.location.db, exc)
        mode = route(q.text) if q.mode == "auto" else q.mode
        return SearchResult([], mode, [damaged_note(exc, writer, describe_holder(read_holder(self._lock.path)))])
