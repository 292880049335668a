"""Helpers for the fault tests: the shared fake embedder with fault injection, the CLI run
in-process with it, and a real tiny file system to fill or make read-only."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from fake_embedder import FakeEmbedder as SharedFake


class FakeEmbedder(SharedFake):
    """The shared test embedder (tests/helpers/fake_embedder.py), plus `fail_with`: an exception the
    next embed calls raise (a crash, a full disk met while embedding)."""

    def __init__(self) -> None:
        super().__init__()
        self.fail_with: BaseException | None = None

    def embed_passages(self, passages: Sequence[object], should_stop=None) -> list[np.ndarray]:  # noqa: ANN001
        if self.fail_with is not None:
            raise self.fail_with
        return super().embed_passages(passages, should_stop)


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
