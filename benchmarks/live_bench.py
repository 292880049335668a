"""The live index, measured with real processes on the benchmark corpus.

    python benchmarks/live_bench.py [--corpus ../shared/bench/corpus] [--edits 5]

Copies the corpus to a temporary folder (the original is read-only) and reports:
  * save-to-searchable: from a note's write to the first keyword search that finds its new words,
    through the watcher (1.5 s debounce) and the writer; median of N edits (each value listed), on
    notes of median size and on small notes;
  * RSS of a writer after its first sync (idle), after edits (model loaded, with its peak), and once
    the model sat idle long enough to be released;
  * RSS of an idle reader before any semantic query, and after one;
  * inotify watches of a writer on the corpus, and on the corpus plus a 20,000-file `node_modules/`
    that .gitignore excludes (with the number of folders a recursive watch would have needed).
Targets (from the issue): idle reader <= 60 MB, writer with the model loaded <= 300 MB.

Each LiveIndex runs in a child process (this script with --child) driven by JSON lines, so the
RSS and watch counts are those of a lone process.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))

WAIT = 1800.0  # a first sync of the corpus on a busy 2-core machine


# ----- child: one LiveIndex answering JSON commands -------------------------------------------

def child(notes: Path) -> int:
    from dataclasses import asdict

    from scree.config import load_config
    from scree.live.live import LiveIndex
    from scree.search.search import Query
    from scree.live.watcher import inotify_watch_count
    from scree.workspace import Workspace

    live = LiveIndex(Workspace.from_config(load_config().with_overrides(notes=notes)))
    live.start()
    _reply({"ready": True, "pid": os.getpid()})
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["op"] == "status":
            _reply(asdict(live.status()))
        elif cmd["op"] == "search":
            result = live.search(Query(cmd["text"], k=5, mode=cmd.get("mode", "keyword")))
            _reply({"paths": [h.path for h in result.hits]})
        elif cmd["op"] == "probe":
            _reply({"onnxruntime": "onnxruntime" in sys.modules, "watches": inotify_watch_count()})
        elif cmd["op"] == "stop":
            _reply({"stopped": live.stop(5.0)})
            return 0
    return 0


def _reply(data: dict) -> None:
    print(json.dumps(data), flush=True)


# ----- parent --------------------------------------------------------------------------------

class Child:
    def __init__(self, notes: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--child", str(notes)], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.pid = self.proc.pid
        self._read()

    def ask(self, op: str, **kw: object) -> dict:
        self.proc.stdin.write(json.dumps({"op": op, **kw}) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def _read(self) -> dict:
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            if not sel.select(WAIT):
                raise SystemExit(f"child {self.pid} did not answer within {WAIT:.0f} s")
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"child {self.pid} exited with {self.proc.wait()}")
        return json.loads(line)

    def wait_state(self, state: str, role: str) -> float:
        started = time.monotonic()
        until(lambda: (s := self.ask("status"))["state"] == state and s["role"] == role)
        return time.monotonic() - started

    def rss_mb(self) -> tuple[float, float]:
        """(current RSS, peak RSS) in MB, from /proc."""
        fields = {}
        with open(f"/proc/{self.pid}/status") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024

    def stop(self) -> None:
        self.ask("stop")
        self.proc.wait(timeout=30)


def until(predicate, timeout: float = WAIT, step: float = 0.01) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit("condition not met within the deadline")
        pause.wait(step)


def settle(seconds: float) -> None:
    """Let a process go idle before its RSS is read (the measurement is of an idle process)."""
    threading.Event().wait(seconds)


def copy_corpus(corpus: Path, dest: Path) -> Path:
    shutil.copytree(corpus, dest, symlinks=True)
    for p in [dest, *dest.rglob("*")]:  # the original is read-only; the copy must be writable
        p.chmod(p.stat().st_mode | 0o200)
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    return dest


def make_node_modules(folder: Path, files: int = 20_000) -> int:
    """A node_modules/ of `files` files in package-like folders; returns how many folders it has."""
    per_package = 10
    dirs = 1
    for n in range(files // per_package):
        pkg = folder / "node_modules" / f"pkg-{n:05d}"
        (pkg / "lib").mkdir(parents=True)
        (pkg / "docs").mkdir()
        dirs += 3
        (pkg / "README.md").write_text(f"# pkg-{n}\n\nA dependency.\n")
        (pkg / "CHANGELOG.md").write_text("# Changelog\n")
        (pkg / "package.json").write_text("{}\n")
        (pkg / "LICENSE").write_text("MIT\n")
        for i in range(4):
            (pkg / "lib" / f"m{i}.js").write_text("module.exports = 1;\n")
        (pkg / "docs" / "api.md").write_text("# API\n")
        (pkg / "docs" / "guide.md").write_text("# Guide\n")
    with open(folder / ".gitignore", "a") as fh:
        fh.write("node_modules/\n")
    return dirs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "bench" / "corpus")
    ap.add_argument("--edits", type=int, default=5)
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        return child(args.child)

    tmp = Path(tempfile.mkdtemp(prefix="scree-live-bench-"))
    env = {**os.environ, "XDG_DATA_HOME": str(tmp / "data"), "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "server"), os.environ.get("PYTHONPATH")]))}
    for var in ("SCREE_DB", "SCREE_NOTES", "SCREE_DATA_DIR"):
        env.pop(var, None)
    try:
        notes = copy_corpus(args.corpus, tmp / "notes")
        md = [p for p in notes.rglob("*.md") if ".git" not in p.parts]
        print(f"corpus: {len(md)} notes, {sum(p.stat().st_size for p in md) / 1024:.0f} KiB (copied to {notes})")

        writer = Child(notes, env)
        first_sync = writer.wait_state("complete", "writer")
        settle(3.0)
        w_idle, w_peak = writer.rss_mb()
        print(f"writer: first sync {first_sync:.1f} s; idle RSS after it {w_idle:.0f} MB "
              f"(peak during it {w_peak:.0f} MB)")

        reader = Child(notes, env)
        reader.wait_state("complete", "reader")
        settle(2.0)
        r_idle, _ = reader.rss_mb()
        probe = reader.ask("probe")
        reader.ask("search", text="how are audit logs retained", mode="semantic")
        r_query, _ = reader.rss_mb()
        print(f"reader: idle RSS {r_idle:.0f} MB (target <= 60; onnxruntime imported: {probe['onnxruntime']}, "
              f"watches: {probe['watches']}); after a semantic query {r_query:.0f} MB")

        # Two series: notes of median size (a typical edit), and small notes (the pipeline itself:
        # debounce + sync + commit, with little embedding). The whole note is re-embedded on each edit.
        by_size = sorted(md, key=lambda p: p.stat().st_size)
        mid = max(0, len(by_size) // 2 - args.edits // 2)
        small = [p for p in by_size if p.stat().st_size >= 512][: args.edits]
        for label, targets in (("median-size", by_size[mid:mid + args.edits]), ("small", small)):
            times = []
            for i, target in enumerate(targets):
                token = f"zqxbench{label[0]}{i}word{os.getpid()}"
                rel = target.relative_to(notes).as_posix()
                with open(target, "a", encoding="utf-8") as fh:
                    fh.write(f"\n\nA fresh line naming {token}.\n")
                t0 = time.monotonic()
                until(lambda: rel in writer.ask("search", text=token)["paths"], timeout=60.0)
                times.append(time.monotonic() - t0)
            kib = [p.stat().st_size / 1024 for p in targets]
            shown = ", ".join(f"{t:.2f}" for t in times)
            print(f"save-to-searchable, {label} notes ({min(kib):.1f}-{max(kib):.1f} KiB): median "
                  f"{statistics.median(times):.2f} s over {len(times)} edits ({shown} s; debounce 1.5 s)")
        print("  (the first edit reloads the model, released after the big first sync)")
        w_loaded, w_peak = writer.rss_mb()
        print(f"writer: RSS with the model loaded {w_loaded:.0f} MB (target <= 300; peak so far {w_peak:.0f} MB)")
        idle_since = time.monotonic()
        until(lambda: writer.rss_mb()[0] < w_loaded * 0.6, timeout=120.0, step=1.0)
        print(f"writer: RSS {writer.rss_mb()[0]:.0f} MB once the model sat idle "
              f"(released after {time.monotonic() - idle_since:.0f} s; MODEL_IDLE_SECONDS = 60, checked every 10 s)")
        watches_plain = writer.ask("probe")["watches"]
        reader.stop()
        writer.stop()

        # The same folder and index, now with a node_modules/ that .gitignore excludes.
        nm_dirs = make_node_modules(notes)
        all_dirs = sum(1 for p in notes.rglob("*") if p.is_dir() and ".git" not in p.relative_to(notes).parts) + 1
        writer = Child(notes, env)
        nm_sync = writer.wait_state("complete", "writer")
        watches_nm = writer.ask("probe")["watches"]
        writer.stop()
        print(f"inotify watches: {watches_plain} on the corpus; {watches_nm} with an ignored 20,000-file "
              f"node_modules/ of {nm_dirs} folders (a recursive watch would need {all_dirs}); "
              f"start-up sync there {nm_sync:.2f} s (nothing to embed)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
