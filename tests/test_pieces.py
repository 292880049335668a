"""A chunk is embedded whole and in paragraph pieces; a chunk scores at its best window of either."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import write
from scree.embed import Passage
from scree.notes.embedview import embed_body
from scree.embed import pieces as pieces_module
from scree.embed.pieces import embed_with_pieces, pieces_of, with_pieces
from scree.notes.chunker import chunk_markdown
from scree.config import load_config
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.search.search import Query, search
from scree.index.store import open_index
from scree.index.sync import sync


def para(word: str, n: int) -> str:
    return " ".join([word] * n)


def test_a_short_body_has_no_pieces():
    assert pieces_of("One paragraph.\n\nAnother one.") == []
    assert pieces_of("") == []


def test_paragraphs_are_grouped_in_order_into_runs_of_at_least_the_minimum():
    paragraphs = [para(w, 30) for w in ("alpha", "beta", "gamma", "delta", "epsilon")]  # 179, 149, 179, 179, 239 chars
    pieces = pieces_of("\n\n".join(paragraphs), min_chars=400)
    # 179 + 149 < 400, so the first run takes three paragraphs; the last two make 420.
    assert pieces == ["\n\n".join(paragraphs[0:3]), "\n\n".join(paragraphs[3:5])]


def test_a_short_remainder_is_a_piece_of_its_own():
    long_one, short = para("alpha", 90), "See also the FAQ."
    assert pieces_of(f"{long_one}\n\n{short}", min_chars=400) == [long_one, short]


def test_one_huge_paragraph_is_one_piece_so_none_are_added():
    assert pieces_of(para("alpha", 500)) == []


def test_pieces_are_extra_windows_after_the_whole_chunks_windows(embedder, monkeypatch):
    monkeypatch.setattr(pieces_module, "PIECES_ONLY_CHARS", 0)  # the whole text too, however long
    body = "\n\n".join(para(w, 90) for w in ("alpha", "beta", "gamma"))  # 449-539 chars each
    passage = Passage("notes/a.md\nTitle", body)
    whole = embedder.embed_passages([passage])[0]
    calls = embedder.passage_calls
    [windows] = embed_with_pieces(embedder, [passage])
    pieces = pieces_of(body)
    assert len(pieces) == 3
    assert windows.shape == (len(whole) + len(pieces), embedder.dimensions)
    assert np.allclose(windows[: len(whole)], whole)
    assert np.allclose(windows[len(whole):], np.concatenate(
        embedder.embed_passages([Passage(passage.header, p) for p in pieces])))
    assert embedder.passage_calls == calls + 2  # embed_with_pieces made one call for all of them


def test_a_body_longer_than_one_window_is_embedded_as_its_pieces_only(embedder, monkeypatch):
    monkeypatch.setattr(pieces_module, "PIECES_ONLY_CHARS", 1000)
    long_body = "\n\n".join(para(w, 90) for w in ("alpha", "beta", "gamma"))  # 449-539 chars each
    assert len(long_body) > pieces_module.PIECES_ONLY_CHARS
    passage = Passage("notes/a.md\nTitle", long_body)
    [windows] = embed_with_pieces(embedder, [passage])
    pieces = [Passage(passage.header, p) for p in pieces_of(long_body)]
    assert with_pieces(passage) == pieces
    assert np.array_equal(windows, np.concatenate(embedder.embed_passages(pieces)))
    short_body = "\n\n".join(para(w, 70) for w in ("alpha", "beta"))  # two pieces, within one window
    assert len(short_body) <= pieces_module.PIECES_ONLY_CHARS and len(pieces_of(short_body)) == 2
    short = Passage("notes/a.md\nTitle", short_body)
    assert with_pieces(short)[0] == short and len(with_pieces(short)) == 3


def test_a_passage_without_pieces_embeds_exactly_as_before(embedder):
    passages = [Passage("a.md\nA", "short text"), Passage("b.md\nB", "another short text")]
    got = embed_with_pieces(embedder, passages)
    want = embedder.embed_passages(passages)
    assert len(got) == 2 and all(np.array_equal(g, w) for g, w in zip(got, want))
    assert embed_with_pieces(embedder, []) == []


def test_windows_never_pass_the_embedders_limit(embedder):
    body = "\n\n".join(para(f"w{i}", 80) for i in range(3 * embedder.max_windows))
    [windows] = embed_with_pieces(embedder, [Passage("a.md\nA", body)])
    assert len(windows) == embedder.max_windows


FILLER = ("The deployment pipeline builds container images, runs the integration suite against a staging "
          "cluster, publishes artefacts to the internal registry, tags the commit, and posts a summary with "
          "links to the logs to the team channel after every merge to the main branch, stage {i}.")
ANSWER = ("Signing keys are rotated every quarter. To rotate, revoke the old signing key, publish the new "
          "key, and update the key fingerprint in the release checklist so that verification keeps "
          "working for everyone who checks the signatures of our release artefacts.")
QUESTION = "how often are signing keys rotated and what do I revoke"


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    # One long section: the answer is one paragraph among many about something else.
    body = "\n\n".join([FILLER.format(i=i) for i in range(3)] + [ANSWER] + [FILLER.format(i=i) for i in range(3, 6)])
    write(root, "ops.md", f"# Operations\n\n{body}\n")
    # A short note sharing one of the question's words ("rotated"), about something else.
    write(root, "office.md", "# Office\n\nThe office plants are rotated between desks every month so that each team "
                             "gets some light, and the kitchen rota is posted on the wall by the coffee machine.\n")
    return root


def test_a_question_answered_by_one_paragraph_of_a_long_section_finds_it(notes: Path, embedder):
    policy = NotesPolicy.load(notes)
    index = open_index(index_location(notes, load_config()), notes)
    try:
        sync(index, policy, embedder)
        result = search(index, policy, embedder, Query(QUESTION, k=2, mode="semantic"))
        assert [h.path for h in result.hits] == ["ops.md", "office.md"]
        # The same section's whole windows alone are a blur of pipeline text: they rank below the office note.
        q = embedder.embed_query(QUESTION)
        [ops] = chunk_markdown((notes / "ops.md").read_text()).chunks
        [office] = chunk_markdown((notes / "office.md").read_text()).chunks
        whole = embedder.embed_passages([Passage(f"ops.md\n{ops.heading}", embed_body(ops.text))])[0]
        other = embedder.embed_passages([Passage(f"office.md\n{office.heading}", embed_body(office.text))])[0]
        assert float((whole @ q).max()) < float((other @ q).max())
    finally:
        index.close()


def test_doctors_cost_counts_every_text_a_sync_sends(notes: Path, embedder):
    from scree.doctor.api import check_cost

    class Recording:
        def __init__(self, inner):
            self.inner, self.sent = inner, 0
            self.id, self.dimensions, self.max_windows = inner.id, inner.dimensions, inner.max_windows

        def embed_passages(self, passages):
            self.sent += sum(len(p.text.encode()) for p in passages)
            return self.inner.embed_passages(passages)

    class Info:
        usd_per_million = 1.0

    class Api:
        info, model = Info(), "m"

    recording = Recording(embedder)
    index = open_index(index_location(notes, load_config()), notes)
    try:
        sync(index, NotesPolicy.load(notes), recording)  # type: ignore[arg-type]
    finally:
        index.close()
    check = check_cost(load_config().with_overrides(notes=notes), Api(), None)
    file_bytes = sum(len(p.read_bytes()) for p in notes.glob("*.md"))
    assert recording.sent > file_bytes, "the pieces send the long note's text a second time"
    assert check.details["bytes_sent"] == recording.sent
    assert check.details["tokens_upper_bound"] * 4 >= recording.sent
