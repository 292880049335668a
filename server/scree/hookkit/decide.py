"""Whether one search gets a hint, and which: the PreToolUse hook's decision, step by step.

Quiet unless the notes can be the answer. In order, cheapest first:
1. the pattern has words at all;
2. the pattern is not shaped like code (`codeshape`);
3. the search's aim holds an indexed note (`aim`, one query on the files table);
4. the pattern is not a name the code declares that no note spells (`vocabcheck`, before any ranking);
5. the notes hold the pattern verbatim or all its words, or the search targets the notes (or
   reads like prose) and the notes hold some of its words.
Each quiet answer carries its reason, for the debug log (SCREE_HOOKS_DEBUG=1).
"""

from __future__ import annotations

from collections import namedtuple

from .terms import to_match
from .aim import Aim, aim_of
from . import VIA_TOOL
from .codeshape import code_reason
from .grepparse import GrepCall
from .hint import MAX_SECTIONS, Hint, NotesIndex, Section, hint_key, phrase, render, targets_docs
from .patterns import all_words_match, is_plain_language, pattern_words
from .vocabcheck import code_only_name

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Sequence

MIN_LITERAL = 3  # shorter literals ("id", "x") match too much to be worth a verbatim tier


class Decision(namedtuple("Decision", "hint reason aim sections", defaults=(None, ()))):
    """The outcome: a hint (None = stay quiet), why, the search's aim, and the sections found."""

    __slots__ = ()
    hint: Hint | None
    reason: str
    aim: Aim | None
    sections: tuple[Section, ...]


_REGEX_META = frozenset(".*+?[](){}|^$\\")
_BRE_META = frozenset(".*[]^$\\")


def literal_of(pattern: str, syntax: str) -> str | None:
    """The pattern as the text it matches verbatim, when it is one (`\\bretention_days\\b` ->
    `retention_days`, `token bucket`, `os.path`), else None (`rotate.*keys`, `[Hh]ooks`)."""
    p = pattern.strip()
    if syntax == "fixed":
        p = p.split("\n", 1)[0].strip()
        return p if len(p) >= MIN_LITERAL else None
    for lead in ("(?i)", "^", "\\b", "\\<"):
        if p.startswith(lead):
            p = p[len(lead):]
    for trail in ("$", "\\b", "\\>"):
        if p.endswith(trail) and not p.endswith("\\" + trail):
            p = p[:-len(trail)]
    out: list[str] = []
    meta = _REGEX_META if syntax != "bre" else _BRE_META
    i = 0
    while i < len(p):
        c = p[i]
        if c == "\\" and i + 1 < len(p):
            d = p[i + 1]
            if d.isalnum():  # \s \d \w \b ...: a class, not a character
                return None
            out.append(d)
            i += 2
            continue
        if c == "." and out and out[-1].isalnum() and i + 1 < len(p) and p[i + 1].isalnum():
            out.append(c)  # os.path, v1.2: most likely a literal dot
        elif c in meta:
            return None
        else:
            out.append(c)
        i += 1
    text = "".join(out).strip()
    return text if len(text) >= MIN_LITERAL else None


def _top_level_alternatives(pattern: str, syntax: str) -> list[str] | None:
    """`a|b|c` split at its top-level bars (`\\|` in a basic regex); None when a group is involved."""
    bar = "|" if syntax == "ere" else "\\|"
    if "(" in pattern or ")" in pattern or bar not in pattern:
        return None
    parts, cur, i = [], "", 0
    while i < len(pattern):
        if pattern.startswith("\\", i) and not pattern.startswith(bar, i):
            cur += pattern[i:i + 2]
            i += 2
        elif pattern.startswith(bar, i):
            parts.append(cur)
            cur = ""
            i += len(bar)
        else:
            cur += pattern[i]
            i += 1
    return [*parts, cur]


def literals_of(pattern: str, syntax: str) -> list[str]:
    """The verbatim texts a pattern matches: one for a literal, each alternative of `a|b` when all are
    literal (`X-Client-Key|Retry-After`), else none."""
    if syntax != "fixed":
        alts = _top_level_alternatives(pattern, syntax)
        if alts is not None:
            found = [literal_of(a, syntax) for a in alts]
            return [x for x in found if x] if all(found) else []
    one = literal_of(pattern, syntax)
    return [one] if one else []


def suggested_query(call: GrepCall, literals: Sequence[str], words: Sequence[str]) -> str:
    """What to pass search_docs: the literal as written, else the pattern's words; a word written as
    a flag keeps its dashes (`--locked`)."""
    prose = next((p.strip() for p in call.patterns if is_plain_language(p)), "")
    if prose:
        return prose
    if literals:
        return " ".join(dict.fromkeys(literals))
    out = []
    raw = " ".join(call.patterns)
    for w in words:
        at = raw.find("-" + w)
        if at >= 0 and (at == 0 or not raw[at - 1].isalnum()):
            dashes = "--" if raw[max(0, at - 1):at + 1] == "--" else "-"
            out.append(dashes + w)
        else:
            out.append(w)
    return " ".join(out)


def decide(call: GrepCall, folder: str, cwd: str | None, notes: NotesIndex, home: str | None = None,
           via: str = VIA_TOOL) -> Decision:
    """The hint for this search over the notes in `folder` (index `notes`), or a quiet reason; `via`:
    how the hint names the search it suggests (`hookkit.VIA_*`)."""
    words = pattern_words(call.patterns, call.syntax)
    if not words or sum(len(w) for w in words) < 2:
        return Decision(None, "no-words", None)
    shape = code_reason(call.patterns, call.syntax, words)
    if shape:
        return Decision(None, "code:" + shape, None)
    aim = aim_of(call, folder, cwd, home)
    if aim.empty:
        return Decision(None, "aim-unknown" if aim.unknown else "aim-outside-notes", aim)
    if not notes.covers(aim):
        return Decision(None, "aim-without-notes", aim)
    # Quiet checks that need the index, before any ranking.
    if code_only_name(notes.conn, call.patterns):  # a name the code declares and no note spells
        return Decision(None, "code-name-not-in-notes", aim)

    literals = [lit for p in call.patterns for lit in literals_of(p, call.syntax)]
    literals = [lit for lit in literals if to_match(lit)]  # has a word FTS5 can find
    strong = all_words_match(call.patterns, call.syntax) if sum(len(w) for w in words) >= 3 else None
    tiers: list[tuple[str, bool]] = [(phrase(lit), True) for lit in literals]
    if strong:
        tiers.append((strong, False))
    scope = aim if aim.narrow else None
    sections = notes.rank(tiers, literals, scope) if tiers else []
    query = suggested_query(call, literals, words)
    held = next((s.literal for s in sections if s.literal), "")  # what a listed section holds verbatim
    shown = held or (literals[0] if literals else (query if len(call.patterns) != 1 else call.patterns[0].strip()))
    if sections:
        reason = "mention" if any(s.literal for s in sections) else "words"
    else:
        if next((p for p in call.patterns if is_plain_language(p)), None):
            reason = "prose"
        elif aim.narrow or targets_docs(call, folder, cwd):
            reason = "docs"
        else:
            return Decision(None, "no-match", aim)
        loose = to_match(" ".join(words))
        sections = notes.rank([(loose, False)], literals, scope) if loose else []
    text = render(query, reason, sections, folder, shown, via)
    return Decision(Hint(hint_key(call), reason, text, tuple(sections)), reason, aim, tuple(sections))


__all__ = ["Decision", "decide", "literal_of", "literals_of", "suggested_query", "MAX_SECTIONS"]
