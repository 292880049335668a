"""Hostile arguments over the real MCP client (stdio): a huge query is cut with a note, and integer or
boolean tool arguments accept only that type (pydantic's lax mode took `k=true` as 1 and
`reindex(all="yes")` as a full rebuild)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import write
from test_mcp_server import McpSession

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpSession]:
    root = tmp_path_factory.mktemp("limits") / "repo"
    (root / ".git").mkdir(parents=True)
    write(root, "docs/runbook.md", "# Runbook\n\n## Restart\n\nRestart the queue worker with `svc restart`.\n")
    with McpSession(root, "--no-watch", data_dir=tmp_path_factory.mktemp("data")) as s:
        yield s


@pytest.mark.parametrize("tool, args, expected", [
    ("search_docs", {"query": "restart", "k": True}, "valid integer"),
    ("search_docs", {"query": "restart", "k": 2.5}, "valid integer"),
    ("search_docs", {"query": "restart", "k": "5"}, "valid integer"),
    ("reindex", {"all": "true"}, "valid boolean"),
    ("read_doc", {"path": "docs/runbook.md", "start_line": True}, "valid integer"),
    ("read_doc", {"path": "docs/runbook.md", "end_line": False}, "valid integer"),
    ("reindex", {"all": "yes"}, "valid boolean"),
    ("reindex", {"all": 1}, "valid boolean"),
])
def test_integer_and_boolean_arguments_take_only_their_type(session: McpSession, tool: str, args: dict,
                                                             expected: str) -> None:
    assert expected in session.error(tool, args)


def test_a_refused_rebuild_flag_rebuilds_nothing_and_a_real_one_still_works(session: McpSession) -> None:
    assert session.ok("search_docs", {"query": "restart", "mode": "keyword"})["results"]  # first sync over
    session.error("reindex", {"all": "yes"})
    again = session.ok("reindex", {})
    assert again["changed"] == [] and again["unchanged"] == 1  # nothing was rebuilt by the refused call
    rebuilt = session.ok("reindex", {"all": True})
    assert rebuilt["updated"] + rebuilt["added"] == 1
    assert session.ok("search_docs", {"query": "restart", "k": 1, "mode": "keyword"})["results"]


def test_an_over_long_query_is_cut_at_the_cap_with_a_note(session: McpSession) -> None:
    from scree.search.search import MAX_QUERY_CHARS

    words = " ".join(f"w{i}" for i in range(150_000))  # ~1 MB, every word distinct and a name
    out = session.ok("search_docs", {"query": "restart " + words, "mode": "keyword"})
    assert out["results"][0]["path"] == "docs/runbook.md"  # answered from the kept head
    assert f"capped at {MAX_QUERY_CHARS}" in out["note"] and "cut to its first" in out["note"]
    # A query within the cap says nothing about it.
    assert "note" not in session.ok("search_docs", {"query": "restart", "mode": "keyword"})


def test_the_cap_cuts_at_a_word_boundary_and_the_tool_describes_the_same_cap() -> None:
    from scree import mcpserver
    from scree.search.search import MAX_QUERY_CHARS, cap_query

    assert mcpserver.MAX_QUERY_CHARS == MAX_QUERY_CHARS  # the tool's description says the real cap
    from scree.search.expansion import MAX_GUESS_CHARS

    assert mcpserver.MAX_GUESS_CHARS == MAX_GUESS_CHARS  # and the guess's
    assert cap_query("short question") == ("short question", None)
    text, note = cap_query("alpha beta gamma", limit=8)
    assert text == "alpha" and note is not None and "it had 16" in note
    assert cap_query("x" * 20, limit=8)[0] == "x" * 8  # one long word: cut inside it rather than to nothing


class _Counting:
    """A loaded local model stand-in that counts its query passes and can fail like an API."""

    id, dimensions, max_windows, loaded = "local:count:1", 4, 1, True

    def __init__(self, error: Exception | None = None) -> None:
        self.calls: list[str] = []
        self.error = error

    def embed_query(self, text: str) -> object:
        import numpy as np

        self.calls.append(text)
        if self.error is not None:
            raise self.error
        return np.ones(4, dtype="<f4") / 2


def test_a_long_query_is_embedded_ahead_once_and_a_failure_is_raised_unchanged() -> None:
    from scree.errors import EmbedderUnavailable
    from scree.search.ahead import EMBED_AHEAD_CHARS, embedded_ahead
    from scree.search.search import Query

    long_text = "how is the retry budget shared " * (EMBED_AHEAD_CHARS // 20)
    model = _Counting()
    view = embedded_ahead(model, Query("  " + long_text + "  "))  # type: ignore[arg-type]
    assert model.calls == [long_text.strip()]  # embedded before search takes the index
    assert list(view.embed_query(long_text.strip())) == [0.5] * 4 and len(model.calls) == 1
    assert view.max_windows == 1 and view.embed_query("other") is not None and len(model.calls) == 2

    for q in (Query("short question"), Query(long_text, mode="keyword")):  # nothing ahead: as before
        quiet = _Counting()
        assert embedded_ahead(quiet, q) is quiet and quiet.calls == []  # type: ignore[arg-type]

    # With a guess at the answer, what is embedded ahead is what the semantic half embeds: both as one text.
    from scree.search import expansion

    guess = "The retry budget is shared by every request of one client. " * 9
    model = _Counting()
    view = embedded_ahead(model, Query("how is the retry budget shared between requests?", expected_answer=guess))  # type: ignore[arg-type]
    expected = expansion.embedded_text("how is the retry budget shared between requests?", guess.strip())
    assert model.calls == [expected] and len(expected) >= EMBED_AHEAD_CHARS
    view.embed_query(expected)
    assert len(model.calls) == 1

    down = _Counting(EmbedderUnavailable("the embeddings API is unreachable"))
    view = embedded_ahead(down, Query(long_text))  # type: ignore[arg-type]
    with pytest.raises(EmbedderUnavailable, match="unreachable"):
        view.embed_query(long_text.strip())
    assert len(down.calls) == 1  # the failure is not paid twice
