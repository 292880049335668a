"""A dotted config key is spelled by YAML nesting too (issue 38): cumin's `openstack.domain_suffix` is `openstack:`
then, indented under it, `domain_suffix: ...` in the commented example configuration its docs include, as a
`mkdocs.yml` example spells `extra.alternate`. The predicate directly; the lookup on a real index."""

from __future__ import annotations

from pathlib import Path

import pytest

from synced import synced_index
from fake_embedder import FakeEmbedder
from scree.notes.policy import NotesPolicy
from scree.search import names
from scree.search.names import spelled_in_yaml
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names

CONFIG = """\
# Cumin main configuration
transport: clustershell  # Default transport
openstack:
    auth_url: http://keystone.local:5000
    domain_suffix: openstack.local  # OpenStack managed domain, to be added to all hostnames
    client_params:
        region_name: region1
html:
  home_page_in_navbar       : true  # Whether to include your home page in the left Navigation Bar
"""


@pytest.mark.parametrize("name", ["openstack.domain_suffix", "openstack.client_params.region_name",
                                  "client_params.region_name", "html.home_page_in_navbar"])
def test_a_key_indented_under_the_keys_of_its_head_spells_the_dotted_key(name: str) -> None:
    assert spelled_in_yaml(CONFIG.casefold(), name)


@pytest.mark.parametrize(("text", "name"), [
    (CONFIG, "openstack.region_name"),  # nested one level deeper, under another key
    (CONFIG, "transport.domain_suffix"),  # a key with a value opens no mapping
    (CONFIG, "html.domain_suffix"),  # under another mapping
    ("optimizeDeps: {\n  include: ['a']\n}", "optimizedeps.include"),  # JavaScript's object is not a block mapping
    ("Set `domain_suffix` in the openstack: section.", "openstack.domain_suffix"),  # prose
])
def test_a_key_elsewhere_or_only_in_prose_does_not(text: str, name: str) -> None:
    assert not spelled_in_yaml(text.casefold(), name)


@pytest.fixture
def project(tmp_path: Path):
    root = tmp_path / "repo"
    files = {"doc/source/conf.py": "",
             "doc/source/development.rst": "Development\n===========\n\nBackends\n--------\n\nThe KnownHosts backend "
                                           "reads knownhosts files, as the other backends read theirs.\n",
             "doc/source/configuration.rst": "Configuration\n=============\n\nconfig.yaml\n-----------\n\n"
                                             "A commented example configuration:\n\n"
                                             ".. literalinclude:: ../examples/config.yaml\n   :language: yaml\n",
             "doc/examples/config.yaml": CONFIG + "knownhosts:\n    files:  # Known hosts files to load\n"
                                                  "        - /etc/ssh/ssh_known_hosts\n"}
    with synced_index(root, files) as index:
        yield root, index


def _search(root: Path, index, query: str) -> tuple[str, list[str]]:
    result = search_with_names(index, NotesPolicy.load(root), FakeEmbedder(), Query(query, k=3, mode="auto"))
    return result.mode, [h.heading for h in result.hits]


def test_a_dotted_key_the_included_yaml_sets_is_looked_up_by_its_spelling(project) -> None:
    root, index = project
    mode, headings = _search(root, index, "knownhosts.files")
    assert mode == "keyword" and headings[0] == "Configuration > config.yaml"


def test_without_the_rule_no_section_spells_it_and_the_meaning_decides(project, monkeypatch) -> None:
    root, index = project
    monkeypatch.setattr(names, "YAML_KEYS", False)
    assert _search(root, index, "knownhosts.files")[0] == "hybrid"
