"""Postgres-backed job queue (ADR-0002).

The jobs table *is* the queue. Claims use FOR UPDATE SKIP LOCKED and must be
short: claim, commit, then render outside the transaction.
"""

from __future__ import annotations

from typing import Any

import psycopg

CLAIM_SQL = """
WITH next AS (
  SELECT id FROM jobs
  WHERE state = 'accepted'
    AND priority = %(priority)s
    AND not_before <= now()
  ORDER BY cutoff_at NULLS LAST, created_at
  LIMIT %(limit)s
  FOR UPDATE SKIP LOCKED
)
UPDATE jobs j
SET state = 'rendering', claimed_by = %(router_id)s, claimed_at = now(),
    attempt = attempt + 1
FROM next WHERE j.id = next.id
RETURNING j.*;
"""

PAUSED_SQL = "SELECT priority FROM router_controls WHERE paused"

RETRY_SQL = """
UPDATE jobs
SET state = 'accepted', not_before = now() + make_interval(secs => %(delay_s)s),
    last_error_code = %(code)s
WHERE id = %(job_id)s AND claimed_by = %(router_id)s
"""


def paused_priorities(conn: psycopg.Connection[Any]) -> set[str]:
    """Priorities paused via `platenctl queue pause`. 'all' pauses everything."""
    rows = conn.execute(PAUSED_SQL).fetchall()
    paused = {r[0] for r in rows}
    if "all" in paused:
        return {"p0", "p1", "p2"}
    return paused


def claim_jobs(
    conn: psycopg.Connection[Any], *, priority: str, limit: int, router_id: str
) -> list[dict[str, Any]]:
    if limit <= 0:
        return []
    with conn.transaction():
        conn.execute("SET LOCAL statement_timeout = 1000")
        cur = conn.execute(
            CLAIM_SQL, {"priority": priority, "limit": limit, "router_id": router_id}
        )
        cols = [c.name for c in cur.description or []]
        return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


def schedule_retry(
    conn: psycopg.Connection[Any], *, job_id: str, router_id: str, delay_s: float, code: str
) -> None:
    conn.execute(
        RETRY_SQL, {"job_id": job_id, "router_id": router_id, "delay_s": delay_s, "code": code}
    )
