"""A CLI reference page made by sphinx-argparse (`.. argparse::` with `:module:` and `:func:`, or
`.. sphinx_argparse_cli::`) holds only its directive in the source; Sphinx renders the parser's options and help. scree
reads them from the code without running it (cumin's `get_parser`, pipx's `build_parser` and its `_add_install`
helpers). The reader is off (`argparsepage.ARGPARSE_PAGES`, measured): these tests turn it on, and check it shows
nothing while off. Pure parts directly; the sync and read_doc with real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write
from synced import full_sync, keyword_hits, synced_index
from scree.mcpserver import read_output
from scree.notes import argparsepage, formats
from scree.notes.argparsepage import cli_chunks
from scree.notes.chunker import chunk_note

CLI = '''\
import argparse
import textwrap

INSTALL_DESCRIPTION = textwrap.dedent("""
    Install a package into its own virtual environment.
""")
MODES = ("sync", "async")


def get_parser():
    parser = argparse.ArgumentParser(prog="cumin")
    parser.add_argument("-c", "--config", default="/etc/cumin/config.yaml", help="configuration file.")
    parser.add_argument("--batch-sleep", type=float,
                        help="Sleep in seconds (float) to wait before scheduling a new host "
                             "(the zephyrine pause).")
    parser.add_argument("-m", "--mode", choices=["sync", "async"], help=f"Execution mode, one of {MODES}.")
    parser.add_argument("--secret", help=argparse.SUPPRESS)
    subparsers = parser.add_subparsers()
    _add_install(subparsers)
    return parser


def _add_install(subparsers):
    p = subparsers.add_parser("install", help="Install a package", description=INSTALL_DESCRIPTION)
    _add_force(p)


def _add_force(parser):
    parser.add_argument("--force", "-f", action="store_true", help="Modify the plasmatic environment anyway")
'''
PAGE = "Cumin CLI\n=========\n\n.. argparse::\n   :module: cumin.cli\n   :func: get_parser\n   :prog: cumin\n"


@pytest.fixture
def reader_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(argparsepage, "ARGPARSE_PAGES", True)


def test_while_the_reader_is_off_the_page_shows_only_its_directive() -> None:
    assert cli_chunks(chunk_note(PAGE, formats.RST), {"cumin.cli": ("cumin/cli.py", CLI)}.get) == []


def test_the_parser_s_options_are_read_from_the_code_by_subcommand(reader_on: None) -> None:
    chunks = cli_chunks(chunk_note(PAGE, formats.RST), {"cumin.cli": ("cumin/cli.py", CLI)}.get)
    assert [c.heading for c in chunks] == ["Cumin CLI", "Cumin CLI"]  # a subcommand's options under the page's
    root, install = (c.text for c in chunks)
    assert "-c, --config: configuration file. (default: /etc/cumin/config.yaml)" in root
    assert ("--batch-sleep: Sleep in seconds (float) to wait before scheduling a new host (the zephyrine pause)."
            in root)
    assert "-m, --mode: Execution mode, one of . (choices: sync, async)" in root  # the f-string's constant parts
    assert "--secret" not in root  # argparse.SUPPRESS hides it from the help
    assert root.endswith("(options of cumin.cli.get_parser: cumin/cli.py, line 10)")
    assert install.startswith("cumin install\n\nInstall a package into its own virtual environment.")  # dedented
    assert "--force, -f: Modify the plasmatic environment anyway" in install  # through a helper's parameter
    assert all(c.start_line == 4 for c in chunks)


def test_a_directive_whose_parser_cannot_be_read_shows_nothing(reader_on: None) -> None:
    note = chunk_note(PAGE.replace("get_parser", "missing"), formats.RST)
    assert cli_chunks(note, {"cumin.cli": ("cumin/cli.py", CLI)}.get) == []
    assert cli_chunks(chunk_note(PAGE, formats.RST), {}.get) == []
    assert cli_chunks(chunk_note(PAGE, formats.RST), {"cumin.cli": ("cumin/cli.py", "def (")}.get) == []
    cli_ref = "Pipx\n====\n\n.. sphinx_argparse_cli::\n   :ref: cumin.cli.get_parser\n"
    assert [c.heading for c in cli_chunks(chunk_note(cli_ref, formats.RST), {"cumin.cli": ("cumin/cli.py", CLI)}.get)
            ] == ["Pipx", "Pipx"]


def test_a_synced_cli_page_answers_a_flag_and_read_doc_shows_its_options(tmp_path: Path, reader_on: None) -> None:
    root = tmp_path / "proj"
    files = {"doc/source/conf.py": "extensions = ['sphinxarg.ext']\n", "doc/source/cli.rst": PAGE,
             "cumin/__init__.py": "", "cumin/cli.py": CLI}
    with synced_index(root, files) as index:
        assert [(h.path, h.heading) for h in keyword_hits(index, root, "zephyrine")] == [("doc/source/cli.rst",
                                                                                        "Cumin CLI")]
        write(root, "cumin/cli.py", CLI.replace("zephyrine", "quasarflux"))  # the code changes, the page does not
        assert full_sync(index, root).updated == ["doc/source/cli.rst"]
        assert [h.heading for h in keyword_hits(index, root, "quasarflux")] == ["Cumin CLI"]
    out = read_output(root, "doc/source/cli.rst", heading="Cumin CLI", start_line=None, end_line=None,
                      max_file_bytes=1 << 20, max_bytes=100_000)
    assert "--batch-sleep: Sleep in seconds" in out.text and "cumin install" in out.text
    assert out.note == "after the lines, the options its sphinx-argparse directive renders"
