"""A code path of three parts or more is spelled by its last two too (issue 38): anyio's guide imports `to_thread`
and calls `to_thread.run_sync`, which is `anyio.to_thread.run_sync`, and FTS5 reads the whole path as one phrase that
the guide never writes. The predicate directly; the lookup on a real index, with the rule on and off."""

from __future__ import annotations

from pathlib import Path

import pytest

from synced import keyword_hits, synced_index
from scree.search import names
from scree.search.names import spelled_counter, spelling


def test_a_code_path_of_three_parts_is_spelled_by_its_last_two() -> None:
    spelled = spelled_counter(["anyio.to_thread.run_sync"])
    assert spelled("await to_thread.run_sync(time.sleep, 5)") == 1
    assert spelled("await anyio.to_thread.run_sync(time.sleep, 5)") == 1
    assert spelled("session.mount('https://', adapter)") == 0  # another path's tail


@pytest.mark.parametrize("text", [
    "from_thread.run_sync(f)",  # a longer part ending in the same letters is another name
    "to_thread.run_sync_in_worker(f)",  # nor a longer last part
    "to_thread, then run_sync",  # the parts apart
])
def test_a_tail_inside_another_name_or_split_up_does_not_spell_it(text: str) -> None:
    assert spelled_counter(["anyio.to_thread.run_sync"])(text.casefold()) == 0


@pytest.mark.parametrize("name", ["Session.mount", "run_sync", "output.html.site-url", "a b.c.d"])
def test_two_parts_a_word_or_a_key_with_dashes_keeps_its_whole_spelling(name: str) -> None:
    assert spelling(name) == name


GUIDE = """\
# Working with threads

## Running a function in a worker thread

To run a blocking callable without blocking the event loop:

```python
from pkg import run, to_thread

async def main() -> None:
    await to_thread.run_sync(time.sleep, 5)
```

## Calling back into the event loop

```python
from pkg import from_thread

from_thread.run_sync(event.set)
```
"""

WORDS = """\
# Design notes

## Why pkg has its own thread API

Sync code and async code meet in a thread: to run sync work, pkg gives the thread to the loop, then runs the sync
callable to its end. A pkg thread runs sync work; to thread sync work, run it in pkg.
"""


@pytest.fixture
def project(tmp_path: Path):
    root = tmp_path / "repo"
    with synced_index(root, {"docs/threads.md": GUIDE, "docs/design.md": WORDS,
                             "src/pkg/to_thread.py": "def run_sync(func, *args):\n    pass\n"}) as index:
        yield index, root


def test_the_section_calling_the_paths_tail_is_in_the_names_tier(project) -> None:
    index, root = project
    headings = [h.heading for h in keyword_hits(index, root, "pkg.to_thread.run_sync")]
    assert headings[0] == "Working with threads > Running a function in a worker thread"
    assert "Working with threads > Calling back into the event loop" in headings[1:]  # joined, but spells another


def test_without_the_rule_the_whole_paths_phrase_misses_it(project, monkeypatch) -> None:
    index, root = project
    monkeypatch.setattr(names, "DOTTED_TAILS", False)
    headings = [h.heading for h in keyword_hits(index, root, "pkg.to_thread.run_sync")]
    assert "Working with threads > Running a function in a worker thread" not in headings[:1]
