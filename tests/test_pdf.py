"""PDFs a repository keeps are read (issue 34): sections from the outline where there is one, else per page,
hits naming their pages, read_doc returning those pages' text; an encrypted, scanned or broken PDF is skipped
with a reason and costs nothing else. Real `scree` processes over hand-made PDFs (tests/helpers/pdfmake.py)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "helpers"))

from pdfmake import make_pdf  # noqa: E402
from scree.mcpserver import read_output  # noqa: E402
from scree.notes import formats  # noqa: E402
from scree.notes.chunker import chunk_note  # noqa: E402
from scree.notes.pdftext import pdf_text  # noqa: E402


def scree(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scree.cli", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=120)


def encrypted(text: str) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf([text]))))
    writer.encrypt(user_password="secret", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


DESIGN = make_pdf(["Intro page\nThe zorbulon design.", "Storage details\nWe keep quuxes in tables.", "Appendix"],
                  [("Introduction", 0), ("Storage", 1)])


def test_outline_entries_and_pages_are_the_trail() -> None:
    chunks = chunk_note(pdf_text("design.pdf", DESIGN), formats.PDF).chunks
    assert [(c.heading, c.text.split("\n")[-1]) for c in chunks] == [
        ("Introduction > page 1", "The zorbulon design."),
        ("Storage > page 2", "We keep quuxes in tables."),
        ("Storage > page 3", "Appendix"),
    ]
    plain = chunk_note(pdf_text("memo.pdf", make_pdf(["first", "second"])), formats.PDF).chunks
    assert [c.heading for c in plain] == ["page 1", "page 2"]  # no outline: a section a page


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    notes = tmp_path / "repo"
    (notes / "papers").mkdir(parents=True)
    (notes / "papers" / "design.pdf").write_bytes(DESIGN)
    (notes / "papers" / "locked.pdf").write_bytes(encrypted("hidden gronkle words"))
    (notes / "papers" / "scan.pdf").write_bytes(make_pdf(["", ""]))
    (notes / "papers" / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage")
    (notes / "README.md").write_text("# Readme\n\nSee the papers.\n", encoding="utf-8")
    return notes


def test_pdfs_are_indexed_and_the_unreadable_ones_are_skipped_with_a_reason(folder: Path) -> None:
    done = scree("reindex", "--notes", str(folder))
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "encrypted PDF" in said and "without a text layer" in said and "could not be read" in said
    status = json.loads(scree("status", "--json", "--notes", str(folder)).stdout)
    assert status["kinds"] == {"Markdown": 1, "PDF": 1}, status
    out = scree("search", "--json", "--no-sync", "--mode", "keyword", "--notes", str(folder), "quuxes tables")
    (hit, *_) = json.loads(out.stdout)["results"]
    assert (hit["path"], hit["heading"]) == ("papers/design.pdf", "Storage > page 2")
    assert "We keep quuxes in tables." in hit["text"]
    gone = scree("search", "--json", "--no-sync", "--mode", "keyword", "--notes", str(folder), "gronkle")
    assert json.loads(gone.stdout)["results"] == []


def test_read_doc_returns_the_text_of_the_pages_a_heading_names(folder: Path) -> None:
    out = read_output(folder, "papers/design.pdf", heading="Storage", start_line=None, end_line=None,
                      max_file_bytes=10 << 20, max_bytes=100_000)
    assert "We keep quuxes in tables." in out.text and "Appendix" in out.text and "zorbulon" not in out.text
    from mcp.server.mcpserver.exceptions import ToolError

    with pytest.raises(ToolError, match="encrypted PDF"):
        read_output(folder, "papers/locked.pdf", heading=None, start_line=None, end_line=None,
                    max_file_bytes=10 << 20, max_bytes=100_000)
