"""The settings table is the one declaration of every SCREE_* variable: config, doctor and README follow it."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest

from scree.doctor import doctor
from scree import settings_table
from scree.config import Config, load_config
from scree.errors import ConfigError

REPO = Path(__file__).resolve().parent.parent
NAME = re.compile(r"\bSCREE_[A-Z][A-Z0-9_]*[A-Z0-9]\b")


def test_readme_configuration_table_is_the_settings_table():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index(settings_table.HEADER[0])
    shown = readme[start:readme.index("\n\n", start)]
    assert shown == settings_table.markdown(), "paste `python -m scree.settings_table` into the README"


def test_every_config_field_has_exactly_one_row_and_every_row_field_exists():
    rows = [s.field for s in settings_table.SETTINGS if s.field is not None]
    assert sorted(rows) == sorted(f.name for f in fields(Config))
    assert sorted(settings_table.config_fields()) == sorted(rows)
    assert len({s.env for s in settings_table.SETTINGS}) == len(settings_table.SETTINGS)


def _shipped_files() -> list[Path]:
    """Code and docs that ship: the package, the hooks, the launcher, skills, README, docs."""
    found = [*(REPO / "server").rglob("*.py"), *(REPO / "hooks").glob("*"), *(REPO / "bin").glob("*"),
             *(REPO / "skills").rglob("*.md"), *(REPO / "docs").glob("*.md"), REPO / "README.md"]
    return [p for p in found if p.is_file()]


def test_every_scree_variable_named_anywhere_is_declared_in_the_table():
    declared = set(settings_table.by_env())
    # Not settings: a Python name that happens to start with SCREE_, and the test suite's embedder seam.
    from scree.embed import TEST_EMBEDDER_ENV

    code_names = {"SCREE_KINDS", TEST_EMBEDDER_ENV}
    undeclared = {}
    for path in _shipped_files():
        for name in set(NAME.findall(path.read_text(encoding="utf-8", errors="replace"))) - declared - code_names:
            undeclared.setdefault(name, []).append(str(path.relative_to(REPO)))
    assert undeclared == {}


def test_load_config_parses_each_kind_from_its_row(tmp_path: Path):
    cfg = load_config({settings_table.NOTES.env: str(tmp_path), settings_table.K.env: " 7 ",
                       settings_table.MAX_FILE_MB.env: "2.5", settings_table.MODE.env: "keyword",
                       settings_table.THREADS.env: ""})
    assert (cfg.notes, cfg.k, cfg.max_file_mb, cfg.mode, cfg.threads) == (tmp_path, 7, 2.5, "keyword", None)


def test_a_bad_value_names_the_variable():
    with pytest.raises(ConfigError, match="SCREE_VECTOR_CACHE_MB='lots'"):
        load_config({"SCREE_VECTOR_CACHE_MB": "lots"})


def test_doctor_knows_every_row_and_hides_secret_values():
    env = {s.env: "x" for s in settings_table.SETTINGS}
    env[settings_table.HTTP_TOKEN.env] = "hunter2-token"
    env[settings_table.MODE.env] = "auto"
    check = doctor.check_config(env)
    assert check.status == doctor.OK, check.fix
    assert "hunter2-token" not in check.summary and "SCREE_HTTP_TOKEN=(set)" in check.summary


def test_the_table_imports_nothing_so_hooks_can_read_it_for_free():
    import ast

    tree = ast.parse((REPO / "server" / "scree" / "settings_table.py").read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert imported <= {"__future__"}
