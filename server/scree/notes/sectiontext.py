"""What a section's heading trail and text say about it: pure predicates shared by search's ranking
(`scree.search.ranking`) and the grep hint (`scree.hookkit.hint`).

This module imports nothing at run time: the hook loads it on every grep, where `typing` or `re`
alone would cost milliseconds, and one definition keeps the hint ordering the way search does.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

TRAIL_SEPARATOR = " > "
_LIST_MARKS = ("- ", "* ", "+ ", "|")


def titled_by(trail: str, names: Sequence[str]) -> bool:
    """True when one heading of `trail` (" > "-joined) is one of `names`, ignoring case and backticks:
    "Settings > `CACHE_DIR`" is titled by CACHE_DIR; "Moving CACHE_DIR and LOG_DIR" is not (it is about
    more than the name)."""
    wanted = {n.casefold() for n in names}
    return any(h.strip().strip("`").strip().casefold() in wanted for h in trail.split(TRAIL_SEPARATOR))


def mostly_list(text: str) -> bool:
    """True when more than half of a section's lines are list items or table rows (blank lines, headings
    and fenced code aside): the section lists things rather than explains one."""
    items = lines = 0
    fence = ""
    for raw in text.split("\n"):
        line = raw.strip()
        if fence:
            if line.startswith(fence):
                fence = ""
            continue
        if line.startswith(("```", "~~~")):
            fence = line[:3]
            continue
        if not line or line.startswith("#"):
            continue
        lines += 1
        digits = len(line) - len(line.lstrip("0123456789"))
        if line.startswith(_LIST_MARKS) or (0 < digits < 10 and line[digits:digits + 2] in (". ", ") ")):
            items += 1
    return 2 * items > lines
