"""Where a live index stands: its role and state, as the MCP tools, `scree watch` and search notes report it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# The one process that holds the writer lock syncs and watches; every other process reads.
Role = Literal["writer", "reader"]
State = Literal["complete", "syncing", "not_updating", "empty", "needs_reindex"]


@dataclass(frozen=True)
class IndexStatus:
    """Where the live index stands, for the MCP `status` tool and search notes."""

    state: State
    role: Role
    files_done: int  # during a sync: files processed so far in this sync's pass two
    files_total: int  # during a sync: files that need embedding in this sync
    indexed_files: int  # files with committed rows
    chunks: int
    reason: str | None  # for not_updating / needs_reindex: why, in words an agent can act on

    def describe(self) -> str:
        """One short sentence, e.g. "complete (97 files, 1619 chunks)"."""
        size = f"{self.indexed_files} files, {self.chunks} chunks"
        if self.state == "complete":
            return f"complete ({size})" + (f"; {self.reason}" if self.reason else "")
        if self.state == "syncing":
            if self.files_total:
                return (f"still syncing: {self.files_done}/{self.files_total} files indexed; "
                        "results may be incomplete")
            if self.role == "writer":
                return f"still syncing: scanning the folder ({size} so far); results may be incomplete"
            return (f"still syncing: another process is building the index ({size} so far); "
                    "results may be incomplete")
        if self.state == "not_updating":
            return f"index not updating: {self.reason}; serving what is indexed ({size})"
        if self.state == "needs_reindex":
            return f"needs reindex: {self.reason}"
        return "empty: no Markdown notes are indexed in this folder yet"
