"""Which notes folder a hook serves and where its index lives, as `scree.locate` decides it.

`scree.config` and `scree.locate` pull in `dataclasses` (and with it `inspect`), `hashlib` and
`pathlib`: about a third of a hook's time budget. So the answer is cached in the session state,
keyed by everything it depends on, and only the first hook of a session pays for the imports.
"""

from __future__ import annotations

import os
from collections import namedtuple

from . import jsonio as json  # `import json` would pull in re and enum: see jsonio
from . import state

# Every input of scree.locate's answer besides the file system.
_ENV_INPUTS = ("SCREE_NOTES", "SCREE_DB", "SCREE_DATA_DIR", "XDG_DATA_HOME", "HOME", "CLAUDE_PROJECT_DIR")


TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Mapping


class ProjectIndex(namedtuple("ProjectIndex", "folder db lock key")):
    """A notes folder, its index files, and its key (the usage log's file name)."""

    __slots__ = ()
    folder: str
    db: str
    lock: str
    key: str


def fingerprint(project_dir: str, env: Mapping[str, str] | None = None) -> str:
    """What the location depends on, as one string to compare a cached answer with."""
    env = os.environ if env is None else env
    return json.dumps([project_dir, *[env.get(k, "") for k in _ENV_INPUTS]])


def resolve(project_dir: str) -> ProjectIndex:
    """Ask scree.locate (the same code the MCP server uses). Raises ScreeError on a bad SCREE_* setting."""
    from pathlib import Path

    from ..config import load_config
    from ..locate import folder_key, index_location, resolve_folder

    cfg = load_config()
    folder = resolve_folder(cfg, Path(project_dir))
    loc = index_location(folder, cfg)
    return ProjectIndex(folder=str(folder), db=str(loc.db), lock=str(loc.lock), key=folder_key(folder))


def cached(session: str, project_dir: str, known: Mapping[str, object] | None = None) -> ProjectIndex:
    """`resolve`, answered from the session state when nothing it depends on has changed.

    `known` is the session state already read by the caller (saves a read).
    """
    fp = fingerprint(project_dir)
    entry = (known if known is not None else state.load(session)).get("loc")
    if isinstance(entry, dict) and entry.get("fp") == fp:
        try:
            return ProjectIndex(*(str(entry[k]) for k in ProjectIndex._fields))
        except KeyError:
            pass
    found = resolve(project_dir)

    def remember(s: dict) -> None:
        s["loc"] = {"fp": fp, **found._asdict()}

    state.update(session, remember)
    return found
