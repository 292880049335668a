"""Helpers for the fault tests: a small deterministic embedder and the CLI run in-process with it.

The fake embedder hashes words into a 32-dimension bag of words: the same text always gives the same
unit vector, texts sharing words are near, and nothing loads a model. `fail_with` injects an
exception into the next embed calls (a broken model, a full disk met while embedding).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from scree.embed import Passage

DIMS = 32


class FakeEmbedder:
    id = "fake-bow-32"
    dimensions = DIMS
    max_windows = 4

    def __init__(self) -> None:
        self.passages = 0
        self.calls = 0
        self.fail_with: BaseException | None = None

    @staticmethod
    def vector(text: str) -> np.ndarray:
        v = np.zeros(DIMS, dtype=np.float32)
        for word in re.findall(r"\w+", text.lower()):
            v[int.from_bytes(hashlib.blake2s(word.encode()).digest()[:4], "little") % DIMS] += 1.0
        v[0] += 1e-3  # never the zero vector
        return v / np.linalg.norm(v)

    def embed_passages(self, passages: Sequence[Passage]) -> list[np.ndarray]:
        self.calls += 1
        if self.fail_with is not None:
            raise self.fail_with
        self.passages += len(passages)
        return [self.vector(p.text)[None, :] for p in passages]

    def embed_query(self, text: str) -> np.ndarray:
        return self.vector(text)

    def close(self) -> None:
        pass

    def trim(self) -> None:
        pass


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
            embedder: FakeEmbedder | None = None) -> tuple[int, str, str]:
    """`scree ARGS` in this process with the fake embedder: (exit code, stdout, stderr)."""
    from scree import cli
    from scree.workspace import Workspace

    fake = embedder or FakeEmbedder()
    monkeypatch.setattr(Workspace, "embedder", lambda self: fake)
    capsys.readouterr()
    try:
        code = cli.main(args)
    except SystemExit as exc:  # argparse errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def notes_folder(root: Path, n: int = 3) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / ".git").mkdir(exist_ok=True)
    for i in range(n):
        (root / f"n{i}.md").write_text(f"# Note {i}\n\nRetention policy number {i} keeps logs.\n", encoding="utf-8")
    return root.resolve()


class SmallDisk:
    """A real tiny file system: a tmpfs mount (needs root or CAP_SYS_ADMIN; tests skip without it).

    `fill()` takes every free byte with a ballast file, `free()` gives it back, `read_only()` and
    `writable()` remount it: the kernel then answers ENOSPC and EROFS exactly as a real disk does.
    """

    def __init__(self, path: Path, size: str = "4m") -> None:
        import subprocess

        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}): full-disk and read-only tests need root")
        self._ballast = path / ".ballast"

    def _remount(self, opt: str) -> None:
        import subprocess

        subprocess.run(["mount", "-o", f"remount,{opt}", str(self.path)], check=True)

    def fill(self) -> None:
        import errno

        with open(self._ballast, "ab", buffering=0) as fh:
            block = b"\0" * 65536
            try:
                while True:
                    fh.write(block)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
            try:  # the last partial block
                while True:
                    fh.write(b"\0" * 512)
            except OSError:
                pass

    def free(self) -> None:
        self._ballast.unlink(missing_ok=True)

    def read_only(self) -> None:
        self._remount("ro")

    def writable(self) -> None:
        self._remount("rw")

    def close(self) -> None:
        import subprocess

        subprocess.run(["umount", "-l", str(self.path)], capture_output=True)
