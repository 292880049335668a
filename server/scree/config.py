"""All of scree's settings in one place: `SCREE_*` environment variables, mirrored by CLI flags.

A flag given on the command line wins over the environment, which wins over the default.
Each field is one row of `settings_table` (its variable, flag, default and README text); the
README's configuration table is rendered from that table.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from . import settings_table
from .errors import ConfigError

MODES = ("auto", "semantic", "keyword", "hybrid")


@dataclass(frozen=True)
class Config:
    notes: Path | None = None  # SCREE_NOTES / --notes: the folder; None = git root above cwd, else cwd
    db: Path | None = None  # SCREE_DB / --db: the index file; None = under the data dir, one per folder
    data_dir: Path | None = None  # SCREE_DATA_DIR: where indexes live; None = $XDG_DATA_HOME/scree
    embedder: str = "local"  # SCREE_EMBEDDER: which Embedder builds vectors
    threads: int | None = None  # SCREE_THREADS: model threads; None = min(2, cpus)
    mode: str = "auto"  # SCREE_MODE / --mode: default search mode
    k: int = 5  # SCREE_K / -k: results per search
    max_file_mb: float = 10.0  # SCREE_MAX_FILE_MB: larger notes are skipped with a reason
    first_sync_mb: float = 50.0  # SCREE_FIRST_SYNC_MB: serve does not build a new index over a folder this big by itself
    log_level: str = "WARNING"  # SCREE_LOG_LEVEL: stderr logging level
    vector_cache_mb: float = 200.0  # SCREE_VECTOR_CACHE_MB: in-memory vectors for fast KNN; 0 = always scan SQLite

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * 1024 * 1024)

    def with_overrides(self, **overrides: object) -> "Config":
        """Return a copy with every override that is not None applied (flags left unset keep env/defaults)."""
        given: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
        return validate(replace(self, **given))


_ENV = {field: s.env for field, s in settings_table.config_fields().items()}


def env_names() -> dict[str, str]:
    """Map of Config field -> environment variable (for docs and `scree doctor`)."""
    return dict(_ENV)


def load_config(env: Mapping[str, str] | None = None) -> Config:
    """Build a Config from the environment (os.environ by default), parsing each row of the settings table."""
    env = os.environ if env is None else env
    values: dict[str, object] = {}
    for field, row in settings_table.config_fields().items():
        raw = env.get(row.env)
        if raw is None or raw.strip() == "":
            continue
        raw = raw.strip()
        try:
            values[field] = _PARSERS[row.kind](raw)
        except ValueError:
            raise ConfigError(f"{row.env}={raw!r} is not a valid value: expected {row.kind}") from None
    return validate(Config(**values))  # type: ignore[arg-type]


_PARSERS: dict[str, Callable[[str], object]] = {
    "path": lambda raw: Path(raw).expanduser(), "int": int, "float": float, "str": str,
}


def validate(cfg: Config) -> Config:
    """Reject values scree cannot use, naming the setting to fix."""
    if cfg.mode not in MODES:
        raise ConfigError(f"mode {cfg.mode!r} is not one of {', '.join(MODES)} (SCREE_MODE / --mode)")
    if not 1 <= cfg.k <= 100:
        raise ConfigError(f"k={cfg.k} is out of range: use 1..100 (SCREE_K / -k)")
    if cfg.threads is not None and cfg.threads < 1:
        raise ConfigError(f"threads={cfg.threads} must be at least 1 (SCREE_THREADS)")
    if cfg.max_file_mb <= 0:
        raise ConfigError("SCREE_MAX_FILE_MB must be positive")
    return cfg
