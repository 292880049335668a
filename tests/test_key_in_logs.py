"""The API key never reaches any output at any log level, whoever writes the line: a gateway that echoes
the `Authorization` header in its answers made httpcore's DEBUG line (`receive_response_headers`) print
the key through scree's handler in doctor, reindex, search and serve (issue 26, item 5).

Real processes against a real HTTP server on 127.0.0.1 that echoes the header back, whole and as the
bare key; the key is a canary that looks like no key, so only scrubbing by its value can hide it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT, write
from helpers.fake_openai import FakeOpenAI

pytestmark = pytest.mark.timeout(180)

CANARY = "canaryQx7Lw2Vz9Kp4Tn"  # no `sk-` prefix, no key-like field: found only by its value
TOKEN = "tokenCanaryMb8Hr3Yc"


@pytest.fixture
def echoing() -> FakeOpenAI:
    with FakeOpenAI(native=64, echo_key=True) as server:
        yield server


def _env(server: FakeOpenAI, data: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "server"), "XDG_DATA_HOME": str(data),
           "SCREE_EMBEDDER": "api", "SCREE_API_BASE": server.base_url, "SCREE_API_KEY": CANARY,
           "SCREE_LOG_LEVEL": "DEBUG"}
    env.pop("SCREE_TEST_EMBEDDER", None)
    return env


def _scree(env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    done = subprocess.run([sys.executable, "-m", "scree.cli", *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=120)
    return done.stdout + done.stderr


def _stdio_session(folder: Path) -> str:
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "reindex", "arguments": {}}},
             {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
              "params": {"name": "search_docs", "arguments": {"query": "how are the backups rotated", "mode": "hybrid"}}}]
    return "".join(json.dumps(m) + "\n" for m in lines)


def test_an_echoed_key_never_reaches_any_output_at_debug(echoing: FakeOpenAI, tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    (folder / ".git").mkdir(parents=True)
    write(folder, "ops.md", "# Operations\n\n## Backups\n\nNightly backups rotate through seven tapes.\n")
    env = _env(echoing, tmp_path / "data")
    outputs = {
        "reindex": _scree(env, "reindex", "--notes", str(folder)),
        "search": _scree(env, "search", "--notes", str(folder), "--mode", "hybrid", "how are backups rotated"),
        "doctor": _scree(env, "doctor", "--notes", str(folder), "-v"),
        "serve": _scree({**env, "SCREE_HTTP_TOKEN": TOKEN}, "serve", "--notes", str(folder), "--no-watch",
                        stdin=_stdio_session(folder)),
    }
    assert echoing.requests and all(r.headers.get("Authorization") == f"Bearer {CANARY}" for r in echoing.requests)
    for command, text in outputs.items():
        # The echoed headers were logged (so the test saw the path that leaked), hidden.
        assert "receive_response_headers" in text and "[hidden]" in text, (command, text[-3000:])
        assert CANARY not in text and CANARY[:12] not in text, (command, text[-3000:])
        assert TOKEN not in text
