"""Wikilinks (issue 19): `[[Page]]` names a note by its file name, `[[dir/Page]]` by its path; read_doc follows them."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from scree.mcpserver import read_output
from scree.notes.policy import MARKDOWN_SUFFIXES
from scree.notes.wikilinks import WikiLink, parse_wikilink, resolve_wikilink

NOTES = ["README.md", "archive/old/Setup.md", "guides/Setup.mdx", "guides/setup-notes.md", "Zeta.markdown"]


@pytest.mark.parametrize(("text", "link"), [
    ("[[Setup]]", WikiLink("Setup", None, None)),
    ("[[Setup|the setup page]]", WikiLink("Setup", None, "the setup page")),
    ("[[guides/Setup#Install|how to install]]", WikiLink("guides/Setup", "Install", "how to install")),
    ("![[Zeta]]", WikiLink("Zeta", None, None)),
    (" [[#Local heading]] ", WikiLink("", "Local heading", None)),
    ("guides/Setup.mdx", None),
    ("[[]]", None),
    ("[[a]] and [[b]]", None),
])
def test_parse_wikilink(text: str, link: WikiLink | None) -> None:
    assert parse_wikilink(text) == link


@pytest.mark.parametrize(("target", "rel"), [
    ("Setup", "guides/Setup.mdx"),  # two notes named Setup: the shorter path wins
    ("setup", "guides/Setup.mdx"),  # case-insensitively
    ("archive/old/Setup", "archive/old/Setup.md"),  # a path names that very note
    ("guides/Setup.mdx", "guides/Setup.mdx"),
    ("Zeta", "Zeta.markdown"),
    ("setup-notes", "guides/setup-notes.md"),
    ("Missing", None),
    ("old/Setup", None),  # a partial path is not a file name
])
def test_resolve_wikilink_by_name_then_shortest_path(target: str, rel: str | None) -> None:
    assert resolve_wikilink(target, NOTES, MARKDOWN_SUFFIXES) == rel


def test_read_doc_follows_a_wikilink_to_its_note_and_heading(tmp_path: Path) -> None:
    (tmp_path / "guides").mkdir()
    (tmp_path / "guides" / "Setup Guide.md").write_text("# Setup Guide\n\nintro\n\n## Install\n\nrun it\n")
    (tmp_path / "index.md").write_text("See [[Setup Guide#Install|installing]].\n")
    out = read_output(tmp_path, "[[Setup Guide#Install|installing]]", heading=None, start_line=None, end_line=None,
                      max_file_bytes=10**6, max_bytes=10**5)
    assert (out.path, out.heading, out.start_line, out.end_line) == ("guides/Setup Guide.md", "Setup Guide > Install", 5, 7)
    whole = read_output(tmp_path, "[[setup guide]]", heading=None, start_line=None, end_line=None,
                        max_file_bytes=10**6, max_bytes=10**5)
    assert whole.text == (tmp_path / "guides" / "Setup Guide.md").read_text().rstrip("\n")
    with pytest.raises(ToolError, match="no note is named 'Nowhere'"):
        read_output(tmp_path, "[[Nowhere]]", heading=None, start_line=None, end_line=None,
                    max_file_bytes=10**6, max_bytes=10**5)
