"""Webhook signing, verification and retry schedule (ADR-0006).

Header:  Platen-Signature: t=<unix>,v1=<hex hmac-sha256(secret, "<t>.<body>")>
During a secret rotation (24 h) two v1= entries are sent, new secret first.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import time

SIGNATURE_HEADER = "Platen-Signature"
DEFAULT_TOLERANCE_S = 300
ROTATION_OVERLAP_S = 24 * 3600

# delay before attempt N (index N-1); 8 attempts, +-10% jitter, ~4h43m total
RETRY_SCHEDULE_S = (0, 10, 30, 120, 600, 1800, 3600, 10800)


def sign_payload(secrets: list[str], body: bytes, now: int | None = None) -> str:
    t = int(time.time()) if now is None else now
    parts = [f"t={t}"]
    for secret in secrets:  # newest first
        mac = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
        parts.append(f"v1={mac}")
    return ",".join(parts)


def verify_signature(
    secret: str, header: str, body: bytes, tolerance_s: int = DEFAULT_TOLERANCE_S,
    now: int | None = None,
) -> bool:
    """Reference verifier, also published as the `platen-verify` package.

    `secret` is the full whsec_... string, used as-is. `body` must be the raw bytes.
    """
    fields = [p.split("=", 1) for p in header.split(",") if "=" in p]
    ts = [v for k, v in fields if k == "t"]
    sigs = [v for k, v in fields if k == "v1"]
    if len(ts) != 1 or not sigs:
        return False
    t = int(ts[0])
    current = int(time.time()) if now is None else now
    if abs(current - t) > tolerance_s:
        return False
    expected = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, s) for s in sigs)


def next_attempt_delay(attempt: int, rng: random.Random | None = None) -> float | None:
    """Delay before `attempt` (1-based). None once PLATEN_WEBHOOK_MAX_ATTEMPTS is exhausted."""
    if attempt > len(RETRY_SCHEDULE_S):
        return None
    base = RETRY_SCHEDULE_S[attempt - 1]
    rng = rng or random.Random()
    return base * rng.uniform(0.9, 1.1)


def is_success(status: int) -> bool:
    # 3xx is a failure and is never followed (2.8.3)
    return 200 <= status < 300
