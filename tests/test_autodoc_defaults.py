"""conf.py's `autodoc_default_options` apply to every autodoc directive that does not set the option itself, as
Sphinx applies them: cumin's `.. automodule:: cumin.backends.puppetdb` lines show each module's members because its
conf.py says `'members': None`. The rule is off (`autodocdefaults.DEFAULT_OPTIONS`, measured): these tests turn it on, and
check it does nothing while off. Pure parts directly; the sync with a real index."""

from __future__ import annotations

from pathlib import Path

import pytest

from synced import keyword_hits, synced_index
from scree.notes import autodocdefaults, formats
from scree.notes.autodocdefaults import default_options, with_defaults
from scree.notes.autodocpage import autodoc_chunks
from scree.notes.chunker import chunk_note
from scree.records import AutodocRef

CONF = '''\
extensions = ["sphinx.ext.autodoc"]
autodoc_default_options = {
    "members": None,  # None: the flag, as Buster's Sphinx wanted it
    "undoc-members": True,
    "special-members": False,
    "exclude-members": "__weakref__",
}
'''
SOURCE = '''\
"""The PuppetDB backend."""


class PuppetDBQuery:
    """Query PuppetDB for hosts."""

    def execute(self):
        """Run the zephyrine query against PuppetDB."""
'''
PAGE = "PuppetDB\n========\n\n.. automodule:: pkg.puppetdb\n"


def test_the_conf_options_are_read_as_flags_and_values_never_run() -> None:
    assert default_options(CONF) == {"members": "", "undoc-members": "", "exclude-members": "__weakref__"}
    assert default_options('autodoc_default_flags = ["members", "show-inheritance"]\n') == {
        "members": "", "show-inheritance": ""}
    assert default_options("import os\nautodoc_default_options = dict(members=True)\n") == {}  # not a literal
    assert default_options("this is not python (\n") == {}


@pytest.fixture
def rule_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(autodocdefaults, "DEFAULT_OPTIONS", True)


def test_while_the_rule_is_off_a_directive_keeps_its_own_options() -> None:
    ref = AutodocRef(0, 1, "automodule", "pkg", "")
    assert with_defaults(ref, {"members": ""}) is ref


def test_a_directive_takes_the_defaults_it_does_not_set_or_turn_off(rule_on: None) -> None:
    defaults = {"members": "", "undoc-members": ""}
    bare = with_defaults(AutodocRef(0, 1, "automodule", "pkg", ""), defaults)
    assert bare.options == {"members", "undoc-members"} and bare.members == ()
    listed = with_defaults(AutodocRef(0, 2, "autoclass", "pkg.A", "", frozenset({"members"}), ("run",),
                                      (("members", "run"),)), defaults)
    assert listed.members == ("run",) and dict(listed.values)["members"] == "run"  # its own list wins
    off = with_defaults(AutodocRef(0, 2, "automodule", "pkg", "", frozenset({"no-members"})), defaults)
    assert off.options == {"no-members", "undoc-members"}
    function = AutodocRef(0, 1, "autofunction", "pkg.f", "")
    assert with_defaults(function, defaults) is function


def test_an_automodule_line_shows_the_members_the_conf_defaults_ask_for(rule_on: None) -> None:
    find = {"pkg.puppetdb": ("pkg/puppetdb.py", SOURCE)}.get
    note = chunk_note(PAGE, formats.RST)
    without = [c.heading for c in autodoc_chunks(note, find)]
    with_conf = [c.heading for c in autodoc_chunks(note, find, defaults=default_options(CONF))]
    assert without == ["PuppetDB"]  # the module's docstring only
    assert with_conf == ["PuppetDB", "PuppetDB > pkg.puppetdb.PuppetDBQuery",
                         "PuppetDB > pkg.puppetdb.PuppetDBQuery.execute"]


def test_a_synced_page_finds_a_member_only_the_conf_defaults_show(tmp_path: Path, rule_on: None) -> None:
    files = {"doc/source/conf.py": CONF, "doc/source/api/puppetdb.rst": PAGE, "pkg/__init__.py": "",
             "pkg/puppetdb.py": SOURCE}
    with synced_index(tmp_path / "proj", files) as index:
        assert [h.heading for h in keyword_hits(index, tmp_path / "proj", "zephyrine")] == [
            "PuppetDB > pkg.puppetdb.PuppetDBQuery.execute"]
