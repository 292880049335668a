"""Collect the vocabulary on every full sync: walk code files and manifests under the notes' policy,
read the changed ones for names, store the lowercased names, forget files that went away.

Code text never leaves this module: it is decoded, handed to `vocab.extract_names`, and dropped. A
file whose mtime and size match the index is not opened at all, so an unchanged repository costs one
walk and one `lstat` per code file. The work is capped (files over MAX_CODE_BYTES, and code files past
MAX_CODE_FILES, are skipped and counted for `scree doctor`).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..db import queries, writes
from ..errors import FileSkipped, ScreeError
from ..notes.policy import NotesPolicy, Verdict
from ..notes.reader import read_admitted
from ..records import Skipped
from .store import Index
from .vocab import extract_names, file_kind, source_of
from ..notes.walk import walk_code

log = logging.getLogger(__name__)

MAX_CODE_BYTES = 1024 * 1024
INCLUDED_KIND = queries.INCLUDED_KIND  # a file a page shows (literalinclude) that is no code: kept for its changes
MAX_CODE_FILES = 20_000
COMMIT_BATCH = 500  # files per transaction: one commit per file would cost more than the reading

# Meta keys under which the last collection's skip counts are kept (for doctor).
META_SKIPPED_BIG = "vocab_skipped_big"
META_SKIPPED_CAP = "vocab_skipped_cap"
META_UNREADABLE = "vocab_unreadable"


@dataclass
class VocabReport:
    """What one collection did; `read` counts files opened (tests prove unchanged files are not)."""

    files: int = 0  # code files and manifests admitted (within the caps)
    read: int = 0
    removed: int = 0
    skipped_big: int = 0
    skipped_cap: int = 0
    unreadable: int = 0
    seconds: float = 0.0
    # Code files known before whose content changed or that went away: the autodoc pages that show their
    # docstrings are indexed again (sync.py). A file seen for the first time is not one: its pages were
    # just read with it.
    changed: list[str] = field(default_factory=list)
    stopped: bool = False  # ended early by `should_stop`: the rest waits for the next full sync


_WORDPIECE_VOCAB = Path(__file__).parent.parent / "embed" / "data" / "minilm-vocab.txt"


def common_words(path: Path = _WORDPIECE_VOCAB) -> frozenset[str]:
    """Everyday English words: the whole-word entries of the local model's WordPiece vocabulary
    (30,522 entries that BERT's authors kept because they are frequent). A code name that is one of
    them in one case (`raw`, `closed`) is prose in most questions. Empty when the file is missing."""
    try:
        lines = path.read_text(encoding="utf-8").split()
    except OSError:
        return frozenset()
    return frozenset(w for w in lines if w.isalpha() and w.islower() and len(w) >= 3)


def collect_vocabulary(index: Index, policy: NotesPolicy, *, max_bytes: int = MAX_CODE_BYTES,
                       max_files: int = MAX_CODE_FILES, included: Iterable[str] = (),
                       should_stop: Callable[[], bool] = lambda: False) -> VocabReport:
    """Bring the index's names in line with the folder's code files and manifests. `should_stop` (a
    search's first-answer budget) ends it early: what was read is kept, nothing is forgotten, and the next
    full sync reads the rest (`report.stopped`).

    `included` names files pages show through a `literalinclude` (notes/includes.py) that are no code file: they
    are kept in the same table, as kind INCLUDED_KIND and without names, so that a change to one, or its going,
    is reported in `changed` like a code file's. One kept before that `included` no longer names is forgotten."""
    t0 = time.perf_counter()
    report = VocabReport()
    conn = index.conn
    stored = queries.stored_code_files(conn)
    seen: set[str] = set()
    kept_dirs: list[str] = []
    reader = _Reader(conn, stored, report, max_bytes)
    for item in walk_code(policy, lambda name: file_kind(name) is not None):
        if should_stop():
            report.stopped = True
            break
        if isinstance(item, Skipped):  # a folder that cannot be listed: keep what we knew under it
            kept_dirs.append(item.rel_path.rstrip("/") + "/")
            continue
        st = item.stat
        if st is None:
            continue
        if st.st_size > max_bytes:
            report.skipped_big += 1
            continue
        if report.files >= max_files:
            report.skipped_cap += 1
            continue
        report.files += 1
        if reader.read(item, file_kind(item.rel_path.rsplit("/", 1)[-1]) or ""):
            seen.add(item.rel_path)
    if not report.stopped:
        # A file kept before that no page shows any more is not seen: forgotten below, as a code file gone is.
        for rel in sorted(set(included) - seen):
            verdict = policy.inspect(rel, any_name=True)
            # Gone, refused now, or grown past the cap: the pages that showed it are read again (`changed`).
            if verdict.admitted and verdict.stat is not None and verdict.stat.st_size <= max_bytes \
                    and file_kind(verdict.rel_path.rsplit("/", 1)[-1]) is None \
                    and reader.read(verdict, INCLUDED_KIND):
                seen.add(verdict.rel_path)
    reader.flush()
    if report.stopped:  # not every file was seen: none may be taken for gone
        report.seconds = time.perf_counter() - t0
        return report
    gone = [p for p in stored if p not in seen and not p.startswith(tuple(kept_dirs))]
    writes.delete_code_files(conn, gone)
    report.removed = len(gone)
    report.changed.extend(gone)
    counts = {META_SKIPPED_BIG: str(report.skipped_big), META_SKIPPED_CAP: str(report.skipped_cap),
              META_UNREADABLE: str(report.unreadable)}
    meta = queries.get_meta(conn)
    if any(meta.get(k) != v for k, v in counts.items()):  # a no-op sync writes nothing
        writes.set_meta(conn, counts)
    report.seconds = time.perf_counter() - t0
    return report


class _Reader:
    """Reads one admitted file when its mtime or size differ from the index's, and batches what it found."""

    def __init__(self, conn: Any, stored: dict[str, queries.StoredCodeFile], report: VocabReport,
                 max_bytes: int) -> None:
        self._conn, self._stored, self._report, self._max_bytes = conn, stored, report, max_bytes
        self._batch: list[writes.CodeFileVersion] = []
        self._words: frozenset[str] | None = None  # loaded at the first code file that must be read

    def read(self, verdict: Verdict, kind: str) -> bool:
        """False when the file could not be read now (it is then not seen: gone, if it was kept)."""
        rel, st = verdict.rel_path, verdict.stat
        assert st is not None
        have = self._stored.get(rel)
        if have is not None and have.sha256 is not None and have.kind == kind \
                and (have.mtime_ns, have.size) == (st.st_mtime_ns, st.st_size):
            return True
        try:
            data, st = read_admitted(verdict, max_bytes=self._max_bytes)
        except FileSkipped:
            self._report.unreadable += 1
            return False
        self._report.read += 1
        sha = hashlib.sha256(data).hexdigest()
        if have is not None and have.sha256 == sha and have.kind == kind:
            writes.touch_code_file(self._conn, rel, st.st_mtime_ns, st.st_size)
            return True
        if have is not None:
            self._report.changed.append(rel)
        names: frozenset[str] = frozenset()
        # Binary data (a NUL byte) declares nothing; the file is still recorded so it is not re-read.
        if kind != INCLUDED_KIND and b"\0" not in data:
            if self._words is None:
                self._words = common_words()
            names = frozenset(extract_names(kind, data.decode("utf-8", "replace"), self._words))
        del data
        self._batch.append(writes.CodeFileVersion(rel, kind, source_of(kind), sha, st.st_mtime_ns, st.st_size,
                                                  names, names & (self._words or frozenset())))
        if len(self._batch) >= COMMIT_BATCH:
            self.flush()
        return True

    def flush(self) -> None:
        writes.replace_code_files(self._conn, self._batch)
        self._batch = []


def sync_vocabulary(index: Index, policy: NotesPolicy, should_stop: Callable[[], bool] = lambda: False,
                    included: Iterable[str] = ()) -> VocabReport | None:
    """`collect_vocabulary` for a sync: a failure costs the vocabulary's freshness, never the notes."""
    try:
        return collect_vocabulary(index, policy, should_stop=should_stop, included=included)
    except (ScreeError, OSError) as exc:
        log.warning("the names of the code were not collected: %s", exc)
        return None
