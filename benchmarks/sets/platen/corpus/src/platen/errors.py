"""PLT-NNNN error codes (ADR-0005).

Never renumber or reuse a code. `scripts/check_error_docs.py` diffs this enum
against docs/api/errors.md in CI.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class ErrorCode(Enum):
    # (code, name, http_status or None for async-only, retryable)
    INVALID_JSON = ("PLT-1001", "invalid_json", 400, False)
    SCHEMA_VIOLATION = ("PLT-1002", "schema_violation", 422, False)
    PAYLOAD_TOO_LARGE = ("PLT-1003", "payload_too_large", 413, False)
    TOO_MANY_ITEMS = ("PLT-1004", "too_many_items", 422, False)
    IDEMPOTENCY_CONFLICT = ("PLT-1005", "idempotency_conflict", 409, False)
    INVALID_PAGE_TOKEN = ("PLT-1006", "invalid_page_token", 400, False)
    CUTOFF_IN_PAST = ("PLT-1007", "cutoff_in_past", 422, False)
    IDEMPOTENCY_IN_PROGRESS = ("PLT-1008", "idempotency_in_progress", 409, True)
    COPIES_OUT_OF_RANGE = ("PLT-1009", "copies_out_of_range", 422, False)
    API_VERSION_REMOVED = ("PLT-1010", "api_version_removed", 410, False)

    MISSING_CREDENTIALS = ("PLT-2001", "missing_credentials", 401, False)
    TOKEN_EXPIRED = ("PLT-2002", "token_expired", 401, True)
    INSUFFICIENT_SCOPE = ("PLT-2003", "insufficient_scope", 403, False)
    P0_NOT_PERMITTED = ("PLT-2004", "p0_not_permitted", 403, False)
    REGION_MISMATCH = ("PLT-2005", "region_mismatch", 403, False)
    RATE_LIMITED = ("PLT-2101", "rate_limited", 429, True)
    CLIENT_SUSPENDED = ("PLT-2102", "client_suspended", 403, False)

    TEMPLATE_NOT_FOUND = ("PLT-3001", "template_not_found", 404, False)
    TEMPLATE_VERSION_RETIRED = ("PLT-3002", "template_version_retired", 410, False)
    TEMPLATE_INVALID = ("PLT-3003", "template_invalid", 422, False)
    TEMPLATE_VARIABLE_MISSING = ("PLT-3007", "template_variable_missing", 422, False)
    TEMPLATE_VARIABLE_INVALID = ("PLT-3008", "template_variable_invalid", 422, False)
    RENDER_TIMEOUT = ("PLT-3010", "render_timeout", None, True)
    GLYPH_MISSING = ("PLT-3011", "glyph_missing", None, False)
    GLYPH_CACHE_CORRUPT = ("PLT-3012", "glyph_cache_corrupt", None, True)
    BLOB_WRITE_FAILED = ("PLT-3013", "blob_write_failed", None, True)
    RASTER_PAGE_LIMIT = ("PLT-3014", "raster_page_limit", None, False)

    PRINTER_NOT_FOUND = ("PLT-4001", "printer_not_found", 404, False)
    PRINTER_QUARANTINED = ("PLT-4002", "printer_quarantined", 409, False)
    STATION_NOT_FOUND = ("PLT-4003", "station_not_found", 404, False)
    POOL_NOT_FOUND = ("PLT-4004", "pool_not_found", 404, False)
    MEDIA_MISMATCH = ("PLT-4005", "media_mismatch", 422, False)
    NO_ELIGIBLE_PRINTER = ("PLT-4102", "no_eligible_printer", None, False)
    DISPATCH_FAILED = ("PLT-4103", "dispatch_failed", None, True)
    SITE_OFFLINE = ("PLT-4210", "site_offline", None, False)
    SITE_NOT_IN_REGION = ("PLT-4211", "site_not_in_region", 422, False)
    SITE_UNKNOWN = ("PLT-4212", "site_unknown", 404, False)
    JOB_NOT_CANCELLABLE = ("PLT-4301", "job_not_cancellable", 409, False)
    REPRINT_LIMIT_EXCEEDED = ("PLT-4302", "reprint_limit_exceeded", 429, True)
    JOB_NOT_REPRINTABLE = ("PLT-4303", "job_not_reprintable", 409, False)
    BATCH_CLOSED = ("PLT-4304", "batch_closed", 409, False)

    INTERNAL = ("PLT-5000", "internal", 500, True)
    DEPENDENCY_UNAVAILABLE = ("PLT-5003", "dependency_unavailable", 503, True)
    OVERLOADED = ("PLT-5004", "overloaded", 503, True)

    @property
    def code(self) -> str:
        return self.value[0]

    @property
    def code_name(self) -> str:
        return self.value[1]

    @property
    def http_status(self) -> int | None:
        return self.value[2]

    @property
    def retryable(self) -> bool:
        return self.value[3]


# Retired: PLT-3009 template_engine_error (2.3.0), PLT-4101 printer_busy (2.0.1).
RETIRED_CODES = frozenset({"PLT-3009", "PLT-4101"})

REPRINT_LIMIT_PER_HOUR = 3


@dataclass
class PlatenError(Exception):
    error: ErrorCode
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_body(self, request_id: str) -> dict[str, Any]:
        return {
            "error": {
                "code": self.error.code,
                "name": self.error.code_name,
                "message": self.message,
                "retryable": self.error.retryable,
                "request_id": request_id,
                "details": self.details,
            }
        }
