"""What a search covers, as the notes index sees it: folders and files inside the notes folder, and the
file-name globs every file it reads must (or must not) match.

The aim decides first: a search whose aim holds no indexed note (`grep -rn x src/`, `rg -tpy x`,
`find . -name '*.go' -exec grep ...`, `cat main.py | grep x`, `cd /tmp && grep ...`) cannot be
answered by the notes, whatever its words. `Aim.sql` turns the aim into one WHERE clause over the
files table, so "is any note under it?" costs one indexed query with LIMIT 1.

Pure: paths are resolved as strings (no file system access).
"""

from __future__ import annotations

import os
from collections import namedtuple

from .grepparse import PLACEHOLDER, GrepCall

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Sequence

# File types as rg/ugrep/ack name them (`-t py`, `--type=markdown`, `ack --python`), as name globs.
# Only what tells notes from code matters here; an unknown type name T reads as `*.T`.
TYPE_GLOBS = {
    "md": ("*.md", "*.markdown", "*.mdx", "*.mkd", "*.mdown"), "markdown": ("*.md", "*.markdown", "*.mdx", "*.mkd"),
    "mkd": ("*.mkd",), "mdx": ("*.mdx",), "rst": ("*.rst",), "txt": ("*.txt",), "text": ("*.txt", "*.md", "*.rst"),
    "asciidoc": ("*.adoc", "*.asciidoc"), "py": ("*.py", "*.pyi"), "python": ("*.py", "*.pyi"),
    "go": ("*.go",), "rust": ("*.rs",), "rs": ("*.rs",), "js": ("*.js", "*.mjs", "*.cjs", "*.jsx"),
    "javascript": ("*.js", "*.mjs", "*.jsx"), "ts": ("*.ts", "*.tsx"), "typescript": ("*.ts", "*.tsx"),
    "java": ("*.java",), "c": ("*.c", "*.h"), "cpp": ("*.cpp", "*.cc", "*.hpp", "*.h"), "cc": ("*.cc",),
    "ruby": ("*.rb",), "rb": ("*.rb",), "sh": ("*.sh", "*.bash"), "shell": ("*.sh", "*.bash"),
    "yaml": ("*.yaml", "*.yml"), "yml": ("*.yml",), "json": ("*.json",), "toml": ("*.toml",),
    "html": ("*.html", "*.htm"), "css": ("*.css",), "sql": ("*.sql",), "php": ("*.php",), "make": ("Makefile", "*.mk"),
    "docker": ("Dockerfile", "*.dockerfile"), "kotlin": ("*.kt",), "swift": ("*.swift",), "cs": ("*.cs",),
}


class Aim(namedtuple("Aim", "bases path_globs includes excludes unknown")):
    """What a search reads, relative to the notes folder.

    `bases`: note-relative prefixes searched ("" = the whole folder); `path_globs`: globs on the
    note-relative path (a shell glob operand like `docs/*.md`); `includes`: name globs a file must
    match (any of them; none = any file); `excludes`: globs (or folder names) it must not match;
    `unknown`: some operand could not be resolved (`$DIR`, `$(...)`, `cd -`).
    """

    __slots__ = ()
    bases: tuple[str, ...]
    path_globs: tuple[str, ...]
    includes: tuple[str, ...]
    excludes: tuple[str, ...]
    unknown: bool

    @property
    def empty(self) -> bool:
        """Nothing inside the notes folder is searched (all operands outside it, or unresolvable)."""
        return not self.bases and not self.path_globs

    @property
    def narrow(self) -> bool:
        """The search names a part of the notes folder (a subfolder or a file), not all of it."""
        return bool(self.path_globs) or any(self.bases)

    def describe(self) -> str:
        """One short line for the debug log."""
        parts = [",".join(b or "." for b in self.bases) or "-"]
        if self.path_globs:
            parts.append("paths=" + ",".join(self.path_globs))
        if self.includes:
            parts.append("include=" + ",".join(self.includes))
        if self.excludes:
            parts.append("exclude=" + ",".join(self.excludes))
        if self.unknown:
            parts.append("unknown")
        return " ".join(parts)

    def sql(self, column: str = "path") -> tuple[str, list[object]]:
        """A WHERE condition on `column` (a note-relative path) true for the files this search reads."""
        params: list[object] = []
        scopes: list[str] = []
        for base in self.bases:
            if not base:
                scopes.append("1")
            else:
                scopes.append(f"({column} = ? or substr({column}, 1, ?) = ?)")
                params += [base, len(base) + 1, base + "/"]
        for g in self.path_globs:
            scopes.append(f"{column} glob ?")
            params.append(g)
        cond = "(" + (" or ".join(scopes) or "0") + ")"
        if self.includes:
            inc = []
            for g in self.includes:
                inc.append(f"({column} glob ? or {column} glob ?)")
                params += [g, "*/" + g]
            cond += " and (" + " or ".join(inc) + ")"
        for g in self.excludes:
            cond += f" and not ({column} glob ? or {column} glob ? or {column} glob ? or {column} glob ?)"
            params += [g, "*/" + g, g + "/*", "*/" + g + "/*"]
        return cond, params


def _expand_braces(glob: str) -> list[str]:
    """`*.{md,txt}` -> `*.md`, `*.txt` (one level, which is what command lines use)."""
    start = glob.find("{")
    end = glob.find("}", start + 1)
    if start < 0 or end < 0:
        return [glob]
    return [glob[:start] + alt + glob[end + 1:] for alt in glob[start + 1:end].split(",")]


def _sql_glob(glob: str) -> str:
    # SQLite's `*` also matches "/", so `**/` adds nothing but would demand a slash.
    g = glob.replace("\\", "/")
    while "**/" in g:
        g = g.replace("**/", "*")
    g = g.replace("**", "*")
    return g[2:] if g.startswith("./") else g


def _unknowable(word: str) -> bool:
    return "$" in word or "`" in word or PLACEHOLDER in word


def _name_globs(call: GrepCall) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(name includes, path includes, excludes) from --include/-g/-name/-t/-O; path ones hold a "/"."""
    names: list[str] = []
    paths: list[str] = []
    for g in call.globs:
        for one in _expand_braces(g):
            glob = _sql_glob(one)  # `**/*.md` -> `*.md`: a name glob; `docs/**` keeps its "/": a path glob
            (paths if "/" in glob else names).append(glob)
    for t in call.types:
        names.extend(TYPE_GLOBS.get(t.lower(), ("*." + t.lower(),)))
    excludes: list[str] = []
    for e in call.excludes:
        if e.lower() in TYPE_GLOBS:  # rg -T md, ugrep -t^md
            excludes.extend(TYPE_GLOBS[e.lower()])
        else:
            excludes.extend(_sql_glob(x).strip("/") for x in _expand_braces(e) if x.strip("/"))
    return tuple(names), tuple(paths), tuple(excludes)


def aim_of(call: GrepCall, folder: str, cwd: str | None, home: str | None = None) -> Aim:
    """Resolve the call's operands against `cwd` (then any `cd`) and express them inside `folder`."""
    folder = os.path.normpath(folder)
    base = os.path.normpath(cwd) if cwd and os.path.isabs(cwd) else folder
    unknown = False
    if call.cd is not None:
        if _unknowable(call.cd) or call.cd == "-":
            return Aim((), (), (), (), True)
        base = _join(base, call.cd, home)
    names, path_includes, excludes = _name_globs(call)
    bases: list[str] = []
    path_globs: list[str] = []
    operands: Sequence[str] = call.paths or (".",)
    for p in operands:
        if not p or p == "-":
            continue
        if _unknowable(p):
            unknown = True
            continue
        magic = next((i for i, ch in enumerate(p) if ch in "*?["), -1)
        fixed = p if magic < 0 else p[:p.rfind("/", 0, magic) + 1] or "."
        where = _inside(folder, _join(base, fixed, home))
        if where is None:
            continue  # outside the notes folder
        if magic < 0:
            bases.append(where)
        else:  # a shell glob operand such as docs/*.md or src/**/*.py
            rest = p[p.rfind("/", 0, magic) + 1:]
            path_globs.append(_sql_glob((where + "/" if where else "") + rest))
    if path_includes:  # rg -g 'docs/**': relative to each searched base
        path_globs.extend(_sql_glob((b + "/" if b else "") + g.lstrip("/")) for b in bases for g in path_includes)
        bases = []
    return Aim(tuple(dict.fromkeys(bases)), tuple(dict.fromkeys(path_globs)), names, excludes, unknown)


def _join(base: str, path: str, home: str | None) -> str:
    if path.startswith("~") and home:
        path = home + path[1:]
    return os.path.normpath(os.path.join(base, path))


def _inside(folder: str, target: str) -> str | None:
    """`target` relative to `folder`: "" for the folder or any folder above it, None when disjoint."""
    if target == folder or folder.startswith(target.rstrip("/") + "/") or target == "/":
        return ""
    if target.startswith(folder.rstrip("/") + "/"):
        return target[len(folder.rstrip("/")) + 1:]
    return None
