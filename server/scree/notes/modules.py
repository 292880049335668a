"""Python modules of the notes folder by dotted name, read under the notes policy (for autodoc pages).

`ModuleFiles("flask.app")` returns `("src/flask/app.py", text)` when the folder holds that module, at its
top or under one of the usual source roots (`src/`, `lib/`, `python/`) or those the folder's `mkdocs.yml` gives
mkdocstrings (a monorepo's `packages/griffelib/src`): a repository's docs name objects by import path, not file
path. Only files the policy admits are read (no hidden, ignored or vendored file, no
symbolic link followed), through the same checked open as a note, capped in size, decoded leniently.
"""

from __future__ import annotations

from . import rstblocks, sphinxchangelog
from .autodocdefaults import default_options
from .formats import SPHINX_CONF
from .mkdocsdirectives import mkdocs_source_roots
from .policy import NotesPolicy
from ..errors import FileSkipped
from .reader import read_admitted

SOURCE_ROOTS = ("", "src/", "lib/", "python/")
MKDOCS_CONFIG = "mkdocs.yml"
MAX_MODULE_BYTES = 1024 * 1024  # as the vocabulary's MAX_CODE_BYTES: bigger files are generated


class ModuleFiles:
    """A `notes.autodoc.ModuleFinder` over one notes folder; each name is looked up once."""

    def __init__(self, policy: NotesPolicy, *, max_bytes: int = MAX_MODULE_BYTES) -> None:
        self._policy = policy
        self._max_bytes = max_bytes
        self._seen: dict[str, tuple[str, str] | None] = {}
        self._roots: tuple[str, ...] | None = None  # read on first use
        self._confs: dict[str, str | None] = {}  # folder -> its conf.py's text (None: it has none)
        self._members: dict[str, bool] = {}  # a Sphinx source folder -> `summary_members`' answer there
        self._defaults: dict[str, dict[str, str]] = {}  # a Sphinx source folder -> its autodoc defaults
        self._changelogs: dict[str, tuple[str, ...]] = {}  # a Sphinx source folder -> its changelog_sections

    def __call__(self, dotted: str) -> tuple[str, str] | None:
        if dotted not in self._seen:
            self._seen[dotted] = self._read(dotted)
        return self._seen[dotted]

    def text(self, rel: str) -> str | None:
        """The text of the file at `rel` (relative to the notes folder), under the same rules as a module: for a
        page's `literalinclude` (`notes/includes.py`)."""
        found = self._admitted(rel)
        return found[1] if found is not None else None

    def summary_members(self, page: str) -> bool:
        """Whether the page's Sphinx project documents the members of a class an autosummary lists: its
        `rstblocks.CLASS_TEMPLATE`, under the nearest folder above the page holding a `conf.py`, says so."""
        folder = self._project(page)
        if folder is None:
            return False
        if folder not in self._members:
            template = self.text(f"{folder}/{rstblocks.CLASS_TEMPLATE}" if folder else rstblocks.CLASS_TEMPLATE)
            self._members[folder] = template is not None and rstblocks.template_shows_members(template)
        return self._members[folder]

    def autodoc_defaults(self, page: str) -> dict[str, str]:
        """The `autodoc_default_options` of the page's Sphinx project (its nearest `conf.py` above it): option to
        value, "" for a flag (`notes/autodocdefaults.py`); none when no conf.py sets them."""
        folder = self._project(page)
        if folder is None:
            return {}
        if folder not in self._defaults:
            self._defaults[folder] = default_options(self._confs[folder] or "")
        return dict(self._defaults[folder])

    def changelog_sections(self, page: str, text: str) -> tuple[str, ...]:
        """The kinds of change a changelog directive on the page (whose `text` is given, so a page with none asks
        nothing of the disk) divides a release into: its Sphinx project's `conf.py` `changelog_sections`
        (`notes/sphinxchangelog.py`)."""
        if not sphinxchangelog.CHANGELOG_SECTIONS or sphinxchangelog.DIRECTIVE_MARK not in text:
            return ()
        folder = self._project(page)
        if folder is None:
            return ()
        if folder not in self._changelogs:
            self._changelogs[folder] = sphinxchangelog.sections_of(self._confs[folder] or "")
        return self._changelogs[folder]

    def _project(self, page: str) -> str | None:
        """The page's Sphinx source folder: the nearest folder above it holding a `conf.py` (its text kept in
        `_confs`), or None."""
        folder = page.rpartition("/")[0]
        while True:
            if folder not in self._confs:
                found = self._admitted(f"{folder}/{SPHINX_CONF}" if folder else SPHINX_CONF)
                self._confs[folder] = found[1] if found is not None else None
            if self._confs[folder] is not None:
                return folder
            if not folder:
                return None
            folder = folder.rpartition("/")[0]

    def _read(self, dotted: str) -> tuple[str, str] | None:
        parts = dotted.split(".")
        if not all(p.isidentifier() for p in parts):  # never a path: no "..", no "/"
            return None
        base = "/".join(parts)
        for root in self._source_roots():
            for rel in (f"{root}{base}.py", f"{root}{base}/__init__.py"):
                found = self._admitted(rel)
                if found is not None:
                    return found
        return None

    def _source_roots(self) -> tuple[str, ...]:
        """The usual source roots, then those mkdocs.yml's mkdocstrings handler names."""
        if self._roots is None:
            config = self.text(MKDOCS_CONFIG)
            named = mkdocs_source_roots(config) if config else ()
            self._roots = (*SOURCE_ROOTS, *(root for root in named if root not in SOURCE_ROOTS))
        return self._roots

    def _admitted(self, rel: str) -> tuple[str, str] | None:
        """`rel`'s path as the policy names it and its text, when the policy admits it and it is not binary."""
        verdict = self._policy.inspect(rel, any_name=True)
        if not verdict.admitted:
            return None
        try:
            data, _ = read_admitted(verdict, max_bytes=self._max_bytes)
        except FileSkipped:
            return None
        return None if b"\0" in data else (verdict.rel_path, data.decode("utf-8", "replace"))
