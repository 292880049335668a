"""A Jupyter notebook's text as a note: the pages Jupyter Book, nbsphinx, MyST-NB and mkdocs-jupyter build from
`.ipynb` files.

A notebook is JSON: a list of cells. Its Markdown cells are the page's prose and headings, as those tools render them;
each code cell is shown as a fenced block in the notebook's language; a raw cell's text is kept as it is (nbsphinx
passes reStructuredText through one). Outputs are left out: they are what the code printed when it last ran (tables,
plots as base64 images, tracebacks), not what the docs say, and they are most of a notebook's bytes. Parsed with the
stdlib `json`, never run. The text is Markdown, read by `mdblocks` as any Markdown note is; line numbers are lines of
this text, not of the file, as a PDF's are (`pdftext`).

Refused with a reason (the sync reports it; nothing else is lost): a file that is not UTF-8 JSON, or JSON that is not
a notebook (no list of cells).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import FileSkipped

_BACKTICKS = re.compile(r"`{3,}")


def notebook_text(rel: str, data: bytes) -> str:
    """The Markdown text of a notebook's cells (see the module docstring). Raises FileSkipped when it is none."""
    try:
        nb = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise FileSkipped(rel, "is not a notebook scree can read (not UTF-8 JSON); "
                               "save it from Jupyter to have it indexed") from None
    cells = _cells(nb)
    if cells is None:
        raise FileSkipped(rel, "is JSON without a notebook's cells; scree reads Jupyter notebooks (nbformat 3 or 4)")
    language = _language(nb)
    parts: list[str] = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        source = _source(cell.get("source", cell.get("input", "")))
        if not source.strip():
            continue
        if kind == "code":
            parts.append(_fenced(source, language))
        elif kind == "heading":  # nbformat 3's heading cell
            level = cell.get("level")
            parts.append("#" * (level if isinstance(level, int) and 1 <= level <= 6 else 1) + " " + source.strip())
        elif kind in ("markdown", "raw"):
            parts.append(source.rstrip())
    return "\n\n".join(parts) + "\n" if parts else ""


def _cells(nb: Any) -> list[Any] | None:
    """The cells of nbformat 4 (`cells`) or 3 (`worksheets[].cells`); None for JSON that is no notebook."""
    if not isinstance(nb, dict):
        return None
    cells = nb.get("cells")
    if isinstance(cells, list):
        return cells
    sheets = nb.get("worksheets")
    if isinstance(sheets, list):
        return [c for sheet in sheets if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list)
                for c in sheet["cells"]]
    return None


def _language(nb: dict[str, Any]) -> str:
    """The code cells' language for their fences (`python`, `r`, `julia`), from the notebook's metadata."""
    meta = nb.get("metadata")
    if isinstance(meta, dict):
        for key, field in (("language_info", "name"), ("kernelspec", "language")):
            value = meta.get(key)
            if isinstance(value, dict) and isinstance(value.get(field), str) and value[field].strip():
                return value[field].strip().split()[0].lower()
    return "python"


def _source(source: Any) -> str:
    """A cell's source: a string, or the list of lines nbformat writes."""
    if isinstance(source, str):
        return source
    if isinstance(source, list):
        return "".join(s for s in source if isinstance(s, str))
    return ""


def _fenced(code: str, language: str) -> str:
    """A code cell as a fenced block, its fence longer than any run of backticks inside."""
    longest = max((len(m.group(0)) for m in _BACKTICKS.finditer(code)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{code.rstrip()}\n{fence}"
