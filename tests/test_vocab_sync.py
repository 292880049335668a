"""The vocabulary against real files and a real index: collected under the notes' policy, capped, never
re-read when unchanged, used by search, by the grep hook and by doctor. No model: a fake embedder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write
from fake_embedder import FakeEmbedder
from scree.config import load_config
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.search.search import Query
from scree.index.store import open_index
from scree.index.sync import sync
from scree.doctor.vocabreport import check_vocabulary
from scree.search.vocabsearch import search_with_names
from scree.index.vocabsync import collect_vocabulary
from scree.workspace import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "hooks"))

from hookrun import context_of, make_project, payload  # noqa: E402


def _open(folder: Path):
    return open_index(index_location(folder, load_config()), folder)


def _names(index) -> dict[str, set[str]]:
    rows = index.conn.execute("select n.name, f.path from names n join code_files f on f.id = n.file_id").fetchall()
    out: dict[str, set[str]] = {}
    for name, path in rows:
        out.setdefault(path, set()).add(name)
    return out


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    write(root, "README.md", "# Crawler\n\nThe crawler fetches pages in batches.\n")
    write(root, "pyproject.toml", '[project]\nname = "pagecrawler"\ndependencies = ["httpcore>=1"]\n')
    write(root, "src/crawler.py", "class PageFetcher:\n    def fetch_page_batch(self):\n        pass\n")
    write(root, "web/app.ts", "export const useThing = () => 1;\n")
    return root


def test_full_sync_collects_names_from_code_and_manifests(repo: Path) -> None:
    index = _open(repo)
    sync(index, NotesPolicy.load(repo), FakeEmbedder())
    assert _names(index) == {"pyproject.toml": {"pagecrawler", "httpcore"},
                             "src/crawler.py": {"pagefetcher", "fetch_page_batch"}, "web/app.ts": {"usething"}}
    sources = dict(index.conn.execute("select name, source from names").fetchall())
    assert sources["httpcore"] == "manifest" and sources["fetch_page_batch"] == "code"
    # Only names: no code text reaches the index.
    index.close()
    stored = b"".join(p.read_bytes() for p in index.location.dir.iterdir() if p.name.startswith("index.db"))
    assert b"fetch_page_batch" in stored and b"def fetch_page_batch" not in stored and b"useThing" not in stored


def test_code_that_the_notes_policy_refuses_is_never_read(repo: Path) -> None:
    write(repo, ".gitignore", "build/\n")
    write(repo, "build/gen.py", "class GeneratedOnly: pass\n")
    write(repo, ".hidden/secret.py", "class HiddenOnly: pass\n")
    write(repo, ".screeignore", "legacy/\n")
    write(repo, "legacy/old.py", "class LegacyOnly: pass\n")
    write(repo, "libs/sub/.git/HEAD", "ref: refs/heads/main\n")
    write(repo, "libs/sub/lib.py", "class NestedRepoOnly: pass\n")
    write(repo, "node_modules/pkg/index.js", "export class VendoredOnly {}\n")
    os.symlink(repo / "src" / "crawler.py", repo / "linked.py")
    index = _open(repo)
    report = collect_vocabulary(index, NotesPolicy.load(repo))
    assert set(_names(index)) == {"pyproject.toml", "src/crawler.py", "web/app.ts"}
    assert report.read == 3


def test_caps_skip_big_files_and_files_past_the_limit_and_count_them(repo: Path) -> None:
    write(repo, "src/big.py", "class BigOnly: pass\n" + "#" * 5000 + "\n")
    index = _open(repo)
    report = collect_vocabulary(index, NotesPolicy.load(repo), max_bytes=1000, max_files=2)
    assert report.skipped_big == 1 and report.skipped_cap == 1  # 3 files under 1000 bytes, 2 admitted
    assert "bigonly" not in {n for names in _names(index).values() for n in names}
    assert len(_names(index)) == 2
    meta = index.meta()
    assert (meta["vocab_skipped_big"], meta["vocab_skipped_cap"]) == ("1", "1")


def test_unchanged_code_is_not_read_again(repo: Path) -> None:
    index = _open(repo)
    policy = NotesPolicy.load(repo)
    assert collect_vocabulary(index, policy).read == 3
    again = collect_vocabulary(index, NotesPolicy.load(repo))
    assert (again.read, again.files) == (0, 3)
    # New content of the same size with the old mtime: a sync that read the file would see the new name.
    path = repo / "src" / "crawler.py"
    st = path.stat()
    old = path.read_text()
    path.write_text(old.replace("PageFetcher", "PageSnapper"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    collect_vocabulary(index, NotesPolicy.load(repo))
    assert "pagefetcher" in _names(index)["src/crawler.py"]
    # A real edit (new mtime) is read on the next sync; a deleted file loses its names.
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    (repo / "web" / "app.ts").unlink()
    report = collect_vocabulary(index, NotesPolicy.load(repo))
    assert (report.read, report.removed) == (1, 1)
    assert _names(index) == {"pyproject.toml": {"pagecrawler", "httpcore"},
                             "src/crawler.py": {"pagesnapper", "fetch_page_batch"}}


NOTES_FOR_SEARCH = {
    # Many mentions of the parts of the name, never the name itself: BM25 prefers it.
    "docs/limit.md": "# Limit\n\nThe limit is a limit: each limit caps one limit per host.\n",
    # The class name, spelled once among other words.
    "docs/pool.md": "# Connection pool\n\nPass a Limits instance to the client to size its pool of "
                    "connections and keep-alive sockets across many hosts and requests over time.\n",
}


def test_a_vocabulary_word_gets_the_exact_name_treatment(tmp_path: Path) -> None:
    results = {}
    for with_code in (False, True):
        root = tmp_path / f"repo-{with_code}"
        for rel, text in NOTES_FOR_SEARCH.items():
            write(root, rel, text)
        if with_code:
            write(root, "src/config.py", "class Limits:\n    pass\n")
        index = _open(root)
        policy = NotesPolicy.load(root)
        sync(index, policy, FakeEmbedder())
        # Two words: a one-word lookup is a name with or without the code (keyword.LOOKUP_WORD_AS_NAME).
        results[with_code] = search_with_names(index, policy, FakeEmbedder(), Query("Limits host", k=2, mode="keyword"))
    assert [h.path for h in results[False].hits][0] == "docs/limit.md" and results[False].names == []
    assert [h.path for h in results[True].hits][0] == "docs/pool.md" and results[True].names == ["limits"]


def test_the_grep_hook_stays_quiet_for_a_name_only_the_code_spells(tmp_path: Path) -> None:
    notes = {"docs/crawler.md": "# Crawler\n\nEach fetch page batch is logged, and fetch page results are cached; "
                                "the `rotate_signing_keys` job runs nightly.\n"}
    project = make_project(tmp_path, notes=notes, index=False)
    write(project.folder, "src/crawler.py", "def fetch_page_batch():\n    pass\n\ndef rotate_signing_keys():\n    pass\n")
    index = open_index(index_location(project.folder, load_config(project.env), project.env), project.folder)
    sync(index, NotesPolicy.load(project.folder), FakeEmbedder())
    index.close()

    def hint(pattern: str, session: str) -> str | None:
        data = payload("pretool_bash", tool_input={"command": f"grep -rn {pattern} .", "description": "search"},
                       session_id=session, cwd=str(project.folder))
        proc = project.run("suggest.py", data)
        assert proc.returncode == 0, proc.stderr
        return context_of(proc, "PreToolUse")

    # Declared in code, parts in the notes, never spelled there: quiet.
    assert hint("fetch_page_batch", "s1") is None
    # Declared in code and spelled in the notes: the hint names the note.
    assert "docs/crawler.md" in (hint("rotate_signing_keys", "s2") or "")
    # Not a declared name, parts in the notes: the hint's usual rule (all words match) still applies.
    assert "docs/crawler.md" in (hint("fetch_page_results", "s3") or "")


def test_doctor_counts_names_and_never_prints_one_found_only_in_code(repo: Path) -> None:
    write(repo, "docs/usage.md", "# Usage\n\nInstall httpcore, then subclass PageFetcher.\n")
    ws = Workspace.from_config(load_config().with_overrides(notes=repo))
    index = ws.open_index()
    sync(index, ws.policy(), FakeEmbedder())
    index.close()
    check = check_vocabulary(ws, verbose=True)
    assert check.details["from_manifests"] == 2 and check.details["from_code"] == 3
    assert check.details["in_notes"] == 2 and check.details["sample"] == ["httpcore", "pagefetcher"]
    everything = check.summary + repr(check.details)
    for code_only in ("fetch_page_batch", "usething", "pagecrawler"):
        assert code_only not in everything
    quiet = check_vocabulary(ws)
    assert "pagefetcher" not in quiet.summary + repr(quiet.details)
    out = subprocess.run([str(Path(sys.executable).parent / "scree"), "doctor", "-v", "--notes", str(repo)],
                         capture_output=True,
                         text=True, timeout=120)
    assert "pagefetcher" in out.stdout and "fetch_page_batch" not in out.stdout + out.stderr
    assert "usething" not in out.stdout + out.stderr


def test_search_docs_output_carries_the_names_and_omits_an_empty_list() -> None:
    from scree.index.indexstatus import IndexStatus
    from scree.mcpserver import search_output

    status = IndexStatus("complete", "writer", 0, 0, 1, 1, None)
    assert search_output([], "keyword", [], status, ["limits"]).model_dump()["names"] == ["limits"]
    assert "names" not in search_output([], "keyword", [], status, []).model_dump()


def test_a_collection_cut_short_keeps_what_it_read_forgets_nothing_and_the_next_one_finishes(repo: Path) -> None:
    # A search's budget bounds the vocabulary too (issue 36, item 2): 14.9 s past it on 1,790 Python files.
    index = _open(repo)
    sync(index, NotesPolicy.load(repo), FakeEmbedder())
    write(repo, "src/more.py", "class ExtraThing:\n    pass\n")
    (repo / "web" / "app.ts").unlink()
    calls = iter([False])  # one file, then the budget is spent
    cut = collect_vocabulary(index, NotesPolicy.load(repo), should_stop=lambda: next(calls, True))
    assert cut.stopped and cut.removed == 0
    assert "web/app.ts" in _names(index)  # not seen is not gone
    whole = collect_vocabulary(index, NotesPolicy.load(repo))
    assert not whole.stopped and "web/app.ts" not in _names(index) and "src/more.py" in _names(index)
