"""platen-router: claim -> render -> dispatch.

Slots: PLATEN_ROUTER_CONCURRENCY total, PLATEN_P0_RESERVED_SLOTS of which only
p0 may use (ADR-0007). p0 is claimed first, in its own query, on every poll.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from typing import Any

from platen import queue
from platen.backoff import compute_backoff, should_retry
from platen.config import Settings
from platen.errors import ErrorCode, PlatenError
from platen.leases import LeaseManager
from platen.render import render_job

log = logging.getLogger(__name__)


class Router:
    def __init__(self, settings: Settings, db: Any, leases: LeaseManager, router_id: str) -> None:
        self.s = settings
        self.db = db
        self.leases = leases
        self.router_id = router_id
        self._p0_slots = asyncio.Semaphore(settings.p0_reserved_slots)
        self._shared_slots = asyncio.Semaphore(settings.shared_slots)
        self._stopping = asyncio.Event()

    def free_shared(self) -> int:
        return self._shared_slots._value  # noqa: SLF001 - cheap and good enough

    def free_p0(self) -> int:
        return self._p0_slots._value + self.free_shared()  # noqa: SLF001

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.create_task(self.shutdown()))
        while not self._stopping.is_set():
            claimed = await self.poll_once()
            if not claimed:
                await asyncio.sleep(self.s.router_poll_interval_ms / 1000)

    async def poll_once(self) -> int:
        paused = queue.paused_priorities(self.db)
        total = 0
        if "p0" not in paused:
            n = min(self.s.p0_claim_batch_size, self.free_p0())
            for job in queue.claim_jobs(self.db, priority="p0", limit=n, router_id=self.router_id):
                asyncio.create_task(self._run_job(job, p0=True))
                total += 1
        for prio in ("p1", "p2"):
            if prio in paused:
                continue
            n = min(self.s.claim_batch_size, self.free_shared())
            for job in queue.claim_jobs(self.db, priority=prio, limit=n, router_id=self.router_id):
                asyncio.create_task(self._run_job(job, p0=False))
                total += 1
        return total

    async def _acquire_slot(self, p0: bool) -> asyncio.Semaphore:
        if p0 and self._p0_slots._value > 0:  # noqa: SLF001
            await self._p0_slots.acquire()
            return self._p0_slots
        await self._shared_slots.acquire()
        return self._shared_slots

    async def _run_job(self, job: dict[str, Any], p0: bool) -> None:
        slot = await self._acquire_slot(p0)
        try:
            timeout = self.s.render_timeout_ms / 1000
            try:
                blob_key = await asyncio.wait_for(render_job(job, self.s), timeout)
            except TimeoutError:
                raise PlatenError(ErrorCode.RENDER_TIMEOUT, "render exceeded timeout") from None
            await self.dispatch(job, blob_key)
        except PlatenError as e:
            attempt = int(job["attempt"])
            if should_retry(attempt, e.error.retryable, self.s):
                delay = compute_backoff(attempt + 1, self.s)
                queue.schedule_retry(
                    self.db, job_id=job["id"], router_id=self.router_id,
                    delay_s=delay, code=e.error.code,
                )
            else:
                self.fail(job, e)
        finally:
            slot.release()

    async def dispatch(self, job: dict[str, Any], blob_key: str) -> None:
        printer = resolve_target(job, self.s)
        if printer is None:
            self.mark(job, "waiting_printer")
            return
        lease = self.leases.held.get(printer["id"]) or self.leases.acquire(job["site"], printer["id"])
        if lease is None:
            self.mark(job, "rendered")  # another router owns it
            return
        # sent over the spoolside-gw stream with lease.fencing_token
        log.info("dispatch job=%s printer=%s token=%s", job["id"], printer["id"], lease.fencing_token)

    def mark(self, job: dict[str, Any], state: str) -> None:
        ...

    def fail(self, job: dict[str, Any], err: PlatenError) -> None:
        ...

    async def shutdown(self) -> None:
        """SIGTERM: stop claiming, let slots drain (PLATEN_SHUTDOWN_GRACE_S), release leases."""
        self._stopping.set()
        await asyncio.sleep(0)
        self.leases.release_all()


def resolve_target(job: dict[str, Any], settings: Settings) -> dict[str, Any] | None:
    """printer -> that printer only; station -> primary, then fallback after
    PLATEN_STATION_FALLBACK_AFTER_S; pool -> least-loaded eligible printer with
    matching media (ties: lowest printer id)."""
    ...
    return None
