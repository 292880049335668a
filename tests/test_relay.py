"""The plugin's server as Claude Code runs it: `sh bin/scree serve`, a stdlib relay in front of one engine per user.

Real processes throughout: the real `mcp` client over stdio, the relay, the engine it starts through the
launcher and uv, the Unix socket between them. What must hold: the handshake never waits for uv or an
environment; a session's calls reach an engine that is started, shared, restarted when it dies or idles
out; a call in flight when the engine dies is answered; a stale socket or another user's folder never
strands or exposes a session.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from scree.relay import channel

REPO = Path(__file__).resolve().parent.parent
HANDSHAKE_LIMIT = 30.0  # Claude Code's MCP_TIMEOUT default
CALL_LIMIT = 300.0


def notes_folder(tmp_path: Path, count: int = 1) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "tokens.md").write_text("# Tokens\n\nAccess tokens are refreshed every hour by the refresher.\n")
    for n in range(1, count):
        (folder / f"page{n}.md").write_text(f"# Page {n}\n\nFiller text number {n} about nothing in particular.\n")
    return folder


def data_with_test_venv(tmp_path: Path) -> Path:
    """A plugin data dir whose venv is the one running these tests: no environment to build."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "venv").symlink_to(sys.prefix)
    return data


def relay_env(data: Path, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()}
    env.update(CLAUDE_PLUGIN_DATA=str(data), **more)
    return env


@asynccontextmanager
async def session(root: Path, env: dict[str, str], notes: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command="sh", args=[str(root / "bin" / "scree"), "serve", "--notes", str(notes)],
                                   env=env, cwd=str(notes))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as client:
            with anyio.fail_after(HANDSHAKE_LIMIT):
                await client.initialize()
            yield client


def engine_status(root: Path, data: Path) -> dict[str, Any] | None:
    """What the engine for this plugin copy and data dir says of itself; None when none listens."""
    return channel.engine_status(channel.socket_path(
        os.environ["SCREE_RUNTIME_DIR"], channel.engine_key(str(root), str(data), channel.code_stamp(str(root)))))


def wait_for(condition: Any, limit: float = 60.0) -> Any:
    """Wait for a condition only another process can make true (an engine exiting, a call arriving)."""
    deadline = time.monotonic() + limit
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {limit} s: {condition}")
        time.sleep(0.05)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (the engine is no child of ours, but be safe) is gone for our purposes
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


async def search(client: ClientSession, query: str = "how often are tokens refreshed") -> Any:
    with anyio.fail_after(CALL_LIMIT):
        return await client.call_tool("search_docs", {"query": query})


def first_path(result: Any) -> str:
    assert not result.is_error, result.content[0].text
    return result.structured_content["results"][0]["path"]


# ----- one session, one engine ----------------------------------------------------------------------

def test_a_session_searches_through_the_relay_and_its_engine(tmp_path: Path) -> None:
    notes, data = notes_folder(tmp_path), data_with_test_venv(tmp_path)

    async def main() -> None:
        async with session(REPO, relay_env(data), notes) as client:
            tools = await client.list_tools()
            assert [t.name for t in tools.tools] == ["search_docs", "read_doc", "reindex"]
            assert first_path(await search(client)) == "tokens.md"
            read = await client.call_tool("read_doc", {"path": "tokens.md", "heading": "Tokens"})
            assert "refreshed every hour" in read.structured_content["text"]
            status = wait_for(lambda: engine_status(REPO, data))
            assert status is not None and status["folders"] == [str(notes.resolve())] and status["sessions"] == 1
            from scree.doctor.doctor import PluginContext
            from scree.doctor.engine import check_engine

            seen = check_engine(PluginContext(REPO, data), dict(os.environ))
            assert seen.status == "ok" and f"pid {status['pid']}" in seen.summary and "1 session" in seen.summary
            shown = subprocess.run([sys.executable, "-m", "scree.cli", "status", "--notes", str(notes)],
                                   env={**os.environ, "CLAUDE_PLUGIN_ROOT": str(REPO), "CLAUDE_PLUGIN_DATA": str(data)},
                                   capture_output=True, text=True, timeout=60)
            engine_line = [line for line in shown.stdout.splitlines() if line.startswith("engine ")]
            assert engine_line and f"pid {status['pid']}: 1 session(s), 1 folder(s)" in engine_line[0]

    anyio.run(main)
    # The session is over: the engine let go of its index (the writer lock is free) and waits, idle.
    after = wait_for(lambda: engine_status(REPO, data))
    assert after is not None and after["folders"] == [] and after["sessions"] == 0


def test_two_sessions_share_one_engine_and_one_index(tmp_path: Path) -> None:
    notes, data = notes_folder(tmp_path), data_with_test_venv(tmp_path)

    async def main() -> None:
        async with session(REPO, relay_env(data), notes) as one, session(REPO, relay_env(data), notes) as two:
            assert first_path(await search(one)) == "tokens.md"
            assert first_path(await search(two)) == "tokens.md"
            status = wait_for(lambda: engine_status(REPO, data))
            assert status is not None and status["sessions"] == 2 and len(status["folders"]) == 1

    anyio.run(main)


# ----- the engine goes away ---------------------------------------------------------------------------

def test_a_killed_engine_is_started_again_by_the_next_call(tmp_path: Path) -> None:
    notes, data = notes_folder(tmp_path), data_with_test_venv(tmp_path)

    async def main() -> None:
        async with session(REPO, relay_env(data), notes) as client:
            assert first_path(await search(client)) == "tokens.md"
            before = wait_for(lambda: engine_status(REPO, data))
            assert before is not None
            os.kill(before["pid"], signal.SIGKILL)
            wait_for(lambda: not alive(before["pid"]))
            assert first_path(await search(client)) == "tokens.md"
            # Asked until it answers: a loaded machine can take longer than one status call's 3 s limit.
            after = wait_for(lambda: engine_status(REPO, data))
            assert after["pid"] != before["pid"]

    anyio.run(main)


def test_a_call_in_flight_when_the_engine_dies_is_answered_by_the_next(tmp_path: Path) -> None:
    # A rebuild that embeds 40 notes slowly keeps the call in flight long enough to kill the engine under it.
    notes, data = notes_folder(tmp_path, count=40), data_with_test_venv(tmp_path)
    env = relay_env(data, SCREE_FAKE_EMBEDDER_SECONDS_PER_PASSAGE="0.05")

    async def main() -> None:
        async with session(REPO, env, notes) as client:
            assert first_path(await search(client)) == "tokens.md"
            first = wait_for(lambda: engine_status(REPO, data))
            assert first is not None
            async with anyio.create_task_group() as tg:
                answers: list[Any] = []

                async def rebuild() -> None:
                    with anyio.fail_after(CALL_LIMIT):
                        answers.append(await client.call_tool("reindex", {"all": True}))

                tg.start_soon(rebuild)
                # The engine counts a request as pending until it answers it: kill it then.
                await anyio.to_thread.run_sync(
                    lambda: wait_for(lambda: (engine_status(REPO, data) or {}).get("idle", 0) is None))
                os.kill(first["pid"], signal.SIGKILL)
            result = answers[0]
            assert not result.is_error, result.content[0].text
            assert result.structured_content["added"] + result.structured_content["updated"] + \
                result.structured_content["unchanged"] == 40
            second = wait_for(lambda: engine_status(REPO, data))  # as above: one call may time out under load
            assert second["pid"] != first["pid"]

    anyio.run(main)


def test_an_idle_engine_exits_and_the_next_call_starts_another(tmp_path: Path) -> None:
    notes, data = notes_folder(tmp_path), data_with_test_venv(tmp_path)

    async def main() -> None:
        # A generous search budget: the catch-up below waits within it, and a loaded box is slow, not wrong.
        # Idle after 3 s, not 1: the status probe right after the first answer must find the engine still up.
        async with session(REPO, relay_env(data, SCREE_ENGINE_IDLE="3", SCREE_SEARCH_BUDGET="120"), notes) as client:
            assert first_path(await search(client)) == "tokens.md"
            first = engine_status(REPO, data)
            assert first is not None and first["idle_exit"] == 3
            await anyio.to_thread.run_sync(lambda: wait_for(lambda: not alive(first["pid"])))
            sockets = list(Path(os.environ["SCREE_RUNTIME_DIR"]).glob("*.sock"))
            assert sockets == [], "an engine that exits removes its socket"
            # Edited while no engine watched: the next engine's first search waits for its sync to catch up.
            (notes / "tokens.md").write_text("# Tokens\n\nAccess tokens are refreshed every minute now.\n")
            result = await search(client)
            assert first_path(result) == "tokens.md"
            assert "every minute" in result.structured_content["results"][0]["text"]

    anyio.run(main)


def test_a_stale_socket_left_by_a_dead_engine_is_replaced(tmp_path: Path) -> None:
    notes, data = notes_folder(tmp_path), data_with_test_venv(tmp_path)
    runtime = os.environ["SCREE_RUNTIME_DIR"]
    path = channel.socket_path(runtime, channel.engine_key(str(REPO), str(data), channel.code_stamp(str(REPO))))
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(path)  # bound and closed without listening: what a killed engine leaves
    dead.close()

    async def main() -> None:
        async with session(REPO, relay_env(data), notes) as client:
            assert first_path(await search(client)) == "tokens.md"

    anyio.run(main)


# ----- where the socket lives ---------------------------------------------------------------------------

@pytest.mark.skipif(os.getuid() != 0, reason="needs root to give the folder to another user")
def test_an_engine_folder_owned_by_another_user_is_refused_with_the_fix(tmp_path: Path) -> None:
    notes, data = notes_folder(tmp_path), data_with_test_venv(tmp_path)
    runtime = Path(os.environ["SCREE_RUNTIME_DIR"])
    os.chown(runtime, 65534, 65534)

    async def main() -> None:
        async with session(REPO, relay_env(data), notes) as client:
            tools = await client.list_tools()  # the session keeps its tools
            assert len(tools.tools) == 3
            result = await search(client)
            assert result.is_error
            text = result.content[0].text
            assert "another user" in text and "SCREE_RUNTIME_DIR" in text

    anyio.run(main)
    assert list(runtime.iterdir()) == [], "nothing was created in another user's folder"


def test_a_private_folder_is_made_and_loose_bits_are_tightened(tmp_path: Path) -> None:
    made = channel.ensure_private_dir(str(tmp_path / "run"))
    assert os.stat(made).st_mode & 0o777 == 0o700
    os.chmod(made, 0o755)
    channel.ensure_private_dir(made)
    assert os.stat(made).st_mode & 0o777 == 0o700
    (tmp_path / "link").symlink_to(made)
    with pytest.raises(channel.UnsafeDir, match="symlink"):
        channel.ensure_private_dir(str(tmp_path / "link"))


def test_the_engine_key_changes_with_the_code(tmp_path: Path) -> None:
    root = tmp_path / "plugin"
    (root / "server" / "scree").mkdir(parents=True)
    module = root / "server" / "scree" / "a.py"
    module.write_text("x = 1\n")
    before = channel.engine_key(str(root), "/data", channel.code_stamp(str(root)))
    os.utime(module, ns=(time.time_ns(), time.time_ns() + 10**9))
    after = channel.engine_key(str(root), "/data", channel.code_stamp(str(root)))
    assert before != after
    assert after != channel.engine_key(str(root), "/other-data", channel.code_stamp(str(root)))


# ----- no uv, no environment -----------------------------------------------------------------------------

def plugin_copy(tmp_path: Path) -> Path:
    """The plugin as Claude Code installs it: a copy of its files, with no .uv and no .venv."""
    root = tmp_path / "plugin"
    ignore = shutil.ignore_patterns("__pycache__", ".venv", ".uv", ".git", "benchmarks", "tests", "docs")
    shutil.copytree(REPO, root, ignore=ignore, symlinks=True)
    return root


def bare_env(tmp_path: Path, data: Path, **more: str) -> dict[str, str]:
    """A machine with python3 and no uv anywhere: PATH=/usr/bin:/bin and a fresh HOME."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    keep = ("SCREE_RUNTIME_DIR", "SCREE_EMBEDDER", "SCREE_TEST_EMBEDDER", "SCREE_SQLITE", "UV_CACHE_DIR",
            "UV_PYTHON_INSTALL_DIR", "no_proxy", "NO_PROXY")
    # How this machine reaches its package index (certificates, proxies, a mirror) stays: a user's shell has it too.
    reach = [k for k in os.environ if k.startswith(("SSL_CERT", "UV_INDEX", "UV_DEFAULT_INDEX", "UV_NATIVE_TLS"))
             or k.lower() in ("http_proxy", "https_proxy", "all_proxy")]
    env = {k: os.environ[k] for k in (*keep, *reach) if k in os.environ}
    assert "UV_CACHE_DIR" in env, "conftest points uv at the machine's cache: the environment builds offline from it"
    env.update(PATH="/usr/bin:/bin", HOME=str(home), CLAUDE_PLUGIN_DATA=str(data), **more)
    return env


def real_uv() -> str:
    found = shutil.which("uv") or str(REPO / ".uv" / "bin" / "uv")
    assert os.access(found, os.X_OK), "the tests need uv (the README's test command runs through it)"
    return found


@pytest.mark.skipif(not os.path.exists("/usr/bin/python3"), reason="needs a system python3 in /usr/bin")
def test_with_no_uv_anywhere_the_plugin_fetches_one_and_answers_in_the_same_session(tmp_path: Path) -> None:
    from test_getuv import RIGHT, WHEELS, FakeIndex, wheel_bytes

    import threading

    index = FakeIndex()  # the package index, on 127.0.0.1: its uv is a wrapper of the real one
    index.publish({WHEELS[RIGHT]: wheel_bytes(f'#!/bin/sh\nexec "{real_uv()}" "$@"\n'.encode())})
    threading.Thread(target=index.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    root, notes, data = plugin_copy(tmp_path), notes_folder(tmp_path), tmp_path / "data"
    env = bare_env(tmp_path, data, SCREE_UV_INDEX=index.index)

    async def main() -> None:
        started = time.monotonic()
        async with session(root, env, notes) as client:
            assert time.monotonic() - started < HANDSHAKE_LIMIT
            assert [t.name for t in (await client.list_tools()).tools] == ["search_docs", "read_doc", "reindex"]
            deadline = time.monotonic() + CALL_LIMIT
            while True:  # the agent calls again when told the setup is under way
                result = await search(client)
                if not result.is_error:
                    break
                assert "being set up" in result.content[0].text or "starting" in result.content[0].text, \
                    result.content[0].text
                assert time.monotonic() < deadline
            assert first_path(result) == "tokens.md"

    try:
        anyio.run(main)
    finally:
        index.server.shutdown()
        index.server.server_close()
    assert (data / "uv" / "bin" / "uv").exists() and (data / "venv").is_dir()
    assert index.requests == ["/pypi/uv/json", f"/files/{WHEELS[RIGHT]}"]


def test_an_unreachable_index_with_no_uv_is_said_with_the_fix(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    root, notes, data = plugin_copy(tmp_path), notes_folder(tmp_path), tmp_path / "data"
    env = bare_env(tmp_path, data, SCREE_UV_INDEX=f"http://127.0.0.1:{port}/pypi")

    async def main() -> None:
        async with session(root, env, notes) as client:
            assert len((await client.list_tools()).tools) == 3
            result = await search(client)
            assert result.is_error
            text = result.content[0].text
            assert "could not download uv" in text and "install uv" in text

    anyio.run(main)
    from scree.doctor.doctor import PluginContext
    from scree.doctor.engine import check_engine

    told = check_engine(PluginContext(root, data), env)  # /scree-doctor names the cause and the fix
    assert told.status == "fail" and "could not download uv" in told.summary and "install.sh" in told.fix


def test_uv_only_in_another_clones_quickstart_folder_is_found(tmp_path: Path) -> None:
    """The plugin installed from a local clone (a directory marketplace) whose Quickstart put uv in
    <clone>/.uv/bin, which is on no PATH: the relay finds it there and fetches nothing."""
    clone = tmp_path / "clone"
    (clone / ".uv" / "bin").mkdir(parents=True)
    (clone / ".uv" / "bin" / "uv").symlink_to(real_uv())
    root, notes, data = plugin_copy(tmp_path), notes_folder(tmp_path), tmp_path / "data"
    env = bare_env(tmp_path, data, SCREE_UV_INDEX="http://127.0.0.1:9/never-asked")
    known = Path(env["HOME"]) / ".claude" / "plugins" / "known_marketplaces.json"
    known.parent.mkdir(parents=True)
    known.write_text(json.dumps({"scree-local": {"source": {"source": "directory", "path": str(clone)},
                                                 "installLocation": str(clone)}}))

    async def main() -> None:
        async with session(root, env, notes) as client:
            deadline = time.monotonic() + CALL_LIMIT
            while True:
                result = await search(client)
                if not result.is_error or time.monotonic() > deadline:
                    break
            assert first_path(result) == "tokens.md"

    anyio.run(main)
    assert not (data / "uv").exists()


def test_the_relay_writes_only_protocol_on_stdout(tmp_path: Path) -> None:
    notes, data = notes_folder(tmp_path), data_with_test_venv(tmp_path)
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "search_docs", "arguments": {"query": "tokens \ud800 refreshed"}}},
    ]
    payload = "".join(json.dumps(m) + "\n" for m in lines).encode() + b"not json\n[1, 2]\n"
    proc = subprocess.Popen(["sh", str(REPO / "bin" / "scree"), "serve", "--notes", str(notes)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=relay_env(data))
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(payload)
    proc.stdin.flush()
    answers = [json.loads(proc.stdout.readline()) for _ in range(4)]
    proc.stdin.close()
    proc.wait(timeout=60)
    by_id = {json.dumps(a.get("id")): a for a in answers}
    assert by_id["1"]["result"]["serverInfo"]["name"] == "scree"
    assert by_id["2"]["result"]["structuredContent"]["results"][0]["path"] == "tokens.md"
    errors = sorted(a["error"]["code"] for a in answers if a.get("id") is None)
    assert errors == [-32700, -32600]


def test_a_signal_ends_the_relay_quietly_and_the_engine_lets_go_of_the_index(tmp_path: Path) -> None:
    notes, data = notes_folder(tmp_path), data_with_test_venv(tmp_path)
    proc = subprocess.Popen(["sh", str(REPO / "bin" / "scree"), "serve", "--notes", str(notes)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=relay_env(data))
    assert proc.stdin is not None and proc.stdout is not None
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search_docs", "arguments": {"query": "tokens"}}},
    ):
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    assert json.loads(proc.stdout.readline())["id"] == 2
    assert (engine_status(REPO, data) or {}).get("folders") == [str(notes.resolve())]
    proc.send_signal(signal.SIGINT)  # how Claude Code ends a stdio server
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGINT and b"Traceback" not in err
    assert (engine_status(REPO, data) or {}).get("folders") == []
