"""Find a `uv` to run the plugin with, or fetch one from PyPI when the machine has none.

The plugin's server runs through `uv`; a user who never installed it would otherwise get nothing.
uv is published on PyPI as wheels carrying the binary (`uv-<v>.data/scripts/uv`), so this module reads
PyPI's JSON API, picks the wheel for this machine, checks its sha256 and unpacks that one file.

It runs on the system `python3` before the plugin's environment exists: standard library only, and
importable on Python 3.8. The caller's stdout is an MCP stream, so nothing here prints; progress goes
through a callback and every failure is one `UvFetchError` whose message says what to do next.
"""

from __future__ import annotations

import fnmatch
import hashlib
import http.client
import json
import os
import platform
import re
import shutil
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib
from typing import Any, Callable, Dict, List, Optional, Tuple

from .finduv import find_uv, uv_candidates  # noqa: F401 - this module's API too

try:
    import fcntl as _fcntl
    _HAVE_FCNTL = True
except ImportError:  # Windows: no flock, and no uv wheel we would pick there anyway
    _HAVE_FCNTL = False

DEFAULT_INDEX = "https://pypi.org/pypi"
MAX_DOWNLOAD = 200 * 1024 * 1024  # uv's wheels are ~20 MB; anything this big is not the wheel we asked for
INSTALL_HINT = "install uv yourself: curl -LsSf https://astral.sh/uv/install.sh | sh"
_MEMBER = "*.data/scripts/uv"
_CHUNK = 1 << 16


class UvFetchError(Exception):
    """uv could not be fetched; the message is one line, fit to show the user as is."""


def _version_at_least(have: str, need: Tuple[int, int]) -> bool:
    nums = re.findall(r"\d+", have)
    # an unreadable version is taken as new enough: refusing would leave the user with no uv at all
    return len(nums) < 2 or (int(nums[0]), int(nums[1])) >= need


def _tag_ok(tag: str, system: str, machine: str, libc: Tuple[str, str]) -> bool:
    if system == "Linux":
        arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine.lower(), machine.lower())
        musl = libc[0].lower().startswith("musl")
        legacy = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
        m = re.match(r"(manylinux|musllinux)_(\d+)_(\d+)_(.+)$", tag) or re.match(r"(manylinux\d+)_(.+)$", tag)
        if not m or m.groups()[-1] != arch:
            return False
        if m.group(1) == "musllinux":
            return musl and _version_at_least(libc[1], (int(m.group(2)), int(m.group(3))))
        if musl:
            return False
        need = legacy.get(m.group(1)) or (int(m.group(2)), int(m.group(3)))
        return libc[0] != "glibc" or _version_at_least(libc[1], need)
    if system == "Darwin":
        m = re.match(r"macosx_\d+_\d+_(.+)$", tag)
        arch = "arm64" if machine.lower() in ("arm64", "aarch64") else machine.lower()
        return m is not None and m.group(1) in (arch, "universal2")
    return False


def wheel_tag_ok(filename: str, system: str, machine: str, libc: Tuple[str, str]) -> bool:
    """Whether the uv wheel `filename` runs here (system/machine as platform.system()/machine(), libc as
    platform.libc_ver()). Linux and macOS only: the plugin never fetches uv on Windows."""
    if not filename.endswith(".whl") or filename.count("-") < 4:
        return False
    tags = filename[:-len(".whl")].rsplit("-", 1)[1]
    return any(_tag_ok(t, system, machine, libc) for t in tags.split("."))


def pick_wheel(release_json: Dict[str, Any], system: str, machine: str,
               libc: Tuple[str, str]) -> Dict[str, Any]:
    """The entry of the release's "urls" to download for this machine."""
    urls = release_json.get("urls") if isinstance(release_json, dict) else None
    fits = [u for u in (urls if isinstance(urls, list) else [])
            if isinstance(u, dict) and u.get("packagetype") == "bdist_wheel"
            and isinstance(u.get("filename"), str) and wheel_tag_ok(u["filename"], system, machine, libc)]
    if not fits:
        where = f"{system} {machine}" + (f" ({' '.join(libc).strip()})" if any(libc) else "")
        raise UvFetchError(f"PyPI has no uv wheel for {where}: {INSTALL_HINT}")
    # glibc builds over musl ones, an arch's own build over the bigger universal2
    return min(fits, key=lambda u: ("musllinux" in u["filename"], "universal2" in u["filename"]))


def _reason(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        exc = exc.reason if isinstance(exc.reason, BaseException) else OSError(str(exc.reason))
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return " ".join(str(exc).split()) or type(exc).__name__


def _get(url: str, timeout: float) -> Any:
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise ValueError(f"not an http(s) URL: {url}")
    return urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "scree-getuv"}),
                                  timeout=timeout)


def fetch_uv(dest_dir: str, *, index: str = DEFAULT_INDEX, timeout: float = 60.0,
             progress: Optional[Callable[[str], None]] = None) -> str:
    """Install the latest uv from `index` as dest_dir/bin/uv and return its path; a uv already there
    (another process fetched it while we waited for the lock) is returned as is."""
    say = progress or (lambda line: None)
    bin_dir = os.path.join(dest_dir, "bin")
    target = os.path.join(bin_dir, "uv")
    try:
        os.makedirs(bin_dir, exist_ok=True)
        lock = open(os.path.join(dest_dir, ".fetch.lock"), "a+b")
    except OSError as exc:
        raise UvFetchError(f"could not create {bin_dir} ({_reason(exc)}): {INSTALL_HINT}") from None
    with lock:
        if _HAVE_FCNTL:
            try:
                _fcntl.flock(lock.fileno(), _fcntl.LOCK_EX | _fcntl.LOCK_NB)
            except BlockingIOError:
                say("waiting for another process fetching uv")
                try:
                    _fcntl.flock(lock.fileno(), _fcntl.LOCK_EX)
                except OSError:
                    pass
            except OSError:
                pass  # a filesystem without locks (some NFS): go on unlocked, the rename still keeps uv whole
        # the lock is released when the file closes, however we leave
        if os.path.isfile(target) and os.access(target, os.X_OK):
            return target
        return _download(index, dest_dir, target, timeout, say)


def _download(index: str, dest_dir: str, target: str, timeout: float, say: Callable[[str], None]) -> str:
    where = index
    tmp_paths: List[str] = []
    json_url = f"{index.rstrip('/')}/uv/json"
    try:
        with _get(json_url, timeout) as resp:
            release = json.loads(resp.read(MAX_DOWNLOAD))
        wheel = pick_wheel(release, platform.system(), platform.machine(), platform.libc_ver())
        version = str((release.get("info") or {}).get("version", "?"))
        # mirrors of the JSON API may give file URLs relative to the JSON's own
        url = urllib.parse.urljoin(json_url, str(wheel.get("url", "")))
        want = (wheel.get("digests") or {}).get("sha256")
        if not isinstance(want, str):
            raise UvFetchError(f"{index} lists no sha256 for {wheel['filename']}: {INSTALL_HINT}")
        size = wheel.get("size")
        if isinstance(size, int) and size > MAX_DOWNLOAD:
            raise UvFetchError(f"{wheel['filename']} is {size} bytes, more than uv ever is: {INSTALL_HINT}")
        where = url
        mb = f" ({size / 1e6:.1f} MB)" if isinstance(size, int) else ""
        say(f"downloading uv {version}{mb} from {urllib.parse.urlsplit(url).hostname}")
        fd, whl = tempfile.mkstemp(dir=dest_dir, prefix=".uv-", suffix=".whl")
        tmp_paths.append(whl)
        digest, total = hashlib.sha256(), 0
        with os.fdopen(fd, "wb") as out, _get(url, timeout) as resp:
            for chunk in iter(lambda: resp.read(_CHUNK), b""):
                total += len(chunk)
                if total > MAX_DOWNLOAD:
                    raise UvFetchError(f"{url} is larger than {MAX_DOWNLOAD >> 20} MB: {INSTALL_HINT}")
                digest.update(chunk)
                out.write(chunk)
        if digest.hexdigest() != want.lower():
            raise UvFetchError(f"the uv wheel from {url} does not match its sha256 (a damaged download or "
                               f"a proxy rewriting it): try again, or {INSTALL_HINT}")
        try:
            _extract(whl, wheel["filename"], target, tmp_paths)
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise UvFetchError(f"{wheel['filename']} from {url} is not a readable wheel ({_reason(exc)}): "
                               f"{INSTALL_HINT}") from None
        say(f"uv {version} installed at {target}")
        return target
    except UvFetchError:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError, http.client.HTTPException) as exc:
        # OSError covers URLError, HTTPError and timeouts; ValueError covers bad JSON
        raise UvFetchError(f"could not download uv from {where} ({_reason(exc)}): check the network, "
                           f"or {INSTALL_HINT}") from None
    finally:
        for path in tmp_paths:
            try:
                os.unlink(path)
            except OSError:
                pass


def _extract(whl: str, name: str, target: str, tmp_paths: List[str]) -> None:
    with zipfile.ZipFile(whl) as zf:
        member = next((n for n in zf.namelist() if fnmatch.fnmatchcase(n, _MEMBER)), None)
        if member is None:
            raise UvFetchError(f"{name} holds no {_MEMBER}: {INSTALL_HINT}")
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".uv-")
        tmp_paths.append(tmp)
        with os.fdopen(fd, "wb") as out, zf.open(member) as src:
            shutil.copyfileobj(src, out, _CHUNK)
    os.chmod(tmp, 0o755)
    # a rename, so a concurrent reader sees no uv or the whole uv, never half of one
    os.replace(tmp, target)
    tmp_paths.remove(tmp)
