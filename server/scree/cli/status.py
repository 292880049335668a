"""`scree status`: what the index of this folder holds (read-only; never creates an index)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from ..config import Config
from ._common import add_common

if TYPE_CHECKING:
    from ..index.store import Index
    from ..workspace import Workspace


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help="show the index of this folder")
    add_common(p)
    p.add_argument("--json", action="store_true", help="print the same as JSON")


def cmd_status(args: argparse.Namespace, cfg: Config) -> int:
    from ..doctor.indexreport import DAMAGED_FIX
    from ..errors import IndexDamaged
    from ..live.lock import describe_writer, read_holder
    from ..workspace import Workspace

    ws = Workspace.from_config(cfg)
    data: dict[str, object] = {"folder": str(ws.folder), "index": str(ws.location.db),
                               "exists": ws.location.db.exists()}
    damage: str | None = None
    if ws.location.db.exists():
        try:
            damage = _describe(ws, data, args.json)
        except IndexDamaged as exc:  # a file whose schema or pages cannot be trusted: named, not a traceback
            damage = exc.detail
        # Who is writing the index now, e.g. the background `scree reindex` a search started for stage two.
        holder = read_holder(ws.location.lock)
        data["writer"] = None if holder is None else describe_writer(holder)
        data["writer_pid"] = None if holder is None else holder.pid
    if damage is not None:
        data.update(damage=damage, fix=DAMAGED_FIX)
    engine = _engine(args.json)
    if engine is not None:
        data["engine"] = engine
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        from ..humantime import when_and_age

        if isinstance(data.get("last_sync"), float):
            data["last_sync"] = when_and_age(data["last_sync"])  # type: ignore[arg-type]
        if data["exists"] is False:
            data["exists"] = "no (built by the first `scree search`, `scree reindex` or the plugin's session sync)"
        elif data["exists"] is True:
            data["exists"] = "yes"
        data.pop("writer_pid", None)  # said in `writer`
        if data.get("exists") == "yes" and data.get("writer") is None:
            data["writer"] = "none"
        for key, value in data.items():
            print(f"{key:17} {'-' if value is None else value}")
    return 1 if damage is not None else 0


def _engine(as_json: bool) -> object | None:
    """The plugin's shared engine (issue 37): what it holds, or that none runs; None outside the plugin."""
    import os

    from ..doctor.doctor import plugin_context
    from ..doctor.engine import engine_socket
    from ..relay.channel import engine_status

    ctx = plugin_context()
    sock = engine_socket(ctx, os.environ) if ctx.root is not None else None
    if sock is None:
        return None
    status = engine_status(sock)
    if as_json:
        return status or {"running": False, "socket": sock}
    if status is None:
        return "not running (the plugin's sessions start it at their first call; it exits when idle)"
    folders = status.get("folders") or []
    return (f"pid {status.get('pid')}: {status.get('sessions')} session(s), {len(folders)} folder(s), "
            f"{status.get('rss_mb')} MB; exits after {status.get('idle_exit'):g} s without a call")


def _describe(ws: Workspace, data: dict[str, object], as_json: bool) -> str | None:
    """Fill `data` with what the index holds; what makes it untrustworthy, or None."""
    from ..db import invariants, queries
    from ..db.connect import is_damage
    from ..doctor.indexreport import stage_two_summary
    from ..notes.formats import count_kinds, describe_kinds

    index = ws.open_index(create=False)
    try:
        c = queries.counts(index.conn)
        meta = index.meta()
        kinds = count_kinds(queries.indexed_paths(index.conn))
        data.update(files=c.files, kinds=kinds if as_json else describe_kinds(kinds),
                    chunks=c.chunks, incomplete_files=c.incomplete_files,
                    embedder=meta.get("embedder"), dimensions=meta.get("dimensions"),
                    last_sync=float(meta["last_sync"]) if "last_sync" in meta else None,
                    schema=meta.get("schema_version"), sqlite=f"{index.driver.name} {index.driver.sqlite_version}",
                    size_bytes=ws.location.db.stat().st_size)
        v = queries.vector_progress(index.conn)
        # Stage one (text and keyword rows) is done for every committed file; stage two is the vectors.
        note, fix, _ = stage_two_summary(ws, meta, v.embedded, v.total)
        data.update(vectors=v.embedded, stage_two=note or "done: every chunk has its vectors")
        if fix is not None:
            data["stage_two_fix"] = fix
        data.update(language_report(index, meta, as_json))
        data["size"] = size_report(index, int(meta.get("dimensions") or 0))
        return invariants.out_of_step(index.conn)
    except Exception as exc:
        if not is_damage(exc):
            raise
        return str(exc)
    finally:
        index.close()


def language_report(index: Index, meta: dict[str, str], as_json: bool) -> dict[str, object]:
    """Notes per language (indexed, keyword-only, left out by SCREE_LANGUAGES) and what the vectors cover."""
    from ..db import queries
    from ..doctor.indexreport import per_language, vectors_cover

    counts = queries.language_counts(index.conn)
    if not counts:
        return {}
    langs = per_language(counts)
    shown = ", ".join(f"{lang} {n['notes']:,}" + (f" ({n['left_out']:,} left out)" if n["left_out"] else "")
                      for lang, n in langs.items())
    return {"languages": langs if as_json else shown, "vectors_cover": vectors_cover(meta, counts)}


def size_report(index: Index, dimensions: int) -> str:
    """The file's size and how much of it a shrink would give back."""
    from ..db import compact
    from ..index.space import reclaimable

    sp = compact.space(index.conn, dimensions)
    spare = reclaimable(sp)
    return f"{sp.file_bytes / 1e6:.1f} MB" + (f" ({spare / 1e6:.1f} MB of it unused)" if spare >= 1e5 else "")


COMMANDS = {"status": cmd_status}
