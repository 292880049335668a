"""The OpenAI-compatible API embedder against a real HTTP server on 127.0.0.1 (tests/helpers/fake_openai.py),
with injected faults: what is retried, what is stored, that nothing is lost and that the key never shows."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pytest

from helpers.fake_openai import FakeOpenAI, Fault, hashed_vector
from scree.embed import Passage
from scree.embed.api import (
    ApiEmbedder,
    ApiSettings,
    Attempts,
    estimate_tokens,
    group_requests,
    model_info,
    plan_windows,
    retry_after_seconds,
    scrub,
)
from scree.errors import ConfigError, EmbedderError, EmbedderUnavailable

KEY = "sk-or-v1-" + "5ec2e7" * 10  # looks like a real OpenRouter key, so pattern-based scrubbing is tested too

# Timeouts and backoff shrunk so faults cost milliseconds; the attempt counts are the real ones.
FAST = dict(query=Attempts(timeout=0.5, attempts=2, max_retry_after=2.0),
            indexing=Attempts(timeout=0.5, attempts=3, max_retry_after=2.0),
            backoff=0.01, backoff_cap=0.02)


@pytest.fixture()
def server():
    with FakeOpenAI(native=64) as s:
        yield s


def make(server: FakeOpenAI, **overrides: object) -> ApiEmbedder:
    settings = ApiSettings(base_url=server.base_url, model="openai/text-embedding-3-small", dimensions=32, key=KEY,
                           **FAST)  # type: ignore[arg-type]
    return ApiEmbedder(replace(settings, **overrides))


def expected(text: str, dims: int = 32) -> np.ndarray:
    v = np.asarray(hashed_vector(text, dims), dtype=np.float64)
    return (v / np.linalg.norm(v)).astype(np.float32)


PASSAGES = [Passage("a.md\nAlpha", "the quick brown fox"), Passage("b.md\nBeta", "jumps over"),
            Passage("c.md\nGamma", "the lazy dog")]


# ----- the happy path and the request -----------------------------------------------------------------


def test_passages_come_back_as_unit_rows_in_input_order(server):
    e = make(server)
    out = e.embed_passages(PASSAGES)
    assert [v.shape for v in out] == [(1, 32)] * 3
    for passage, vectors in zip(PASSAGES, out):  # the server answers in reverse: order is by `index`
        np.testing.assert_allclose(vectors[0], expected(passage.text), atol=1e-6)
    (req,) = server.requests
    assert req.body == {"model": "openai/text-embedding-3-small", "input": [p.text for p in PASSAGES],
                        "dimensions": 32}
    assert req.headers["Authorization"] == f"Bearer {KEY}"


def test_a_query_is_one_vector_of_the_configured_width(server):
    v = make(server).embed_query("where is the fox")
    assert v.shape == (32,) and v.dtype == np.float32
    np.testing.assert_allclose(v, expected("where is the fox"), atol=1e-6)


def test_dimensions_are_sent_only_to_models_that_take_them(server):
    ollama = make(server, model="nomic-embed-text:latest", dimensions=512)
    assert ollama.dimensions == 768 and "dimensions" not in ollama.request_body(["x"])
    native = make(server, dimensions=0)
    assert native.dimensions == 1536 and "dimensions" not in native.request_body(["x"])
    unknown = make(server, model="acme/embedder-xl", dimensions=64)  # checked against answers, not sent
    assert unknown.dimensions == 64 and "dimensions" not in unknown.request_body(["x"])
    assert len(unknown.embed_query("hello")) == 64
    with pytest.raises(ConfigError, match="SCREE_DIMENSIONS"):
        make(server, model="acme/embedder-xl", dimensions=0)
    with pytest.raises(ConfigError, match="1536"):
        make(server, dimensions=4096)


def test_the_id_names_host_model_and_width_so_a_change_re_embeds(server):
    e = make(server)
    assert e.id == f"api:127.0.0.1:{server.port}:openai/text-embedding-3-small:32"
    others = {make(server, dimensions=16).id, make(server, model="openai/text-embedding-3-large").id,
              make(server, base_url="http://localhost:9/v1").id}
    assert e.id not in others and len(others) == 3


def test_bad_settings_are_config_errors_naming_the_variable(server):
    with pytest.raises(ConfigError, match="SCREE_API_BASE"):
        make(server, base_url="openrouter.ai/api/v1")
    with pytest.raises(ConfigError, match="SCREE_MODEL"):
        make(server, model=" ")


def test_requests_hold_at_most_64_inputs_and_up_to_4_run_at_once():
    with FakeOpenAI(native=64, delay=60.0) as held:  # each request waits until the test releases it
        e = make(held)
        passages = [Passage(f"n{i}.md\nT", f"note number {i}") for i in range(64 * 6)]
        with ThreadPoolExecutor(1) as pool:
            future = pool.submit(e.embed_passages, passages)
            with held.state.cond:
                assert held.state.cond.wait_for(lambda: held.state.active == 4, timeout=15.0)
            held.state.release.set()
            out = future.result(timeout=15.0)
        assert len(out) == 384
        sizes = [len(r.body["input"]) for r in held.requests]
        assert sorted(sizes) == [64] * 6
        assert held.state.max_active == 4  # four were in flight at once, never a fifth of the six
        np.testing.assert_allclose(out[200][0], expected(passages[200].text), atol=1e-6)


# ----- windows and budgets (pure) ---------------------------------------------------------------------


def test_a_chunk_fits_one_window_of_an_8191_token_model():
    body = "word " * 700  # 3,500 bytes: the chunker's largest chunk
    assert plan_windows(Passage("a.md\nTrail", body), model_info("openai/text-embedding-3-small").max_tokens) == [
        f"a.md\nTrail\n\n{body}"]


def test_a_long_chunk_is_split_by_the_model_limit_with_header_and_overlap():
    words = [f"w{i:03d}" for i in range(600)]
    windows = plan_windows(Passage("docs/x.md\nGuide > Setup", " ".join(words)), 128)
    assert len(windows) > 1
    assert all(w.startswith("docs/x.md\nGuide > Setup\n\n") for w in windows)
    assert all(estimate_tokens(w) <= 128 for w in windows)
    seen = [w.split("\n\n", 1)[1].split() for w in windows]
    assert set(words) == {x for part in seen for x in part}  # nothing is left out
    assert all(set(a) & set(b) for a, b in zip(seen, seen[1:]))  # consecutive windows overlap


def test_windows_are_capped_and_a_run_without_spaces_is_cut():
    windows = plan_windows(Passage("h", "x" * 10_000), 100, max_windows=5)
    assert len(windows) == 5 and all(estimate_tokens(w) <= 100 for w in windows)


def test_token_estimate_leans_high_for_text_that_is_not_ascii():
    assert estimate_tokens("abcdef") == 2
    assert estimate_tokens("日本語") == 3


def test_requests_respect_both_the_input_count_and_the_token_budget():
    assert [len(g) for g in group_requests([1] * 130, max_inputs=64, budget=10_000)] == [64, 64, 2]
    assert [len(g) for g in group_requests([400] * 5, max_inputs=64, budget=1000)] == [2, 2, 1]
    assert [len(g) for g in group_requests([5000, 1], max_inputs=64, budget=1000)] == [1, 1]


def test_retry_after_reads_seconds_and_http_dates():
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None


def test_scrub_hides_the_key_bearer_tokens_and_key_fields():
    text = f"Authorization: Bearer {KEY}; api_key={KEY[:20]}xyz; key {KEY}; other sk-abcdefghijkl"
    out = scrub(text, [KEY])
    assert KEY not in out and KEY[:20] not in out and "sk-abcdefghijkl" not in out
    assert out.count("[hidden]") >= 4


# ----- faults: what is retried -----------------------------------------------------------------------


def test_429_waits_for_retry_after_then_succeeds(server):
    server.add_faults(Fault("429", retry_after="1"))
    began = time.monotonic()
    out = make(server).embed_passages(PASSAGES[:1])
    assert time.monotonic() - began >= 1.0  # honoured, not retried early
    assert [r.fault for r in server.requests] == ["429", None]
    np.testing.assert_allclose(out[0][0], expected(PASSAGES[0].text), atol=1e-6)


def test_a_retry_after_longer_than_the_caller_can_wait_fails_at_once(server):
    server.add_faults(Fault("429", retry_after="120"))
    with pytest.raises(EmbedderUnavailable, match="120 s"):
        make(server).embed_passages(PASSAGES[:1])
    assert len(server.requests) == 1


def test_500_and_503_are_retried(server):
    server.add_faults("500", "503")
    out = make(server).embed_passages(PASSAGES)
    assert [r.fault for r in server.requests] == ["500", "503", None]
    assert len(out) == 3


def test_server_errors_past_three_attempts_fail_naming_the_endpoint(server):
    server.add_faults("500", "503", "500", "500")
    e = make(server)
    with pytest.raises(EmbedderUnavailable) as info:
        e.embed_passages(PASSAGES)
    assert len(server.requests) == 3
    assert f"http://127.0.0.1:{server.port}/v1/embeddings" in str(info.value)
    assert "keyword search still works" in str(info.value)


def test_a_hang_past_the_timeout_is_retried(server):
    server.add_faults("hang")
    out = make(server).embed_passages(PASSAGES[:2])
    assert [r.fault for r in server.requests] == ["hang", None]
    assert len(out) == 2


@pytest.mark.parametrize("batch_inputs", [1, 64], ids=["three requests", "one request"])
def test_a_stop_request_abandons_the_requests_in_flight(server, batch_inputs):
    from scree.errors import EmbedStopped

    server.add_faults("hang", "hang", "hang")  # no answer until the server stops
    stop = threading.Event()
    threading.Thread(target=lambda: (server.wait_for_requests(1), stop.set()), daemon=True).start()
    with pytest.raises(EmbedStopped):
        make(server, batch_inputs=batch_inputs).embed_passages(PASSAGES, should_stop=stop.is_set)


def test_a_query_gives_up_after_two_attempts_then_fails_fast_while_the_outage_is_fresh(server):
    server.add_faults("hang", "hang")
    e = make(server)
    with pytest.raises(EmbedderUnavailable, match="no answer within 0.5 s after 2 attempts"):
        e.embed_query("fox")
    assert len(server.requests) == 2
    with pytest.raises(EmbedderUnavailable):
        e.embed_query("fox")
    assert len(server.requests) == 2  # remembered: no third wait on a dead API
    e2 = make(server, quiet_after_outage=0.0)
    assert e2.embed_query("fox").shape == (32,)


def test_connection_refused_is_retried_then_reported(server):
    e = make(server)
    server.go_down()
    with pytest.raises(EmbedderUnavailable, match="ConnectError"):
        e.embed_passages(PASSAGES)
    server.come_up()
    assert len(e.embed_passages(PASSAGES)) == 3  # the same embedder recovers


def test_other_4xx_fail_at_once_with_the_provider_message(server):
    server.add_faults("echo_headers")
    with pytest.raises(EmbedderError) as info:
        make(server).embed_passages(PASSAGES)
    assert not isinstance(info.value, EmbedderUnavailable)
    assert len(server.requests) == 1
    assert "bad request, headers were" in str(info.value) and "[hidden]" in str(info.value)
    assert KEY not in str(info.value)


@pytest.mark.parametrize("fault, words", [("malformed", "not JSON"), ("wrong_count", "1 embeddings for 3 inputs"),
                                          ("nan", "NaN"), ("error_200", "upstream provider returned 502")])
def test_a_bad_answer_is_an_error_naming_the_endpoint_and_is_not_used(server, fault, words):
    server.add_faults(fault)
    with pytest.raises(EmbedderUnavailable) as info:
        make(server).embed_passages(PASSAGES)
    assert words in str(info.value) and f"127.0.0.1:{server.port}/v1/embeddings" in str(info.value)
    assert "nothing from it was stored" in str(info.value)
    assert len(server.requests) == 1


def test_wrong_dimensions_name_the_setting_to_fix(server):
    server.add_faults("wrong_dims")
    with pytest.raises(EmbedderError, match="33-dimensional .* expected 32.*SCREE_DIMENSIONS=0"):
        make(server).embed_passages(PASSAGES)


def test_a_failed_request_fails_the_whole_batch(server):
    server.add_faults("echo_headers")  # one of three parallel requests is refused for good
    e = make(server, batch_inputs=1, in_flight=2)
    with pytest.raises(EmbedderError, match="bad request"):
        e.embed_passages(PASSAGES)


# ----- zero data retention ----------------------------------------------------------------------------


@pytest.fixture()
def openrouter_via_proxy(server, monkeypatch):
    """`http://openrouter.ai/...` requests land on the fake server, acting as an HTTP proxy: the request
    and its body are exactly what would leave the machine for OpenRouter."""
    for var in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.port}")
    return "http://openrouter.ai/api/v1"


def test_openrouter_requests_ask_for_zero_retention_and_no_data_collection(server, openrouter_via_proxy):
    make(server, base_url=openrouter_via_proxy).embed_passages(PASSAGES[:1])
    (req,) = server.requests
    assert req.path == "http://openrouter.ai/api/v1/embeddings"
    assert req.body["provider"] == {"zdr": True, "data_collection": "deny"}


def test_zdr_off_or_another_host_sends_no_provider_fields(server, openrouter_via_proxy):
    make(server, base_url=openrouter_via_proxy, zdr=False).embed_passages(PASSAGES[:1])
    make(server).embed_passages(PASSAGES[:1])  # 127.0.0.1, zdr on: not OpenRouter
    assert [("provider" in r.body) for r in server.requests] == [False, False]


def test_no_zero_retention_endpoint_fails_naming_the_model_and_never_falls_back(server, openrouter_via_proxy):
    server.add_faults("no_zdr")
    with pytest.raises(EmbedderError) as info:
        make(server, base_url=openrouter_via_proxy).embed_passages(PASSAGES[:1])
    assert "openai/text-embedding-3-small" in str(info.value) and "SCREE_ZDR=0" in str(info.value)
    assert len(server.requests) == 1 and server.requests[0].body["provider"]["zdr"] is True


# ----- through sync, search and the live index: nothing is lost -----------------------------------------


def notes_folder(tmp_path, n: int = 6):
    from conftest import write

    folder = tmp_path / "notes"
    for i in range(n):
        write(folder, f"note{i}.md", f"# Note {i}\n\nTopic {i}: how the widget number {i} is calibrated.\n")
    return folder


def open_ws(folder):
    from scree.config import Config
    from scree.workspace import Workspace

    ws = Workspace.from_config(Config(notes=folder))
    return ws, ws.open_index()


def snapshot(index, embedder) -> dict[str, tuple[str | None, dict]]:
    """Every file's stored hash and chunk vectors: what a clean sync must also produce."""
    from scree.db import queries

    return {path: (f.sha256, {k: v.round(5).tobytes() for k, v in
                              queries.stored_chunk_vectors(index.conn, path, embedder.max_windows).items()})
            for path, f in queries.stored_files(index.conn).items()}


def test_a_bad_answer_stores_nothing_and_the_next_sync_retries(server, tmp_path):
    from scree.db import queries
    from scree.index.sync import sync

    ws, index = open_ws(notes_folder(tmp_path, 3))
    e = make(server)
    server.add_faults("malformed")
    report = sync(index, ws.policy(), e)  # stage one stored the text; stage two stored no vector
    assert len(report.added) == 3 and report.vectors_missing == 3
    assert queries.vector_progress(index.conn).embedded == 0 and queries.counts(index.conn).incomplete_files == 0
    report = sync(index, ws.policy(), e)
    assert report.added == [] and report.chunks == 3 and queries.vector_progress(index.conn).complete


@pytest.mark.parametrize("fault", [Fault("429", retry_after="0"), "500", "503", "hang"])
def test_a_sync_retries_through_passing_faults_and_stores_what_a_clean_sync_stores(server, tmp_path, fault):
    from scree.index.sync import sync

    folder = notes_folder(tmp_path, 4)
    ws, index = open_ws(folder)
    e = make(server, batch_inputs=2, in_flight=2)
    server.add_faults(fault)
    report = sync(index, ws.policy(), e)
    assert len(report.added) == 4
    assert [r.fault for r in server.requests].count(fault.kind if isinstance(fault, Fault) else fault) == 1
    assert len(server.requests) == 3  # two requests, one of them retried once
    from scree.config import Config
    from scree.workspace import Workspace

    clean_ws = Workspace.from_config(Config(notes=folder, db=tmp_path / "clean.db"))
    clean = clean_ws.open_index()
    sync(clean, clean_ws.policy(), e)
    assert snapshot(index, e) == snapshot(clean, e)


@pytest.mark.parametrize("fault", ["malformed", "wrong_count", "nan", "wrong_dims"])
def test_a_sync_given_a_bad_answer_stores_nothing_of_that_batch_and_the_next_sync_completes(server, tmp_path, fault):
    from scree.db import queries
    from scree.index.sync import sync

    ws, index = open_ws(notes_folder(tmp_path, 4))
    e = make(server, batch_inputs=2, in_flight=1)  # sync hands two passages per call
    server.add_faults("pass", fault)  # the first call's vectors are stored, the second call fails
    try:
        sync(index, ws.policy(), e)
    except EmbedderError:
        pass  # a fault that needs a fix ends the sync; one that may pass leaves a warning
    stored = queries.stored_files(index.conn)
    assert len(stored) == 4 and all(f.sha256 for f in stored.values()) and queries.counts(index.conn).chunks == 4
    assert queries.vector_progress(index.conn).embedded == 2  # the bad batch stored nothing
    report = sync(index, ws.policy(), e)
    assert report.added == [] and report.unchanged == 4 and report.chunks == 2
    assert queries.vector_progress(index.conn).complete


def test_connection_refused_mid_sync_loses_nothing_and_the_next_sync_completes(server, tmp_path):
    from scree.db import queries
    from scree.index.sync import sync

    folder = notes_folder(tmp_path, 6)
    ws, index = open_ws(folder)
    e = make(server, batch_inputs=1, in_flight=1)  # sync hands over one passage per call: six calls
    # Two requests answer, the third drops its connection and the server stops listening.
    server.add_faults("pass", "pass", "down")
    report = sync(index, ws.policy(), e)
    assert any("ConnectError" in w or "RemoteProtocolError" in w or "ReadError" in w for w in report.warnings)
    stored = queries.stored_files(index.conn)
    assert len(stored) == 6 and all(f.sha256 for f in stored.values())  # stage one is whole
    assert queries.vector_progress(index.conn).embedded == 2 and report.vectors_missing == 4
    server.come_up()
    e = make(server, batch_inputs=1, in_flight=1)  # a new process: no outage remembered
    report = sync(index, ws.policy(), e)
    assert report.added == [] and report.unchanged == 6 and report.chunks == 4
    # The same as one clean sync into a fresh index.
    from scree.config import Config
    from scree.workspace import Workspace

    clean_ws = Workspace.from_config(Config(notes=folder, db=tmp_path / "clean.db"))
    clean = clean_ws.open_index()
    sync(clean, clean_ws.policy(), e)
    assert snapshot(index, e) == snapshot(clean, e)


def test_changing_model_or_width_re_embeds_instead_of_mixing(server, tmp_path):
    from scree.index.sync import sync

    ws, index = open_ws(notes_folder(tmp_path, 2))
    sync(index, ws.policy(), make(server))
    report = sync(index, ws.policy(), make(server, dimensions=16))
    assert report.reset and "re-embedding every file" in report.reset and len(report.updated) == 2


def test_search_answers_from_keywords_while_the_api_is_down_in_every_mode(server, tmp_path):
    from scree.search.search import Query, search
    from scree.index.sync import sync

    ws, index = open_ws(notes_folder(tmp_path, 3))
    e = make(server)
    sync(index, ws.policy(), e)
    server.go_down()
    for mode in ("auto", "hybrid", "semantic"):
        result = search(index, ws.policy(), e, Query("how is widget number 2 calibrated", k=3, mode=mode))
        assert result.mode == "keyword" and result.hits and result.hits[0].path == "note2.md"
        assert any(n.startswith("keyword results only: the embeddings API at http://127.0.0.1") for n in result.notes)


def test_a_refused_key_fails_a_chosen_mode_but_auto_still_answers(server, tmp_path):
    from scree.search.search import Query, search
    from scree.index.sync import sync

    ws, index = open_ws(notes_folder(tmp_path, 2))
    e = make(server)
    sync(index, ws.policy(), e)
    server.add_faults("echo_headers", "echo_headers")
    with pytest.raises(EmbedderError, match="rejected"):
        search(index, ws.policy(), e, Query("how is widget number 1 calibrated", mode="hybrid"))
    result = search(index, ws.policy(), e, Query("how is widget number 1 calibrated", mode="auto"))
    assert result.hits and any("rejected" in n for n in result.notes)


def test_the_live_index_pauses_during_an_outage_then_resyncs_what_changed(server, tmp_path):
    from conftest import eventually, write
    from scree.live.live import LiveIndex
    from scree.search.search import Query

    folder = notes_folder(tmp_path, 3)
    ws, index = open_ws(folder)
    index.close()
    server.go_down()
    e = make(server, quiet_after_outage=60.0)
    live = LiveIndex(ws, watch=False, embedder=e, outage_pause=(0.2, 0.4), health_interval=60.0)
    live.start()
    try:
        assert eventually(lambda: live.status().state == "paused", 10.0)
        assert "embeddings API" in live.status().describe()
        # 0.2 s, then doubled to the cap: each pause ended in a full resync that failed again.
        assert eventually(lambda: "next try in 0.4 s" in live.status().describe(), 10.0)
        # Stage one does not wait for the embedder: every note answers by keyword during the outage.
        result = live.search(Query("how is widget number 2 calibrated", mode="hybrid"))
        assert result.hits and result.hits[0].path == "note2.md" and result.mode == "keyword"
        write(folder, "note1.md", "# Note 1\n\nRewritten during the outage: sprocket alignment.\n")
        write(folder, "extra.md", "# Extra\n\nAdded during the outage.\n")
        # The next resync after a pause re-chunks them, the API still down: searchable before it is back.
        assert eventually(lambda: [h.path for h in live.search(Query("sprocket alignment", mode="keyword")).hits]
                          == ["note1.md"], 10.0)
        assert live.status().vectors_done == 0
        server.come_up()
        assert eventually(lambda: live.status().state == "complete" and live.status().indexed_files == 4, 10.0)
        hits = live.search(Query("sprocket alignment", mode="keyword")).hits
        assert [h.path for h in hits] == ["note1.md"]
        assert live.search(Query("what was added during the outage", mode="semantic")).mode == "semantic"
    finally:
        live.stop()


def test_a_first_build_with_the_api_down_is_keyword_searchable_and_vectors_follow_when_it_is_back(
        server, tmp_path):
    from scree.db import invariants, queries
    from scree.search.search import Query, search
    from scree.index.sync import sync

    ws, index = open_ws(notes_folder(tmp_path, 3))
    e = make(server)
    server.go_down()
    report = sync(index, ws.policy(), e)
    assert len(report.added) == 3 and report.chunks == 0 and report.vectors_missing == 3
    assert any("keyword search covers every note" in w for w in report.warnings)
    assert invariants.problems(index.conn, e.max_windows) == []
    result = search(index, ws.policy(), e, Query("how is widget number 2 calibrated", k=3))
    assert result.mode == "keyword" and result.hits[0].path == "note2.md"
    assert "vectors for 0 of 3 chunks; keyword covers all" in result.notes
    server.come_up()
    e = make(server)  # a new process: no outage remembered
    report = sync(index, ws.policy(), e)
    assert report.added == report.updated == [] and report.chunks == 3  # vectors only, nothing re-chunked
    assert queries.vector_progress(index.conn).complete
    assert invariants.problems(index.conn, e.max_windows) == []


def test_a_refused_request_stops_the_live_writer_with_the_fix_and_searches_go_on(server, tmp_path):
    from conftest import eventually
    from scree.live.live import LiveIndex
    from scree.search.search import Query

    ws, index = open_ws(notes_folder(tmp_path, 2))
    index.close()
    server.add_faults("echo_headers")
    live = LiveIndex(ws, watch=False, embedder=make(server), outage_pause=(0.05, 0.1), health_interval=60.0)
    live.start()
    try:
        assert eventually(lambda: live.status().state == "not_updating", 10.0)
        assert "rejected the embeddings request" in live.status().describe() and KEY not in live.status().describe()
        assert len(server.requests) == 1  # not retried, not paused and resent
        assert live.search(Query("widget", mode="keyword")).notes  # answers, saying why it is not updating
    finally:
        live.stop()


# ----- the key never shows ------------------------------------------------------------------------------


def _collect(texts: list[str], fn) -> None:  # noqa: ANN001 - a callable that may raise
    import traceback

    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - every failure's text is evidence
        texts += [str(exc), repr(exc), "".join(traceback.format_exception(exc))]


def test_no_message_log_line_or_exception_holds_the_key(server, tmp_path, caplog, openrouter_via_proxy):
    import logging

    caplog.set_level(logging.DEBUG)  # every logger, httpx2's and httpcore2's included
    texts: list[str] = [repr(make(server).settings)]
    e = make(server)
    kinds = ["echo_headers", "500", "503", Fault("429", retry_after="0"), "hang", "malformed", "wrong_dims", "nan",
             "error_200", "wrong_count"]
    for kind in kinds:
        server.add_faults(kind, kind, kind)
        _collect(texts, lambda: e.embed_passages(PASSAGES))
        server.state.faults.clear()
    server.add_faults("echo_headers", "hang", "hang")
    _collect(texts, lambda: make(server).embed_query("fox"))
    _collect(texts, lambda: make(server).embed_query("fox"))
    server.add_faults("no_zdr", "echo_headers")
    zdr = make(server, base_url=openrouter_via_proxy)
    _collect(texts, lambda: zdr.embed_passages(PASSAGES))
    _collect(texts, lambda: zdr.embed_passages(PASSAGES))
    server.state.faults.clear()
    # An outage in the middle of a sync, then a live index paused by it.
    from scree.live.live import LiveIndex
    from scree.search.search import Query
    from scree.index.sync import sync

    ws, index = open_ws(notes_folder(tmp_path, 4))
    server.add_faults("pass", "down")
    _collect(texts, lambda: sync(index, ws.policy(), make(server, batch_inputs=1, in_flight=1)))
    index.close()
    live = LiveIndex(ws, watch=False, embedder=make(server), outage_pause=(0.05, 0.1), health_interval=60.0)
    live.start()
    try:
        from conftest import eventually

        assert eventually(lambda: live.status().state == "paused", 10.0)
        texts.append(live.status().describe())
        texts += live.search(Query("widget calibration", mode="hybrid")).notes
    finally:
        live.stop()
    texts += [r.getMessage() for r in caplog.records] + [caplog.text]
    assert len(texts) > 40 and sum("[hidden]" in t for t in texts) >= 3  # echoed keys were there, and hidden
    assert [t for t in texts if KEY in t or KEY[12:40] in t] == []


# ----- settings, the CLI, doctor and the MCP server -----------------------------------------------------


def api_env(monkeypatch, base_url: str, **extra: str) -> None:
    """The environment a user sets for the API embedder (timeouts stay the real ones: faults here are refusals)."""
    for var in ("OPENROUTER_API_KEY", "OPENAI_API_KEY", "SCREE_MODEL", "SCREE_DIMENSIONS", "SCREE_ZDR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("SCREE_EMBEDDER", "api")
    monkeypatch.setenv("SCREE_API_BASE", base_url)
    monkeypatch.setenv("SCREE_API_KEY", KEY)
    for k, v in extra.items():
        monkeypatch.setenv(k, v)


def test_config_reads_the_api_settings_and_falls_back_for_the_key():
    from scree.config import load_config

    cfg = load_config({"SCREE_EMBEDDER": "api"})
    assert (cfg.api_base, cfg.model, cfg.dimensions, cfg.zdr, cfg.api_key) == (
        "https://openrouter.ai/api/v1", "openai/text-embedding-3-small", 512, 1, None)
    assert load_config({"OPENAI_API_KEY": "k3", "OPENROUTER_API_KEY": "k2"}).api_key == "k2"
    assert load_config({"OPENAI_API_KEY": "k3"}).api_key == "k3"
    cfg = load_config({"SCREE_API_KEY": KEY, "OPENROUTER_API_KEY": "k2", "SCREE_ZDR": "0", "SCREE_DIMENSIONS": "0"})
    assert cfg.api_key == KEY and cfg.zdr == 0 and cfg.dimensions == 0
    assert KEY not in repr(cfg)
    with pytest.raises(ConfigError, match="SCREE_ZDR"):
        load_config({"SCREE_ZDR": "yes please"})
    with pytest.raises(ConfigError, match="SCREE_DIMENSIONS"):
        load_config({"SCREE_DIMENSIONS": "-1"})


def test_make_embedder_builds_the_api_embedder_from_the_config(server):
    from scree.config import Config
    from scree.embed import make_embedder

    e = make_embedder("api", config=Config(embedder="api", api_base=server.base_url, api_key=KEY, dimensions=64))
    assert isinstance(e, ApiEmbedder) and e.dimensions == 64 and e.settings.key == KEY
    assert e.embed_query("hello").shape == (64,)


def test_cli_search_answers_from_keywords_with_a_note_while_the_api_is_down(server, tmp_path, monkeypatch, capsys):
    import json

    from scree.cli import main

    folder = notes_folder(tmp_path, 3)
    api_env(monkeypatch, server.base_url)
    monkeypatch.delenv("SCREE_EMBEDDER")  # the flag instead
    assert main(["index", "--embedder", "api", "--notes", str(folder)]) == 0
    assert {r.body["dimensions"] for r in server.requests} == {512}
    server.go_down()
    capsys.readouterr()
    for mode in ("hybrid", "semantic"):
        assert main(["search", "--embedder", "api", "--notes", str(folder), "--mode", mode, "--json",
                     "how is widget number 1 calibrated"]) == 0
        out = capsys.readouterr()
        doc = json.loads(out.out)
        assert doc["mode"] == "keyword" and doc["results"][0]["path"] == "note1.md"
        assert any(n.startswith("keyword results only: the embeddings API") for n in doc["notes"])
        assert "scree: keyword results only" in out.err and KEY not in out.err + out.out


def test_cli_search_fails_clearly_for_a_refused_request_in_a_chosen_mode(server, tmp_path, monkeypatch, capsys):
    from scree.cli import main

    folder = notes_folder(tmp_path, 2)
    api_env(monkeypatch, server.base_url)
    assert main(["index", "--notes", str(folder)]) == 0
    server.add_faults("echo_headers")
    capsys.readouterr()
    assert main(["search", "--notes", str(folder), "--no-sync", "--mode", "hybrid", "widget"]) == 1
    err = capsys.readouterr().err
    assert "scree: error:" in err and "rejected the embeddings request" in err and KEY not in err


def test_doctor_shows_endpoint_model_width_privacy_key_probe_and_cost_never_the_key(server, tmp_path, monkeypatch,
                                                                                    capsys):
    import json

    from scree.cli import main

    folder = notes_folder(tmp_path, 3)
    api_env(monkeypatch, server.base_url)
    main(["doctor", "--notes", str(folder)])
    out = capsys.readouterr().out
    assert f"http://127.0.0.1:{server.port}/v1/embeddings, model openai/text-embedding-3-small, 512 dimensions" in out
    assert "a key is set (SCREE_API_KEY)" in out and "embedded a probe in" in out
    assert "zero data retention: not applicable" in out
    assert "upper bound" in out and "$0.0000" in out  # 3 tiny notes at $0.02 per million tokens
    main(["doctor", "--notes", str(folder), "--json"])
    report = capsys.readouterr().out
    assert KEY not in report
    checks = {c["name"]: c for c in json.loads(report)["checks"]}
    assert checks["embedder"]["status"] == "ok" and checks["embedder"]["details"]["zdr_requested"] is False
    assert checks["cost"]["details"]["usd_upper_bound"] > 0
    server.go_down()
    assert main(["doctor", "--notes", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  embedder" in out and "unavailable" in out
    assert KEY not in out


def test_doctor_says_zero_retention_is_requested_for_openrouter(server, tmp_path, monkeypatch, capsys,
                                                              openrouter_via_proxy):
    from scree.cli import main

    api_env(monkeypatch, openrouter_via_proxy)
    main(["doctor", "--notes", str(notes_folder(tmp_path, 1))])
    out = capsys.readouterr().out
    assert "zero data retention requested" in out and KEY not in out
    assert server.requests[-1].body["provider"] == {"zdr": True, "data_collection": "deny"}
    monkeypatch.setenv("SCREE_ZDR", "0")
    main(["doctor", "--notes", str(notes_folder(tmp_path / "b", 1))])
    assert "NOT requested" in capsys.readouterr().out and "provider" not in server.requests[-1].body


def test_doctor_fails_without_a_key_for_a_hosted_api_but_not_for_a_local_server(monkeypatch):
    from scree.doctor.doctor import FAIL, OK, WARN
    from scree.doctor.api import check_key

    local = make_server_less(base_url="http://localhost:11434/v1", model="nomic-embed-text")
    hosted = make_server_less()
    assert check_key(hosted, {}).status == FAIL and "SCREE_API_KEY" in (check_key(hosted, {}).fix or "")
    assert check_key(local, {}).status == OK
    shown = check_key(hosted, {"OPENROUTER_API_KEY": KEY})
    assert shown.status == OK and "OPENROUTER_API_KEY" in shown.summary and KEY not in repr(shown)
    plain = check_key(make_server_less(base_url="http://embed.example.com/v1"), {"SCREE_API_KEY": KEY})
    assert plain.status == WARN and "https" in (plain.fix or "") and KEY not in repr(plain)


def make_server_less(**overrides: object) -> ApiEmbedder:
    return ApiEmbedder(replace(ApiSettings(), **overrides))  # type: ignore[arg-type]


def test_mcp_search_docs_answers_from_keywords_with_a_note_while_the_api_is_down(server, tmp_path, monkeypatch):
    """The real MCP SDK client against scree's server in-process (the stdio transport is tested elsewhere)."""
    import json

    from anyio.from_thread import start_blocking_portal
    from mcp.client import Client

    from scree.config import load_config
    from scree.mcpserver import IndexHandle, ServeOptions, build_server

    api_env(monkeypatch, server.base_url)
    folder = notes_folder(tmp_path, 3)
    handle = IndexHandle(load_config().with_overrides(notes=folder), folder, ServeOptions(watch=False))
    query = {"query": "how is widget number 2 calibrated", "mode": "hybrid"}
    try:
        with start_blocking_portal() as portal, \
                portal.wrap_async_context_manager(Client(build_server(handle))) as client:
            first = portal.call(client.call_tool, "search_docs", query).structured_content
            assert first["mode"] == "hybrid" and "note2.md" in [r["path"] for r in first["results"]]
            server.go_down()
            out = portal.call(client.call_tool, "search_docs", query).structured_content
    finally:
        handle.stop()
    assert out["mode"] == "keyword" and out["results"][0]["path"] == "note2.md"
    assert "keyword results only: the embeddings API" in out["note"] and KEY not in json.dumps(out)


def test_closing_the_client_under_a_query_costs_a_retry_not_an_error(server):
    e = make(server)
    closed = e._http()
    e.close()  # the live index's idle release, between a query taking the client and sending on it
    fresh = e._http
    handed = iter([closed])
    e._http = lambda: next(handed, None) or fresh()  # type: ignore[method-assign]
    assert e.embed_query("fox").shape == (32,)
    assert len(server.requests) == 1  # the closed client sent nothing; a new one did

