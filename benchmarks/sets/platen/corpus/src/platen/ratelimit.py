"""Per-client token buckets in the platen-ratelimit Redis. Fails open."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import redis
import yaml

log = logging.getLogger(__name__)

BUCKET_LUA = """
-- KEYS[1] bucket key; ARGV: rate, burst, now_ms, cost
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local rate, burst, now, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local tokens = tonumber(b[1]) or burst
local ts = tonumber(b[2]) or now
tokens = math.min(burst, tokens + (now - ts) / 1000 * rate)
local allowed = 0
if tokens >= cost then tokens = tokens - cost; allowed = 1 end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {allowed, math.floor(tokens)}
"""


@dataclass(frozen=True)
class Limit:
    rps: int
    burst: int


def request_cost(route: str, method: str, jobs_in_batch: int = 0, page_size: int = 0) -> int:
    if route in ("/healthz", "/readyz", "/v1/health"):
        return 0
    if route == "/v2/jobs:batchCreate":
        return max(1, math.ceil(jobs_in_batch / 10))
    if route.endswith(":render"):
        return 5
    if method == "GET" and page_size > 200:
        return 2
    return 1


class TokenBucket:
    def __init__(self, client: redis.Redis, default: Limit, overrides_path: str) -> None:
        self._r = client
        self._script = client.register_script(BUCKET_LUA)
        self.default = default
        self.overrides_path = overrides_path
        self.overrides: dict[str, Limit] = {}

    def reload(self) -> None:
        """Called every 60 s."""
        with open(self.overrides_path) as f:
            doc = yaml.safe_load(f) or {}
        self.overrides = {
            c: Limit(int(v["rps"]), int(v["burst"])) for c, v in doc.get("clients", {}).items()
        }

    def check(self, client_id: str, cost: int, now_ms: int) -> tuple[bool, int, Limit]:
        limit = self.overrides.get(client_id, self.default)
        try:
            allowed, remaining = self._script(
                keys=[f"rl:{client_id}"], args=[limit.rps, limit.burst, now_ms, cost]
            )
        except redis.RedisError:
            log.warning("ratelimit redis unavailable, failing open")
            return True, limit.burst, limit  # platen_ratelimit_failopen_total += 1
        return bool(allowed), int(remaining), limit
