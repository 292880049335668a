"""What `scree status` and doctor's index check both say about an index: stage two's progress and what
to do about it, the fix for a damaged index, and the notes per language with what the vectors cover.

Read-only and quick (a few meta reads, the lock file, the free space under the index), so `scree status`
imports this without the rest of doctor.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Mapping, Sequence

if TYPE_CHECKING:
    from ..db import queries


def stage_two_summary(workspace: object, meta: Mapping[str, str], embedded: int, total: int,
                      ) -> tuple[str | None, str | None, bool]:
    """(stage two's note, what to do, whether the disk is full) for `scree status` and doctor, from any
    process: how far it is, the time left at the writer's own measured rate (or "estimating", or how
    long nothing was stored), a full disk under the index, and who (if anyone) is embedding.
    (None, None, False) when every chunk has its vectors."""
    import shutil

    from ..index.indexstatus import decode_clock, space_problem, stage_two_note
    from ..live.lock import describe_holder, read_holder

    if total <= 0 or embedded >= total:
        return None, None, False
    loc = workspace.location  # type: ignore[attr-defined]
    try:
        problem = space_problem(shutil.disk_usage(loc.db.parent).free, loc.db)
    except OSError:
        problem = None
    holder = read_holder(loc.lock)
    clock = decode_clock(dict(meta)) if holder is not None else None  # nobody runs: no time to tell
    now = time.time()
    note = stage_two_note(embedded, total, clock, now, problem)
    if problem is not None:
        return note, problem, True
    if holder is None:
        return note, "no process is embedding: `scree reindex` (or the next session's server) embeds the rest", False
    if clock is not None and now - clock.at > clock.stalled_after():
        return note, (f"{describe_holder(holder)} holds the index but stores no vectors: see its log "
                      "(stderr), or stop it and run `scree reindex`"), False
    return note, None, False


# What to do about an index scree cannot trust (doctor's index check and `scree status` say the same).
DAMAGED_FIX = ("the index is a cache of your notes: `scree reindex` rebuilds it (a running `scree serve`/"
               "`scree watch` does by itself); your notes are not touched")


def per_language(langs: Sequence[queries.LanguageCount]) -> dict[str, dict[str, int]]:
    """Notes per language: indexed, keyword-only (the embedder does not read it), left out (SCREE_LANGUAGES)."""
    return {lc.lang or "not decided yet": {"notes": lc.files, "keyword_only": lc.keyword_only, "left_out": lc.left_out}
            for lc in langs}


def vectors_cover(meta: dict[str, str], langs: Sequence[queries.LanguageCount]) -> str:
    """What the vectors cover ("English notes; 1,497 notes in 12 other languages are keyword-only")."""
    from ..notes.language import coverage

    return coverage(meta.get("embed_languages"), {lc.lang: lc.keyword_only for lc in langs if lc.keyword_only})
