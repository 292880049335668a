"""The suite's fake embedder keeps the Embedder contract, and the test-only seam that selects it."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import numpy as np
import pytest

from fake_embedder import ID, MAX_WINDOWS, WINDOW_WORDS, FakeEmbedder
from scree.embed import Embedder, Passage, make_embedder
from scree.errors import ConfigError


def test_fake_satisfies_the_protocol_with_unit_float32_vectors() -> None:
    fake = FakeEmbedder()
    assert isinstance(fake, Embedder)
    (vectors,) = fake.embed_passages([Passage("a.md\nA", "audit logs are kept ninety days")])
    query = fake.embed_query("")
    for v in (vectors[0], query):
        assert v.dtype == np.float32 and v.shape == (fake.dimensions,)
        assert abs(float(np.linalg.norm(v)) - 1.0) < 1e-5


def test_shared_words_point_the_same_way_and_unrelated_text_does_not() -> None:
    fake = FakeEmbedder()
    near, far = (v[0] for v in fake.embed_passages([Passage("ops/retention.md", "audit logs are kept ninety days"),
                                                     Passage("team/pager.md", "the pager rotates weekly")]))
    query = fake.embed_query("audit logs kept")
    assert float(query @ near) > float(query @ far)


def test_a_long_body_is_windowed_up_to_max_windows() -> None:
    body = " ".join(f"w{i}" for i in range(WINDOW_WORDS * (MAX_WINDOWS + 3)))
    (vectors,) = FakeEmbedder().embed_passages([Passage("long.md", body)])
    assert vectors.shape == (MAX_WINDOWS, FakeEmbedder.dimensions)
    assert not np.allclose(vectors[0], vectors[1])


def test_close_and_trim_are_counted_and_close_unloads() -> None:
    fake = FakeEmbedder()
    fake.embed_query("x")
    assert fake.loaded
    fake.trim()
    assert fake.loaded and fake.trims == 1
    fake.close()
    assert not fake.loaded and fake.closes == 1


def test_the_name_fake_exists_only_while_the_test_seam_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    assert make_embedder("fake").id == ID  # conftest sets the seam for every test
    monkeypatch.delenv("SCREE_TEST_EMBEDDER")
    with pytest.raises(ConfigError, match="unknown embedder 'fake'"):
        make_embedder("fake")


def test_a_subprocess_gets_the_same_vectors_without_loading_onnxruntime() -> None:
    code = (
        "import sys\n"
        "from scree.config import load_config; from scree.embed import make_embedder\n"
        "e = make_embedder(load_config().embedder)\n"
        "print(e.id); print(repr(e.embed_query('audit logs kept').tolist()))\n"
        "assert 'onnxruntime' not in sys.modules\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy(),
                         check=False, timeout=60)
    assert out.returncode == 0, out.stderr
    ident, vector = out.stdout.splitlines()
    assert ident == ID
    assert np.allclose(np.array(ast.literal_eval(vector), dtype=np.float32), FakeEmbedder().embed_query("audit logs kept"))
