"""A name only the release histories spell, looked up by the spelling the docs use (issue 38).

One option has several spellings: a flag `--skip-missing-interpreters`, a config key `skip_missing_interpreters`,
an environment variable `UV_NO_SYNC` for the flag `--no-sync`. Docs explain an option once, in one spelling; a
changelog entry often names another ("add `--skip-missing-interpreters`", "`UV_NO_SYNC` now respected"). A lookup
of that other spelling then finds only the histories, though the docs explain the option. So when every section
that spells a looked-up name is a release history and a sibling spelling is spelled by the docs proper, the lookup
is answered for the sibling, and the answer says so. A name the docs spell anywhere is left alone: a variable and
its flag are not always the same option (pip's `--cache-dir` and `--no-cache-dir` are two), and where the docs
spell the name they answer it.

`sibling_spellings` and `only_histories_spell` (read off a lookup's candidates, so that a name the docs spell costs
nothing more) are pure; `docs_spelling` reads the index.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from ..db import queries
from ..index.store import Index
from . import ranking
from .names import spelled_counter, spells_any, verbatim_pattern
from ..records import FileScope

# Measured (docs/benchmarks.md): SIBLING_SPELLINGS.
SIBLING_SPELLINGS = True
# Chunks read for a sibling's spellers outside the histories.
_POOL = 60

_FLAG = re.compile(r"--([a-z0-9]+(?:-[a-z0-9]+)+)")
_KEY = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_KEBAB_KEY = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")
_VARIABLE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+){2,}")


def sibling_spellings(name: str) -> list[str]:
    """The other spellings of the option `name` spells, as typed, most likely first: a flag of two words or more
    as its key (`--skip-missing-interpreters`: `skip_missing_interpreters`, `skip-missing-interpreters`), a key of
    underscores as one of dashes, whose pattern finds its flag too (`running_content_start_at`:
    `running-content-start-at`, `--running-content-start-at`), a key of dashes as one of underscores, then its flag
    (`editable-mode`: `editable_mode`, `--editable-mode`), a variable as what follows its tool's prefix
    (`PIP_NO_CACHE_DIR`: `--no-cache-dir`, `no_cache_dir`, `no-cache-dir`; two words at least). [] for anything
    else."""
    if flag := _FLAG.fullmatch(name):
        words = flag.group(1).split("-")
        return ["_".join(words), "-".join(words)]
    if _KEY.fullmatch(name):  # the dashed key's pattern matches its flag too (`names.FLAG_SPELLS_KEY`)
        return [name.replace("_", "-")]
    if _KEBAB_KEY.fullmatch(name):
        return [name.replace("-", "_"), "--" + name]
    if _VARIABLE.fullmatch(name):
        words = name.casefold().split("_")[1:]
        return ["--" + "-".join(words), "_".join(words), "-".join(words)]
    return []


def only_histories_spell(name: str, sections: Iterable[tuple[str, str]]) -> bool:
    """True when, of `sections` ((path, text): a lookup's candidates), some release history spells `name` verbatim
    and nothing else does (`ranking.is_history_file`)."""
    exact = verbatim_pattern(name.strip().casefold())
    spellers = [path for path, text in sections if exact.search(text.casefold())]
    return bool(spellers) and all(ranking.is_history_file(p) for p in spellers)


def docs_spelling(index: Index, name: str, sections: Iterable[tuple[str, str]],
                  file_ids: FileScope | None = None) -> str:
    """The first sibling spelling of `name` (`sibling_spellings`) that a section other than a release history spells
    verbatim, when of `sections` (a lookup's candidates) only histories spell `name` (`only_histories_spell`); else "".
    The name's shape is checked first: most lookups have no sibling, and their candidates are not read."""
    siblings = sibling_spellings(name.strip()) if SIBLING_SPELLINGS else []
    if not siblings or not only_histories_spell(name, sections):
        return ""
    return next((s for s in siblings if _spelled_in_docs(index, s, file_ids)), "")


def _spellers(index: Index, name: str, file_ids: FileScope | None) -> list[int]:
    """The chunks outside the release histories that may spell `name` (a substring match, up to _POOL)."""
    found = queries.spelling_chunks(index.conn, name, _POOL, file_ids)
    paths = queries.chunk_paths(index.conn, found)
    return [cid for cid in found if cid in paths and not ranking.is_history_file(paths[cid])]


def _spelled_in_docs(index: Index, name: str, file_ids: FileScope | None) -> bool:
    """True when a section outside the release histories spells `name` verbatim (`names.spells_any`)."""
    return spells_any(index, _spellers(index, name, file_ids), spelled_counter([name]))
