"""One check's outcome, as `scree doctor` reports it and any module that contributes a check builds it.

Its own module so that contributors (doctor.py, usage_report.py) depend on this record, not on each other.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal, Sequence

Status = Literal["ok", "warn", "fail", "info"]
OK: Status = "ok"
WARN: Status = "warn"
FAIL: Status = "fail"
INFO: Status = "info"


@dataclass(frozen=True)
class Check:
    """The outcome of one check. `fix` says what to do; it is set whenever status is warn or fail."""

    name: str
    status: Status
    summary: str
    details: dict[str, object] = field(default_factory=dict)
    fix: str | None = None


def failed(checks: Sequence[Check]) -> list[Check]:
    """The checks that failed (`scree doctor` exits non-zero when there is any)."""
    return [c for c in checks if c.status == FAIL]


def to_json(checks: Sequence[Check]) -> dict[str, object]:
    """The `--json` document: {"ok": bool, "checks": [...]}."""
    return {"ok": not failed(checks), "checks": [asdict(c) for c in checks]}
