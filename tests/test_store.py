"""Opening an index: private files, and refusing what it must not touch."""

from __future__ import annotations

import os
import stat

import pytest

from scree.config import load_config
from scree.db import schema
from scree.errors import IndexError_
from scree.locate import index_location
from scree.store import open_index


def test_index_directory_and_files_are_private_including_wal_and_shm(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    loc = index_location(folder, load_config())
    index = open_index(loc, folder)
    index.conn.execute("create table t(x)")  # a write, so the -wal and -shm files exist
    assert stat.S_IMODE(os.stat(loc.dir).st_mode) == 0o700
    for name in ("index.db", "index.db-wal", "index.db-shm", "root"):
        assert stat.S_IMODE(os.stat(loc.dir / name).st_mode) == 0o600, name
    assert (loc.dir / "root").read_text() == f"{folder.resolve()}\n"
    index.close()


def test_index_from_a_newer_scree_is_refused_not_rewritten(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    loc = index_location(folder, load_config())
    index = open_index(loc, folder)
    index.conn.execute(f"pragma user_version = {schema.SCHEMA_VERSION + 1}")
    index.close()
    with pytest.raises(IndexError_, match="newer"):
        open_index(loc, folder)
