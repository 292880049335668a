"""Transactions: one read snapshot for several queries, and a write transaction (a leaf: schema.py, which the
connection imports, uses both)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator


@contextmanager
def read_snapshot(conn: Any) -> Iterator[None]:
    """Run the block's reads in one transaction, so a writer's commit (another process's, in WAL) never
    lands between two of them; nothing is written, so it ends in a rollback. Inside a transaction the
    caller already holds, the block just runs in it."""
    own = not conn.in_transaction
    if own:
        conn.execute("begin")
    try:
        yield
    finally:
        if own:
            conn.execute("rollback")  # read only: nothing to keep


@contextmanager
def transaction(conn: Any) -> Iterator[None]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception (including KeyboardInterrupt)."""
    conn.execute("begin immediate")
    try:
        yield
    except BaseException:
        try:
            conn.execute("rollback")
        except Exception:  # noqa: BLE001 - SQLite rolled back itself (a full disk, an I/O error): raise the cause
            pass
        raise
    conn.execute("commit")
