"""Patterns shaped like code: a search for them wants the source, whatever the notes happen to say.

`def load_config`, `^\\s*class `, `fn\\s+main`, `import os`, `__init__`, `foo\\(`, `=> {`, `std::env`,
`TODO|FIXME`: the agent is reading code, and a hint about notes would be noise. Pure string checks.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Sequence

# Words that open a declaration or an import in common languages; a pattern starting with one of
# them, then a space, is looking for that declaration.
DECLARATION_WORDS = frozenset({"def", "class", "func", "import", "fn", "type", "struct", "impl", "trait",
                               "interface", "enum", "function", "#include", "#define"})
# Two-word openings where the first word alone is too common in prose.
_PREFIXED = {"from": "import", "pub": "", "async": "", "export": "", "package": "", "const": "=", "let": "=",
             "var": "="}
# Regex or text that only code has.
_CODE_SYNTAX = ("\\(", "\\{", "=>", "::", "->", ":=", "();", "){")
MARKER_WORDS = frozenset({"todo", "fixme", "xxx", "hack"})

# What may stand before the first word at the start of a pattern: anchors and whitespace classes.
_LEADS = ("^", "\\s*", "\\s+", "\\s", "[[:space:]]*", "[[:space:]]+", "[ \\t]*", "[ \\t]+", " *", " +", " ",
          "\\t", ".*", "\\b", "\\<", "(?m)", "(?i)")
# What may follow a declaration word: whitespace, written any way a regex writes it.
_GAPS = (" ", "\\s", "[[:space:]]", "[ \\t]", "\\t", "\\b")


def _strip_leads(p: str) -> str:
    changed = True
    while changed:
        changed = False
        for lead in _LEADS:
            if p.startswith(lead):
                p = p[len(lead):]
                changed = True
    return p


def _first_word(p: str) -> tuple[str, str]:
    end = 0
    while end < len(p) and (p[end].isalnum() or p[end] in "_#"):
        end += 1
    return p[:end], p[end:]


def _declaration(p: str) -> bool:
    word, rest = _first_word(_strip_leads(p))
    low = word.lower()
    if not word or not rest.startswith(_GAPS):
        return False
    if low in DECLARATION_WORDS:
        return True
    if low in _PREFIXED:
        need = _PREFIXED[low]
        tail = _strip_leads(rest.lstrip(" ") if rest.startswith(" ") else rest)
        second, _ = _first_word(tail)
        if need == "import":
            return "import" in rest
        if need == "=":
            return bool(second) and "=" in rest
        return second.lower() in DECLARATION_WORDS or second.lower() in ("const", "let", "default", "async")
    return False


def _dunder(p: str) -> bool:
    at = p.find("__")
    while at >= 0:
        end = at + 2
        while end < len(p) and (p[end].isalnum() or p[end] == "_"):
            end += 1
        name = p[at:end]
        if len(name) > 4 and name.endswith("__") and name.strip("_"):
            return True
        at = p.find("__", end)
    return False


def _call_syntax(p: str, syntax: str) -> bool:
    if any(s in p for s in _CODE_SYNTAX):
        return True
    if syntax != "ere":  # in a basic regex or a fixed string "(" is literal: `load_config(` is a call
        at = p.find("(")
        while at > 0:
            if p[at - 1].isalnum() or p[at - 1] == "_":
                return True
            at = p.find("(", at + 1)
    return False


def _markers_only(words: Sequence[str]) -> bool:
    return bool(words) and all(w.lower() in MARKER_WORDS for w in words)


def code_reason(patterns: Sequence[str], syntax: str, words: Sequence[str]) -> str | None:
    """Why the patterns look like code ("declaration", "dunder", "code-syntax", "markers"), or None."""
    for p in patterns:
        if _declaration(p):
            return "declaration"
        if _dunder(p):
            return "dunder"
        if _call_syntax(p, syntax):
            return "code-syntax"
    if _markers_only(words):
        return "markers"
    return None
