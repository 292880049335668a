"""Minimal PDFs written by hand for the tests (pypdf reads them; nothing here depends on it): pages of
Helvetica text lines, an optional flat outline pointing at pages, or pages with no text at all (a scan)."""

from __future__ import annotations


def make_pdf(pages: list[str], outline: list[tuple[str, int]] | None = None) -> bytes:
    """A PDF whose page n shows pages[n]'s lines ("" makes a page without a text layer); `outline` is
    (title, 0-based page) entries."""
    objs: list[bytes] = []

    def add(body: bytes) -> int:
        objs.append(body)
        return len(objs)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    contents = []
    for text in pages:
        ops = " ".join(f"({line}) '" for line in text.split("\n")) if text else ""
        stream = f"BT /F1 12 Tf 72 720 Td 14 TL {ops} ET".encode() if text else b""
        contents.append(add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"))
    first_page = len(objs) + 1
    pages_id = first_page + len(pages)
    page_ids = [add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                    b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (pages_id, c, font)) for c in contents]
    add(b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % p for p in page_ids), len(page_ids)))
    extra = b""
    if outline:
        root = len(objs) + 1
        ids = [root + 1 + n for n in range(len(outline))]
        add(b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (ids[0], ids[-1], len(ids)))
        for n, (title, page) in enumerate(outline):
            item = b"<< /Title (%s) /Parent %d 0 R /Dest [%d 0 R /Fit]" % (title.encode(), root, page_ids[page])
            if n:
                item += b" /Prev %d 0 R" % ids[n - 1]
            if n < len(ids) - 1:
                item += b" /Next %d 0 R" % ids[n + 1]
            add(item + b" >>")
        extra = b" /Outlines %d 0 R" % root
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R%s >>" % (pages_id, extra))
    out = b"%PDF-1.4\n"
    offsets = []
    for n, body in enumerate(objs):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % (n + 1) + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1) + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, catalog, xref)
    return out
