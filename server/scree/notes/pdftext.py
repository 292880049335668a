"""A PDF's text, page by page, as a note: the design papers, specs and RFC copies repositories keep.

pypdf (pure Python, well kept) extracts each page's text and the document outline; nothing is rendered,
no font or image is decoded beyond what text extraction needs. The result is plain text with marker lines
that only a PDF's text can hold (they start with a form feed, which extraction never leaves at the start of
a line): `\\f[page 3]` opens page 3, `\\f## Title` is an outline entry at level 2 whose destination is that
page. `pdfblocks` turns those markers into headings, so a hit's trail names its outline section and page
(`Design > Storage > page 5`), and read_doc, which reads the same text, returns those pages' text.

Refused with a reason (the sync reports it; nothing else is lost): an encrypted PDF that an empty
password does not open, a PDF with no text layer (a scan), one pypdf cannot parse, more than MAX_PAGES
pages. Line numbers are lines of this text, not of the file: a PDF has no lines.
"""

from __future__ import annotations

import io
import logging
import re

from ..errors import FileSkipped

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .mdblocks import Blocks

MAX_PAGES = 2000
PAGE_MARK = "\f[page {}]"
_PAGE = re.compile(r"^\f\[page (\d+)\]$")
_OUTLINE = re.compile(r"^\f(#{1,6}) (.*)$")


def pdf_text(rel: str, data: bytes) -> str:
    """The text of a PDF's pages with page and outline markers (see the module docstring).

    Raises FileSkipped when the PDF cannot give text."""
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings on odd files are not the user's business
    try:
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise FileSkipped(rel, "is an encrypted PDF; scree reads only PDFs that open without a password")
        pages = list(reader.pages)
        if len(pages) > MAX_PAGES:
            raise FileSkipped(rel, f"is a PDF of {len(pages):,} pages, over the {MAX_PAGES:,} scree reads")
        outline = _outline(reader)
        texts = [(page.extract_text() or "") for page in pages]
    except FileSkipped:
        raise
    except Exception as exc:  # noqa: BLE001 - any parser failure on a hostile or broken file is a skip
        raise FileSkipped(rel, f"is a PDF that could not be read ({type(exc).__name__})") from None
    if not any(t.strip() for t in texts):
        raise FileSkipped(rel, "is a PDF without a text layer (a scan?); scree does not run OCR")
    out: list[str] = []
    for n, text in enumerate(texts):
        for level, title in outline.get(n, ()):
            out.append(f"\f{'#' * level} {title}")
        out.append(PAGE_MARK.format(n + 1))
        out.extend(line.replace("\f", " ").rstrip() for line in text.replace("\r\n", "\n").split("\n"))
    return "\n".join(out) + "\n"


def _outline(reader: object) -> dict[int, list[tuple[int, str]]]:
    """Outline entries by the 0-based page they point at: (level 1-6, one-line title), in outline order."""
    found: dict[int, list[tuple[int, str]]] = {}

    def walk(items: list, level: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)  # type: ignore[attr-defined]
                title = " ".join(str(item.title).split())[:200]
            except Exception:  # noqa: BLE001 - an entry that points nowhere is left out
                continue
            if page is not None and page >= 0 and title:
                found.setdefault(page, []).append((min(level, 6), title))

    try:
        walk(list(reader.outline), 1)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - a broken outline costs the outline, not the text
        return {}
    return found


def page_marker(line: str) -> int | None:
    """The page number a marker line opens, or None."""
    m = _PAGE.match(line)
    return int(m.group(1)) if m else None


def outline_marker(line: str) -> tuple[int, str] | None:
    """(level, title) of an outline marker line, or None."""
    m = _OUTLINE.match(line)
    return (len(m.group(1)), m.group(2)) if m else None


PAGE_LEVEL = 60  # deeper than any outline entry: the next page or outline entry closes a page's section


def pdf_blocks(lines: list[str]) -> Blocks:
    """The headings of a PDF's text: each outline entry at its level, each page below the entry before it."""
    from .mdblocks import Blocks, Heading  # mdblocks is imported by the formats module anyway

    headings = []
    for i, line in enumerate(lines):
        if not line.startswith("\f"):
            continue
        page = page_marker(line)
        if page is not None:
            headings.append(Heading(i, i + 1, PAGE_LEVEL, f"page {page}"))
            continue
        entry = outline_marker(line)
        if entry is not None:
            headings.append(Heading(i, i + 1, entry[0], entry[1]))
    return Blocks(0, None, tuple(headings), ())
