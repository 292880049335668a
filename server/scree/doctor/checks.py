"""One check's outcome, as `scree doctor` reports it and any module that contributes a check builds it.

Its own module, a leaf, so that contributors (doctor.py, api.py, hooks.py, vocabreport.py,
usage_report.py) depend on this record and on `guarded`, not on each other.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Literal, Sequence

log = logging.getLogger(__name__)

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


@dataclass(frozen=True)
class PluginContext:
    """Where the Claude Code plugin is (None outside a plugin install) and where its data lives; the
    hooks' check and doctor's own plugin checks take it (`doctor.plugin_context` finds it)."""

    root: Path | None
    data: Path | None


def failed(checks: Sequence[Check]) -> list[Check]:
    """The checks that failed (`scree doctor` exits non-zero when there is any)."""
    return [c for c in checks if c.status == FAIL]


def to_json(checks: Sequence[Check]) -> dict[str, object]:
    """The `--json` document: {"ok": bool, "checks": [...]}."""
    return {"ok": not failed(checks), "checks": [asdict(c) for c in checks]}


def guarded(name: str, run: Callable[[], Check]) -> Check:
    """A check that crashes becomes a failed check naming the exception, so the others still run."""
    try:
        return run()
    except Exception as exc:  # noqa: BLE001 - doctor must report, not die
        log.debug("check %s crashed", name, exc_info=True)
        return Check(name, FAIL, f"the check itself failed: {type(exc).__name__}: {exc}", {"error": repr(exc)},
                     "report this as a scree bug, with the output of `scree doctor --json`")
