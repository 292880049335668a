"""Printer leases in Redis with fencing tokens (ADR-0004).

Key   lease:{site}:{printer_id}  ->  "<router_id>:<fencing_token>"
Fence fence:{site}:{printer_id}  ->  monotonically increasing integer
"""

from __future__ import annotations

from dataclasses import dataclass

import redis

ACQUIRE_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then return nil end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token, 'PX', ARGV[2])
return token
"""

# compare-and-extend on the full value, including the token (fix in 1.3.1)
RENEW_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

FORCE_RELEASE_LUA = """
redis.call('DEL', KEYS[1])
return redis.call('INCR', KEYS[2])
"""


@dataclass(frozen=True)
class PrinterLease:
    site: str
    printer_id: str
    router_id: str
    fencing_token: int

    @property
    def value(self) -> str:
        return f"{self.router_id}:{self.fencing_token}"


def _keys(site: str, printer_id: str) -> list[str]:
    return [f"lease:{site}:{printer_id}", f"fence:{site}:{printer_id}"]


class LeaseManager:
    def __init__(self, client: redis.Redis, router_id: str, ttl_s: int = 45) -> None:
        self._r = client
        self._router_id = router_id
        self._ttl_ms = ttl_s * 1000
        self._acquire = client.register_script(ACQUIRE_LUA)
        self._renew = client.register_script(RENEW_LUA)
        self._release = client.register_script(RELEASE_LUA)
        self._force = client.register_script(FORCE_RELEASE_LUA)
        self.held: dict[str, PrinterLease] = {}

    def acquire(self, site: str, printer_id: str) -> PrinterLease | None:
        token = self._acquire(keys=_keys(site, printer_id), args=[self._router_id, self._ttl_ms])
        if token is None:
            return None
        lease = PrinterLease(site, printer_id, self._router_id, int(token))
        self.held[printer_id] = lease
        return lease

    def renew_all(self) -> list[PrinterLease]:
        """Called every PLATEN_LEASE_RENEW_S. Returns leases that were lost."""
        lost = []
        for pid, lease in list(self.held.items()):
            ok = self._renew(keys=_keys(lease.site, pid)[:1], args=[lease.value, self._ttl_ms])
            if not ok:
                lost.append(self.held.pop(pid))
        return lost

    def release_all(self) -> None:
        for pid, lease in list(self.held.items()):
            self._release(keys=_keys(lease.site, pid)[:1], args=[lease.value])
            self.held.pop(pid, None)

    def force_release(self, site: str, printer_id: str) -> int:
        """`platenctl leases release --force`: drop lease and bump the fencing token."""
        return int(self._force(keys=_keys(site, printer_id), args=[]))
