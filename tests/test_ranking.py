import pytest

from scree.search import ranking
from scree.search.names import names_first as _names_first
from scree.search.ranking import is_ancestor, parents_deferred, specific_first


def key(item):
    return item[0]


def test_a_subsection_just_below_its_parent_takes_the_parents_place():
    ranked = [((1, "Tool"), 0.9), ((2, "Other"), 0.8), ((1, "Tool > Faster variant"), 0.7), ((3, "X"), 0.6)]
    out = specific_first(ranked, key, window=2)
    assert [k for k, _ in out] == [(1, "Tool > Faster variant"), (1, "Tool"), (2, "Other"), (3, "X")]


def test_a_subsection_beyond_the_window_stays_where_it_ranked():
    ranked = [((1, "Tool"), 0.9), ((2, "A"), 0.8), ((3, "B"), 0.7), ((1, "Tool > Sub"), 0.6)]
    assert specific_first(ranked, key, window=2) == ranked


def test_only_the_best_ranked_subsection_moves_and_window_zero_is_off():
    ranked = [((1, "T"), 0.9), ((1, "T > a"), 0.8), ((1, "T > b"), 0.7)]
    assert [k for k, _ in specific_first(ranked, key, window=2)] == [(1, "T > a"), (1, "T"), (1, "T > b")]
    assert specific_first(ranked, key, window=0) == ranked


def test_siblings_other_files_and_a_preamble_are_not_parents():
    assert is_ancestor((1, "A"), (1, "A > B"))
    assert is_ancestor((1, "A"), (1, "A > B > C"))
    assert not is_ancestor((1, "A"), (1, "AB > C"))  # a heading that merely starts the same
    assert not is_ancestor((1, "A"), (2, "A > B"))
    assert not is_ancestor((1, ""), (1, "A"))
    ranked = [((1, "A > B"), 0.9), ((1, "A > C"), 0.8), ((2, "A > B > D"), 0.7)]
    assert specific_first(ranked, key, window=3) == ranked


def test_a_grandchild_moves_above_its_grandparent_and_nothing_is_lost_or_duplicated():
    ranked = [((1, "A"), 0.9), ((1, "A > B > C"), 0.8), (("chunk", 7), 0.7)]
    out = specific_first(ranked, key, window=2)
    assert [k for k, _ in out] == [(1, "A > B > C"), (1, "A"), ("chunk", 7)]
    assert sorted(map(str, out)) == sorted(map(str, ranked))


def test_a_parent_that_already_follows_one_of_its_subsections_stays():
    ranked = [((1, "T > a"), 0.9), ((1, "T"), 0.8), ((1, "T > b"), 0.7)]
    assert specific_first(ranked, key, window=2) == ranked


# ----- release histories answer "when", not "how" ----------------------------------------------------


@pytest.mark.parametrize("path", ["CHANGELOG.md", "docs/HISTORY.md", "NEWS.markdown", "changelog/1.2.md",
                                  "release-notes/v2.md", "CHANGES.md", "docs/versionhistory.rst",
                                  "docs/Release Notes.md", "docs/release_history.md", "docs/change-log.md",
                                  "docs/blog/posts/release-hatch-1180.md", "blog/2024-05-01-v3.md",
                                  "changelogs/0.3.x.md", "changelog.d/1234.feature.md",
                                  "docs/content/2012-news.md", "docs/release-notes-3.x.md", "CHANGES-v2.rst",
                                  "Documentation/RelNotes/2.3.0.adoc", "relnotes/v1.68.0.md",
                                  "doc/telescope_changelog.txt", "docs/pkg-changelog.md", "NEWS.0.md", "HISTORY.v1.rst"])
def test_release_histories_are_recognised_by_their_name(path):
    assert ranking.is_history_file(path)


@pytest.mark.parametrize("path", ["README.md", "docs/changing-settings.md", "guide/news-feed.md", "history-of-x/y.txt",
                                  "docs/version-policy.md", "docs/browser-history.md",
                                  "docs/tutorial/blog.rst", "docs/changes.d.md", "docs/2012-guide.md",
                                  "docs/news-2-feed.md", "docs/manage-releases.md", "Documentation/git-history.adoc",
                                  "docs/gauging_changes.md", "docs/guide.v2.md", "python3.12.md"])  # Flask's tutorial builds a blog: a page, not a feed
def test_other_notes_are_not_histories(path):
    assert not ranking.is_history_file(path)


@pytest.mark.parametrize("query", ["which release added gzip support", "what changed in 0.8", "since v14.1.1?",
                                   "in which version was this fixed", "when did the flag appear",
                                   "since when does the client follow redirects", "when was --pre added",
                                   "is this a regression?", "is the wrapper deprecated", "see the CHANGELOG"])
def test_questions_about_releases_are_recognised(query):
    assert ranking.asks_about_releases(query)


# How-to words that release notes also use are no release intent: "inspect or change models" read as one
# put a changelog entry first (issue 19).
@pytest.mark.parametrize("query", ["how do I search compressed files", "stream a download piece by piece",
                                   "retry on read errors", "inspect or change models", "how do I fix a stale lock",
                                   "add a new subcommand", "what happens when a header is added",
                                   "when should I retry", "since the pool is shared, is it thread safe",
                                   "when was the request sent", "show the command history"])
def test_how_to_questions_do_not_ask_about_releases(query):
    assert not ranking.asks_about_releases(query)


def test_a_history_hit_moves_down_by_the_given_places_and_others_keep_their_order():
    ranked = ["CHANGELOG.md#a", "guide.md#x", "faq.md#y", "api.md#z", "CHANGELOG.md#b", "more.md#w"]
    moved = ranking.history_later(ranked, lambda s: s.startswith("CHANGELOG"), 2)
    assert moved == ["guide.md#x", "faq.md#y", "CHANGELOG.md#a", "api.md#z", "more.md#w", "CHANGELOG.md#b"]
    assert ranking.history_later(ranked, lambda s: s.startswith("CHANGELOG"), 0) == ranked


def test_in_a_named_query_history_yields_only_to_hits_that_spell_as_many_names():
    # (name, spelled count): the changelog spells the name once, as do the guide and the example.
    ranked = [("CHANGELOG.md", 1), ("CHANGES.md", 1), ("guide.md", 1), ("intro.md", 0), ("example.md", 1)]
    moved = ranking.history_later_in_tier(ranked, lambda h: h[0].startswith("CHANGE"), lambda h: h[1], 3)
    # Both histories go below the guide, but not below intro.md, which does not spell the name.
    assert [h[0] for h in moved] == ["guide.md", "CHANGELOG.md", "CHANGES.md", "intro.md", "example.md"]


def test_a_changelog_that_alone_spells_the_name_keeps_its_place():
    ranked = [("CHANGELOG.md", 1), ("guide.md", 0), ("faq.md", 0)]
    assert ranking.history_later_in_tier(ranked, lambda h: h[0] == "CHANGELOG.md", lambda h: h[1], 3) == ranked


def _specific_first_by_definition(ranked, key, window):
    """The rule as its docstring states it, quadratic: the reference the fast version must equal."""
    from scree.search.ranking import _section, is_ancestor

    items, out, placed, moved = list(ranked), [], [], set()
    for i, item in enumerate(items):
        if i in moved:
            continue
        parent = _section(key(item))
        if parent is not None and not any(is_ancestor(parent, s) for s in placed):
            for j in range(i + 1, min(len(items), i + 1 + window)):
                child = _section(key(items[j]))
                if j not in moved and child is not None and is_ancestor(parent, child):
                    out.append(items[j])
                    placed.append(child)
                    moved.add(j)
                    break
        out.append(item)
        if parent is not None:
            placed.append(parent)
    return out


def test_specific_first_equals_its_definition_on_random_section_trees():
    import random

    rng = random.Random(5)
    names = ["A", "B", "C", "a > b", ""]  # a heading may itself contain the separator
    for _ in range(2000):
        keys = []
        for _ in range(rng.randint(0, 12)):
            trail = " > ".join(rng.choice(names) for _ in range(rng.randint(0, 3)))
            keys.append((rng.randint(1, 2), trail) if rng.random() > 0.05 else ("chunk", rng.randint(1, 9)))
        ranked = list(enumerate(keys))
        key = lambda item: item[1]  # noqa: E731
        for window in (1, 2, 3):
            assert specific_first(ranked, key, window) == _specific_first_by_definition(ranked, key, window)


def test_a_parent_below_its_own_subsection_gives_its_place_to_the_next_answers():
    ranked = [((1, "Tool > Sub"), 0.9), ((1, "Tool"), 0.8), ((2, "Other"), 0.7), ((3, "X"), 0.6), ((4, "Y"), 0.5)]
    keys = [k for k, _ in parents_deferred(ranked, key, gap=2)]
    assert keys == [(1, "Tool > Sub"), (2, "Other"), (3, "X"), (1, "Tool"), (4, "Y")]
    assert parents_deferred(ranked, key, gap=0) == ranked


def test_a_parent_above_its_subsection_a_sibling_and_a_preamble_stay_and_a_late_parent_ends_last():
    ranked = [((1, "Tool"), 0.9), ((1, "Tool > Sub"), 0.8), ((1, "Other > Sub"), 0.7), ((1, ""), 0.6),
              (("chunk", 7), 0.5)]
    assert parents_deferred(ranked, key, gap=2) == ranked
    late = [((1, "A > B > C"), 0.9), ((2, "X"), 0.8), ((1, "A"), 0.7)]  # a grandparent, one item left after it
    assert [k for k, _ in parents_deferred(late, key, gap=2)] == [(1, "A > B > C"), (2, "X"), (1, "A")]
    both = [((1, "A > B > C"), 0.9), ((1, "A > B"), 0.8), ((1, "A"), 0.7), ((2, "X"), 0.6), ((3, "Y"), 0.5)]
    out = parents_deferred(both, key, gap=2)
    assert sorted(out) == sorted(both)  # nothing lost or repeated
    assert [k for k, _ in out][:3] == [(1, "A > B > C"), (2, "X"), (3, "Y")]


def test_a_deferred_parent_goes_no_lower_than_a_demoted_release_entry():
    ranked = [((1, "Guide > Layout"), 0.9), ((1, "Guide"), 0.8), ((2, "Changelog > 3.0"), 0.7),
              ((2, "Changelog > 2.0"), 0.6)]
    release = lambda item: item[0][0] == 2  # noqa: E731
    assert parents_deferred(ranked, key, gap=2, last=release) == ranked
    assert [k for k, _ in parents_deferred(ranked, key, gap=2)][-1] == (1, "Guide")


@pytest.mark.parametrize("trail, titled", [
    ("Settings > `CACHE_DIR`", True),
    ("cache_dir", True),
    ("`CACHE_DIR` > Defaults", True),  # a parent titled by the name: its subsections are its home too
    ("Moving CACHE_DIR and LOG_DIR", False),
    ("Settings > CACHE_DIRS", False),
    ("", False),
])
def test_a_section_is_titled_by_a_name_only_when_a_heading_is_the_name(trail, titled):
    assert ranking.titled_by(trail, ["CACHE_DIR"]) is titled


@pytest.mark.parametrize("text, listed", [
    ("## Exceptions\n\n* HTTPError\n    * RequestError\n    * HTTPStatusError\n", True),
    ("| name | default |\n|---|---|\n| CACHE_DIR | ~/.cache |\n", True),
    ("1. install\n2) configure\n\nthen run it.\n", True),
    ("Raise HTTPStatusError with `raise_for_status()`:\n\n* on 4xx\n* on 5xx\n\nIt carries the response.\n", False),
    ("Two lines of prose.\nAnd one more, with -flag and *emphasis*.\n", False),
    # Fenced code is neither: a diff's `- ` lines and a shell prompt's `$` are not list items or prose.
    ("Run it:\n\n```diff\n- old\n- old\n- old\n+ new\n```\n", False),
    ("## Heading only\n\n", False),
    ("2024. A year-long migration.\nIt ended.\n", False),  # a number and a full stop, not a numbered item
])
def test_a_section_is_mostly_a_list_when_more_than_half_its_lines_are_items_or_rows(text, listed):
    assert ranking.mostly_list(text) is listed


@pytest.mark.parametrize("text, only", [
    ("API\n\n.. autofunction:: anyio.fail_after\n.. autofunction:: anyio.move_on_after\n", True),
    ("API\n\n   .. py:autoclass:: anyio.Fail_After\n      :members:\n", True),  # indented, a domain, any case
    ("Timeouts\n\nUse :func:`fail_after` to give up.\n\n.. autofunction:: anyio.fail_after\n", False),
    ("API\n\n.. function:: fail_after(delay)\n\n   Written here.\n", False),  # a description, not autodoc
    ("API\n\n.. autofunction:: anyio.sleep\n", False),  # does not spell it at all
    ("Exceptions\n\n::: anyio.fail_after\n    :docstring:\n", True),  # MkDocs' autodoc (mkdocstrings, mkautodoc)
    ("Tips\n\n::: warning fail_after raises\nIt does.\n:::\n", False),  # a VitePress container's title
])
def test_a_section_naming_a_lookup_only_in_autodoc_lines_is_told_apart(text, only):
    assert ranking.named_only_by_directives(text, ["fail_after"]) is only


# ----- scores as shown ----------------------------------------------------------------------------------


def test_shown_scores_never_rise_down_the_list_and_never_exceed_a_hits_own():
    # A subsection moved above its parent, a history entry moved down: raw scores out of rank order.
    assert ranking.place_scores([1.004, 0.856, 0.959, 0.5]) == [1.004, 0.856, 0.856, 0.5]
    assert ranking.place_scores([0.9, 0.7, 0.3]) == [0.9, 0.7, 0.3]
    assert ranking.place_scores([]) == []


def test_a_lookup_of_a_plural_name_finds_the_heading_that_says_it_in_the_singular(monkeypatch) -> None:
    # uv's `override-dependencies` is explained under "Dependency overrides"; the section before it mentions it.
    ranked = [(1, 9.0), (2, 5.0)]
    texts = {1: "Resolution > Dependency exclusions\nUnlike `override-dependencies`, exclusions drop a package.",
             2: "Resolution > Dependency overrides\nSet `override-dependencies` to replace a requirement."}
    lookup = "override-dependencies"
    assert [cid for cid, _ in _names_first(ranked, texts, [lookup], lookup=lookup)] == [2, 1]
    monkeypatch.setattr(ranking, "SINGULAR_PARTS", False)
    assert [cid for cid, _ in _names_first(ranked, texts, [lookup], lookup=lookup)] == [1, 2]


@pytest.mark.parametrize(("part", "prefix"), [("dependencies", "dependenc"), ("classes", "class"), ("groups", "group"),
                                              ("matches", "match"), ("status", "status"), ("process", "process"),
                                              ("axis", "axis"), ("limiter", "limiter"), ("uses", "uses")])
def test_a_plural_part_is_read_as_the_prefix_of_its_singular(part: str, prefix: str) -> None:
    assert ranking._singular(part) == prefix


def _docstring(name: str, source: str, reexported_by: str = "") -> str:
    shown = f", re-exported by {reexported_by}" if reexported_by else ""
    return f"class {name}\n\nA schema.\n\n(docstring of {name}{shown}: {source})"


def test_a_reexported_copy_of_a_docstring_gives_way_to_its_other_copy(monkeypatch) -> None:
    # marshmallow's `.. automodule:: marshmallow` re-exports `Schema`, which `marshmallow.schema.rst` documents too
    texts = {1: _docstring("pkg.Schema", "src/pkg/schema.py, line 3", "pkg"), 2: "Guide\n\nUse a schema.",
             3: _docstring("pkg.schema.Schema", "src/pkg/schema.py, line 3"),
             4: _docstring("pkg.Field", "src/pkg/fields.py, line 9", "pkg")}  # the only copy of its docstring
    ranked = [(1, 0.9), (2, 0.8), (3, 0.7), (4, 0.6)]
    assert ranking.reexports_give_way(ranked, texts) == [(3, 0.9), (2, 0.8), (4, 0.6)]
    # the other copy above it: the re-exported one only leaves
    assert ranking.reexports_give_way([(3, 0.9), (2, 0.8), (1, 0.7)], texts) == [(3, 0.9), (2, 0.8)]
    assert ranking.docstring_of(texts[1]) == "pkg.Schema"  # the note still names whose docstring it is
    monkeypatch.setattr(ranking, "REEXPORTS_GIVE_WAY", False)
    assert ranking.reexports_give_way(ranked, texts) == ranked


def _man(page: str, section: str, path: str = "") -> tuple[str, str]:
    return (path or f"docs/{page.split('(')[0]}.md", f"{page} > {section}")


def test_a_man_pages_description_trades_places_with_its_first_ranked_stub(monkeypatch) -> None:
    monkeypatch.setattr(ranking, "MAN_PAGE_DESCRIPTION_FIRST", True)
    place = lambda item: item  # noqa: E731 - the items are (path, trail) themselves
    ranked = [_man("tool-sync(1)", "SYNOPSIS"), _man("tool-sync(1)", "NAME"), _man("tool-add(1)", "OPTIONS"),
              _man("tool-sync(1)", "DESCRIPTION")]
    # the stub and the description trade places; nothing between them moves
    assert ranking.man_description_first(ranked, place) == [
        _man("tool-sync(1)", "DESCRIPTION"), _man("tool-sync(1)", "NAME"), _man("tool-add(1)", "OPTIONS"),
        _man("tool-sync(1)", "SYNOPSIS")]
    # a description already above its stubs, another page's description, a deeper section: nothing moves
    for kept in ([_man("tool-sync(1)", "DESCRIPTION"), _man("tool-sync(1)", "SYNOPSIS")],
                 [_man("tool-sync(1)", "NAME"), _man("tool-add(1)", "DESCRIPTION")],
                 [_man("tool-sync(1)", "SEE ALSO"), _man("tool-sync(1)", "DESCRIPTION", path="docs/other.md")],
                 [_man("tool-sync(1)", "SYNOPSIS"), _man("tool-sync(1)", "OPTIONS > DESCRIPTION")],
                 [("docs/cli.md", "Tool > Synopsis"), ("docs/cli.md", "Tool > Description")]):
        assert ranking.man_description_first(kept, place) == kept
    assert ranking.man_page_part("git-rerere(1) > NAME") == ("git-rerere(1)", "NAME")
    assert ranking.man_page_part("gitattributes(5) > EFFECTS > Generating diff text") is None
    monkeypatch.setattr(ranking, "MAN_PAGE_DESCRIPTION_FIRST", False)
    assert ranking.man_description_first(ranked, place) == ranked
