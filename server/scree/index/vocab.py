"""The repository's own names: what its manifests depend on and what its code declares.

Pure functions: `file_kind` says whether a file name is a manifest or code this module reads, and
`extract_names` turns the text of one such file into lowercased names. Names come only from name
positions (an import, `class X`, `def f`, `func (r *T) M`, `export const useThing`, a constant's
assignment, a dependency's key), never from string contents, comments or docstrings: Python is parsed
with the stdlib `ast` (a file that does not parse yields nothing), JS/TS and Go are scanned line by
line after comments and string literals are blanked out. A misread costs little: at worst one query
word is treated as a name.

`STOPLIST` keeps ordinary words out: function words, and names that are everyday words (`sync`,
`text`, `client`, `test`...). Marking those as names would make a plain question match them
verbatim, which is exactly what plain questions must not get. Names of one or two letters go too.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import tomllib
from typing import AbstractSet, Any, Iterable, Iterator

from ..notes import pysource

MANIFEST_KINDS = frozenset({"pyproject", "requirements", "package.json", "go.mod", "cargo"})
CODE_KINDS = frozenset({"python", "js", "go"})

_PY_SUFFIXES = (".py", ".pyi")
_JS_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
_GO_SUFFIXES = (".go",)

MIN_NAME_LEN = 3
MAX_NAME_LEN = 100  # longer "names" are generated noise, never typed in a question

# Function words, then names that are also everyday words in questions about software. A word here
# is never taken as a name, however many files declare it.
STOPLIST = frozenset(
    """
    about above across after again against all almost along already also although always among and
    another any anyone anything are around away back because been before being below between both but
    can cannot could did does doing done down during each either else enough even ever every few for from
    further had has have having her here hers him his how however inside instead into its itself just
    least less like many may might more most much must neither never nor not now off often once one only
    onto other others otherwise our ours out over own per perhaps please rather same several shall she
    should since some something sometimes still such than that the their theirs them then there these they
    this those though through thus together too toward towards two under unless until upon very via was
    were what whatever when whenever where whether which while who whom whose why will with within
    without would yet you your yours

    sync async await text http https json xml html yaml toml csv requests request response responses
    config configs configuration settings setting utils util helpers helper common core base main index
    app application next client clients server servers test tests testing spec mock
    get set put post patch delete head options add remove update create make build run start stop open
    close read write load save send receive fetch parse format render handle handler init setup reset
    clear check validate copy move find search filter sort map list dict item items key keys value values
    name names type types kind data info error errors exception warning result results status state event
    events message log logs logger logging debug time date path paths file files dir folder url uri host
    port user users token session cache store model view page default defaults version string str int
    float bool bytes byte number count size length object class function method module package import
    export return true false none null self new old first last empty full content body header headers
    params param args kwargs option query stream iter flush encode decode encoding call apply wrap wrapper
    exec execute process task job worker queue thread lock wait connect connection socket source target
    input output line lines field fields record row column table schema database template context env
    variable command cli shell script tool plugin extension hook callback node tree link tag label group
    action route service manager factory parser reader writer loader runner engine registry abstract
    interface struct enum const static public private global local remote generic array buffer hash sign
    verify split join merge diff sum max min total end begin done ready pending success failure cancel
    skip ignore allow deny enable disable enabled disabled docs doc readme license changelog example
    examples demo sample err ctx req res msg obj val
    """.split()
)

_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


_EDGE = "\"'`“”‘’()[]{}<>,;:!?."


class Vocabulary(frozenset):  # type: ignore[type-arg]
    """A set of lowercased names tested with query words as typed: `"httpcore" in v` when httpcore is
    a name, in any case. A name that is also an everyday word (`common`: `class Proxy`) counts only
    when the word is capitalised as the declaration is (`Proxy`, not "through a proxy")."""

    common: frozenset[str]

    def __new__(cls, names: Iterable[str] = (), common: Iterable[str] = ()) -> "Vocabulary":
        self = super().__new__(cls, names)
        self.common = frozenset(common)
        return self

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        folded = word.casefold()
        if not frozenset.__contains__(self, folded):
            return False
        return folded not in self.common or word[:1].isupper()


def query_words(query: str) -> list[str]:
    """The lowercased words of a query that could be names, with quotes, brackets, a call's `()` and
    end punctuation trimmed (as `route` trims them), and a dotted word's first part: what a vocabulary
    lookup asks about."""
    # A dict keeps the order and tests membership in O(1): a list's `in` made a long query quadratic.
    out: dict[str, None] = {}
    for word in query.split():
        bare = word.strip(_EDGE).casefold()
        if bare.endswith("()"):
            bare = bare[:-2]
        if len(bare) >= MIN_NAME_LEN:
            out.setdefault(bare)
        # A dotted name's first part may be the repo's package (`httpx` of `httpx.Proxy`: search.names).
        head = bare.split(".", 1)[0]
        if head != bare and len(head) >= MIN_NAME_LEN:
            out.setdefault(head)
    return list(out)


def file_kind(name: str) -> str | None:
    """What a file name is to the vocabulary: a manifest kind, a code kind, or None (not read)."""
    low = name.lower()
    if low == "pyproject.toml":
        return "pyproject"
    if low.startswith("requirements") and low.endswith(".txt"):
        return "requirements"
    if low == "package.json":
        return "package.json"
    if low == "go.mod":
        return "go.mod"
    if low == "cargo.toml":
        return "cargo"
    if low.endswith(_PY_SUFFIXES):
        return "python"
    if low.endswith(_JS_SUFFIXES) and not low.endswith((".min.js", ".d.ts")):
        return "js"
    if low.endswith(_GO_SUFFIXES):
        return "go"
    return None


def source_of(kind: str) -> str:
    """`manifest` or `code`: where a kind's names come from (what the index records per name)."""
    return "manifest" if kind in MANIFEST_KINDS else "code"


def keep(name: str) -> str | None:
    """The lowercased name if it belongs in the vocabulary, else None (stoplisted, too short, private)."""
    low = name.strip().lower()
    if not MIN_NAME_LEN <= len(low) <= MAX_NAME_LEN or low in STOPLIST:
        return None
    if low.startswith("_") or not any(c.isalpha() for c in low) or any(c.isspace() for c in low):
        return None  # private (`_helper`), or no word at all
    return low


def plain_word(name: str, common_words: AbstractSet[str]) -> bool:
    """True for a code name that is just a common word written in one case (`def raw`, `closed`,
    `FOUND`): a question uses it as prose far more often than as the name. CapWords (`class Limits`)
    and anything else shaped like a name (`aclose`, `iter_raw`) are not plain words."""
    return name.isalpha() and (name.islower() or name.isupper()) and name.lower() in common_words


def extract_names(kind: str, text: str, common_words: AbstractSet[str] = frozenset()) -> set[str]:
    """The vocabulary names of one file's text, lowercased and filtered by `keep`.

    Names that are `plain_word`s of `common_words` (a list of everyday words the caller passes) are
    left out too: a dependency called `rich` or `click`, like a method called `raw`, is prose in most
    questions. CapWords declarations (`class Limits`) stay.
    """
    raw: Iterable[str]
    if kind == "python":
        raw = _python_names(text)
    elif kind == "js":
        raw = _js_names(text)
    elif kind == "go":
        raw = _go_names(text)
    elif kind == "pyproject":
        raw = _pyproject_names(text)
    elif kind == "requirements":
        raw = _requirements_names(text.splitlines())
    elif kind == "package.json":
        raw = _package_json_names(text)
    elif kind == "go.mod":
        raw = _go_mod_names(text)
    elif kind == "cargo":
        raw = _cargo_names(text)
    else:
        raise ValueError(f"unknown vocabulary file kind {kind!r}")
    out: set[str] = set()
    for name in raw:
        if plain_word(name, common_words):
            continue
        kept = keep(name)
        if kept is not None:
            out.add(kept)
    return out


# ----- Python --------------------------------------------------------------------------------------


def _python_stdlib(module: str) -> bool:
    return module.split(".")[0] in sys.stdlib_module_names


def _module_names(module: str) -> Iterator[str]:
    """A module path and its top package (`rich.progress` -> itself and `rich`), never the inner
    parts, which are mostly everyday words (`progress`, `table`, `syntax`)."""
    yield module
    yield module.split(".")[0]


def _is_constant(name: str) -> bool:
    return name.isupper() and any(c.isalpha() for c in name)


def _python_names(text: str) -> Iterator[str]:
    """Imports (module paths and bound names), classes, functions and methods at any depth, and
    UPPER_CASE constants assigned at module or class level. Docstrings and strings are never names."""
    tree = pysource.parse(text)
    if tree is None:
        return
    scopes: list[list[ast.stmt]] = [tree.body]
    while scopes:
        for node in scopes.pop():
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if not _python_stdlib(alias.name):
                        yield from _module_names(alias.name)
                        if alias.asname:
                            yield alias.asname
            elif isinstance(node, ast.ImportFrom):
                if node.module and not node.level and _python_stdlib(node.module):
                    continue  # `from typing import Optional`: Python's names, not the repo's
                if node.module and not node.level:
                    yield from _module_names(node.module)
                for alias in node.names:
                    if alias.name != "*":
                        yield alias.asname or alias.name
            elif isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                yield node.name
                scopes.append(node.body)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name) and _is_constant(t.id):
                        yield t.id
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.AsyncWith)):
                # `if TYPE_CHECKING:` imports, `try: import x except ImportError`: still declarations.
                scopes.append(node.body)
                for extra in ("orelse", "finalbody"):
                    scopes.append(getattr(node, extra, []))
                for handler in getattr(node, "handlers", []):
                    scopes.append(handler.body)


# ----- JS / TS and Go: blank comments and strings, then read declarations line by line -------------


_STRING_BODY = {
    '"': re.compile(r'(?:[^"\\\n]|\\.)*'),
    "'": re.compile(r"(?:[^'\\\n]|\\.)*"),
    "`": re.compile(r"(?:[^`\\]|\\.)*", re.S),  # JS template literal: multi-line, with escapes
    "`raw": re.compile(r"[^`]*"),  # Go raw string: multi-line, no escapes
}
_NEXT = re.compile(r"//|/\*|[\"'`]")


def _blank(text: str, *, raw_escapes: bool) -> str:
    """`text` with comments and string contents replaced by spaces (newlines and quotes kept), so a
    declaration regex never matches inside one and offsets still line up with the original.
    Backquotes open a multi-line string: a JS template (`raw_escapes`) or a Go raw string."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        m = _NEXT.search(text, i)
        if m is None:
            out.append(text[i:])
            break
        start = m.start()
        out.append(text[i:start])
        token = m.group(0)
        if token == "//":
            end = text.find("\n", start)
            end = n if end < 0 else end
            out.append(" " * (end - start))
        elif token == "/*":
            end = text.find("*/", start + 2)
            end = n if end < 0 else end + 2
            out.append(_spaces(text[start:end]))
        else:
            body = _STRING_BODY["`raw" if token == "`" and not raw_escapes else token].match(text, start + 1)
            end = body.end() if body else start + 1  # an unterminated quote ends at the line
            out.append(token + _spaces(text[start + 1:end]))
            if end < n and text[end] == token:
                out.append(token)
                end += 1
        i = end
    return "".join(out)


def _spaces(chunk: str) -> str:
    return re.sub(r"[^\n]", " ", chunk)


def _string_at(original: str, quote_at: int) -> str | None:
    """The literal whose opening quote is at `quote_at` (read from the original text)."""
    q = original[quote_at]
    end = original.find(q, quote_at + 1)
    if end < 0 or "\n" in original[quote_at:end]:
        return None
    return original[quote_at + 1:end]


_JS_DECL = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
    r"(?:class|function\*?|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)",
    re.M,
)
_JS_CONST = re.compile(r"^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)", re.M)
_JS_DESTRUCTURE = re.compile(r"^export\s+(?:const|let|var)\s*\{([^}]*)\}", re.M)
_JS_EXPORT_LIST = re.compile(r"^\s*export\s*\{([^}]*)\}", re.M)
_JS_METHOD = re.compile(
    r"^[ \t]+(?:(?:static|async|public|private|protected|readonly|override|get|set)\s+)*\*?"
    r"([A-Za-z_$][\w$]*)\s*(?:<[^>\n]*>)?\s*\([^)\n]*\)\s*(?::\s*[^{\n]+)?\{",
    re.M,
)
_JS_IMPORT_BINDINGS = re.compile(r"^\s*import\s+(?:type\s+)?([^'\"\n;]*?)\s+from\s*(['\"])", re.M)
_JS_IMPORT_BARE = re.compile(r"^\s*import\s*(['\"])", re.M)
_JS_REQUIRE = re.compile(r"\brequire\s*\(\s*(['\"])")
_JS_FROM = re.compile(r"^\s*export\s+[^'\"\n]*\bfrom\s*(['\"])", re.M)
_KEYWORDS = frozenset(
    "if for while switch catch function return with do else try new typeof delete void await yield "
    "constructor super this".split()
)


def _module_specifier(spec: str) -> Iterator[str]:
    """A package named by an import (`react`, `@scope/pkg`, `lodash/fp` -> `lodash`); relative paths
    and URLs name no package."""
    if not spec or spec.startswith((".", "/")) or ":" in spec.split("/")[0]:
        return  # relative paths, URLs and `node:fs` builtins name no package of the repo's
    parts = spec.split("/")
    yield "/".join(parts[:2]) if spec.startswith("@") else parts[0]


def _bindings(clause: str) -> Iterator[str]:
    """Local names bound by an import/export clause: `React, { useState as s, type X }`, `* as ns`."""
    for part in re.split(r"[,{}]", clause):
        words = part.split()
        if not words:
            continue
        if "as" in words:
            words = words[words.index("as") + 1:]
        name = words[-1]
        if _IDENT.fullmatch(name) and name not in ("type", "*"):
            yield name


def _js_names(text: str) -> Iterator[str]:
    blanked = _blank(text, raw_escapes=True)
    for m in _JS_DECL.finditer(blanked):
        yield m.group(1)
    for m in _JS_CONST.finditer(blanked):
        yield m.group(1)
    for m in _JS_DESTRUCTURE.finditer(blanked):
        yield from _bindings(m.group(1))
    for m in _JS_EXPORT_LIST.finditer(blanked):
        yield from _bindings(m.group(1))
    for m in _JS_METHOD.finditer(blanked):
        if m.group(1) not in _KEYWORDS:
            yield m.group(1)
    for m in _JS_IMPORT_BINDINGS.finditer(blanked):
        yield from _bindings(m.group(1))
    for pattern in (_JS_IMPORT_BINDINGS, _JS_IMPORT_BARE, _JS_REQUIRE, _JS_FROM):
        for m in pattern.finditer(blanked):
            group = m.lastindex or 1
            spec = _string_at(text, m.start(group))
            if spec is not None:
                yield from _module_specifier(spec)


_GO_FUNC = re.compile(r"^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)", re.M)
_GO_TYPE = re.compile(r"^type\s+([A-Za-z_]\w*)", re.M)
_GO_SINGLE = re.compile(r"^(?:const|var)\s+([A-Za-z_]\w*)", re.M)
_GO_BLOCK = re.compile(r"^(const|type|var)\s*\(\s*$", re.M)
_GO_BLOCK_ITEM = re.compile(r"^\s+([A-Za-z_]\w*)\b")
_GO_IMPORT_ONE = re.compile(r"^import\s+(?:([A-Za-z_.]\w*)\s+)?(\")", re.M)
_GO_IMPORT_BLOCK = re.compile(r"^import\s*\(", re.M)
_GO_IMPORT_ITEM = re.compile(r"^\s*(?:([A-Za-z_.]\w*)\s+)?(\")", re.M)


def _go_names(text: str) -> Iterator[str]:
    """Functions, methods, types, top-level `const`/`var` names (single or in blocks), and imports by
    their full path (`golang.org/x/sync`, never `sync` alone)."""
    blanked = _blank(text, raw_escapes=False)  # Go raw strings
    for pattern in (_GO_FUNC, _GO_TYPE):
        for m in pattern.finditer(blanked):
            yield m.group(1)
    for m in _GO_SINGLE.finditer(blanked):
        yield m.group(1)
    for m in _GO_BLOCK.finditer(blanked):
        depth_end = blanked.find("\n)", m.end())
        body = blanked[m.end(): len(blanked) if depth_end < 0 else depth_end]
        for line in body.splitlines():
            item = _GO_BLOCK_ITEM.match(line)
            if item and item.group(1) != "_":
                yield item.group(1)
    for m in _GO_IMPORT_ONE.finditer(blanked):
        yield from _go_import(text, blanked, m)
    for m in _GO_IMPORT_BLOCK.finditer(blanked):
        end = blanked.find(")", m.end())
        region = blanked[m.end(): len(blanked) if end < 0 else end]
        for item in _GO_IMPORT_ITEM.finditer(region):
            yield from _go_import(text, blanked, item, offset=m.end())


def _go_import(text: str, blanked: str, m: re.Match[str], offset: int = 0) -> Iterator[str]:
    path = _string_at(text, offset + m.start(2))
    if path and "." in path.split("/")[0]:  # a module path; `fmt`, `net/http` are Go's own packages
        yield path
    alias = m.group(1)
    if alias and alias not in ("_", "."):
        yield alias


# ----- manifests ------------------------------------------------------------------------------------

_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _requirement_name(spec: str) -> str | None:
    """The distribution name of a PEP 508 requirement (`httpx[http2]>=0.27; python_version>'3'` -> httpx)."""
    m = _REQ_NAME.match(spec)
    return m.group(1) if m else None


def _requirements_names(lines: Iterable[str]) -> Iterator[str]:
    for line in lines:
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-", "git+", "http:", "https:", "file:", ".", "/")):
            continue
        name = _requirement_name(line)
        if name:
            yield name


def _toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return {}


def _table(doc: Any, *keys: str) -> Any:
    for key in keys:
        doc = doc.get(key) if isinstance(doc, dict) else None
    return doc


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _keys(value: Any) -> list[str]:
    return [k for k in value if isinstance(k, str)] if isinstance(value, dict) else []


def _pyproject_names(text: str) -> Iterator[str]:
    doc = _toml(text)
    project = _table(doc, "project") or {}
    if isinstance(project.get("name"), str):
        yield project["name"]
    specs = _strings(project.get("dependencies"))
    for group in (project.get("optional-dependencies") or {}, doc.get("dependency-groups") or {}):
        if isinstance(group, dict):
            for values in group.values():
                specs += _strings(values)
    specs += _strings(_table(doc, "build-system", "requires"))
    yield from (n for n in map(_requirement_name, specs) if n)
    yield from _keys(project.get("scripts"))
    yield from _keys(project.get("gui-scripts"))
    poetry = _table(doc, "tool", "poetry") or {}
    if isinstance(poetry, dict):
        if isinstance(poetry.get("name"), str):
            yield poetry["name"]
        for key in ("dependencies", "dev-dependencies"):
            yield from (k for k in _keys(poetry.get(key)) if k.lower() != "python")
        for group in (poetry.get("group") or {}).values() if isinstance(poetry.get("group"), dict) else ():
            yield from _keys(_table(group, "dependencies"))


def _package_json_names(text: str) -> Iterator[str]:
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return
    if not isinstance(doc, dict):
        return
    if isinstance(doc.get("name"), str):
        yield doc["name"]
    for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        yield from _keys(doc.get(key))
    yield from _keys(doc.get("bin"))


def _go_mod_names(text: str) -> Iterator[str]:
    """`module` and `require` paths, whole: `golang.org/x/sync` is a name, its last element is not."""
    in_require = False
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        if in_require:
            if line.startswith(")"):
                in_require = False
                continue
            yield line.split()[0]
        elif line.startswith("module ") or line.startswith("module\t"):
            parts = line.split()
            if len(parts) > 1:
                yield parts[1].strip('"')
        elif line.startswith("require"):
            rest = line[len("require"):].strip()
            if rest.startswith("("):
                in_require = True
            elif rest:
                yield rest.split()[0]


def _cargo_names(text: str) -> Iterator[str]:
    doc = _toml(text)
    if isinstance(_table(doc, "package", "name"), str):
        yield doc["package"]["name"]
    tables = [doc, _table(doc, "workspace") or {}]
    tables += [t for t in (_table(doc, "target") or {}).values() if isinstance(t, dict)]
    for table in tables:
        for key in ("dependencies", "dev-dependencies", "build-dependencies"):
            deps = table.get(key) if isinstance(table, dict) else None
            for name, spec in (deps.items() if isinstance(deps, dict) else ()):
                real = spec.get("package") if isinstance(spec, dict) else None
                yield real if isinstance(real, str) else name
