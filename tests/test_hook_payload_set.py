"""The recorded agent searches (tests/fixtures/hooks/agent_searches.json) through the real PreToolUse hook,
run as Claude Code runs it, over the fixture repository: the rates issue 10 sets, and what a hint says."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "hooks"))

from hookrun import hook_command  # noqa: E402
from payload_set import Outcome, TreeProject, load_searches, make_tree_project, rates, run_entry, warm_sessions  # noqa: E402

from scree.hookkit import SEARCH_TOOL  # noqa: E402


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> TreeProject:
    return make_tree_project(tmp_path_factory.mktemp("payloads"))


@pytest.fixture(scope="module")
def outcomes(tree: TreeProject) -> list[Outcome]:
    cmd = hook_command("suggest.py")
    searches = load_searches()
    sessions = [f"set-{i}" for i in range(len(searches))]
    warm_sessions(cmd, tree, sessions)
    return [run_entry(cmd, entry, tree, session) for entry, session in zip(searches, sessions)]


def test_the_set_is_big_and_covers_every_shape() -> None:
    searches = load_searches()
    kinds = Counter(e["kind"] for e in searches)
    assert len(searches) >= 150 and min(kinds.values()) >= 30, kinds
    commands = " ".join(e["input"].get("command", "") for e in searches)
    for shape in ("ugrep ", "ug ", "bfs ", "git grep", "| xargs grep", "-exec grep", "rg ", "grep ", "<<", "cd "):
        assert shape in commands, shape
    assert Counter(e["tool"] for e in searches)["Grep"] >= 10
    assert all(e["expect"] == ("hint" if e["kind"] == "doc" else "quiet") for e in searches)
    tree_dir = Path(__file__).resolve().parent / "fixtures" / "hooks" / "tree"
    assert all((tree_dir / e["file"]).is_file() for e in searches if e["kind"] == "doc")


def test_rates_meet_the_targets(outcomes: list[Outcome], tree: TreeProject) -> None:
    r = rates(outcomes, tree.folder)
    missed = [o.entry["input"] for o in outcomes if o.entry["kind"] == "doc" and o.hint is None]
    noisy = [o.entry["input"] for o in outcomes if o.entry["kind"] != "doc" and o.hint is not None]
    assert r["doc_fires"] >= 0.95, missed
    assert r["doc_right_file_top3"] >= 0.95
    assert r["code_false_hints"] <= 0.05, noisy
    assert r["other_false_hints"] == 0, noisy


def test_never_blocks_and_never_fails(outcomes: list[Outcome]) -> None:
    for o in outcomes:
        assert o.returncode == 0 and o.stderr == b"" and not o.blocked, o.entry


def test_every_hint_is_exact_and_actionable(outcomes: list[Outcome], tree: TreeProject) -> None:
    for o in outcomes:
        if o.hint is None:
            continue
        lines = o.hint.splitlines()
        entries = [x.strip() for x in lines if x.startswith("  /")]
        assert len(entries) == len(set(entries)) <= 3
        sections = [e.split("  ", 1)[0] for e in entries]
        assert len({(s.rsplit(":", 1)[0], e.split("  ", 1)[-1]) for s, e in zip(sections, entries)}) == len(entries)
        for s in sections:  # absolute, inside the repo, with a line range the Read tool can use
            path, _, span = s.rpartition(":")
            start, _, end = span.partition("-")
            assert path.startswith(str(tree.folder) + "/") and Path(path).is_file()
            assert 1 <= int(start) <= int(end)
        assert SEARCH_TOOL in lines[-1] and lines[-1].count(SEARCH_TOOL) == 1


def test_mention_only_when_a_listed_section_holds_the_text(outcomes: list[Outcome]) -> None:
    checked = 0
    for o in outcomes:
        if not o.hint or "mention" not in o.hint.splitlines()[0]:
            continue
        quoted = o.hint.splitlines()[0].split('"')[1]
        spans = []
        for x in o.hint.splitlines():
            if x.startswith("  /"):
                path, _, span = x.strip().split("  ", 1)[0].rpartition(":")
                a, _, b = span.partition("-")
                text = Path(path).read_text(encoding="utf-8").splitlines()[int(a) - 1:int(b)]
                spans.append("\n".join(text).casefold())
        assert any(quoted.casefold() in s for s in spans), (o.entry, o.hint)
        checked += 1
    assert checked >= 40


def test_a_regex_without_a_verbatim_text_says_related(tree: TreeProject) -> None:
    cmd = hook_command("suggest.py")
    warm_sessions(cmd, tree, ["related"])
    o = run_entry(cmd, {"tool": "Bash", "input": {"command": "rg -n 'yank(ed)? version'"}}, tree, "related")
    assert o.hint is not None and o.hint.startswith("scree: indexed notes related to")
    assert f'{SEARCH_TOOL}(query="yank version")' in o.hint


def test_a_flag_keeps_its_dashes_in_the_suggested_query(tree: TreeProject) -> None:
    cmd = hook_command("suggest.py")
    warm_sessions(cmd, tree, ["flag"])
    o = run_entry(cmd, {"tool": "Bash", "input": {"command": "rg -n -- '--undo' docs"}}, tree, "flag")
    assert o.hint is not None and 'query="--undo"' in o.hint


def test_a_search_naming_a_notes_folder_ranks_sections_inside_it_first(tree: TreeProject) -> None:
    cmd = hook_command("suggest.py")
    warm_sessions(cmd, tree, ["scoped-a", "scoped-b"])
    everywhere = run_entry(cmd, {"tool": "Bash", "input": {"command": "rg -n 'Retry-After' ."}}, tree, "scoped-a")
    inside = run_entry(cmd, {"tool": "Bash", "input": {"command": "rg -n 'Retry-After' docs/adr/0002-rate-limits.md"}},
                       tree, "scoped-b")
    assert inside.files and inside.files[0] == str(tree.folder / "docs/adr/0002-rate-limits.md")
    assert everywhere.files and set(everywhere.files) >= {str(tree.folder / "docs/adr/0001-retry-policy.md")}
