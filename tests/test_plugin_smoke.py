"""The plugin in a real Claude Code, offline: `claude plugin validate --strict`, then an install from this
repo as a local marketplace into a scratch HOME, and what a session sees. Every test runs once per Claude
Code build: `.ci/run` installs the oldest supported and the newest tested (pinned) under
.ci/claude-<version>/; CLAUDE_BINS (paths joined by ':') names other builds.

A session's first `system/init` line of `claude -p ... --output-format stream-json --verbose` lists the
MCP servers with their state, the slash commands and the skills; the API is a closed loopback port, so
the session stops there and is killed. The bare `/scree-doctor` and `/scree-reindex` run against a
loopback stand-in of the Messages API that records what the model would have been sent.

Offline on purpose: the plugin's venv ($CLAUDE_PLUGIN_DATA/venv) is synced before the session from uv's
cache (`uv sync --frozen --offline`, what the first session's background sync does), and the session's
uv runs with UV_OFFLINE=1. uv's cache and Python are the ones of this test run, since HOME is scratch.

Needs `claude` (from `.ci/run`, CLAUDE_BINS, or on PATH) and uv; skipped without. Claude Code's
records gain fields from version to version (2.1.332 adds `source` to each `mcp_servers` entry), so the
tests compare the fields they rely on, never whole records.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from conftest import REPO_ROOT, UV_BIN



def _claude_bins() -> list[str]:
    """$CLAUDE_BINS, else every build .ci/run installed (.ci/claude-<version>/), else `claude` on PATH."""
    listed = [p for p in os.environ.get("CLAUDE_BINS", "").split(os.pathsep) if p.strip()]
    if listed:
        return listed
    def version(p: Path) -> tuple[int, ...]:  # oldest first, so [-1] is the newest (2.1.99 before 2.1.100)
        return tuple(int(x) for x in p.parents[2].name.removeprefix("claude-").split(".") if x.isdigit())

    found = [p for p in (REPO_ROOT / ".ci").glob("claude-*/node_modules/.bin/claude") if p.exists()]
    installed = [str(p) for p in sorted(found, key=version)]
    on_path = shutil.which("claude")
    return installed or ([on_path] if on_path else [])


def _version_id(path: str) -> str:
    folder = Path(path).parents[2].name
    return folder if folder.startswith("claude-") else path


CLAUDE_BINS = _claude_bins()
# uv on PATH, else the one running the suite or the Quickstart's (.uv/bin): the session finds it on its PATH.
UV = UV_BIN
pytestmark = [
    pytest.mark.skipif(not CLAUDE_BINS, reason="Claude Code is not installed: run .ci/run, or `npm install --prefix "
                       ".ci/claude-2.1.197 --no-save @anthropic-ai/claude-code@2.1.197`"),
    pytest.mark.skipif(UV is None, reason="uv is needed to run the plugin's MCP server"),
    pytest.mark.timeout(120),
]
SESSION_TIMEOUT = 45.0  # one `claude -p` run, MCP server start included
SERVER = "plugin:scree:scree"


@pytest.fixture(scope="module", params=CLAUDE_BINS, ids=[_version_id(p) for p in CLAUDE_BINS])
def claude_bin(request: pytest.FixtureRequest) -> str:
    """One Claude Code build: every test that uses it (directly or through `installed`) runs for each."""
    return request.param


def claude(bin: str, args: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([bin, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=60, check=False)


# ----- validate -------------------------------------------------------------------------------------


@pytest.fixture()
def scratch_home(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(tmp_path / "home"), "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}


def test_validate_strict_passes_on_the_repo_and_on_the_manifest(claude_bin: str, scratch_home: dict[str, str]) -> None:
    for target in (".", "./.claude-plugin/plugin.json"):
        proc = claude(claude_bin, ["plugin", "validate", target, "--strict"], scratch_home, cwd=REPO_ROOT)
        assert proc.returncode == 0 and "Validation passed" in proc.stdout, proc.stdout + proc.stderr


def test_validate_fails_a_manifest_with_a_string_author(claude_bin: str, tmp_path: Path,
                                                       scratch_home: dict[str, str]) -> None:
    manifest = json.loads((REPO_ROOT / ".claude-plugin" / "plugin.json").read_text())
    broken = tmp_path / ".claude-plugin" / "plugin.json"
    broken.parent.mkdir()
    broken.write_text(json.dumps({**manifest, "author": "someone"}))
    proc = claude(claude_bin, ["plugin", "validate", str(broken), "--strict"], scratch_home)
    assert proc.returncode == 1 and "author" in proc.stdout + proc.stderr


# ----- install into a scratch HOME ------------------------------------------------------------------


def _plugin_files() -> list[str]:
    """What a clone of the repo holds: tracked files plus new ones not ignored (no .venv, no .ci/claude-*)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO_ROOT,
                             capture_output=True, check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        pytest.skip("git is needed to list the plugin's files")
    return [f for f in out.decode().split("\0") if f and (REPO_ROOT / f).is_file()]


def _isolated_env(home: Path, tmp: Path) -> dict[str, str]:
    """This process's environment minus anything of an outer Claude Code session, with a scratch HOME."""
    uv_cache = subprocess.run([UV, "cache", "dir"], capture_output=True, text=True, check=True).stdout.strip()
    drop = ("CLAUDE", "ANTHROPIC", "SCREE_", "MCP_", "UV_", "VIRTUAL_ENV")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    if shutil.which("uv") is None:  # the plugin finds uv on PATH (or in ~/.local/bin...): give the session this one
        assert UV is not None
        (tmp / "uv-bin").mkdir(exist_ok=True)
        if not (tmp / "uv-bin" / "uv").exists():
            (tmp / "uv-bin" / "uv").symlink_to(UV)
        env["PATH"] = os.pathsep.join([str(tmp / "uv-bin"), env.get("PATH", "")])
    if os.environ.get("SCREE_SQLITE"):  # the driver this run forces (.ci/run's stdlib run): the plugin's too
        env["SCREE_SQLITE"] = os.environ["SCREE_SQLITE"]
    env.update(HOME=str(home), XDG_DATA_HOME=str(tmp / "xdg-data"), XDG_CACHE_HOME=str(tmp / "xdg-cache"),
               XDG_CONFIG_HOME=str(tmp / "xdg-config"), UV_CACHE_DIR=uv_cache, UV_PYTHON=sys._base_executable,
               UV_OFFLINE="1", UV_PYTHON_DOWNLOADS="never", DISABLE_AUTOUPDATER="1",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
               # Wait for the MCP server before the init line (default 5 s; a slow CI start would show "pending").
               MCP_CONNECT_TIMEOUT_MS="30000",
               # The SessionStart hook's background sync would outlive the test; the server syncs anyway.
               SCREE_SYNC_COMMAND='["true"]')
    return env


class Installed:
    """The plugin installed from a clean copy of the repo, its venv synced, and a notes project."""

    def __init__(self, tmp: Path, claude_bin: str) -> None:
        self.claude = claude_bin
        self.src = tmp / "scree-src"
        for rel in _plugin_files():
            (self.src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / rel, self.src / rel)
        self.home = tmp / "home"
        self.home.mkdir()
        self.env = _isolated_env(self.home, tmp)
        self.data = self.home / ".claude" / "plugins" / "data" / "scree-scree-tools"
        self.project = tmp / "project"
        (self.project / ".git").mkdir(parents=True)
        (self.project / "README.md").write_text("# Project\n\n## Retries\n\nUploads are retried three times.\n")

    def install(self) -> None:
        for args in (["plugin", "marketplace", "add", str(self.src)], ["plugin", "install", "scree@scree-tools"]):
            proc = claude(self.claude, args, self.env, cwd=self.project)
            assert proc.returncode == 0, proc.stdout + proc.stderr
        # A local-directory marketplace runs the plugin in place (CLAUDE_PLUGIN_ROOT = the source dir):
        # sync the venv against that path so the server's `uv run --frozen` finds it up to date.
        self.data.mkdir(parents=True, exist_ok=True)
        subprocess.run([UV, "sync", "--frozen", "--offline", "--quiet", "--project", str(self.src)],
                       env={**self.env, "UV_PROJECT_ENVIRONMENT": str(self.data / "venv")}, check=True, timeout=120)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, claude_bin: str) -> Installed:
    plugin = Installed(tmp_path_factory.mktemp("plugin-smoke"), claude_bin)
    plugin.install()
    return plugin


def _closed_port() -> socket.socket:
    """A bound, never-listening socket: connections to its port are refused while it stays open."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s


def run_session(installed: Installed, prompt: str, base_url: str, *, until: str) -> list[dict]:
    """`claude -p prompt` in the project; its stream-json events up to the first of type/subtype `until`.

    The whole process group (Claude Code, the MCP server it started) is killed afterwards.
    """
    env = {**installed.env, "ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "x"}
    proc = subprocess.Popen([installed.claude, "-p", prompt, "--output-format", "stream-json", "--verbose"], cwd=installed.project,
                            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    events: list[dict] = []
    deadline = time.monotonic() + SESSION_TIMEOUT
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            while time.monotonic() < deadline:
                if not sel.select(max(0.0, deadline - time.monotonic())):
                    break
                line = proc.stdout.readline()
                if not line:
                    break
                event = json.loads(line)
                events.append(event)
                if until in (event.get("type"), event.get("subtype")):
                    return events
        raise AssertionError(f"no {until!r} event within {SESSION_TIMEOUT} s; got {[e.get('subtype') or e.get('type') for e in events]}")
    finally:
        end_process_group(proc)
        proc.stdout.close()


def end_process_group(proc: subprocess.Popen) -> None:
    """SIGTERM the process group `proc` leads (Claude Code and its MCP server), SIGKILL after 5 s."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
            proc.wait(timeout=5)
            return
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture(scope="module")
def session_start(installed: Installed) -> list[dict]:
    """A session's events up to its init line (the API port is closed, so nothing follows)."""
    closed = _closed_port()
    try:
        return run_session(installed, "x", f"http://127.0.0.1:{closed.getsockname()[1]}", until="init")
    finally:
        closed.close()


def test_session_lists_the_skill_and_both_slash_commands(session_start: list[dict], installed: Installed) -> None:
    init = session_start[-1]
    (plugin,) = [p for p in init["plugins"] if p["source"] == "scree@scree-tools"]
    # 2.1.197 runs a local-directory marketplace's plugin in place; a newer build may use its cache copy.
    assert plugin["name"] == "scree" and plugin["path"].rstrip("/") in (
        str(installed.src), str(installed.home / ".claude" / "plugins" / "cache" / "scree-tools" / "scree" / "0.1.0"))
    # 2.1.197 lists plugin skills by their namespaced name; the bare /scree-reindex still answers (below).
    assert {"scree:scree-reindex", "scree:scree-doctor"} <= set(init["slash_commands"])
    assert {"scree:scree", "scree:scree-reindex", "scree:scree-doctor"} <= set(init["skills"])


def test_hooks_load_and_the_session_start_line_reaches_the_model(session_start: list[dict]) -> None:
    (response,) = [e for e in session_start if e.get("subtype") == "hook_response"
                   and e.get("hook_event") == "SessionStart"]
    out = json.loads(response["output"])
    assert "mcp__plugin_scree_scree__search_docs" in out["hookSpecificOutput"]["additionalContext"]


def test_mcp_server_connects_with_its_tools_loaded_up_front(session_start: list[dict]) -> None:
    init = session_start[-1]
    assert [s["status"] for s in init["mcp_servers"] if s["name"] == SERVER] == ["connected"]
    tools = {t for t in init["tools"] if t.startswith("mcp__plugin_scree_scree__")}
    assert {"mcp__plugin_scree_scree__search_docs", "mcp__plugin_scree_scree__read_doc",
            "mcp__plugin_scree_scree__reindex"} <= tools  # alwaysLoad: not deferred behind ToolSearch


def test_launcher_runs_the_cli_in_the_plugins_own_venv(installed: Installed) -> None:
    proc = subprocess.run([str(installed.src / "bin" / "scree"), "--version"], cwd=installed.project,
                          env={**installed.env, "SCREE_LAUNCHER_DEBUG": "1"}, capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0 and proc.stdout.strip() == "scree 0.1.0", proc.stderr
    assert f"venv={installed.data}/venv" in proc.stderr  # found the data dir although the env var is unset


# ----- slash commands against a stand-in of the Messages API ----------------------------------------


class FakeMessagesAPI:
    """A loopback stand-in of the Anthropic Messages API: records each request, answers "ok" (SSE)."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                    self._send("application/json", b'{"input_tokens": 1}')
                    return
                api.requests.append(body)
                block, delta, stop = api.reply(body)
                usage = {"input_tokens": 1, "output_tokens": 1}
                message = {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model", "m"),
                           "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}
                stream = [("message_start", {"type": "message_start", "message": message}),
                          ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
                          ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
                          ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                          ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 1},
                                             "delta": {"stop_reason": stop, "stop_sequence": None}}),
                          ("message_stop", {"type": "message_stop"})]
                self._send("text/event-stream",
                           b"".join(f"event: {k}\ndata: {json.dumps(v)}\n\n".encode() for k, v in stream))

            def _send(self, kind: str, data: bytes) -> None:
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def reply(self, body: dict) -> tuple[dict, dict, str]:
        """The answer's content block, its one delta and the stop reason: the text "ok" (subclasses answer
        otherwise)."""
        return {"type": "text", "text": ""}, {"type": "text_delta", "text": "ok"}, "end_turn"

    def user_text(self) -> str:
        """Every text block of the user messages of the last request (token counts are not requests)."""
        last = self.requests[-1]["messages"]
        blocks = [b for m in last if m["role"] == "user"
                  for b in (m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}])]
        return "\n".join(b.get("text", "") for b in blocks)


@pytest.fixture()
def api() -> Iterator[FakeMessagesAPI]:
    fake = FakeMessagesAPI()
    fake.thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


def test_bare_slash_doctor_runs_scree_doctor_and_the_model_gets_its_report(installed, api) -> None:
    events = run_session(installed, "/scree-doctor", api.url, until="result")
    assert events[-1]["is_error"] is False and api.requests, events[-1]
    text = api.user_text()
    assert "<command-name>/scree:scree-doctor</command-name>" in text
    assert "Above is the output of `scree doctor`" in text
    for check in ("python", "sqlite", "sqlite-vec", "embedder", "index", "writer", "hooks", "uv"):
        assert any(line.split()[1:2] == [check] for line in text.splitlines() if line[:4] in ("ok  ", "warn", "FAIL", "info"))


def test_bare_slash_reindex_runs_scree_reindex_and_the_model_gets_its_output(installed, api) -> None:
    events = run_session(installed, "/scree-reindex", api.url, until="result")
    assert events[-1]["is_error"] is False and api.requests, events[-1]
    text = api.user_text()
    assert "<command-name>/scree:scree-reindex</command-name>" in text
    assert "Above is the output of `scree reindex`" in text
    # It synced (the README is new, or an earlier session on this worker indexed it already), or the
    # session's MCP server holds the writer lock and the model is told so.
    synced = (f"{installed.project}: 1 added", f"{installed.project}: 0 added, 0 updated, 0 removed, 1 unchanged")
    assert any(s in text for s in synced) or "is being written by" in text, text[-2000:]


# ----- what the model is taught about expected_answer (issue 28) -------------------------------------


class SkillLoadingAPI(FakeMessagesAPI):
    """Answers the session's first turn by loading the scree skill (the Skill tool), then "ok"."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = False

    def reply(self, body: dict) -> tuple[dict, dict, str]:
        if self.asked or not any(t.get("name") == "Skill" for t in body.get("tools") or []):
            return super().reply(body)  # a side request of Claude Code's, or the turn after the skill loaded
        self.asked = True
        block = {"type": "tool_use", "id": "toolu_skill_1", "name": "Skill", "input": {}}
        return block, {"type": "input_json_delta", "partial_json": json.dumps({"skill": "scree:scree"})}, "tool_use"


def test_the_model_is_taught_expected_answer_by_the_tool_schema_the_skill_and_the_session_line(installed) -> None:
    api = SkillLoadingAPI()
    api.thread.start()
    try:
        events = run_session(installed, "where are retries described?", api.url, until="result")
    finally:
        api.server.shutdown()
        api.server.server_close()
    assert events[-1]["is_error"] is False and api.asked, events[-1]
    first = next(r for r in api.requests if any(t.get("name") == "Skill" for t in r.get("tools") or []))
    (tool,) = [t for t in first["tools"] if t["name"] == "mcp__plugin_scree_scree__search_docs"]
    param = tool["input_schema"]["properties"]["expected_answer"]
    assert "expected_answer" not in tool["input_schema"].get("required", [])
    assert "question in plain language" in param["description"] and "Leave it out for a bare name" in param["description"]
    assert "expected_answer" in tool["description"]
    sent = json.dumps(first["messages"])
    listing = sent[sent.index("- scree:scree: "):][:600]  # the skill list the model chooses from
    assert "expected_answer" in listing.split("\\n")[0], listing
    assert "SessionStart hook additional context: " in sent and "pass expected_answer too" in sent
    # The model loaded the skill: its body teaches when to fill the parameter, with an example.
    loaded = json.dumps(api.requests[-1]["messages"])
    assert "Base directory for this skill" in loaded, loaded[-2000:]
    assert "Add your guess at the answer (`expected_answer`)" in loaded and 'expected_answer=\\"Failed uploads' in loaded


# ----- uv off PATH, and a server Claude Code does not connect (issue 29) ---------------------------


def _session_start_line(events: list[dict]) -> str:
    (response,) = [e for e in events if e.get("subtype") == "hook_response" and e.get("hook_event") == "SessionStart"]
    return json.loads(response["output"])["hookSpecificOutput"]["additionalContext"]


def _path_without_uv(path: str) -> str:
    """PATH minus every folder holding a `uv`: the session's Claude Code cannot find it there."""
    return os.pathsep.join(d for d in path.split(os.pathsep) if d and not os.access(os.path.join(d, "uv"), os.X_OK))


def _init_session(installed: Installed, env: dict[str, str]) -> list[dict]:
    closed = _closed_port()
    saved, installed.env = installed.env, env
    try:
        return run_session(installed, "x", f"http://127.0.0.1:{closed.getsockname()[1]}", until="init")
    finally:
        installed.env = saved
        closed.close()


def _server_status(events: list[dict]) -> list[str]:
    return [s["status"] for s in events[-1]["mcp_servers"] if s["name"] == SERVER]


def test_a_session_whose_path_lacks_uv_connects_the_server_through_uv_in_local_bin(
        tmp_path: Path, claude_bin: str) -> None:
    plugin = Installed(tmp_path, claude_bin)
    plugin.install()
    env = {**plugin.env, "PATH": _path_without_uv(plugin.env["PATH"])}
    if shutil.which("uv", path=env["PATH"]):
        pytest.skip("uv is installed where every PATH has it")
    (plugin.home / ".local" / "bin").mkdir(parents=True)
    (plugin.home / ".local" / "bin" / "uv").symlink_to(UV)  # where uv's own installer puts it
    events = _init_session(plugin, env)
    assert _server_status(events) == ["connected"]
    assert "mcp__plugin_scree_scree__search_docs" in events[-1]["tools"]
    assert "mcp__plugin_scree_scree__search_docs" in _session_start_line(events)


def test_with_no_uv_anywhere_the_server_is_connected_and_the_session_line_says_it_sets_itself_up(
        tmp_path: Path, claude_bin: str) -> None:
    """The relay needs only python3 (issue 35): Claude Code sees it connected, with its tools, and the
    session line says search answers in this session once uv is fetched and the environment built."""
    plugin = Installed(tmp_path, claude_bin)
    plugin.install()
    no_uv = {k: v for k, v in plugin.env.items() if k != "SCREE_SYNC_COMMAND"}  # the hook looks for uv itself
    no_uv["PATH"] = _path_without_uv(plugin.env["PATH"])
    if shutil.which("uv", path=no_uv["PATH"]):
        pytest.skip("uv is installed where every PATH has it")
    no_uv["SCREE_UV_INDEX"] = "http://127.0.0.1:9/pypi"  # the session ends before any call needs it
    events = _init_session(plugin, no_uv)
    assert _server_status(events) == ["connected"]
    assert "mcp__plugin_scree_scree__search_docs" in events[-1]["tools"]
    line = _session_start_line(events)
    assert "setting itself up" in line and "in this session" in line and "next session" not in line
    assert "mcp__plugin_scree_scree__search_docs" in line


def test_a_server_claude_code_reports_failed_or_skipped_gets_a_session_line_naming_no_scree_tool(
        tmp_path: Path, claude_bin: str) -> None:
    plugin = Installed(tmp_path, claude_bin)
    plugin.install()
    # The server run whole in the session (SCREE_ENGINE=off) with no uv anywhere fails to start.
    no_uv = {k: v for k, v in plugin.env.items() if k != "SCREE_SYNC_COMMAND"}
    no_uv["PATH"] = _path_without_uv(plugin.env["PATH"])
    no_uv["SCREE_ENGINE"] = "off"
    if shutil.which("uv", path=no_uv["PATH"]):
        pytest.skip("uv is installed where every PATH has it")
    failed = _init_session(plugin, no_uv)
    assert _server_status(failed) == ["failed"]
    # uv is back, but Claude Code skips a server that failed (15 minutes): it reports it failed at once.
    skipped = _init_session(plugin, plugin.env)
    assert _server_status(skipped) == ["failed"]
    assert not any(t.startswith("mcp__plugin_scree_scree__") for t in skipped[-1]["tools"])
    line = _session_start_line(skipped)
    assert line.startswith("scree's notes search is not connected in this session")
    assert "mcp__plugin_scree_scree__" not in line and "/mcp reconnect plugin:scree:scree" in line
