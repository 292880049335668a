"""A Sphinx repository is indexed with no flag (issue 34): 50+ `.rst` pages, an `api.rst` of autodoc lines whose
docstrings live in the repository, an include, `.txt` pages beside `conf.py`, a requirements list, text files
elsewhere. Real `scree` processes, a real index, the fake embedder; every section and every autodoc target that
lives in the repository is found, with the lines that hold it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write
from scree.mcpserver import read_output

PAGES = 52

API = """\
API
===

.. module:: pkg

Engine
------

.. autoclass:: Engine
   :members:
   :inherited-members:

Helpers
-------

.. autofunction:: pkg.helpers.spin_wheel

.. autofunction:: pkg.missing.nowhere
"""

INIT = '"""The pkg package."""\nfrom .core import Engine as Engine\n'
CORE = '''\
from .base import Base


class Engine(Base):
    """Turns quasarflux into motion."""

    def __init__(self, torque: int = 3) -> None:
        self.torque = torque

    def ignite(self, fuel: str) -> bool:
        """Lights the zephyrine burner with the given fuel."""
        return True

    def _hidden(self) -> None:
        """Private: never shown."""
'''
BASE = 'class Base:\n    def stop(self):\n        """Halts the xylophone gently."""\n'
HELPERS = 'def spin_wheel(n):\n    """Spins the wheel exactly n times, counterclockwise by default."""\n'


def page(n: int) -> str:
    return (f".. _page-{n}:\n\n==========\n Page {n}\n==========\n\nIntro of page {n}.\n\n"
            f"Topic {n}\n{'-' * len(f'Topic {n}')}\n\nThe uniqword{n}alpha lives here.\n\n.. code-block:: python\n\n   x = {n}\n\n   y = {n}\n\n"
            f"Deeper {n}\n{'~' * len(f'Deeper {n}')}\n\nThe uniqword{n}beta lives here.\n\n.. toctree::\n\n   other\n")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sphinx") / "proj"
    files = {f"docs/pages/page{n}.rst": page(n) for n in range(PAGES)}
    files.update({
        "docs/conf.py": "project = 'proj'\n",
        "docs/index.rst": "Proj\n====\n\n.. include:: ../CHANGES.rst\n\n.. toctree::\n\n   api\n",
        "docs/api.rst": API,
        "docs/topics/legacy.txt": "Legacy topic\n============\n\nThe uniqwordlegacy lives in a txt page.\n",
        "docs/requirements.txt": "sphinx==9.0\nuniqwordrequirement\n",
        "docs/spelling_wordlist.txt": "uniqwordspelling\nquasarflux\n",
        "CHANGES.rst": "Changes\n=======\n\nVersion 1 added uniqwordchange.\n",
        "notes/todo.txt": "uniqwordtodo is not a page\n",
        "src/pkg/__init__.py": INIT,
        "src/pkg/core.py": CORE,
        "src/pkg/helpers.py": HELPERS,
        "src/pkg/base.py": BASE,
        "guide.adoc": "= Guide\n\n== Setup\n\nThe uniqwordadoc step.\n",
    })
    for rel, text in files.items():
        write(root, rel, text)
    done = scree("reindex", "--notes", str(root), "--db", str(db_of(root)))
    assert done.returncode == 0, done.stderr
    return root


def db_of(root: Path) -> Path:
    """The module's one index, outside the per-test data folder the suite gives each test."""
    return root.parent / "index.db"


def scree(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scree.cli", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=120)


def search(root: Path, query: str, k: int = 3) -> list[dict]:
    out = scree("search", "--json", "--no-sync", "--mode", "keyword", "-k", str(k), "--notes", str(root),
                "--db", str(db_of(root)), query)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["results"]


def lines_of(root: Path, hit: dict) -> str:
    text = (root / hit["path"]).read_text(encoding="utf-8").split("\n")
    return "\n".join(text[hit["start_line"] - 1:hit["end_line"]])


def test_every_section_of_every_rst_page_is_found_at_its_own_lines(repo: Path) -> None:
    for n in (0, 17, PAGES - 1):
        for word, trail in ((f"uniqword{n}alpha", f"Page {n} > Topic {n}"),
                            (f"uniqword{n}beta", f"Page {n} > Topic {n} > Deeper {n}")):
            (hit, *_) = search(repo, word)
            assert (hit["path"], hit["heading"]) == (f"docs/pages/page{n}.rst", trail)
            assert word in lines_of(repo, hit)


def test_status_counts_notes_per_kind(repo: Path) -> None:
    status = json.loads(scree("status", "--json", "--notes", str(repo), "--db", str(db_of(repo))).stdout)
    # 52 pages, index, api, CHANGES; legacy.txt in the Sphinx folder; the AsciiDoc guide.
    assert status["kinds"] == {"reStructuredText": PAGES + 3, ".txt": 1, "AsciiDoc": 1}, status
    assert status["files"] == PAGES + 5


def test_autodoc_targets_in_the_repository_are_sections_under_the_api_page(repo: Path) -> None:
    (hit, *_) = search(repo, "zephyrine burner")
    assert (hit["path"], hit["heading"]) == ("docs/api.rst", "API > Engine > pkg.Engine.ignite")
    assert "ignite(fuel: str)" in hit["text"] and "src/pkg/core.py" in hit["text"]
    # shown by `:members:`, so it says whose member it is
    assert "(docstring of pkg.Engine.ignite, a member of pkg.Engine: src/pkg/core.py, line 10)" in hit["text"]
    assert ".. autoclass:: Engine" in lines_of(repo, hit)  # the lines are the directive's
    # The class's own docstring is the text of the section its title names ("Engine"), not a subsection
    # repeating it; its members stay entries of their own.
    (cls, *_) = search(repo, "quasarflux")
    assert cls["heading"] == "API > Engine" and "torque: int" in cls["text"]
    (fn, *_) = search(repo, "counterclockwise")
    assert fn["heading"] == "API > Helpers > pkg.helpers.spin_wheel"
    assert "(docstring of pkg.helpers.spin_wheel: src/pkg/helpers.py, line 1)" in fn["text"]  # its own directive
    assert not search(repo, "Private never shown")  # a private member is not documented
    (inherited, *_) = search(repo, "xylophone")  # `:inherited-members:`: a base class's, under this class
    assert inherited["heading"] == "API > Engine > pkg.Engine.stop" and "src/pkg/base.py" in inherited["text"]


def test_read_doc_returns_the_docstring_an_autodoc_heading_names(repo: Path) -> None:
    out = read_output(repo, "docs/api.rst", heading="pkg.Engine.ignite", start_line=None, end_line=None,
                      max_file_bytes=10 << 20, max_bytes=100_000)
    assert "zephyrine burner" in out.text and out.heading == "API > Engine > pkg.Engine.ignite"
    assert out.note and "autodoc" in out.note
    plain = read_output(repo, "docs/api.rst", heading="Helpers", start_line=None, end_line=None,
                        max_file_bytes=10 << 20, max_bytes=100_000)
    assert ".. autofunction:: pkg.helpers.spin_wheel" in plain.text and "counterclockwise" not in plain.text
    # A section titled by the object it shows reads as search showed it: its lines, then the docstring.
    titled = read_output(repo, "docs/api.rst", heading="Engine", start_line=None, end_line=None,
                         max_file_bytes=10 << 20, max_bytes=100_000)
    assert titled.heading == "API > Engine" and ".. autoclass:: Engine" in titled.text
    assert "quasarflux" in titled.text and "zephyrine burner" not in titled.text  # not its members'
    assert titled.note and "docstring" in titled.note


def test_sphinx_txt_pages_are_read_and_other_txt_files_are_not(repo: Path) -> None:
    (hit, *_) = search(repo, "uniqwordlegacy")
    assert (hit["path"], hit["heading"]) == ("docs/topics/legacy.txt", "Legacy topic")
    assert not search(repo, "uniqwordrequirement")
    assert not search(repo, "uniqwordspelling")  # sphinxcontrib-spelling's word list
    assert not search(repo, "uniqwordtodo")


def test_an_included_file_is_indexed_once_as_itself(repo: Path) -> None:
    hits = search(repo, "uniqwordchange", k=10)
    assert [(h["path"], h["heading"]) for h in hits] == [("CHANGES.rst", "Changes")]


def test_asciidoc_is_read_with_its_titles(repo: Path) -> None:
    (hit, *_) = search(repo, "uniqwordadoc")
    assert (hit["path"], hit["heading"]) == ("guide.adoc", "Guide > Setup")


def test_listing_txt_reads_every_text_file_as_plain_text(tmp_path: Path) -> None:
    write(tmp_path, "notes/todo.txt", "Buy uniqwordmilk.\n\nCall uniqwordbob.\n")
    done = scree("reindex", "--notes", str(tmp_path), "--note-extensions", ".md .txt")
    assert done.returncode == 0, done.stderr
    out = scree("search", "--json", "--no-sync", "--mode", "keyword", "--note-extensions", ".md .txt",
                "--notes", str(tmp_path), "uniqwordbob")
    (hit,) = json.loads(out.stdout)["results"]
    assert (hit["path"], hit["heading"], hit["start_line"]) == ("notes/todo.txt", "", 1)


def test_a_docstring_edit_reaches_its_api_page_at_the_next_sync(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write(root, "docs/conf.py", "")
    write(root, "docs/api.rst", API)
    write(root, "src/pkg/__init__.py", INIT)
    write(root, "src/pkg/core.py", CORE)
    write(root, "src/pkg/base.py", BASE)
    write(root, "src/pkg/helpers.py", HELPERS)
    db = ["--db", str(tmp_path / "index.db")]
    assert scree("reindex", "--notes", str(root), *db).returncode == 0
    write(root, "src/pkg/core.py", CORE.replace("zephyrine burner", "plasmatic afterburner"))
    (root / "src" / "pkg" / "helpers.py").unlink()  # its function's docstring is gone from the page too
    done = scree("reindex", "--notes", str(root), *db)
    assert done.returncode == 0 and "1 updated" in done.stdout, done.stdout + done.stderr

    def found(query: str) -> list[str]:
        out = scree("search", "--json", "--no-sync", "--mode", "keyword", "--notes", str(root), *db, query)
        return [h["heading"] for h in json.loads(out.stdout)["results"]]

    assert found("plasmatic afterburner") == ["API > Engine > pkg.Engine.ignite"]
    assert found("zephyrine") == [] and found("counterclockwise") == []
