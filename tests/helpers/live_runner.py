"""Child process for the live-index tests: run a LiveIndex and answer JSON commands on stdin.

Usage: live_runner.py <notes folder> [--lock-retry S] [--health-interval S] [--debounce S]
Prints {"ready": true, "pid": ...} once started, then one JSON line per command line:
  {"op": "status"}                         -> the IndexStatus fields plus "describe"
  {"op": "wait", "state": ..., "role": ..., "timeout": s} -> {"ok": reached?, **status} (LiveIndex.wait_until)
  {"op": "search", "text": ..., "mode": ...} -> {"paths": [...], "notes": [...], "mode": ...}
  {"op": "probe"}                          -> {"onnxruntime": imported?, "model_loaded": the embedder's `loaded`,
                                               "watches": inotify watches}
  {"op": "reindex"}                        -> {"summary": ...} or {"error": ..., "pid": ...}
  {"op": "stop"}                           -> {"stopped": bool}, then exits
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

from scree.config import load_config
from scree.errors import LockHeld, ScreeError
from scree.live.live import LiveIndex
from scree.search.search import Query
from scree.live.watcher import inotify_watch_count
from scree.workspace import Workspace


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("notes", type=Path)
    ap.add_argument("--lock-retry", type=float, default=5.0)
    ap.add_argument("--health-interval", type=float, default=10.0)
    ap.add_argument("--debounce", type=float, default=1.5)
    args = ap.parse_args()
    ws = Workspace.from_config(load_config().with_overrides(notes=args.notes))
    live = LiveIndex(ws, lock_retry=args.lock_retry, health_interval=args.health_interval,
                     debounce=args.debounce)
    live.start()
    reply({"ready": True, "pid": os.getpid()})
    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd["op"]
        if op == "status":
            st = live.status()
            reply({**asdict(st), "describe": st.describe()})
        elif op == "wait":
            want = {k: cmd[k] for k in ("state", "role") if k in cmd}
            ok = live.wait_until(lambda st: all(getattr(st, k) == v for k, v in want.items()), cmd["timeout"])
            st = live.status()
            reply({"ok": ok, **asdict(st), "describe": st.describe()})
        elif op == "search":
            result = live.search(Query(cmd["text"], k=cmd.get("k", 5), mode=cmd.get("mode", "auto")))
            reply({"paths": [h.path for h in result.hits], "notes": result.notes, "mode": result.mode})
        elif op == "probe":
            reply({"onnxruntime": "onnxruntime" in sys.modules, "model_loaded": live._embedder.loaded,  # type: ignore[attr-defined]
                   "watches": inotify_watch_count()})
        elif op == "reindex":
            try:
                reply({"summary": live.reindex().summary()})
            except LockHeld as exc:
                reply({"error": str(exc), "pid": exc.pid})
            except ScreeError as exc:
                reply({"error": str(exc), "pid": None})
        elif op == "stop":
            reply({"stopped": live.stop(5.0)})
            return 0
    live.stop(5.0)
    return 0


def reply(data: dict) -> None:
    print(json.dumps(data), flush=True)


if __name__ == "__main__":
    sys.exit(main())
