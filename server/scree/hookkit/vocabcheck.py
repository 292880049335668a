"""Stay quiet for a grep of a name that the repository declares but its notes never spell.

`grep -rn fetch_page_batch` looks for code. The notes may well hold "fetch", "page" and "batch" in one
section, which the FTS index matches, but pointing the agent there would send it to prose about
something else. The index's vocabulary (`names`, written by scree.index.vocabsync) says the pattern is one
of the repo's names; when no indexed section spells it verbatim, the hint is not worth its tokens.
Read-only stdlib sqlite3, one indexed lookup and at most one FTS query.
"""

from __future__ import annotations

# Neither `re` nor `sqlite3` is imported here: the hook's hint path loads neither (test_hook_terms),
# and the connection it is handed raises its own module's errors.
CANDIDATE_CAP = 200  # sections checked for the verbatim name
_LEADS = ("^", "\\b", "\\<")
_TRAILS = ("$", "\\b", "\\>")
_NAME_EXTRA = frozenset("_$@.-/:")

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Any, Sequence


def pattern_name(patterns: Sequence[str]) -> str | None:
    """The one literal name a grep looks for (lowercased): `fetch_page_batch`, `\\bPageFetcher\\b`,
    `^os\\.path$`; None for a regex, several patterns or several words."""
    if len(patterns) != 1:
        return None
    p = patterns[0].strip()
    changed = True
    while changed:
        changed = False
        for lead in _LEADS:
            if p.startswith(lead):
                p, changed = p[len(lead):], True
        for trail in _TRAILS:
            if p.endswith(trail) and not p.endswith("\\" + trail):
                p, changed = p[:-len(trail)], True
    p = p.replace("\\.", ".")
    if not p or not (p[0].isalpha() or p[0] in "_$@"):
        return None
    if not all(c.isalnum() or c in _NAME_EXTRA for c in p):
        return None
    return p.lower()


def spells(text: str, name: str) -> bool:
    """True when `text` (lowercased) holds `name` not inside a longer name (`pre` is not in `pre_stop`)."""
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        before = text[at - 1] if at else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before in "_-") and not (after.isalnum() or after in "_-"):
            return True
        at = text.find(name, at + 1)
    return False


def code_only_name(conn: Any, patterns: Sequence[str]) -> bool:
    """True when the pattern is a vocabulary name and no indexed note spells it (quiet the hint)."""
    name = pattern_name(patterns)
    if name is None:
        return False
    try:
        if conn.execute("select 1 from names where name = ? limit 1", (name,)).fetchone() is None:
            return False
        texts = conn.execute(
            "select c.heading || char(10) || c.text from chunks_fts join chunks c on c.id = chunks_fts.rowid "
            "where chunks_fts match ? limit ?", ('"' + name.replace('"', '""') + '"', CANDIDATE_CAP)).fetchall()
    except Exception:  # sqlite3.Error: an index without a vocabulary (older schema), a name FTS cannot phrase
        return False
    if len(texts) >= CANDIDATE_CAP:
        return False  # its parts are everywhere: unsure, leave the decision to the hint's own rules
    return not any(spells(str(t[0]).lower(), name) for t in texts)
