"""The first-sync size guard: a brand-new index over a very large folder is built only when asked.

`scree serve` / `scree watch` (the live writer) and the unattended `scree reindex --quiet` (the
plugin's session start) both apply it; an explicit `scree reindex` or the `reindex` tool does not.
"""

from __future__ import annotations

import os

from .db import queries
from .policy import NotesPolicy
from .store import Index
from .walk import walk_notes

MB = 1024 * 1024


def markdown_exceeds(policy: NotesPolicy, limit_bytes: int) -> bool:
    """True when the admitted notes under the policy's root add up to more than `limit_bytes`.

    Walks with the indexer's own walker and stops as soon as the limit is passed, so a huge folder
    costs only the files needed to prove it.
    """
    total = 0
    root = str(policy.root)
    for item in walk_notes(policy):
        if not isinstance(item, str):
            continue
        try:
            total += os.stat(os.path.join(root, item)).st_size
        except OSError:
            continue
        if total > limit_bytes:
            return True
    return False


def first_sync_refusal(index: Index, policy: NotesPolicy, limit_mb: float) -> str | None:
    """Why this index should not be built unasked (it has no files yet and the folder holds more
    than `limit_mb` MB of Markdown), in words that say what to run; None when it may be built.
    `limit_mb <= 0` turns the guard off (SCREE_FIRST_SYNC_MB=0)."""
    if limit_mb <= 0 or queries.counts(index.conn).files > 0:
        return None
    if not markdown_exceeds(policy, int(limit_mb * MB)):
        return None
    return (f"{policy.root} holds more than {limit_mb:g} MB of Markdown and has no index yet, too much to "
            "build unasked; run `scree reindex` (or the reindex tool) to build it, then it stays in sync")
