"""Fetch the corpora of the sets whose SOURCE.md gives a recipe, and print the quality.py command over every set.

    uv run --frozen python benchmarks/set_corpora.py [--sets pipx tox] [--mirror /work/.mirror] [--dry-run]
    uv run --frozen python benchmarks/set_corpora.py --command      # the quality.py line for every set

Each `benchmarks/sets/<name>/SOURCE.md` has a "get it" row: the shell commands that clone the project, check out the
pinned commit and unpack the files the set reads into `/tmp/<name>` (its "run" row names that folder in
`--add-set`). This runs them, so a fresh machine (whose /tmp is empty) gets every corpus in one step. A set whose
folder exists is left alone.

A set may score another's questions over a variant of its corpus (`jest-versioned`: jest's questions over jest's
corpus with Docusaurus' versioned copies): its "run" row names the questions file, and `--command` uses it.

`--mirror DIR` reads a local snapshot instead of cloning: `DIR/<owner>+<name>/repo` is a bare git directory (what
the tool library's `fetch` leaves), the recipe's `git clone` and `checkout` are dropped, and its `git -C <src>
archive HEAD` reads the pinned commit from the snapshot. A snapshot may lack its largest files (images); the recipes
leave those out, but `git archive` still fails on some, so the files are then read one by one (`git ls-tree` and
`git cat-file`), skipping the absent ones and every kind no note is written in (images, fonts, scripts, styles).

The sets of the shared benchmark, the sdist sets (`set.json`: `sdist_corpus.py` fetches them) and the sets whose
corpus is in this repository need nothing here; `--command` lists them with the rest.
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SETS = Path(__file__).resolve().parent / "sets"
_GET = re.compile(r"^\| get it \| `(.*?)`", re.M)
_ADD = re.compile(r"--add-set ([\w-]+)=(\S+?):(\S+)")
_CLONE = re.compile(r"git clone https://github\.com/([\w.-]+/[\w.-]+) (\S+) && git -C \2 checkout ([0-9a-f]{40})")
# What the recipes leave out of a corpus: a file of these kinds is never a note.
_SKIPPED = (".gif", ".png", ".jpg", ".jpeg", ".svg", ".ico", ".woff", ".woff2", ".ttf", ".eot", ".mp4", ".mov", ".webp",
            ".js", ".css", ".map", ".mo", ".po", ".exe", ".dot")


@dataclass(frozen=True)
class Recipe:
    name: str
    repo: str  # owner/name on GitHub
    src: str  # the clone's folder in the recipe
    commit: str
    command: str  # the whole "get it" cell, shell
    corpus: Path  # the folder `--add-set` names
    queries: str  # the labelled questions it names (another set's, for a set that is a variant of its corpus)


def recipes(wanted: list[str]) -> list[Recipe]:
    out = []
    for source in sorted(SETS.glob("*/SOURCE.md")):
        name = source.parent.name
        if wanted and name not in wanted:
            continue
        text = source.read_text(encoding="utf-8")
        get, add = _GET.search(text), _ADD.search(text)
        clone = _CLONE.match(get.group(1).replace("\\|", "|")) if get else None
        if get is None or add is None or clone is None:
            continue  # no recipe: an sdist set or one whose corpus is in the repository
        out.append(Recipe(name, clone.group(1), clone.group(2), clone.group(3), get.group(1).replace("\\|", "|"),
                          Path(add.group(2)), add.group(3)))
    return out


def _from_mirror(recipe: Recipe, mirror: Path) -> str:
    """The recipe's commands with the clone replaced by the snapshot `mirror` holds."""
    git_dir = mirror / recipe.repo.replace("/", "+") / "repo"
    rest = recipe.command[_CLONE.match(recipe.command).end():]  # type: ignore[union-attr]
    rest = rest.replace(f"git -C {recipe.src} archive HEAD", f"git --git-dir={shlex.quote(str(git_dir))} archive "
                                                               f"{recipe.commit}")
    return "true" + rest


def _paths_of(command: str) -> tuple[str, list[str]]:
    """The destination and the paths of the recipe's `archive ... | tar -x -C DEST` (pathspec exclusions dropped)."""
    words = shlex.split(command.split("| tar", 1)[0].split(" archive ", 1)[1])
    paths = [w for w in words[1:] if w != "--" and not w.startswith(":!")]
    dest = shlex.split(command.split("| tar -x -C", 1)[1])[0]
    return dest, paths


def _one_by_one(recipe: Recipe, mirror: Path) -> int:
    """The recipe's files read from the snapshot one at a time, absent ones skipped; the count written."""
    git_dir = str(mirror / recipe.repo.replace("/", "+") / "repo")
    dest, paths = _paths_of(recipe.command)
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", recipe.commit, "--", *paths],
                             capture_output=True, check=True).stdout.split(b"\0")
    blobs = []
    for entry in filter(None, listing):
        meta, raw_path = entry.split(b"\t", 1)
        mode, kind, raw_sha = meta.split()
        if kind == b"blob" and mode != b"120000" and not raw_path.decode().casefold().endswith(_SKIPPED):
            blobs.append((raw_path.decode(), raw_sha.decode()))
    cat = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE)
    assert cat.stdin and cat.stdout
    written = 0
    for path, sha in blobs:
        cat.stdin.write(f"{sha}\n".encode())
        cat.stdin.flush()
        header = cat.stdout.readline().split()
        if header[1] == b"missing":
            continue
        data = cat.stdout.read(int(header[2]))
        cat.stdout.read(1)
        target = Path(dest) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written += 1
    cat.stdin.close()
    cat.wait()
    return written


def fetch(recipe: Recipe, mirror: Path | None, dry_run: bool) -> str:
    if " archive " not in recipe.command:
        return "by hand: its SOURCE.md says how"  # a plain checkout, or files copied out of it
    command = _from_mirror(recipe, mirror) if mirror else recipe.command
    if dry_run:
        return command
    if recipe.corpus.exists():
        return "present"
    if subprocess.run(["bash", "-c", "set -o pipefail; " + command], capture_output=True).returncode == 0:
        return "fetched"
    if mirror is None:
        return "failed: " + command
    shutil.rmtree(_paths_of(recipe.command)[0], ignore_errors=True)
    return f"fetched one by one ({_one_by_one(recipe, mirror)} files; the snapshot lacks some)"


def command(every: list[Recipe]) -> str:
    """The quality.py line scoring every set: the shared and sdist sets by name, the others with `--add-set`."""
    named = ["dev", "httpx", "myst", "mdx"] + sorted(
        p.parent.name for p in SETS.glob("*/set.json")) + sorted(p.parent.name for p in SETS.glob("*/corpus"))
    adds = [f"--add-set {r.name}={r.corpus}:{r.queries}" for r in every]
    return "uv run --frozen python benchmarks/quality.py --sets " + " ".join(named) + " " + " ".join(adds)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--sets", nargs="*", default=[], help="only these sets (default: every set with a recipe)")
    ap.add_argument("--mirror", type=Path, help="a folder of bare git snapshots, <owner>+<name>/repo")
    ap.add_argument("--dry-run", action="store_true", help="print each set's commands instead of running them")
    ap.add_argument("--command", action="store_true", help="print the quality.py line over every set and stop")
    args = ap.parse_args(argv)
    every = recipes(args.sets)
    if args.command:
        print(command(every))
        return 0
    for recipe in every:
        print(f"{recipe.name}: {fetch(recipe, args.mirror, args.dry_run)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
