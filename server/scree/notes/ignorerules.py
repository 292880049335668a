"""Gitignore rules as git applies them: one ignore file's compiled lines, and the chain lookup.

pathspec parses the lines; the decision is made here, because pathspec's regexes also match every
path under a matched folder, while git decides each folder by the lines that match the folder itself
and never descends into an excluded one. `policy.py` walks folders top-down with these rules.
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass

from pathspec import GitIgnoreSpec

# pathspec's private names for the group its gitignore regexes put on the slash after a matched folder
# (`ps_d`), and that group's regex: git's per-folder decision needs to know where a match ended, which
# pathspec's public API does not say. pyproject bounds pathspec below the next minor version, and
# tests/test_ignorerules_git.py checks the decisions against `git check-ignore` on a generated tree.
from pathspec.patterns.gitignore.spec import _DIR_MARK, _DIR_MARK_CG

from ..errors import BadPattern

log = logging.getLogger(__name__)

MAX_IGNORE_FILE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Pattern:
    ignore: bool  # False for a `!` negation
    regex: re.Pattern[str]
    text: str
    folders_inside: bool  # ends with `/**/`, which pathspec compiles like a plain `folder/`


def compile_patterns(spec: GitIgnoreSpec) -> tuple[Pattern, ...]:
    """The spec's patterns, last first (git's last matching line wins), blanks and comments dropped."""
    out = []
    for pattern in reversed(spec.patterns):
        if pattern.include is not None and pattern.regex is not None:
            text = str(pattern.pattern)
            inside = text.rstrip().endswith("/**/") and pattern.regex.pattern.endswith(_DIR_MARK_CG)
            out.append(Pattern(bool(pattern.include), pattern.regex, text, inside))
    return tuple(out)


def _matches_itself(pattern: Pattern, path: str) -> bool:
    """True when the pattern matches `path` itself (a folder path ends with '/').

    pathspec's regexes also match every path *under* a matched folder (their `ps_d` marker sits
    on that folder's slash). Git instead decides each folder by the lines matching it and never
    descends into an excluded one, which the policy reproduces by checking folders top-down; so
    here only a match of the path itself counts, or a negation of a folder would re-include
    files that a line above it excluded.
    """
    if pattern.regex.pattern == _DIR_MARK_CG:  # `*/` and `**/`: every folder, at any depth
        return path.endswith("/")
    if pattern.folders_inside:  # `docs/**/`: the folders under a docs/, not docs/ itself
        if not path.endswith("/"):
            return False
        slashes = [i for i, ch in enumerate(path[:-1]) if ch == "/"]
        return any(pattern.regex.fullmatch(path[: i + 1]) for i in slashes)
    found = pattern.regex.search(path)
    if found is None:
        return False
    if _DIR_MARK not in pattern.regex.groupindex:
        # A trailing `/**` (`docs/**`) matches what is inside the folder, not the folder itself.
        return not pattern.regex.pattern.endswith("/") or found.end() < len(path)
    if found.end(_DIR_MARK) in (-1, len(path)):
        return True
    # The marker matched an ancestor's slash; a match of the whole path may still exist.
    full = pattern.regex.fullmatch(path)
    return full is not None and full.end(_DIR_MARK) in (-1, len(path))


@dataclass(frozen=True)
class Rules:
    """One ignore file: its patterns and how a root-relative path is made relative to it."""

    label: str  # shown in reasons, e.g. "docs/.gitignore"
    patterns: tuple[Pattern, ...]
    strip: str  # root-relative folder of the file ("" for the root or for files above it)
    prepend: str  # path from the file's folder down to the root, for files above the root

    def match(self, rel: str, is_dir: bool) -> tuple[bool, str] | None:
        """(ignored, pattern) of the last line matching `rel`, or None when no line matches."""
        sub = rel[len(self.strip) + 1 :] if self.strip else rel
        return self.decide(self.prepend + sub + ("/" if is_dir else ""))

    def decide(self, path: str) -> tuple[bool, str] | None:
        """(ignored, pattern) for a path already relative to this file's folder."""
        for pattern in self.patterns:
            if _matches_itself(pattern, path):
                return pattern.ignore, pattern.text
        return None


def _compile(lines: Sequence[str]) -> GitIgnoreSpec:
    # pathspec raises ValueError for some lines and lets re.error (not a ValueError) escape for
    # others, e.g. `[z-a]`, a range git accepts and simply never matches.
    try:
        return GitIgnoreSpec.from_lines(lines)
    except (ValueError, re.error) as exc:
        raise BadPattern(str(exc)) from None


def parse_ignore_lines(lines: Sequence[str], label: str) -> GitIgnoreSpec | None:
    """Compile gitignore lines; a bad line is dropped with one warning (git skips it too), the
    others still apply."""
    try:
        spec = _compile(lines)
    except BadPattern:
        good = []
        for line in lines:
            try:
                _compile([line])
            except BadPattern:
                _warn_once(label, line)
            else:
                good.append(line)
        spec = _compile(good)
    return spec if len(spec) else None


@functools.lru_cache(maxsize=256)
def _warn_once(label: str, line: str) -> None:
    # Ignore files are re-read on every full sync and by readers every few seconds: say it once.
    log.warning("%s: ignoring invalid pattern %r (git skips it too)", label, line)


def check_globs(globs: Sequence[str]) -> tuple[str, ...]:
    """The path filter globs (gitignore-style) of a search, checked up front: raises BadPattern
    naming the first glob that is empty or cannot be compiled. Used by the CLI and the MCP tool."""
    for glob in globs:
        if not glob.strip():
            raise BadPattern("the path filter holds an empty glob: give globs such as 'docs/**'")
        try:
            _compile([glob])
        except BadPattern as exc:
            raise BadPattern(f"the path filter {glob!r} is not a valid glob ({exc}); "
                             "use gitignore-style globs such as 'docs/**' or '*.md'") from None
    return tuple(globs)


def read_ignore_file(path: str, label: str) -> GitIgnoreSpec | None:
    """Read an ignore file safely: no FIFO waits, no symlinks (git refuses symlinked ignore files too)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            log.warning("%s is a symbolic link; like git, scree does not follow it", label)
        else:
            log.warning("%s cannot be read (%s); its rules are not applied", label, exc.strerror)
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size > MAX_IGNORE_FILE_BYTES:
            log.warning("%s is over %d bytes; its rules are not applied", label, MAX_IGNORE_FILE_BYTES)
            return None
        data = os.read(fd, MAX_IGNORE_FILE_BYTES + 1)
    except OSError as exc:
        log.warning("%s cannot be read (%s); its rules are not applied", label, exc.strerror)
        return None
    finally:
        os.close(fd)
    return parse_ignore_lines(data.decode("utf-8", errors="replace").splitlines(), label)


def first_match(rel: str, is_dir: bool, chain: Sequence[Rules | None]) -> str | None:
    """Walk rule files from highest precedence down; the first one with a matching line decides."""
    for rules in chain:
        if rules is None:
            continue
        hit = rules.match(rel, is_dir)
        if hit is not None:
            ignored, pattern = hit
            return f"'{pattern}' in {rules.label}" if ignored else None
    return None
