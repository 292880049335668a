"""`scree status`: what the index of this folder holds (read-only; never creates an index)."""

from __future__ import annotations

import argparse
import json

from ..config import Config
from ._common import add_common


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help="show the index of this folder")
    add_common(p)
    p.add_argument("--json", action="store_true", help="print the same as JSON")


def cmd_status(args: argparse.Namespace, cfg: Config) -> int:
    from ..db import queries
    from ..index.indexstatus import recorded_rate, stage_two_note
    from ..live.lock import describe_writer, read_holder
    from ..workspace import Workspace

    ws = Workspace.from_config(cfg)
    data: dict[str, object] = {"folder": str(ws.folder), "index": str(ws.location.db),
                               "exists": ws.location.db.exists()}
    if ws.location.db.exists():
        index = ws.open_index(create=False)
        try:
            c = queries.counts(index.conn)
            meta = index.meta()
            data.update(files=c.files, chunks=c.chunks, incomplete_files=c.incomplete_files,
                        embedder=meta.get("embedder"), dimensions=meta.get("dimensions"),
                        last_sync=float(meta["last_sync"]) if "last_sync" in meta else None,
                        schema=meta.get("schema_version"), sqlite=f"{index.driver.name} {index.driver.sqlite_version}",
                        size_bytes=ws.location.db.stat().st_size)
            v = queries.vector_progress(index.conn)
            # Stage one (text and keyword rows) is done for every committed file; stage two is the vectors.
            data.update(vectors=v.embedded, stage_two=stage_two_note(v.embedded, v.total, recorded_rate(meta))
                        or "done: every chunk has its vectors")
        finally:
            index.close()
        # Who is writing the index now, e.g. the background `scree reindex` a search started for stage two.
        holder = read_holder(ws.location.lock)
        data["writer"] = None if holder is None else describe_writer(holder)
        data["writer_pid"] = None if holder is None else holder.pid
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
    return 0


COMMANDS = {"status": cmd_status}
