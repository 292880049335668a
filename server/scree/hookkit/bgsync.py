"""The SessionStart side: start a detached `scree reindex`, and the one line of context for the model.

The sync runs as `uv run --quiet --frozen --project <plugin root> scree reindex --quiet` with the
plugin's venv under the data dir, so a first session also builds that environment (a cold uv
environment can outlast Claude Code's wait for the MCP server).

The hook itself only decides whether uv is there and starts a detached helper (its own session,
no inherited descriptors) and returns: it outlives the hook and even the Claude Code session
(`async` hooks are killed at the end of `-p` runs). The helper does the slow part, finding the
index with `scree.locate`, skips the sync when a writer holds the index's lock, and otherwise
replaces itself (exec) with the sync command, its stderr going to `logs/sync.log`.
"""

from __future__ import annotations

import os
import subprocess
import time

from . import jsonio as json  # `import json` would pull in re and enum: see jsonio
from ..errors import ConfigError
from ..pids import host_name, pid_alive
from ..settings_table import SYNC_COMMAND
from . import SEARCH_TOOL

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Mapping, Sequence

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

UV_INSTALL = ("curl -LsSf https://astral.sh/uv/install.sh | sh (it puts uv in ~/.local/bin; or: pipx install uv, "
              "brew install uv)")

CONTEXT_LINE = (
    f"scree indexes this repo's docs and notes (Markdown, reStructuredText with its autodoc docstrings, AsciiDoc, "
    f"text, PDF: guides, ADRs, READMEs): for a question about what they say, "
    f"call {SEARCH_TOOL} first (meaning + keyword search, returns sections with path:lines), and with a "
    f"question in plain words pass expected_answer too: a sentence or two the answer might say, in the docs' "
    f"words (none for a bare name or flag); use grep/rg for exact strings in code."
)
# The lines for a session whose server has no uv or no environment yet. The server is a stdlib relay
# (server/scree/relay/relay.py): it is connected and lists its tools anyway, fetches uv itself when there
# is none, builds the environment, and its tools answer once that is done, saying meanwhile how far the
# setup is. So these lines name the tool, and never "the next session" (issue 35).
NO_UV_LINE = (
    f"scree's notes search is setting itself up: uv is not installed, so scree is fetching it from PyPI and "
    f"building its Python environment (a minute or two on a fast connection). {SEARCH_TOOL} answers in this "
    "session once that is done; until then it says how far the setup is, and notes are searched with grep. "
    f"If the setup fails, the tool's answer says why; installing uv by hand ({UV_INSTALL}) always works."
)

# The first session after an install: the plugin's environment does not exist yet.
BUILDING_LINE = (
    "scree's notes search is setting itself up: its Python environment is being built for the first time "
    "(uv downloads and installs about 250 MB: onnxruntime, numpy, the embedding model; a minute or two on a "
    f"fast connection), then the repo's notes are indexed. {SEARCH_TOOL} answers in this session once that "
    "is done; until then it says how far the setup is, and notes are searched with grep."
)


def environment_ready(data_root: str) -> bool:
    """True once the plugin's venv holds scree's installed entry point (uv installs it with the rest)."""
    venv = os.path.join(data_root, "venv")
    return any(_executable(os.path.join(venv, *rel)) for rel in (("bin", "scree-mcp"), ("Scripts", "scree-mcp.exe")))


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def uv_candidates(env: Mapping[str, str] | None = None, plugin_root: str | None = None,
                  plugin_data: str | None = None) -> list[tuple[str, str]]:
    """(path, where) of every place uv is looked for, in order: PATH; ~/.local/bin and ~/.cargo/bin
    (where its installers put it); the Quickstart's `.uv/bin` in the plugin's folder (a clone);
    `uv/bin` in the plugin's data dir (a private venv holding uv, for an externally managed Python)."""
    env = os.environ if env is None else env
    home = env.get("HOME") or os.path.expanduser("~")
    # shutil.which does the same first part, but importing shutil costs the hook a few ms.
    found = [(os.path.join(d, "uv"), "PATH") for d in env.get("PATH", os.defpath).split(os.pathsep) if d]
    found += [(os.path.join(home, ".local", "bin", "uv"), "~/.local/bin"),
              (os.path.join(home, ".cargo", "bin", "uv"), "~/.cargo/bin")]
    if plugin_root:
        found.append((os.path.join(plugin_root, ".uv", "bin", "uv"), "the Quickstart's .uv/bin"))
    if plugin_data:
        found.append((os.path.join(plugin_data, "uv", "bin", "uv"), "the plugin's data dir"))
    return found


def find_uv_where(env: Mapping[str, str] | None = None, plugin_root: str | None = None,
                  plugin_data: str | None = None) -> tuple[str, str] | None:
    """The first executable uv of `uv_candidates` and where it was found, or None."""
    for candidate, where in uv_candidates(env, plugin_root, plugin_data):
        if _executable(candidate):
            return candidate, where
    return None


def find_uv(env: Mapping[str, str] | None = None, plugin_root: str | None = None,
            plugin_data: str | None = None) -> str | None:
    """The uv executable (see `uv_candidates`), or None."""
    found = find_uv_where(env, plugin_root, plugin_data)
    return found[0] if found else None


def sync_command(uv: str, plugin_root: str) -> list[str]:
    """The background sync: scree's own CLI, run through uv in the plugin's environment."""
    return [uv, "run", "--quiet", "--frozen", "--project", plugin_root, "scree", "reindex", "--quiet"]


def command_override(env: Mapping[str, str] | None = None) -> list[str] | None:
    """SCREE_SYNC_COMMAND (a JSON list of strings) replaces the sync command; for tests and odd setups."""
    env = os.environ if env is None else env
    raw = env.get(SYNC_COMMAND.env, "").strip()
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if not (isinstance(value, list) and value and all(isinstance(v, str) for v in value)):
        raise ConfigError('SCREE_SYNC_COMMAND must be a JSON list of strings, like ["scree", "reindex"]')
    return value


def writer_active(lock_path: str) -> bool:
    """True when a scree writer holds the index's writer lock (so a sync now would only wait or quit).

    Reads the holder record first (no lock taken); when it names no live process, probes the
    flock non-blockingly on a separate descriptor and lets go at once.
    """
    try:
        with open(lock_path, "rb") as fh:
            data = fh.read(4096)
    except FileNotFoundError:
        return False
    except OSError:
        data = b""
    try:
        holder = json.loads(data.decode("utf-8")) if data.strip() else None
    except ValueError:
        holder = None
    if isinstance(holder, dict) and isinstance(holder.get("pid"), int):
        if holder.get("host") != host_name() or pid_alive(holder["pid"]):
            return True
    if fcntl is None:
        return False
    try:
        fd = os.open(lock_path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops our probe lock, if we got it
    return False


def launch_detached(argv: Sequence[str], env: Mapping[str, str] | None = None, *, cwd: str | None = None,
                    stderr: int | None = None) -> int:
    """Start `argv` in a new session (no terminal, own process group) with stdin/stdout on /dev/null,
    stderr on the descriptor `stderr` (default /dev/null) and no other inherited descriptor; return its
    pid without waiting for it."""
    proc = subprocess.Popen(list(argv), env=None if env is None else dict(env), cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL if stderr is None else stderr,
                            close_fds=True, start_new_session=True)
    return proc.pid


def exec_sync(cmd: Sequence[str], folder: str, lock_path: str, log_path: str, env: Mapping[str, str]) -> str:
    """In the detached helper: run the sync in `folder` by replacing this process with `cmd`.

    Returns (a reason) only when it did not: a writer holds the lock ("skipped") or `cmd` cannot
    be started. The first line of `log_path` (truncated, 0600) says which; the sync's own stderr
    follows it.
    """
    os.makedirs(os.path.dirname(log_path), mode=0o700, exist_ok=True)
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o600)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    try:
        if writer_active(lock_path):
            os.write(fd, f"{stamp} skipped: a scree writer holds {lock_path}\n".encode())
            return "skipped"
        os.write(fd, f"{stamp} starting in {folder}: {json.dumps(list(cmd))}\n".encode())
        os.chdir(folder)
        os.dup2(fd, 2)  # dup2 makes fd 2 inheritable; `fd` itself is closed by the exec
        try:
            os.execvpe(cmd[0], list(cmd), dict(env))
        except OSError as exc:
            os.write(fd, f"cannot start {cmd[0]}: {exc.strerror}\n".encode())
            return "failed"
    finally:
        os.close(fd)
    return "failed"  # pragma: no cover - execvpe does not return


def stage_line(db_path: str) -> str:
    """Where the index stands, for the SessionStart line: the sync's stage one (text and keyword rows)
    or stage two (vectors). Empty when it is complete or cannot be read (the line stays as it was)."""
    building = " The index is being built: keyword search answers as soon as its first stage ends (seconds)."
    if not os.path.exists(db_path):
        return building
    try:
        import _sqlite3  # `sqlite3` itself also imports datetime, which the hooks never need

        conn = _sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=0.1, isolation_level=None)
        try:
            chunks, missing, never = conn.execute(
                "select count(*), coalesce(sum(windows = 0), 0), coalesce(sum(windows < 0), 0) from chunks").fetchone()
        finally:
            conn.close()
    except Exception:  # noqa: BLE001 - a hook never fails for want of a status
        return ""
    if not chunks:
        return building
    # Counted as `scree status` counts them (db/queries.vector_progress): a keyword-only chunk (its note's
    # language is not the model's) is never embedded, so it is neither a vector nor one still to come; on a
    # translated repository the line reported "10,603 of 12,657" while no vector existed (issue 35, item 3).
    total = chunks - never
    if missing:
        kept = f"; {never:,} more are keyword-only by design (their language is not the model's)" if never else ""
        return (f" Index: keyword search covers every note; vectors for {total - missing:,} of {total:,} chunks "
                f"(embedding in the background){kept}.")
    return ""

