"""Which Python the hooks run under, as hooks/launch.sh picks it, and whether that is a version-manager shim.

A pyenv/asdf/mise shim is a shell script that works out a version and then execs the real
interpreter: 50-180 ms on every hook call, two calls per Bash command. launch.sh avoids it (the
plugin's venv, else the real executable behind `python3`, cached); `scree doctor` uses this module
to say what the launcher picks and what a shim would cost.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

from .runtime import data_root

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Mapping

CACHE_NAME = "hooks-python"
_MANAGERS = (("/.pyenv/", "pyenv"), ("/.asdf/", "asdf"), ("/mise/", "mise"), ("/.rtx/", "rtx"),
             ("/shims/", "version-manager"))


def venv_python(data: str) -> str:
    return os.path.join(data, "venv", "bin", "python3")


def launcher_choice(env: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """(interpreter, how) the way launch.sh decides, without running it: "venv" (the plugin's own),
    "cached" (resolved before), "python3" (resolved on the next hook call), or (None, "missing")."""
    env = os.environ if env is None else env
    data = data_root(env)
    venv = venv_python(data)
    if os.access(venv, os.X_OK):
        return venv, "venv"
    try:
        with open(os.path.join(data, CACHE_NAME), encoding="utf-8") as fh:
            cached = fh.readline().strip()
        if cached and os.access(cached, os.X_OK):
            return cached, "cached"
    except OSError:
        pass
    python3 = shutil.which("python3", path=env.get("PATH"))
    if python3 is None:
        return None, "missing"
    return real_executable(python3) or python3, "python3"


def real_executable(python: str) -> str | None:
    """What `python` really runs (`sys.executable` as it reports it), or None when it does not start."""
    try:
        out = subprocess.run([python, "-I", "-S", "-c", "import sys; print(sys.executable)"], capture_output=True,
                             text=True, timeout=20, check=False, stdin=subprocess.DEVNULL).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out or None


def shim_kind(path: str) -> str | None:
    """"pyenv", "asdf", ... when `path` is a version-manager shim (a script in a shims folder), else None."""
    real = os.path.realpath(path)
    try:
        with open(real, "rb") as fh:
            script = fh.read(2) == b"#!"
    except OSError:
        return None
    if not script:
        return None  # a real interpreter is a binary
    low = real.replace("\\", "/")
    for marker, name in _MANAGERS:
        if marker in low:
            return name
    return "script"


def startup_ms(python: str, runs: int = 5) -> float | None:
    """The median wall time of `python -I -S -c pass`, in ms (None when it does not run)."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        try:
            proc = subprocess.run([python, "-I", "-S", "-c", "pass"], capture_output=True, timeout=20, check=False,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            return None
        if proc.returncode != 0:
            return None
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return times[len(times) // 2]
