"""Walk the notes folder: yield the admitted notes in sorted order, and the skips worth reporting.

Folders the policy refuses are pruned before they are listed, so an ignored `node_modules/` costs
one name check, not a listing. Symlinked folders are never entered, which also rules out loops. A link to
a note is that note under a second name: the note is walked under its own name, the link passed over.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass

from ..errors import FolderError
from .policy import QUIET_CODES, NotesPolicy, SkipCode, Verdict
from ..records import Skipped

ScandirFn = Callable[[str], AbstractContextManager[Iterator[os.DirEntry[str]]]]

_DIR, _LINK, _FILE = "dir", "link", "file"
# A link whose name is not Markdown is noise unless it is one of these: worth a line in the report.
_REPORTED_FOR_ANY_LINK = frozenset({SkipCode.SYMLINK_DIR, SkipCode.SYMLINK_LOOP})


@dataclass
class WalkStats:
    """Counters of one walk, filled in as it goes (status output; tests use them to prove pruning)."""

    visited_dirs: int = 0
    notes: int = 0
    reported: int = 0


def walk_notes(
    policy: NotesPolicy,
    *,
    stats: WalkStats | None = None,
    scandir: ScandirFn = os.scandir,
    visit_file: Callable[[NotesPolicy, str, str], str | Skipped | bool] | None = None,
) -> Iterator[str | Skipped]:
    """Yield every admitted note's rel path and a `Skipped` for each skip worth reporting.

    Items come in lexicographic order of their POSIX rel paths. Hidden, ignored and non-Markdown
    entries are passed over silently; refused symlinks, FIFOs or sockets named like notes,
    unreadable folders, symlink loops and non-UTF-8 names are reported. A folder reported as
    Skipped was not seen: its notes are unknown, not deleted.

    Raises `FolderError` when the notes folder itself cannot be listed, so a caller never mistakes
    an unreachable folder for an empty one. `scandir` is injectable for tests that count listings.
    `visit_file` replaces the per-file decision (`walk_code` uses it to select code files instead).
    """
    visit = visit_file or _visit_file
    stats = stats if stats is not None else WalkStats()
    root_verdict = policy.inspect_dir("")
    if not root_verdict.admitted:
        raise FolderError(f"{root_verdict.reason}; check the path and that it is mounted")
    try:
        entries = _list(scandir, str(policy.root), "")
    except OSError as exc:
        raise FolderError(
            f"cannot list the notes folder {policy.root} ({exc.strerror}); check its permissions"
        ) from exc
    stats.visited_dirs += 1
    stack = [iter(entries)]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            continue
        rel, kind = entry
        outcome: str | Skipped | bool | None
        if kind == _DIR:
            outcome = _visit_dir(policy, rel)
            if outcome is None:
                try:
                    listing = _list(scandir, policy.root.as_posix() + "/" + rel, rel + "/")
                except OSError as exc:
                    outcome = Skipped(rel, f"folder {rel}/ cannot be listed ({exc.strerror})", keep_rows=True)
                else:
                    stats.visited_dirs += 1
                    stack.append(iter(listing))
                    continue
        else:
            outcome = visit(policy, rel, kind)
        if isinstance(outcome, Skipped):
            stats.reported += 1
            yield outcome
        elif isinstance(outcome, str):
            stats.notes += 1
            yield outcome


def _list(scandir: ScandirFn, absolute: str, prefix: str) -> list[tuple[str, str]]:
    """One folder's entries as (rel path, kind), ordered so the depth-first walk is globally sorted.

    A folder sorts as `name/`: then everything under it sits exactly where its paths sort among
    its siblings (`a-b.md` < `a/x.md` because '-' < '/').
    """
    entries: list[tuple[str, str, str]] = []
    with scandir(absolute) as it:
        for item in it:
            try:
                if item.is_symlink():
                    kind = _LINK
                elif item.is_dir(follow_symlinks=False):
                    kind = _DIR
                else:
                    kind = _FILE
            except OSError:  # vanished or unreadable while listing: the policy will say which
                kind = _FILE
            key = item.name + "/" if kind == _DIR else item.name
            entries.append((key, prefix + item.name, kind))
    entries.sort()
    return [(rel, kind) for _key, rel, kind in entries]


def _bad_name(rel: str) -> Skipped | None:
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(rel).decode("utf-8", errors="replace")
        return Skipped(shown, "name is not valid UTF-8; rename it to have it indexed")
    return None


def _visit_dir(policy: NotesPolicy, rel: str) -> Skipped | None | bool:
    """None to descend; a Skipped to report; False to pass over quietly."""
    if os.path.basename(rel).startswith("."):
        return False
    bad = _bad_name(rel)
    if bad is not None:
        return bad
    verdict = policy.inspect_dir(rel, parents_admitted=True)
    if verdict.admitted:
        return None
    assert verdict.reason is not None
    return False if verdict.code in QUIET_CODES else Skipped(rel, verdict.reason)


def _visit_file(policy: NotesPolicy, rel: str, kind: str) -> str | Skipped | bool:
    """The note's rel path, a Skipped to report, or False to pass over quietly."""
    name = os.path.basename(rel)
    if name.startswith("."):
        return False
    markdown = policy.is_note_name(name, rel)
    if not markdown and kind != _LINK:
        return False
    bad = _bad_name(rel)
    if bad is not None:
        return bad if markdown else False
    if not markdown:
        # A link named like a folder: say so when it is one (or a loop), as a user may expect it walked.
        verdict = policy.inspect_dir(rel, parents_admitted=True)
        if verdict.code in _REPORTED_FOR_ANY_LINK and verdict.reason is not None:
            return Skipped(rel, verdict.reason)
        return False
    verdict = policy.inspect(rel, parents_admitted=True)
    if verdict.admitted:
        return False if verdict.alias_of is not None else verdict.rel_path
    assert verdict.reason is not None
    return False if verdict.code in QUIET_CODES else Skipped(rel, verdict.reason)


def walk_code(policy: NotesPolicy, wanted: Callable[[str], bool], *,
              stats: WalkStats | None = None) -> Iterator[Verdict | Skipped]:
    """The policy's verdicts (with `stat`) on the regular files whose name `wanted` accepts, under the
    notes' rules (hidden, ignored, nested-repo and vendored folders pruned the same way). Symbolic
    links are not followed. The only Skipped yielded are folders that could not be listed
    (`keep_rows`): what is under them is unknown, not gone."""
    admitted: dict[str, Verdict] = {}

    def visit(policy: NotesPolicy, rel: str, kind: str) -> str | bool:
        name = os.path.basename(rel)
        if kind == _LINK or name.startswith(".") or not wanted(name) or _bad_name(rel) is not None:
            return False
        verdict = policy.inspect(rel, parents_admitted=True, any_name=True)
        if not verdict.admitted:
            return False
        admitted[verdict.rel_path] = verdict
        return verdict.rel_path

    for item in walk_notes(policy, stats=stats, visit_file=visit):
        if isinstance(item, str):
            yield admitted.pop(item)
        elif item.keep_rows:
            yield item
