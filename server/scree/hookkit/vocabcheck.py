"""Stay quiet for a grep of a name that the repository declares but its notes never spell.

`grep -rn fetch_page_batch` looks for code. The notes may well hold "fetch", "page" and "batch" in one
section, which the FTS index matches, but pointing the agent there would send it to prose about
something else. The index's vocabulary (`names`, written by scree.vocabsync) says the pattern is one
of the repo's names; when no indexed section spells it verbatim, the hint is not worth its tokens.
Read-only stdlib sqlite3, one indexed lookup and at most one FTS query.
"""

from __future__ import annotations

import re
import sqlite3

# Anchors and word boundaries that leave a single literal name: `\bname\b`, `^name$`, `\<name\>`.
_ANCHORS = re.compile(r"^(?:\^|\\b|\\<)+|(?:\$|\\b|\\>)+$")
_NAME = re.compile(r"[A-Za-z_$@][\w$@.\-/:]*\Z")
CANDIDATE_CAP = 200  # sections checked for the verbatim name

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Sequence


def pattern_name(patterns: Sequence[str]) -> str | None:
    """The one literal name a grep looks for (lowercased), or None when it is a regex or several words."""
    if len(patterns) != 1:
        return None
    bare = _ANCHORS.sub("", patterns[0].strip()).replace("\\.", ".")
    if not _NAME.match(bare) or "\\" in bare:
        return None
    return bare.lower()


def code_only_name(conn: sqlite3.Connection, patterns: Sequence[str]) -> bool:
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
    except sqlite3.Error:  # an index without a vocabulary (older schema), or a name FTS cannot phrase
        return False
    if len(texts) >= CANDIDATE_CAP:
        return False  # its parts are everywhere: unsure, leave the decision to the hint's own rules
    spelled = re.compile(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])")
    return not any(spelled.search(str(t[0]).lower()) for t in texts)
