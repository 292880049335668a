"""One read snapshot for several queries (a leaf: schema.py, which the connection imports, uses it too)."""

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
