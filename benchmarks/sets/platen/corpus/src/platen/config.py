"""Settings for all Platen processes.

Every field maps to a PLATEN_* environment variable. Keep
docs/operations/configuration.md in sync (CONTRIBUTING rule).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, fields

log = logging.getLogger(__name__)

ENV_PREFIX = "PLATEN_"


class ConfigError(RuntimeError):
    pass


@dataclass(frozen=True)
class Settings:
    # core
    env: str = "dev"
    region: str = "us"
    database_url: str = ""
    database_password_file: str = "/var/run/secrets/platen/db-password"
    db_pool_size: int = 20
    db_pool_timeout_s: int = 3
    db_statement_timeout_ms: int = 5000
    redis_url: str = "redis://localhost:6379/0"
    ratelimit_redis_url: str = ""  # empty -> same as redis_url
    blob_bucket: str = "platen-render-dev"
    blob_endpoint: str = ""
    blob_ttl_days: int = 30
    http_port: int = 8080
    metrics_port: int = 9464
    log_level: str = "info"
    log_format: str = "json"
    tracing_sample_rate: float = 0.05
    shutdown_grace_s: int = 25

    # api
    auth_mode: str = "gatehouse"
    gatehouse_jwks_url: str = "https://gatehouse.internal/.well-known/jwks.json"
    auth_clock_skew_s: int = 30
    max_payload_bytes: int = 262_144
    idempotency_ttl_h: int = 24
    page_size_max: int = 500
    rate_limit_default_rps: int = 50
    rate_limit_default_burst: int = 100
    rate_limit_overrides_path: str = "/etc/platen/ratelimits.yaml"
    max_inflight: int = 512

    # router
    router_concurrency: int = 16
    p0_reserved_slots: int = 4
    p0_claim_batch_size: int = 5
    claim_batch_size: int = 25
    router_poll_interval_ms: int = 250
    render_timeout_ms: int = 4000  # was 10000 before 2.5.1 (PM-2025-11-28)
    render_workers: int = 0  # 0 = os.cpu_count()
    retry_max_attempts: int = 5
    retry_base_ms: int = 2000
    retry_max_ms: int = 60_000
    job_ttl_s: int = 21_600
    cutoff_risk_window_s: int = 900
    glyph_cache_dir: str = "/var/cache/platen/glyphs"
    glyph_cache_max_mb: int = 512
    glyph_cache_verify: bool = True
    font_pack_url: str = "s3://platen-fonts/pack-2026.3.tar.zst"
    feature_pdf_raster: bool = False
    pdf_raster_sites: str = ""

    # leases / sites
    lease_ttl_s: int = 45
    lease_renew_s: int = 15
    site_offline_after_s: int = 90
    drain_grace_s: int = 120
    station_fallback_after_s: int = 10

    # webhooks
    webhook_concurrency: int = 96
    webhook_timeout_ms: int = 5000
    webhook_max_attempts: int = 8
    webhook_pause_after_failures: int = 200
    webhook_signing_keys_path: str = "/etc/platen/webhook-keys"
    webhook_delivery_retention_d: int = 7

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        environ = dict(os.environ if environ is None else environ)
        known = {f.name: f for f in fields(cls)}
        values: dict[str, object] = {}
        for key, raw in environ.items():
            if not key.startswith(ENV_PREFIX):
                continue
            name = key[len(ENV_PREFIX):].lower()
            f = known.get(name)
            if f is None:
                log.warning("unknown setting %s", key)
                continue
            values[name] = _coerce(raw, f.type)
        s = cls(**values)  # type: ignore[arg-type]
        s.validate()
        return s

    def validate(self) -> None:
        if self.auth_mode == "dev" and self.env != "dev":
            raise ConfigError("refusing dev auth outside dev")
        if not 0 <= self.p0_reserved_slots < self.router_concurrency:
            raise ConfigError("PLATEN_P0_RESERVED_SLOTS must be < PLATEN_ROUTER_CONCURRENCY")
        if self.lease_renew_s * 3 > self.lease_ttl_s:
            raise ConfigError("PLATEN_LEASE_RENEW_S must be <= PLATEN_LEASE_TTL_S / 3")
        if self.shutdown_grace_s >= 30:
            raise ConfigError("PLATEN_SHUTDOWN_GRACE_S must be < terminationGracePeriodSeconds (30)")
        if self.region not in ("us", "eu"):
            raise ConfigError(f"unknown region {self.region!r}")

    @property
    def shared_slots(self) -> int:
        return self.router_concurrency - self.p0_reserved_slots


def _coerce(raw: str, typ: object) -> object:
    t = typ if isinstance(typ, str) else getattr(typ, "__name__", str(typ))
    if t == "bool":
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if t == "int":
        return int(raw)
    if t == "float":
        return float(raw)
    return raw
