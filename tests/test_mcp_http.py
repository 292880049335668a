"""`scree serve --http`: streamable HTTP with the SDK client, Host/Origin checks, and the bearer token."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from conftest import REPO_ROOT, write

pytestmark = pytest.mark.timeout(90)

INIT = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        b'"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}')


def _serve(folder: Path, data: Path, *flags: str, token: str | None = None) -> subprocess.Popen[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(data), "PYTHONPATH": str(REPO_ROOT / "server")}
    env.pop("SCREE_HTTP_TOKEN", None)
    if token is not None:
        env["SCREE_HTTP_TOKEN"] = token
    return subprocess.Popen([sys.executable, "-m", "scree.cli", "serve", "--notes", str(folder), "--http", *flags],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)


def _url_of(proc: subprocess.Popen[str]) -> str:
    """The URL the server announces on stderr once it listens (port 0 picks a free port)."""
    assert proc.stderr is not None
    for line in proc.stderr:  # ends at EOF if the server dies first
        if "serving MCP on " in line:
            return line.split("serving MCP on ", 1)[1].split()[0]
    raise AssertionError(f"the server exited ({proc.wait()}) without listening")


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _post(url: str, headers: dict[str, str]) -> int:
    req = urllib.request.Request(url, data=INIT, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("http") / "repo"
    (root / ".git").mkdir(parents=True)
    write(root, "docs/ops.md", "# Operations\n\n## Backups\n\nNightly backups go to the cold bucket.\n")
    return root.resolve()


@pytest.fixture(scope="module")
def server(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc = _serve(folder, tmp_path_factory.mktemp("data"), "--host", "127.0.0.1", "--port", "0", "--no-watch")
    try:
        yield _url_of(proc)
    finally:
        _stop(proc)


def test_tool_call_over_streamable_http(server: str) -> None:
    async def go() -> dict:
        async with Client(server, read_timeout_seconds=60) as client:
            r = await client.call_tool("search_docs", {"query": "nightly backups", "mode": "keyword"})
            assert not r.is_error, r.content
            return r.structured_content or {}

    out = anyio.run(go)
    assert out["results"][0]["heading"] == "Operations > Backups"


def test_a_request_is_answered_with_one_json_body_not_an_event_stream(server: str) -> None:
    """An SSE stream opened and closed per request made HTTP several times slower than stdio under
    16 clients (issue 21); scree's tools stream nothing, so each answer is one JSON body."""
    req = urllib.request.Request(server, data=INIT, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    with urllib.request.urlopen(req, timeout=20) as resp:
        assert resp.headers["Content-Type"].startswith("application/json")
        assert json.loads(resp.read())["result"]["serverInfo"]["name"] == "scree"


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_a_request_nested_to_any_depth_gets_a_json_rpc_error_and_the_server_keeps_serving(server: str,
                                                                                          depth: int) -> None:
    nested = b"[" * depth + b"]" * depth
    for body in (INIT[:-1] + b',"x":' + nested + b"}", nested):
        req = urllib.request.Request(server, data=body, method="POST", headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(req, timeout=20)
        assert refused.value.code == 400
        assert json.loads(refused.value.read())["error"]["code"] in (-32700, -32600)
    assert _post(server, {}) == 200


def test_a_foreign_host_header_is_rejected(server: str) -> None:
    port = server.rsplit(":", 1)[1].split("/")[0]
    assert _post(server, {"Host": f"evil.example:{port}"}) == 421
    assert _post(server, {"Host": "127.0.0.1:1"}) == 421  # right name, wrong port


def test_a_foreign_origin_is_rejected_and_a_local_one_accepted(server: str) -> None:
    port = server.rsplit(":", 1)[1].split("/")[0]
    assert _post(server, {"Origin": "http://evil.example"}) == 403
    assert _post(server, {"Origin": f"http://localhost:{port}"}) == 200


def test_with_a_token_requests_without_it_get_401(folder: Path, tmp_path: Path) -> None:
    proc = _serve(folder, tmp_path / "data", "--port", "0", "--no-watch", token="s3cret")
    try:
        url = _url_of(proc)
        assert _post(url, {}) == 401
        assert _post(url, {"Authorization": "Bearer wrong"}) == 401

        async def go() -> bool:
            http = httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"}, timeout=60)
            async with http, Client(streamable_http_client(url, http_client=http)) as client:
                tools = await client.list_tools()
                return any(t.name == "read_doc" for t in tools.tools)

        assert anyio.run(go)
    finally:
        _stop(proc)


def test_a_non_loopback_bind_without_a_token_refuses_to_start(folder: Path, tmp_path: Path) -> None:
    started = time.monotonic()
    proc = _serve(folder, tmp_path / "data", "--host", "0.0.0.0", "--port", "0")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1 and out == ""
    assert "refusing to serve HTTP on 0.0.0.0 without a token" in err and "SCREE_HTTP_TOKEN" in err
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("port", ["99999", "65536", "-1", "eighty"])
def test_a_port_outside_1_to_65535_is_refused_before_binding(folder: Path, tmp_path: Path, port: str) -> None:
    proc = _serve(folder, tmp_path / "data", "--port", port, "--no-watch")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 2 and out == ""  # argparse's usage error; nothing served on a wrapped port
    assert "use 1..65535, or 0 for any free port" in err and "serving MCP" not in err
