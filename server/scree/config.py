"""All of scree's settings in one place: `SCREE_*` environment variables, mirrored by CLI flags.

A flag given on the command line wins over the environment, which wins over the default.
Each field is one row of `settings_table` (its variable, flag, default and README text); the
README's configuration table is rendered from that table.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any, Callable, Mapping

from . import settings_table
from .errors import ConfigError

MODES = ("auto", "semantic", "keyword", "hybrid")
EMBEDDERS = ("local", "api")  # what --embedder offers (make_embedder is the judge of SCREE_EMBEDDER)
DEFAULT_API_BASE = "https://openrouter.ai/api/v1"  # OpenRouter's OpenAI-compatible API
DEFAULT_MODEL = "openai/text-embedding-3-small"
DEFAULT_DIMENSIONS = 512
# Where the API key comes from, first found wins: scree's own variable, then the providers' usual ones.
API_KEY_VARIABLES = ("SCREE_API_KEY", "OPENROUTER_API_KEY", "OPENAI_API_KEY")


@dataclass(frozen=True)
class Config:
    notes: Path | None = None  # SCREE_NOTES / --notes: the folder; None = locate.notes_folder decides
    db: Path | None = None  # SCREE_DB / --db: the index file; None = under the data dir, one per folder
    data_dir: Path | None = None  # SCREE_DATA_DIR: where indexes live; None = $XDG_DATA_HOME/scree
    embedder: str = "local"  # SCREE_EMBEDDER / --embedder: which Embedder builds vectors
    api_base: str = DEFAULT_API_BASE  # SCREE_API_BASE: the API embedder's base URL
    api_key: str | None = dataclass_field(default=None, repr=False)  # SCREE_API_KEY, else the providers' variables
    model: str = DEFAULT_MODEL  # SCREE_MODEL: the API embedder's model
    dimensions: int = DEFAULT_DIMENSIONS  # SCREE_DIMENSIONS: vector width asked of the API model; 0 = its own
    zdr: int = 1  # SCREE_ZDR: 1 = OpenRouter may use only zero-retention, no-collection endpoints
    threads: int | None = None  # SCREE_THREADS: batches the local model runs at once; None = min(2, cpus)
    mode: str = "auto"  # SCREE_MODE / --mode: default search mode
    k: int = 5  # SCREE_K / -k: results per search
    max_file_mb: float = 10.0  # SCREE_MAX_FILE_MB: larger notes are skipped with a reason
    search_budget: float = 6.0  # SCREE_SEARCH_BUDGET: seconds of syncing a `scree search` does before it answers
    note_extensions: str = ".md .mdx .markdown .rst .adoc .asciidoc .org .pod .texi .texinfo .rdoc .docbook .pdf"  # SCREE_NOTE_EXTENSIONS / --note-extensions: which files are notes
    log_level: str = "WARNING"  # SCREE_LOG_LEVEL: stderr logging level
    vector_cache_mb: float = 400.0  # SCREE_VECTOR_CACHE_MB: in-memory vectors for fast KNN; 0 = always scan SQLite
    languages: str = ""  # SCREE_LANGUAGES: the languages whose notes are indexed; "" = all
    model_languages: str = "en"  # SCREE_MODEL_LANGUAGES: what the API model reads; "all" = multilingual

    @property
    def indexed_languages(self) -> frozenset[str]:
        """`languages` parsed (empty: every language is indexed)."""
        return parse_languages(self.languages)

    @property
    def readable_languages(self) -> frozenset[str] | None:
        """`model_languages` parsed; None for `all` (a multilingual model)."""
        return None if self.model_languages.strip().lower() == "all" else parse_languages(self.model_languages)

    @property
    def note_suffixes(self) -> tuple[str, ...]:
        """`note_extensions` parsed (validate() has proved it parses)."""
        return parse_suffixes(self.note_extensions)

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * 1024 * 1024)

    def with_overrides(self, **overrides: object) -> "Config":
        """Return a copy with every override that is not None applied (flags left unset keep env/defaults)."""
        given: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
        return validate(replace(self, **given))


def parse_suffixes(raw: str) -> tuple[str, ...]:
    """`SCREE_NOTE_EXTENSIONS` as suffixes: space or comma separated, each `.ext` (the dot may be left out).

    Raises ValueError naming the bad entry (a path separator, a wildcard, or nothing at all)."""
    out: list[str] = []
    for part in raw.replace(",", " ").split():
        ext = "." + part.lower().lstrip(".")
        if ext == "." or any(c in ext for c in "/\\*?[]\0") or ext.count(".") > 2:
            raise ValueError(f"{part!r} is not a file extension (write e.g. .md .mdx .qmd)")
        if ext not in out:
            out.append(ext)
    if not out:
        raise ValueError("no file extension given (write e.g. .md .mdx)")
    return tuple(out)


_LANGUAGE_CODE = re.compile(r"[a-z]{2}(?:-(?:[a-z]{2}|[a-z]{4}|\d{3}))?")


def parse_languages(raw: str) -> frozenset[str]:
    """Language codes, space or comma separated (`en ja`, `pt_BR,zh-Hant`), lowercased with `-`.

    Raises ValueError naming an entry that is not a two-letter code with an optional region or script."""
    out = set()
    for part in raw.replace(",", " ").split():
        code = part.lower().replace("_", "-")
        if not _LANGUAGE_CODE.fullmatch(code):
            shown = part if len(part) <= 40 else f"{part[:40]}…"  # a pasted page is not echoed back whole
            raise ValueError(f"{shown!r} is not a language code (write e.g. en, ja, pt-BR, zh-Hant)")
        out.add(code)
    return frozenset(out)


def add_embedder_flag(parser: Any) -> None:
    """`--embedder local|api` on a command that embeds (index, search, serve, watch, reindex, doctor)."""
    parser.add_argument("--embedder", choices=EMBEDDERS,
                        help="local model (default) or an OpenAI-compatible API (SCREE_EMBEDDER; see SCREE_API_BASE)")


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
    if "api_key" not in values:  # the providers' own variables, so an existing setup just works
        values.update({"api_key": env[var].strip() for var in reversed(API_KEY_VARIABLES[1:])
                       if env.get(var, "").strip()})
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
    if not 0 < cfg.search_budget <= 3600:
        raise ConfigError(f"SCREE_SEARCH_BUDGET={cfg.search_budget:g} must be more than 0 and at most 3600 seconds")
    if cfg.zdr not in (0, 1):
        raise ConfigError(f"SCREE_ZDR={cfg.zdr} must be 1 (zero data retention requested) or 0")
    if cfg.dimensions < 0:
        raise ConfigError(f"SCREE_DIMENSIONS={cfg.dimensions} must be 0 (the model's own width) or a width")
    try:
        parse_suffixes(cfg.note_extensions)
    except ValueError as exc:
        raise ConfigError(f"SCREE_NOTE_EXTENSIONS / --note-extensions: {exc}") from None
    for name, raw in (("SCREE_LANGUAGES", cfg.languages), ("SCREE_MODEL_LANGUAGES", cfg.model_languages)):
        try:
            parsed = parse_languages("" if name == "SCREE_MODEL_LANGUAGES" and raw.strip().lower() == "all" else raw)
        except ValueError as exc:
            raise ConfigError(f"{name}: {exc}") from None
        if name == "SCREE_MODEL_LANGUAGES" and not parsed and raw.strip().lower() != "all":
            raise ConfigError("SCREE_MODEL_LANGUAGES is empty: name the languages the model reads (e.g. en), or all")
    return cfg
