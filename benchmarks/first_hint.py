"""Time from a plugin session's start to the first grep hint, on a fresh project with no index.

    uv run --frozen python benchmarks/first_hint.py [--corpus DIR | --tiny | --scale N] [--claude PATH] [--limit S]

Installs the plugin as tests/test_plugin_smoke.py does (a clean copy of this checkout as a local
marketplace, a scratch HOME, the plugin's venv synced offline), copies the corpus (default: the bench
corpus) into a fresh git project, then runs ONE real `claude -p` session against a loopback stand-in of
the Messages API (tests/test_hook_claude_code.py's GrepUntilHintAPI) that answers every turn with the
same Bash grep, for a word only the last note of the walk holds (so the hint needs the whole of stage
one), until a request carries the PreToolUse hint or --limit seconds pass; then one keyword
`search_docs` call. The SessionStart hook's real background sync runs (no SCREE_SYNC_COMMAND).

Prints the seconds from the session's start (the `claude` process) to the index's creation and the
last note's stage one (the stamps the writer leaves in the index), to the session's first model request,
to the first request that carries the hint (and the greps before it), and to the `search_docs` answer;
and which writer took the index's lock when (its holder record, read every 20 ms). The session,
its MCP server and the detached sync are stopped afterwards (the writer lock is free when it exits).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests")]

# Beside the checkout (/work/main -> /work/shared), or from a worktree one level deeper.
CORPUS = next((p for p in (HERE.parent.parent / "shared" / "bench" / "corpus",
                           HERE.parent.parent.parent / "shared" / "bench" / "corpus") if p.exists()),
              HERE.parent.parent / "shared" / "bench" / "corpus")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="notes copied into the fresh project")
    ap.add_argument("--scale", type=int, default=1, help="N copies of the corpus, each in its own folder; the "
                    "grep then names the last note itself (its word is in every copy)")
    ap.add_argument("--tiny", action="store_true", help="the hook test's three notes instead of a corpus")
    ap.add_argument("--claude", help="Claude Code binary (default: the smoke tests' newest build)")
    ap.add_argument("--limit", type=float, default=180.0, help="give up after this many seconds")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = ap.parse_args()

    import test_hook_claude_code as hk
    import test_plugin_smoke as smoke

    args.claude = args.claude or (smoke.CLAUDE_BINS[-1] if smoke.CLAUDE_BINS else None)
    if not args.claude:
        ap.error("no Claude Code build: run .ci/run or pass --claude")
    if os.sep in args.claude:  # the session runs in the project: a relative path would not be found there
        args.claude = os.path.abspath(args.claude)

    if smoke.UV is None:
        ap.error("uv is needed")
    tmp = Path(tempfile.mkdtemp(prefix="scree-first-hint-"))
    try:
        installed = smoke.Installed(tmp, args.claude)
        shutil.rmtree(installed.project)
        if args.tiny:
            for rel, text in hk.TINY_NOTES.items():
                (installed.project / rel).parent.mkdir(parents=True, exist_ok=True)
                (installed.project / rel).write_text(text)
        elif args.scale == 1:
            shutil.copytree(args.corpus, installed.project)
        else:
            for i in range(args.scale):
                shutil.copytree(args.corpus, installed.project / f"copy{i:03}")
        subprocess.run(["git", "init", "-q", str(installed.project)], check=True)
        t = time.monotonic()
        installed.install()
        print(f"plugin installed, venv synced offline: {time.monotonic() - t:.1f} s", flush=True)
        last, word = hk.last_note_word(installed.project, installed.env, same_top=args.scale > 1)
        notes = sum(1 for p in installed.project.rglob("*") if p.is_file() and ".git" not in p.parts)
        grep = f"grep -rn '{word}' ." if args.scale == 1 or args.tiny else f"grep -n '{word}' {last}"
        print(f"project: {notes} files; last note of the walk {last}; the model greps: {grep}", flush=True)
        api = hk.GrepUntilHintAPI(grep, max_greps=100_000, search=word)
        api.thread.start()
        cfg = hk.load_config(installed.env)
        lock = hk.index_location(hk.resolve_folder(cfg, installed.project), cfg, installed.env).lock
        holders: list[tuple[float, str]] = []
        stop = threading.Event()

        def watch_lock() -> None:  # which writer holds the index's lock, and from when (the record it writes)
            seen = None
            while not stop.wait(0.02):
                try:
                    record = json.loads(lock.read_text() or "null")
                except (OSError, ValueError):
                    continue
                key = record and (record.get("pid"), record.get("command"))
                if key and key != seen:
                    seen = key
                    holders.append((time.time(), f"{record.get('command')} (pid {record.get('pid')})"))

        watcher = threading.Thread(target=watch_lock, daemon=True)
        watcher.start()
        try:
            got = hk.grep_until_hint(installed, api, args.limit, tmp / "session.jsonl")
        finally:
            stop.set()
            watcher.join()
            api.server.shutdown()
            api.server.server_close()
        conn = sqlite3.connect(f"file:{got['db']}?mode=ro", uri=True)
        try:  # wall-clock stamps the writer left: the index's creation, the last note's stage one
            created = float(conn.execute("select value from meta where key = 'created'").fetchone()[0])
            row = conn.execute("select indexed_at from files where path = ?", (last,)).fetchone()
        finally:
            conn.close()
        log = installed.data / "logs" / "sync.log"
        log_lines = log.read_text().splitlines() if log.exists() else []
        first_line = log_lines[:1]
        names_last = api.hint is not None and f"{got['folder']}/{last}:" in api.hint
        answered = api.search_result is not None and last in api.search_result
        print(json.dumps({"claude": args.claude, "index_created_s": round(created - got["started_wall"], 2),
                          "last_note_indexed_s": round(row[0] - got["started_wall"], 2) if row else None,
                          "first_request_s": got["first_request"], "hint_s": got["hint"],
                          "greps_before_hint": got["greps"] if api.hint else None, "hint_names_last_note": names_last,
                          "search_docs_s": got["search"], "search_docs_answers_last_note": answered,
                          "background_sync": first_line[0][21:80] if first_line else None,
                          "sync_log": [line[:160] for line in log_lines[1:6]],
                          "writers": [f"{t - got['started_wall']:.2f} s: {who}" for t, who in holders]}, indent=1))
        if api.hint is None:
            print(f"no hint within {args.limit} s ({api.greps} greps)", file=sys.stderr)
            return 1
        print(f"\nfirst grep hint {got['hint']} s after the session started (first model request at "
              f"{got['first_request']} s), on grep #{got['greps']}; search_docs answered at {got['search']} s")
        return 0
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.exit(main())
