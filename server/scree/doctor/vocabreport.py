"""`scree doctor`'s vocabulary check: how many names the code and manifests gave, how many the notes
also spell, and what the caps skipped.

Only names that the notes themselves contain are ever printed (`-v` shows a sample of those): a name
found only in code stays in the index, since printing it would leak code into a report.
"""

from __future__ import annotations

import re

from ..db import queries
from ..errors import IndexError_
from .checks import INFO, WARN, Check
from ..index.vocabsync import MAX_CODE_BYTES, MAX_CODE_FILES, META_SKIPPED_BIG, META_SKIPPED_CAP, META_UNREADABLE

SAMPLE = 20  # names shown with -v
MAX_CHECKED = 5000  # names looked up in the notes; past that the count is of the first ones (sorted)
CANDIDATES = 50  # FTS candidates looked at for a name's verbatim spelling


def _fts_phrase(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def notes_spell(conn: object, name: str) -> bool:
    """True when some indexed section spells `name` verbatim (case-insensitive, not inside a longer name)."""
    pattern = re.compile(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])")
    try:
        texts = queries.chunk_texts_matching(conn, _fts_phrase(name), CANDIDATES)
    except Exception:  # a name FTS5 cannot phrase (nothing searchable in it): the notes cannot hold it
        return False
    return any(pattern.search(t.lower()) for t in texts)


def check_vocabulary(workspace: object, *, verbose: bool = False) -> Check:
    """The vocabulary as a doctor check (info; a warning when the file cap cut the collection)."""
    loc = workspace.location  # type: ignore[attr-defined]
    if not loc.db.exists():
        return Check("vocabulary", INFO, "no index yet: names are collected at the first sync")
    try:
        index = workspace.open_index(create=False)  # type: ignore[attr-defined]
    except IndexError_ as exc:  # the index check names what is wrong with the file and how to fix it
        return Check("vocabulary", INFO, "not read: the index cannot be opened (the index check says why)",
                     {"error": str(exc)})
    try:
        counts = queries.name_counts(index.conn)
        names = [n for n, _manifest in queries.vocabulary_names(index.conn)]
        checked = names[:MAX_CHECKED]
        mentioned = [n for n in checked if notes_spell(index.conn, n)]
        meta = index.meta()
    finally:
        index.close()
    big, capped, unreadable = (int(meta.get(k) or 0) for k in (META_SKIPPED_BIG, META_SKIPPED_CAP, META_UNREADABLE))
    of = f" of the first {len(checked)}" if len(checked) < len(names) else ""
    summary = (f"{counts.total} names from {counts.files} code files and manifests "
               f"({counts.manifest} from manifests, {counts.code} from code); "
               f"{len(mentioned)}{of} also in the notes")
    skipped = [f"{big} over {MAX_CODE_BYTES // (1024 * 1024)} MB"] if big else []
    skipped += [f"{capped} past the {MAX_CODE_FILES:,}-file cap"] if capped else []
    skipped += [f"{unreadable} unreadable"] if unreadable else []
    if skipped:
        summary += "; skipped: " + ", ".join(skipped)
    details: dict[str, object] = {"names": counts.total, "from_manifests": counts.manifest, "from_code": counts.code,
                                  "files": counts.files, "in_notes": len(mentioned), "skipped_big": big,
                                  "skipped_cap": capped, "unreadable": unreadable}
    if verbose:
        sample = mentioned[:SAMPLE]
        details["sample"] = sample
        if sample:
            summary += "\n      e.g. " + ", ".join(sample)
    if capped:
        return Check("vocabulary", WARN, summary, details,
                     "list generated or vendored folders in .screeignore so the code that matters fits the cap")
    return Check("vocabulary", INFO, summary, details)
