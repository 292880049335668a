"""How a config file spells a dotted key without writing it: a TOML or INI table and a key set under it, or YAML's
nesting (`names.TABLE_KEYS`, `names.YAML_KEYS`: the verbatim tier counts a section so spelling a lookup's key as
spelling it). Pure; each reads a case-folded text.
"""

from __future__ import annotations

import re

_TABLE = re.compile(r"\[\[?\s*([^\]\s]+?)\s*\]\]?")
# A YAML key, and what follows its colon. Each enclosing key must end its line, as a block mapping's does:
# JavaScript's `optimizeDeps: {` is not one.
_YAML_KEY = re.compile(r"([\w.-]+)\s*:(?:\s+(.*))?$")


def spelled_in_table(text: str, name: str) -> bool:
    """True when `text` (case-folded) sets the dotted key `name` in a table: a line `[table]` (or `[[table]]`) whose
    path is the name's head or ends with it (`tool.pdm.resolution` for `resolution`), then, before the next table,
    a line setting the name's last part (`respect-source-order = true`)."""
    head, _, key = name.rpartition(".")
    table = ""
    for line in text.split("\n"):
        line = line.strip()
        if line.startswith("["):
            match = _TABLE.fullmatch(line)
            table = match.group(1).replace('"', "") if match else ""
            continue
        if table and (table == head or table.endswith("." + head)) and line.startswith(key) \
                and line[len(key):].lstrip().startswith("="):
            return True
    return False


def spelled_in_yaml(text: str, name: str) -> bool:
    """True when `text` (case-folded) sets the dotted key `name` by YAML nesting: a line setting the name's last part,
    indented under lines that open the keys of its head, the nearest enclosing ones last (`html:` for `html`; a
    longer path ending with the head counts too, as a TOML table's does)."""
    head, _, key = name.rpartition(".")
    parts = head.split(".")
    path: list[tuple[int, str]] = []  # the enclosing keys that opened a mapping: (indent, key)
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        while path and path[-1][0] >= indent:
            path.pop()
        match = _YAML_KEY.match(stripped)
        if match is None:
            continue
        rest = (match.group(2) or "").strip()
        if match.group(1) == key and [k for _, k in path[-len(parts):]] == parts:
            return True
        if not rest or rest.startswith("#"):
            path.append((indent, match.group(1)))
    return False
