"""Which paths in the notes folder are notes.

A note is a regular file with a note extension (`.md`, `.mdx`, `.markdown`, `.rst`, `.adoc`, `.asciidoc` by
default; the `SCREE_NOTE_EXTENSIONS` setting), or a `.txt` file in a Sphinx source folder (one with a `conf.py`
at or above it; requirements lists aside) while `.rst` is read, or a Vim help file (`doc/*.txt` of a Vim runtime
folder, `formats.VIM_RUNTIME_DIRS`) or a page of a docs build (a notebook in a folder with a Sphinx `conf.py`, a
Jupyter Book `_toc.yml`/`myst.yml` or a Quarto `_quarto.yml` at or above it; a `.qmd` under a `_quarto.yml`) while
no default format is left out, or a plain-text doc by its conventional name (`README`, `INSTALL`, `PROTOCOL.agent`:
`formats.is_plain_doc`) or an `.xml` or `.sgml` file in a docs folder (`formats.in_docs_folder`) whose first kB are
DocBook (`docbookhead`, the one check that reads a file) while no default format is left out, inside
the folder that is not hidden, not gitignored, not screeignored, not inside a nested git repository and not reached
through a symlinked folder.
A symlinked file is admitted only when it resolves, inside the folder, to a file the policy admits.

Ignore rules follow git: every `.gitignore` from the enclosing repository's top down to the file's
folder, plus that repository's `.git/info/exclude`; deeper files override shallower ones, the last
line matching the path itself wins, and nothing below an excluded folder can be re-included
(folders are decided top-down). As in git, they never ignore a tracked file (`gitindex`): a folder they name is
walked when git tracks a file below it, and only its tracked files are notes. pathspec's GitIgnoreSpec parses
the lines; the per-path decision is made here because pathspec answers for file paths only, and git decides folders
by their own lines.
`.screeignore` files use the same syntax as a second, independent rule set: they can only exclude
more, never re-include what git ignores. Below them sit scree's defaults for vendored folders
(`node_modules/`, `vendor/`, `venv/`, `site-packages/`, `dist/`, ...): a folder that is not a git
repository, or a repository that forgot its `.gitignore`, would otherwise have thousands of
third-party READMEs indexed and watched. A `.screeignore` line such as `!vendor/` re-includes one.
"""

from __future__ import annotations

import enum
import errno
import functools
import os
import posixpath
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


from ..errors import PathRefused
from . import formats
from .docbookhead import DocbookHeads
from .gitindex import Tracked, tracked_below
from .gitrepo import GITIGNORE, outer_rules
from .ignorerules import Rules, compile_patterns, first_match, parse_ignore_lines, read_ignore_file


SCREEIGNORE = ".screeignore"
# MDX (Docusaurus, Nextra, Mintlify, Starlight) is Markdown plus import lines and JSX tags, which the chunker
# keeps out of chunks of their own. Quarto's `.qmd` is read in a Quarto project (`formats.BOOK_PAGES`), elsewhere only
# when listed.
MARKDOWN_SUFFIXES = (".md", ".mdx", ".markdown")
NOTE_SUFFIXES = formats.DEFAULT_SUFFIXES  # Markdown, reStructuredText, AsciiDoc (issue 34)
# `.txt` files in a Sphinx source folder that are not pages: pip's lists, robots.txt, sphinxcontrib-spelling's word
# list (`spelling_wordlist.txt`; jsonschema's `spelling-wordlist.txt` answered its `UnknownType` lookup).
_NOT_SPHINX_PAGES = ("requirements", "constraints", "robots", "cmakelists", "spelling")
# Folders of installed or built third-party code, skipped at any depth unless a .screeignore re-includes them.
VENDORED_DIRS = ("node_modules", "vendor", ".venv", "venv", "site-packages", "__pycache__", "target", "dist",
                 "build")
VENDORED_LABEL = "scree's defaults for vendored folders"
# Of those, the ones a build writes into can be a Sphinx source folder instead: SQLAlchemy's and Alembic's docs are
# written in `doc/build/` (their output goes below it, to `output/` or `_build/`). A folder of one of these names that
# holds a `conf.py` is indexed: Sphinx reads its sources from there, and no build output holds one.
BUILT_DIRS = ("target", "dist", "build")
# A file git tracks is a note though an ignore pattern names it (`git add -f`), as git itself never ignores it.
# Measured (docs/benchmarks.md): TRACKED_NOT_IGNORED.
TRACKED_NOT_IGNORED = True
SPHINX_CONF = "conf.py"
_SPHINX_MARKERS = (SPHINX_CONF,)  # a Sphinx source, as `in_book_source` finds one
# An ignore file bigger than this is not a hand-written rule list; reading it would only cost time.


class SkipCode(enum.Enum):
    """Why a path is not a note, as a category the walker can sort into quiet and reportable."""

    OUTSIDE = "outside"
    HIDDEN = "hidden"
    GITIGNORED = "gitignored"
    SCREEIGNORED = "screeignored"
    NOT_MARKDOWN = "not-markdown"
    NESTED_REPO = "nested-repo"
    MISSING = "missing"
    NOT_A_FOLDER = "not-a-folder"
    IS_A_FOLDER = "is-a-folder"
    NOT_REGULAR = "not-regular"
    SYMLINK_DIR = "symlink-dir"
    SYMLINK_LOOP = "symlink-loop"
    SYMLINK_BROKEN = "symlink-broken"
    SYMLINK_OUTSIDE = "symlink-outside"
    SYMLINK_NOT_MARKDOWN = "symlink-not-markdown"
    SYMLINK_REFUSED = "symlink-refused"
    UNREADABLE = "unreadable"


# Skips that are the everyday business of a notes folder; listing them would drown the useful ones.
QUIET_CODES = frozenset(
    {SkipCode.HIDDEN, SkipCode.GITIGNORED, SkipCode.SCREEIGNORED, SkipCode.NOT_MARKDOWN, SkipCode.NESTED_REPO}
)


@dataclass(frozen=True)
class Verdict:
    """The policy's answer for one path.

    `reason`/`code` are None when the path is admitted; then `path` is the absolute file to open
    (the resolved target for a symlink) and `stat` its `os.stat` taken during the check, so a reader
    can prove it opened the very file that was checked. An admitted symbolic link is read through, and
    `alias_of` names the note it points at: that note is walked and indexed under its own name, so the
    link is not indexed again (`docs/CHANGELOG.md -> ../CHANGELOG.md` would be every hit twice).
    """

    rel_path: str
    code: SkipCode | None = None
    reason: str | None = None
    path: str | None = None
    stat: os.stat_result | None = None
    alias_of: str | None = None

    @property
    def admitted(self) -> bool:
        """True when the path is a note."""
        return self.reason is None


def is_markdown_name(name: str, suffixes: tuple[str, ...] = NOTE_SUFFIXES) -> bool:
    """True when a file name ends with one of the note `suffixes` (lower case, matched in any case)."""
    return name.lower().endswith(suffixes)


def normalise_rel(path: str) -> str | None:
    """Lexically normalise a root-relative POSIX path.

    None when it is absolute, leaves the folder, or names the folder itself.
    """
    if not path or "\0" in path or path[0] == "/":
        return None
    if all(part not in ("", ".", "..") for part in path.split("/")):
        return path  # already normal: the common case, kept cheap for per-hit re-checks
    norm = posixpath.normpath(path)
    if norm in (".", "..") or norm.startswith("../"):
        return None
    return norm


def _kind_name(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


class NotesPolicy:
    """The file-selection rules of one notes folder, with its ignore files cached.

    Build one per sync (`NotesPolicy.load`): a new instance picks up edited ignore files. Every
    check looks at the file system afresh; only parsed ignore files and per-folder rule verdicts
    are cached.
    """

    def __init__(
        self,
        root: Path,
        *,
        outer_rules: Sequence[Rules] = (),
        extra_rules: Rules | None = None,
        outer_ignore_files: frozenset[str] = frozenset(),
        suffixes: tuple[str, ...] = NOTE_SUFFIXES,
        languages: frozenset[str] = frozenset(),
    ) -> None:
        self.root = root
        self.suffixes = suffixes
        # SCREE_LANGUAGES (empty: all): a note's language is known only once it is read, so the sync applies
        # this when it indexes a note (notes/language.py `admits`), not the walk.
        self.languages = languages
        self._root_str = str(root)
        self._outer_rules = tuple(outer_rules)  # deepest first: ancestors of root, then info/exclude
        self._extra_rules = extra_rules
        self._outer_ignore_files = outer_ignore_files
        self._specs: dict[tuple[str, str], Rules | None] = {}
        self._dir_rule_cache: dict[str, tuple[SkipCode, str] | None] = {}
        self._file_rule_cache: dict[str, tuple[SkipCode, str] | None] = {}
        self._vendored = _vendored_rules()
        # `.txt` pages of Sphinx source folders are read with reStructuredText unless `.txt` is listed anyway.
        self._sphinx_text = ".rst" in suffixes and formats.SPHINX_TEXT_SUFFIX not in suffixes
        # A Vim plugin's help files are its docs, and a docs build's notebook and Quarto pages: read unless the user
        # narrowed the note extensions (every one of a suffix the user lists).
        unnarrowed = set(formats.DEFAULT_SUFFIXES) <= set(suffixes)
        self._vim_text = unnarrowed and formats.SPHINX_TEXT_SUFFIX not in suffixes
        self._man_pages = unnarrowed
        self._plain_docs = unnarrowed  # `README`, `INSTALL`, `PROTOCOL.agent`: `formats.is_plain_doc`
        # the markup suffixes (`.xml`, `.sgml`) read when their file is DocBook: not one the user lists (all such read)
        self._docbook_markup = tuple(s for s in formats.DOCBOOK_MARKUP_SUFFIXES if s not in suffixes) if unnarrowed \
            else ()
        self._docbook_heads = DocbookHeads()
        self._vim_dirs: dict[str, bool] = {}
        self._book_pages = tuple(s for s in formats.BOOK_PAGES if s not in suffixes) if unnarrowed else ()
        self._book_dirs: dict[tuple[str, tuple[str, ...]], bool] = {}  # (folder, markers): one at or above it
        self._tracked: Tracked | None = None  # read from the git index when an ignore pattern first names a path
        self._ignored_tracked: dict[str, str] = {}  # ignored folders walked for their tracked files: the rule

    @classmethod
    def load(cls, root: Path, *, extra_ignore: Sequence[str] = (),
             suffixes: tuple[str, ...] = NOTE_SUFFIXES, languages: frozenset[str] = frozenset()) -> NotesPolicy:
        """Build the policy for `root`, reading the enclosing repository's outer ignore rules.

        `extra_ignore` are gitignore-style patterns relative to the root (from the command line or
        config); they exclude on top of `.screeignore` and win over its negations. `suffixes` are the
        note extensions (`Config.note_suffixes`).
        """
        # The caller resolves root; resolving again is idempotent and keeps link checks honest if not.
        root = Path(os.path.realpath(root))
        extra = parse_ignore_lines(list(extra_ignore), "extra ignore patterns")
        extra_rules = Rules("extra ignore patterns", compile_patterns(extra), "", "") if extra else None
        outer, files = outer_rules(root)
        return cls(root, outer_rules=outer, extra_rules=extra_rules, outer_ignore_files=files, suffixes=suffixes,
                   languages=languages)

    def is_note_name(self, name: str, rel: str | None = None) -> bool:
        """True when a file name may be a note: it has one of this policy's note extensions, or it is a
        `.txt` that is a note in a Sphinx source folder or a Vim help folder (`inspect` decides by its folder), or a
        plain-text doc by its name (`README`, `INSTALL`), or an `.xml` or `.sgml` that may be DocBook (in a docs
        folder, when its path `rel` is given: the walker's quick test)."""
        lower = name.lower()
        if lower.endswith(self.suffixes):
            return True
        if lower.endswith(tuple(formats.BOOK_PAGES)):
            return lower.endswith(self._book_pages)
        if formats.is_man_page(lower):
            return self._man_pages
        if lower.endswith(formats.DOCBOOK_MARKUP_SUFFIXES):
            return lower.endswith(self._docbook_markup) and (rel is None or formats.in_docs_folder(rel))
        if self._plain_docs and formats.is_plain_doc(name):
            return True
        if not lower.endswith(formats.SPHINX_TEXT_SUFFIX):
            return False
        return self._vim_text or (self._sphinx_text and not lower.startswith(_NOT_SPHINX_PAGES))

    def in_book_source(self, rel_dir: str,
                       markers: tuple[str, ...] = formats.BOOK_PAGES[formats.NOTEBOOK_SUFFIX]) -> bool:
        """True when the folder `rel_dir` or one above it, up to the notes folder, is the source of a docs build that
        renders such pages: it holds one of `markers` (a Sphinx `conf.py`, a Jupyter Book `_toc.yml` / `myst.yml`, a
        Quarto `_quarto.yml`: `formats.BOOK_PAGES`)."""
        known = self._book_dirs.get((rel_dir, markers))
        if known is None:
            base = self._abs(rel_dir) if rel_dir else self._root_str
            here = any(os.path.isfile(os.path.join(base, marker)) for marker in markers)
            known = here or (bool(rel_dir) and self.in_book_source(posixpath.dirname(rel_dir), markers))
            self._book_dirs[(rel_dir, markers)] = known
        return known

    def in_vim_help(self, rel_dir: str) -> bool:
        """True when the folder `rel_dir` (POSIX, relative to root) is a Vim runtime folder's `doc/`: the
        folder holding it also holds `plugin/`, `autoload/`, `lua/`, ... (`formats.VIM_RUNTIME_DIRS`)."""
        if posixpath.basename(rel_dir) != formats.VIM_HELP_DIR:
            return False
        known = self._vim_dirs.get(rel_dir)
        if known is None:
            parent = posixpath.dirname(rel_dir)
            base = self._abs(parent) if parent else self._root_str
            known = any(os.path.isdir(os.path.join(base, d)) for d in formats.VIM_RUNTIME_DIRS)
            self._vim_dirs[rel_dir] = known
        return known

    def in_sphinx_source(self, rel_dir: str) -> bool:
        """True when the folder `rel_dir` (POSIX, relative to root; "" for root) or a folder above it, up to
        the notes folder, holds a Sphinx `conf.py`."""
        return self.in_book_source(rel_dir, _SPHINX_MARKERS)

    def note_kind(self, rel_path: str) -> str:
        """The format a note at `rel_path` is read in (`formats.kind_of`)."""
        if not rel_path.lower().endswith(formats.SPHINX_TEXT_SUFFIX):
            return formats.kind_of(rel_path)
        folder = posixpath.dirname(rel_path)
        return formats.kind_of(rel_path, sphinx_source=self.in_sphinx_source(folder),
                               vim_help=self.in_vim_help(folder))

    # ----- public checks -------------------------------------------------------------------

    def file_skip_reason(self, rel_path: str) -> str | None:
        """Why `rel_path` is not a note (None = admitted). Checks every parent folder too."""
        return self.inspect(rel_path).reason

    def dir_skip_reason(self, rel_dir: str) -> str | None:
        """Why the folder `rel_dir` (POSIX, relative to root) is not walked; None = walk it."""
        return self.inspect_dir(rel_dir).reason

    def inspect(self, rel_path: str, *, parents_admitted: bool = False, any_name: bool = False) -> Verdict:
        """Verdict on a file path (relative, or absolute inside root), checking every parent folder.

        `parents_admitted=True` skips the parent checks; only for a caller that has just admitted
        the parent folder with `inspect_dir` (the walker), so each folder is checked once per walk.
        `any_name=True` admits a file that is not Markdown (the vocabulary's code files and
        manifests) under the same rules; symbolic links are then refused, never followed.
        """
        rel = self._relativise(rel_path)
        if rel is None:
            return Verdict(rel_path, SkipCode.OUTSIDE, "outside the notes folder")
        slash = rel.rfind("/")
        if slash > 0 and not parents_admitted:
            dir_verdict = self.inspect_dir(rel[:slash])
            if not dir_verdict.admitted:
                return Verdict(rel, dir_verdict.code, dir_verdict.reason)
        if rel not in self._file_rule_cache:
            self._file_rule_cache[rel] = self._rule_reason(rel, is_dir=False)
        rule = self._file_rule_cache[rel]
        if rule is None and not any_name and not self._note_path(rel, rel[slash + 1 :]):
            knitted, exported = self._knitted_to(rel), self._exported_from(rel)
            markup = next((s for s in self._docbook_markup if rel.lower().endswith(s)), "")
            rule = SkipCode.NOT_MARKDOWN, (
                f"the source of {knitted} beside it, which is read instead" if knitted else
                f"exported from {exported} beside it, which is read instead" if exported else
                f"an {markup[1:].upper()} file that is not DocBook in a docs folder (`man/`, `doc/`, `docs/`, ...: its "
                "first 4 kB name no DocBook doctype, namespace or root element); add "
                f"`{markup}` to SCREE_NOTE_EXTENSIONS to read every {markup[1:].upper()} file" if markup else
                f"not a document scree reads: its extension is not one of {' '.join(self.suffixes)} "
                f"(SCREE_NOTE_EXTENSIONS)")
        if rule:
            return Verdict(rel, rule[0], rule[1])
        return self._inspect_file_on_disk(rel, via_link=any_name)  # any_name: a link is refused, not followed

    def _note_path(self, rel: str, name: str) -> bool:
        """True when a file's name and place make it a note (a `.txt` counts only in a Sphinx source folder or
        a Vim help folder, a notebook only in a docs build's source folder, unless their suffix is listed; a manual
        page, `ssh.1`, unless the extensions are narrowed)."""
        lower = name.lower()
        if lower.endswith(self.suffixes):
            return self._exported_from(rel) is None
        if not self.is_note_name(name):
            return False
        if formats.is_man_page(lower):
            return self._man_pages
        if lower.endswith(formats.DOCBOOK_MARKUP_SUFFIXES):
            return lower.endswith(self._docbook_markup) and formats.in_docs_folder(rel) \
                and self._docbook_heads.holds_docbook(self._abs(rel), rel)
        if self._plain_docs and formats.is_plain_doc(name):
            return True
        folder = posixpath.dirname(rel)
        for suffix, markers in formats.BOOK_PAGES.items():
            if lower.endswith(suffix):
                return self.in_book_source(folder, markers) and not self._knitted_to(rel)
        if self._vim_text and self.in_vim_help(folder):
            return True
        return self._sphinx_text and not lower.startswith(_NOT_SPHINX_PAGES) and self.in_sphinx_source(folder)

    def _exported_from(self, rel: str) -> str | None:
        """The source beside `rel` that it is exported from (`magit.texi` from `magit.org`: `formats.EXPORTS`), when
        that source is read too; else None."""
        lower = rel.lower()
        source = next((s for e, s in formats.EXPORTS.items() if lower.endswith(e) and s in self.suffixes), None)
        if source is None:
            return None
        page = rel[: rel.rfind(".")] + source
        return posixpath.basename(page) if os.path.isfile(self._abs(page)) else None

    def _knitted_to(self, rel: str) -> str | None:
        """The Markdown page beside `rel` that it is knitted or rendered to (`README.Rmd` to `README.md`:
        `formats.KNITTED_SOURCES`), when `rel` is such a source read without a setting; else None."""
        lower = rel.lower()
        if not lower.endswith(formats.KNITTED_SOURCES) or lower.endswith(self.suffixes):
            return None
        page = rel[: rel.rfind(".")] + ".md"
        return posixpath.basename(page) if os.path.isfile(self._abs(page)) else None

    def inspect_dir(self, rel_dir: str, *, parents_admitted: bool = False) -> Verdict:
        """Verdict on a folder: admitted means the walker may list it. Checks every parent too,
        unless `parents_admitted` (see `inspect`)."""
        if rel_dir in ("", "."):
            missing = self._root_missing()
            return Verdict("", SkipCode.MISSING, missing) if missing else Verdict("", path=self._root_str)
        rel = self._relativise(rel_dir)
        if rel is None:
            return Verdict(rel_dir, SkipCode.OUTSIDE, "outside the notes folder")
        verdict: tuple[SkipCode, str] | None = None
        if parents_admitted:
            verdict = self._own_dir_verdict(rel)
        else:
            parts = rel.split("/")
            for i in range(1, len(parts) + 1):
                verdict = self._own_dir_verdict("/".join(parts[:i]))
                if verdict is not None:
                    break
        if verdict is not None:
            return Verdict(rel, verdict[0], verdict[1])
        return Verdict(rel, path=self._abs(rel))

    def resolve(self, user_path: str) -> str:
        """Turn a user-supplied path into an admitted note's normalised POSIX rel path.

        Accepts a path relative to the notes folder or an absolute path inside it; `./` and `../`
        are resolved lexically. Raises `PathRefused` when it escapes the folder or is not a note.
        """
        rel = self._relativise(user_path)
        if rel is None:
            raise PathRefused(
                user_path, f"outside the notes folder {self._root_str}; give a path inside it"
            )
        reason = self.file_skip_reason(rel)
        if reason is not None:
            raise PathRefused(user_path, reason)
        return rel

    def is_ignore_file(self, rel_path: str) -> bool:
        """True for paths whose change alters the rules: any `.gitignore` / `.screeignore`, the
        repository's `.git/info/exclude`, and the ignore files above the root that apply to it.
        Accepts a root-relative path (may climb with `../`) or an absolute one."""
        absolute = os.path.normpath(os.path.join(self._root_str, rel_path))
        if absolute in self._outer_ignore_files:
            return True
        rel = os.path.relpath(absolute, self._root_str)
        if rel.startswith(".." + os.sep) or rel == "..":
            return False
        return os.path.basename(rel) in (GITIGNORE, SCREEIGNORE) or rel == os.path.join(
            ".git", "info", "exclude"
        )

    # ----- internals -----------------------------------------------------------------------

    def _abs(self, rel: str) -> str:
        return self._root_str + "/" + rel if rel else self._root_str

    def _root_missing(self) -> str | None:
        try:
            st = os.stat(self._root_str)
        except OSError as exc:
            return f"the notes folder {self._root_str} cannot be reached ({exc.strerror})"
        if not stat.S_ISDIR(st.st_mode):
            return f"the notes folder {self._root_str} is not a folder"
        return None

    def _relativise(self, path: str) -> str | None:
        if not path.startswith("/"):
            return normalise_rel(path)
        if "\0" in path:
            return None
        candidate = os.path.normpath(path)
        rel = self._under_root(candidate)
        if rel is None:
            # The caller may reach the folder through another name (a symlinked home, /tmp on macOS):
            # resolve the parent folders, never the last component, which the policy judges as is.
            head, tail = os.path.split(candidate)
            rel = self._under_root(os.path.join(os.path.realpath(head), tail))
        return rel

    def _under_root(self, absolute: str) -> str | None:
        if absolute == self._root_str or not absolute.startswith(self._root_str.rstrip("/") + "/"):
            return None
        return normalise_rel(os.path.relpath(absolute, self._root_str).replace(os.sep, "/"))

    def _rules(self, folder: str, filename: str) -> Rules | None:
        key = (folder, filename)
        if key not in self._specs:
            label = f"{folder}/{filename}" if folder else filename
            spec = read_ignore_file(self._abs(folder) + "/" + filename, label)
            self._specs[key] = Rules(label, compile_patterns(spec), folder, "") if spec else None
        return self._specs[key]

    def _rule_reason(self, rel: str, *, is_dir: bool) -> tuple[SkipCode, str] | None:
        """Hidden / gitignored / screeignored for the last component of `rel` (parents already admitted)."""
        name = posixpath.basename(rel)
        what = f"folder {rel}/" if is_dir else "file"
        if name.startswith("."):
            return SkipCode.HIDDEN, f"{what} is hidden (its name starts with '.')"
        folders = _parent_folders(rel)
        git_chain = [self._rules(f, GITIGNORE) for f in reversed(folders)]
        hit = first_match(rel, is_dir, [*git_chain, *self._outer_rules])
        if hit is None and not is_dir and self._ignored_tracked:  # below a folder walked for its tracked files only
            hit = next((self._ignored_tracked[f] for f in folders if f in self._ignored_tracked), None)
        if hit and not self._tracked_anyway(rel, is_dir):
            return SkipCode.GITIGNORED, f"{what} is gitignored ({hit})"
        if hit and is_dir:
            self._ignored_tracked[rel] = hit
        scree_chain = [self._rules(f, SCREEIGNORE) for f in reversed(folders)]
        hit = first_match(rel, is_dir, [self._extra_rules, *scree_chain, self._vendored])
        if hit and hit.endswith(VENDORED_LABEL):
            if is_dir and name in BUILT_DIRS and os.path.isfile(self._abs(rel) + "/" + SPHINX_CONF):
                return None
            return SkipCode.SCREEIGNORED, (f"{what} holds vendored or built files, skipped by default ({hit}); "
                                           f"a .screeignore line '!{name}/' indexes it")
        if hit:
            return SkipCode.SCREEIGNORED, f"{what} is excluded by scree ignore rules ({hit})"
        return None

    def _tracked_anyway(self, rel: str, is_dir: bool) -> bool:
        """True when git tracks the file `rel`, or a file below the folder `rel`, which its ignore patterns name: git
        never ignores a tracked file (`notes/gitindex.py`). The index is read once, the first time it is asked."""
        if not TRACKED_NOT_IGNORED:
            return False
        if self._tracked is None:
            self._tracked = tracked_below(self.root, self.is_note_name)
        return rel in (self._tracked.folders if is_dir else self._tracked.files)

    def _own_dir_verdict(self, rel: str) -> tuple[SkipCode, str] | None:
        """Rules and file-system checks for one folder, its parents already admitted."""
        if rel not in self._dir_rule_cache:
            self._dir_rule_cache[rel] = self._rule_reason(rel, is_dir=True)
        rule = self._dir_rule_cache[rel]
        if rule:
            return rule
        absolute = self._abs(rel)
        try:
            st = os.lstat(absolute)
        except FileNotFoundError:
            return SkipCode.MISSING, f"folder {rel}/ does not exist"
        except OSError as exc:
            return SkipCode.UNREADABLE, f"folder {rel}/ cannot be inspected ({exc.strerror})"
        if stat.S_ISLNK(st.st_mode):
            return self._dir_link_verdict(rel, absolute)
        if not stat.S_ISDIR(st.st_mode):
            return SkipCode.NOT_A_FOLDER, f"{rel} is not a folder"
        if os.path.lexists(absolute + "/.git"):
            return SkipCode.NESTED_REPO, f"folder {rel}/ is a nested git repository"
        return None

    def _dir_link_verdict(self, rel: str, absolute: str) -> tuple[SkipCode, str]:
        try:
            target = os.stat(absolute)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return SkipCode.SYMLINK_LOOP, f"{rel} is a symbolic link loop"
            return SkipCode.SYMLINK_BROKEN, f"{rel} is a broken symbolic link"
        if not stat.S_ISDIR(target.st_mode):
            return SkipCode.NOT_A_FOLDER, f"{rel} is a symbolic link to a file, not a folder"
        return (
            SkipCode.SYMLINK_DIR,
            f"{rel} is a symbolic link to a folder; scree does not follow folder links "
            "(move or copy the notes into the folder instead)",
        )

    def _inspect_file_on_disk(self, rel: str, *, via_link: bool = False) -> Verdict:
        absolute = self._abs(rel)
        try:
            st = os.lstat(absolute)
        except (FileNotFoundError, NotADirectoryError):
            return Verdict(rel, SkipCode.MISSING, "does not exist")
        except OSError as exc:
            return Verdict(rel, SkipCode.UNREADABLE, f"cannot be inspected ({exc.strerror})")
        if stat.S_ISLNK(st.st_mode):
            if via_link:  # realpath output never ends in a link unless it changed under us
                return Verdict(rel, SkipCode.SYMLINK_REFUSED, "symbolic link changed while checked")
            return self._inspect_file_link(rel, absolute)
        if stat.S_ISDIR(st.st_mode):
            return Verdict(rel, SkipCode.IS_A_FOLDER, "is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            return Verdict(rel, SkipCode.NOT_REGULAR, f"is {_kind_name(st.st_mode)}, not a regular file")
        return Verdict(rel, path=absolute, stat=st)

    def _inspect_file_link(self, rel: str, absolute: str) -> Verdict:
        try:
            target = os.path.realpath(absolute, strict=True)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return Verdict(rel, SkipCode.SYMLINK_LOOP, "is a symbolic link loop")
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                return Verdict(rel, SkipCode.SYMLINK_BROKEN, "is a broken symbolic link")
            reason = f"symbolic link cannot be resolved ({exc.strerror})"
            return Verdict(rel, SkipCode.SYMLINK_REFUSED, reason)
        if os.path.isdir(target):
            reason = "is a symbolic link to a folder; scree does not follow folder links"
            return Verdict(rel, SkipCode.SYMLINK_DIR, reason)
        target_rel = self._under_root(target)
        if target_rel is None:
            return Verdict(
                rel, SkipCode.SYMLINK_OUTSIDE, "is a symbolic link to a target outside the notes folder"
            )
        if not self._note_path(target_rel, posixpath.basename(target_rel)):
            reason = f"is a symbolic link to a file scree does not read ({target_rel})"
            return Verdict(rel, SkipCode.SYMLINK_NOT_MARKDOWN, reason)
        # The target must be a note in its own right: a link may not smuggle in a hidden or ignored file.
        parent = posixpath.dirname(target_rel)
        refused = self.inspect_dir(parent) if parent else Verdict("")
        if refused.admitted:
            rule = self._rule_reason(target_rel, is_dir=False)
            if rule:
                refused = Verdict(target_rel, rule[0], rule[1])
            else:
                refused = self._inspect_file_on_disk(target_rel, via_link=True)
        if not refused.admitted:
            reason = f"is a symbolic link to {target_rel}, which is refused: {refused.reason}"
            return Verdict(rel, SkipCode.SYMLINK_REFUSED, reason)
        return Verdict(rel, path=refused.path, stat=refused.stat, alias_of=target_rel)


@functools.cache
def _vendored_rules() -> Rules:
    """The vendored-folder defaults as the last, weakest ignore file (any .screeignore line overrides them)."""
    spec = parse_ignore_lines([f"{d}/" for d in VENDORED_DIRS], VENDORED_LABEL)
    assert spec is not None
    return Rules(VENDORED_LABEL, compile_patterns(spec), "", "")


def _parent_folders(rel: str) -> list[str]:
    """Root-relative folders containing `rel`, shallowest first ("" is the root)."""
    parts = rel.split("/")[:-1]
    return [""] + ["/".join(parts[: i + 1]) for i in range(len(parts))]
