"""scree.relay.getuv: finding a uv, and fetching one from a package index when there is none.

The fetches run against a real HTTP server on 127.0.0.1 serving a fake `uv/json` and wheels built here
(real zip files whose uv is a tiny shell script), so the whole path - JSON, choice of wheel, streamed
download, sha256, extraction, lock - runs as it would against PyPI, with no network beyond loopback.
"""

from __future__ import annotations

import ast
import hashlib
import http.server
import io
import json
import os
import platform
import socket
import subprocess
import sys
import threading
import zipfile
from pathlib import Path
from typing import Iterator

import pytest

from scree.relay import getuv
from scree.relay.getuv import UvFetchError, fetch_uv, find_uv, pick_wheel, uv_candidates, wheel_tag_ok

SYSTEM, MACHINE = platform.system(), platform.machine()
MUSL = platform.libc_ver()[0].startswith("musl")
needs_unix = pytest.mark.skipif(SYSTEM not in ("Linux", "Darwin"), reason="uv is fetched on Linux and macOS only")
GATE_WAIT = 30.0  # an upper bound on waiting for a signal that comes at once when the code is right


def wheel_bytes(script: bytes, member: str = "uv-9.9.9.data/scripts/uv") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("uv-9.9.9.dist-info/METADATA", "Metadata-Version: 2.1\nName: uv\nVersion: 9.9.9\n")
        zf.writestr(member, script)
    return buf.getvalue()


def script(says: str) -> bytes:
    return f"#!/bin/sh\necho {says}\n".encode()


# One wheel per platform family; only the one for this machine prints the right line.
WHEELS = {
    "win": "uv-9.9.9-py3-none-win_amd64.whl",
    "musl": f"uv-9.9.9-py3-none-musllinux_1_1_{MACHINE}.whl",
    "many": f"uv-9.9.9-py3-none-manylinux_2_17_{MACHINE}.manylinux2014_{MACHINE}.whl",
    "mac": f"uv-9.9.9-py3-none-macosx_11_0_{MACHINE if SYSTEM == 'Darwin' else 'arm64'}.whl",
}
RIGHT = "mac" if SYSTEM == "Darwin" else "musl" if MUSL else "many"


class FakeIndex:
    """A package index on 127.0.0.1: routes to (status, body), a log of the paths asked for, and gates
    a request waits on before it is answered."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, bytes]] = {}
        self.requests: list[str] = []
        self.gates: dict[str, threading.Event] = {}
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                index.requests.append(self.path)
                gate = index.gates.get(self.path)
                if gate is not None and not gate.wait(GATE_WAIT):
                    status, body = 503, b"gate never opened"
                else:
                    status, body = index.routes.get(self.path, (404, b"not found"))
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.index = f"{self.base}/pypi"

    def publish(self, wheels: dict[str, bytes], *, sha_of: dict[str, str] | None = None) -> None:
        """Serve `uv/json` listing an sdist and `wheels` (file name -> bytes), each at /files/<name>."""
        urls = [{"filename": "uv-9.9.9.tar.gz", "packagetype": "sdist", "url": f"{self.base}/files/sdist",
                 "size": 3, "digests": {"sha256": hashlib.sha256(b"sdist").hexdigest()}}]
        for name, body in wheels.items():
            self.routes[f"/files/{name}"] = (200, body)
            sha = (sha_of or {}).get(name) or hashlib.sha256(body).hexdigest()
            urls.append({"filename": name, "packagetype": "bdist_wheel", "url": f"{self.base}/files/{name}",
                         "size": len(body), "digests": {"sha256": sha}})
        release = {"info": {"name": "uv", "version": "9.9.9"}, "urls": urls}
        self.routes["/pypi/uv/json"] = (200, json.dumps(release).encode())


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # a proxy in the tester's environment must not see (or break) requests to the loopback server
    for var in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("no_proxy", "*")
    monkeypatch.setenv("NO_PROXY", "*")


@pytest.fixture
def index() -> Iterator[FakeIndex]:
    fake = FakeIndex()
    thread = threading.Thread(target=fake.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield fake
    for gate in fake.gates.values():
        gate.set()
    fake.server.shutdown()
    fake.server.server_close()
    thread.join()


def all_wheels() -> dict[str, bytes]:
    return {name: wheel_bytes(script("uv 9.9.9" if kind == RIGHT else f"wrong wheel {kind}"))
            for kind, name in WHEELS.items()}


def run(path: str) -> str:
    return subprocess.run([path], capture_output=True, text=True, timeout=30, check=True).stdout.strip()


def leftovers(dest: Path) -> list[str]:
    return sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())


# ----- fetching ---------------------------------------------------------------------------------------


@needs_unix
def test_fetch_picks_this_machines_wheel_and_installs_a_working_uv(index, tmp_path, capsys):
    index.publish(all_wheels())
    lines: list[str] = []
    path = fetch_uv(str(tmp_path / "d"), index=index.index, timeout=10, progress=lines.append)
    assert path == str(tmp_path / "d" / "bin" / "uv")
    assert run(path) == "uv 9.9.9"
    assert index.requests == ["/pypi/uv/json", f"/files/{WHEELS[RIGHT]}"]
    assert any(line.startswith("downloading uv 9.9.9 (") and "127.0.0.1" in line for line in lines), lines
    assert leftovers(tmp_path / "d") == [".fetch.lock", "bin/uv"]  # no temp file left behind
    assert capsys.readouterr().out == ""  # stdout is the MCP stream


@needs_unix
def test_a_file_url_relative_to_the_json_is_resolved(index, tmp_path):
    # some mirrors of PyPI's JSON API list their files as "../../packages/..."
    index.publish(all_wheels())
    status, body = index.routes["/pypi/uv/json"]
    release = json.loads(body)
    for entry in release["urls"]:
        entry["url"] = entry["url"].replace(index.base + "/files/", "../../files/")
    index.routes["/pypi/uv/json"] = (status, json.dumps(release).encode())
    assert run(fetch_uv(str(tmp_path / "d"), index=index.index, timeout=10)) == "uv 9.9.9"
    assert index.requests == ["/pypi/uv/json", f"/files/{WHEELS[RIGHT]}"]


@needs_unix
def test_a_sha256_mismatch_installs_nothing(index, tmp_path):
    index.publish(all_wheels(), sha_of={WHEELS[RIGHT]: "0" * 64})
    with pytest.raises(UvFetchError, match="does not match its sha256") as err:
        fetch_uv(str(tmp_path / "d"), index=index.index, timeout=10)
    assert "install uv yourself" in str(err.value)
    assert leftovers(tmp_path / "d") == [".fetch.lock"]


@needs_unix
def test_a_server_error_is_one_clear_line(index, tmp_path):
    index.routes["/pypi/uv/json"] = (500, b"oops")
    with pytest.raises(UvFetchError) as err:
        fetch_uv(str(tmp_path / "d"), index=index.index, timeout=10)
    message = str(err.value)
    assert message.startswith(f"could not download uv from {index.index} (HTTP 500 "), message
    assert "check the network, or install uv yourself: curl -LsSf https://astral.sh/uv/install.sh | sh" in message
    assert "\n" not in message


@needs_unix
def test_an_unreachable_index_is_one_clear_line(tmp_path):
    with socket.socket() as s:  # a port just freed: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(UvFetchError, match=rf"^could not download uv from http://127\.0\.0\.1:{port}/pypi \(") as err:
        fetch_uv(str(tmp_path / "d"), index=f"http://127.0.0.1:{port}/pypi", timeout=10)
    assert "\n" not in str(err.value) and "install uv yourself" in str(err.value)


@needs_unix
def test_bad_json_is_a_fetch_error(index, tmp_path):
    index.routes["/pypi/uv/json"] = (200, b"<html>captive portal</html>")
    with pytest.raises(UvFetchError, match="could not download uv from"):
        fetch_uv(str(tmp_path / "d"), index=index.index, timeout=10)


@needs_unix
def test_a_wheel_without_the_uv_member_is_refused(index, tmp_path):
    index.publish({WHEELS[RIGHT]: wheel_bytes(script("x"), member="uv-9.9.9.data/scripts/uvx")})
    with pytest.raises(UvFetchError, match=r"holds no \*\.data/scripts/uv"):
        fetch_uv(str(tmp_path / "d"), index=index.index, timeout=10)
    assert leftovers(tmp_path / "d") == [".fetch.lock"]


@needs_unix
def test_a_file_that_is_not_a_zip_is_refused(index, tmp_path):
    index.publish({WHEELS[RIGHT]: b"this is not a zip file"})  # its sha256 is right: the index lied
    with pytest.raises(UvFetchError, match="is not a readable wheel"):
        fetch_uv(str(tmp_path / "d"), index=index.index, timeout=10)


@needs_unix
def test_no_wheel_for_this_machine_names_the_platform(index, tmp_path):
    index.publish({WHEELS["win"]: wheel_bytes(script("x"))})
    with pytest.raises(UvFetchError, match=f"no uv wheel for {SYSTEM} {MACHINE}"):
        fetch_uv(str(tmp_path / "d"), index=index.index, timeout=10)


@needs_unix
def test_an_existing_uv_is_returned_without_a_request(index, tmp_path):
    index.publish(all_wheels())
    existing = tmp_path / "d" / "bin" / "uv"
    existing.parent.mkdir(parents=True)
    existing.write_bytes(script("already here"))
    existing.chmod(0o755)
    assert fetch_uv(str(tmp_path / "d"), index=index.index, timeout=10) == str(existing)
    assert index.requests == []
    assert run(str(existing)) == "already here"


@pytest.mark.skipif(not getuv._HAVE_FCNTL, reason="the lock needs fcntl.flock")
def test_two_concurrent_fetches_download_once_and_both_get_a_working_uv(index, tmp_path):
    """A holds the lock and is stopped mid-download (the server holds the wheel back) until B reports it
    is waiting for the lock; so the two overlap for certain, with no sleep."""
    index.publish(all_wheels())
    wheel_path = f"/files/{WHEELS[RIGHT]}"
    index.gates[wheel_path] = release = threading.Event()
    a_downloading = threading.Event()
    results: dict[str, object] = {}
    dest = str(tmp_path / "d")

    def fetch(name: str, progress) -> None:
        try:
            results[name] = fetch_uv(dest, index=index.index, timeout=GATE_WAIT + 10, progress=progress)
        except BaseException as exc:  # reported by the asserts below
            results[name] = exc

    a = threading.Thread(target=fetch, args=("a", lambda line: line.startswith("downloading") and a_downloading.set()))
    b = threading.Thread(target=fetch, args=("b", lambda line: line.startswith("waiting") and release.set()))
    a.start()
    assert a_downloading.wait(GATE_WAIT)
    b.start()
    a.join(GATE_WAIT + 20)
    b.join(GATE_WAIT + 20)
    assert release.is_set(), "B never waited for A's lock"
    assert results["a"] == results["b"] == os.path.join(dest, "bin", "uv"), results
    assert run(str(results["a"])) == "uv 9.9.9"
    assert index.requests == ["/pypi/uv/json", wheel_path]  # B found A's uv and asked for nothing


# ----- choosing the wheel -----------------------------------------------------------------------------

GLIBC, MUSL_LIBC, UNKNOWN = ("glibc", "2.35"), ("musl", "1.2.4"), ("", "")
MANY_X86 = "uv-0.9.5-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
MANY_ARM = "uv-0.9.5-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl"
MUSL_X86 = "uv-0.9.5-py3-none-musllinux_1_1_x86_64.whl"
MAC_ARM = "uv-0.9.5-py3-none-macosx_11_0_arm64.whl"
MAC_X86 = "uv-0.9.5-py3-none-macosx_10_12_x86_64.whl"
WIN = "uv-0.9.5-py3-none-win_amd64.whl"
SDIST = "uv-0.9.5.tar.gz"


@pytest.mark.parametrize("filename, system, machine, libc, ok", [
    (MANY_X86, "Linux", "x86_64", GLIBC, True),
    (MANY_X86, "Linux", "x86_64", UNKNOWN, True),  # libc unknown: glibc is the likely one
    (MANY_X86, "Linux", "x86_64", MUSL_LIBC, False),
    (MANY_X86, "Linux", "x86_64", ("glibc", "2.12"), False),  # too old a glibc for manylinux_2_17
    (MANY_X86, "Linux", "aarch64", GLIBC, False),
    (MANY_X86, "Darwin", "x86_64", UNKNOWN, False),
    (MANY_ARM, "Linux", "aarch64", GLIBC, True),
    (MANY_ARM, "Linux", "x86_64", GLIBC, False),
    (MUSL_X86, "Linux", "x86_64", MUSL_LIBC, True),
    (MUSL_X86, "Linux", "x86_64", GLIBC, False),
    (MUSL_X86, "Linux", "x86_64", UNKNOWN, False),
    (MAC_ARM, "Darwin", "arm64", UNKNOWN, True),
    (MAC_ARM, "Darwin", "x86_64", UNKNOWN, False),
    (MAC_ARM, "Linux", "aarch64", GLIBC, False),
    (MAC_X86, "Darwin", "x86_64", UNKNOWN, True),
    (MAC_X86, "Darwin", "arm64", UNKNOWN, False),
    ("uv-0.9.5-py3-none-macosx_10_12_universal2.whl", "Darwin", "arm64", UNKNOWN, True),
    (WIN, "Windows", "AMD64", UNKNOWN, False),
    (WIN, "Linux", "x86_64", GLIBC, False),
    (SDIST, "Linux", "x86_64", GLIBC, False),
    (SDIST, "Darwin", "arm64", UNKNOWN, False),
])
def test_wheel_tag_ok(filename, system, machine, libc, ok):
    assert wheel_tag_ok(filename, system, machine, libc) is ok


def test_pick_wheel_prefers_manylinux_and_skips_sdists():
    names = [SDIST, WIN, MUSL_X86, MAC_ARM, MANY_X86, MANY_ARM]
    release = {"urls": [{"filename": n, "packagetype": "sdist" if n == SDIST else "bdist_wheel"} for n in names]}
    assert pick_wheel(release, "Linux", "x86_64", UNKNOWN)["filename"] == MANY_X86
    assert pick_wheel(release, "Linux", "x86_64", MUSL_LIBC)["filename"] == MUSL_X86
    assert pick_wheel(release, "Linux", "aarch64", GLIBC)["filename"] == MANY_ARM
    assert pick_wheel(release, "Darwin", "arm64", UNKNOWN)["filename"] == MAC_ARM
    with pytest.raises(UvFetchError, match="no uv wheel for Linux riscv64 .glibc 2.35."):
        pick_wheel(release, "Linux", "riscv64", GLIBC)
    with pytest.raises(UvFetchError, match="no uv wheel for Windows AMD64"):
        pick_wheel(release, "Windows", "AMD64", UNKNOWN)


# ----- finding an installed uv ------------------------------------------------------------------------


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(script("found"))
    path.chmod(0o755)
    return path


def test_candidates_come_in_order(tmp_path):
    home = tmp_path / "home"
    env = {"PATH": os.pathsep.join(["/p1", "", "/p2", "/p1"]), "HOME": str(home)}
    assert uv_candidates(env, "/root-dir", "/data-dir") == [
        ("/p1/uv", "PATH"), ("/p2/uv", "PATH"),
        (str(home / ".local/bin/uv"), "~/.local/bin"), (str(home / ".cargo/bin/uv"), "~/.cargo/bin"),
        ("/root-dir/.uv/bin/uv", "the Quickstart's .uv/bin"), ("/data-dir/uv/bin/uv", "the plugin's data dir"),
    ]


def test_path_beats_the_data_dir_and_a_non_executable_is_passed_over(tmp_path):
    on_path = executable(tmp_path / "pathdir" / "uv")
    in_data = executable(tmp_path / "data" / "uv" / "bin" / "uv")
    env = {"PATH": str(tmp_path / "pathdir"), "HOME": str(tmp_path / "home")}
    assert find_uv(env, None, str(tmp_path / "data")) == (str(on_path), "PATH")
    on_path.chmod(0o644)
    assert find_uv(env, None, str(tmp_path / "data")) == (str(in_data), "the plugin's data dir")
    in_data.unlink()
    assert find_uv(env, None, str(tmp_path / "data")) is None


@pytest.mark.parametrize("via", ["CLAUDE_CONFIG_DIR", "HOME"])
def test_a_local_directory_marketplace_is_searched(tmp_path, via):
    config = tmp_path / "config" if via == "CLAUDE_CONFIG_DIR" else tmp_path / "home" / ".claude"
    quickstart, by_location, cloned = tmp_path / "qs", tmp_path / "qs2", tmp_path / "cloned"
    for d in (quickstart, by_location, cloned):
        executable(d / ".uv" / "bin" / "uv")
    (config / "plugins").mkdir(parents=True)
    (config / "plugins" / "known_marketplaces.json").write_text(json.dumps({
        "github-one": {"source": {"source": "github", "repo": "o/r"}, "installLocation": str(cloned)},
        "scree": {"source": {"source": "directory", "path": str(quickstart)}, "installLocation": str(quickstart)},
        "older": {"source": {"source": "directory"}, "installLocation": str(by_location)},
    }))
    env = {"PATH": str(tmp_path / "empty"), "HOME": str(tmp_path / "home")}
    if via == "CLAUDE_CONFIG_DIR":
        env["CLAUDE_CONFIG_DIR"] = str(config)
    extra = [c for c in uv_candidates(env, None, None) if "Quickstart" in c[1]]
    assert extra == [(str(quickstart / ".uv/bin/uv"), f"the Quickstart's .uv/bin in {quickstart}"),
                     (str(by_location / ".uv/bin/uv"), f"the Quickstart's .uv/bin in {by_location}")]
    assert find_uv(env, None, None) == extra[0]


@pytest.mark.parametrize("content", [
    b"{not json", b"\xff\xfe garbage", b"[1, 2, 3]", b'"a string"', b"null",
    b'{"a": 3, "b": {"source": "directory"}, "c": {"source": {"source": "directory", "path": 7}},'
    b' "d": {"source": {"source": "directory", "path": "relative/dir"}}, "e": []}',
])
def test_a_garbage_known_marketplaces_file_adds_nothing(tmp_path, content):
    (tmp_path / "config" / "plugins").mkdir(parents=True)
    (tmp_path / "config" / "plugins" / "known_marketplaces.json").write_bytes(content)
    env = {"PATH": "/nowhere", "CLAUDE_CONFIG_DIR": str(tmp_path / "config")}
    assert uv_candidates(env, None, None) == [("/nowhere/uv", "PATH")]
    assert find_uv(env, None, None) is None


@pytest.mark.parametrize("module", ["getuv", "finduv", "relay", "channel", "toolschemas", "main"])
def test_the_relays_modules_import_only_the_standard_library(module: str) -> None:
    """The relay runs on the system python3 before any environment exists: stdlib, its own package, 3.8 syntax."""
    path = Path(getuv.__file__).with_name(f"{module}.py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree)
              if isinstance(n, ast.ImportFrom) and n.module and n.level == 0}
    assert names <= set(sys.stdlib_module_names) | {"__future__", "scree"}, names
    relative = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level > 0}
    assert relative <= {"channel", "toolschemas", "finduv", "getuv", None}, relative
    if "scree" in names:  # only main.py, for the relay itself
        assert module == "main"
    ast.parse(path.read_text(encoding="utf-8"), feature_version=(3, 8))  # the system python3  # the system python3
