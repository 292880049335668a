"""The embedded view: markup the reader never sees is dropped, words and code stay."""

from scree.notes.embedview import embed_body, vector_space_id


def test_html_elements_and_link_targets_are_dropped_but_their_words_kept():
    text = ('<dt class="option-term" id="option-x"><a class="option-anchor" href="#option-x">'
            '<code>--invert</code></a></dt>\n<dd class="option-desc">Invert the tree, see [the guide](https://x.y/z "t").</dd>')
    assert embed_body(text) == "--invert \n Invert the tree, see the guide."


def test_placeholders_that_are_not_html_stay():
    assert embed_body("scrape_interval: <duration> on <host>") == "scrape_interval: <duration> on <host>"


def test_images_reference_links_autolinks_entities_and_comments():
    text = "![diagram](a.png) see [docs][1] at <https://crates.io> &amp; more <!-- hidden -->\n\n[1]: https://example.com"
    assert embed_body(text) == "diagram see docs at https://crates.io & more"


def test_code_is_kept_verbatim_apart_from_space_runs():
    assert embed_body("```sh\ncargo tree --invert serde\n```") == "```sh\ncargo tree --invert serde\n```"


def test_fenced_code_keeps_its_markup():
    text = "See <b>this</b>:\n\n```html\n<details><summary>[x](y)</summary></details>\n<!-- c -->\n```\nAfter <i>it</i>."
    assert embed_body(text) == ("See this :\n\n```html\n<details><summary>[x](y)</summary></details>\n<!-- c -->\n```\n"
                                "After it .")


def test_inline_code_spans_keep_tags_and_links():
    assert embed_body("Use `<details>` or `[a](b)`, not <details>.") == "Use `<details>` or `[a](b)`, not ."


def test_admonition_keeps_its_title_and_body_but_not_its_marker():
    text = '!!! note "Timeouts matter"\n    Set a [timeout](t.md) on every client.\n\n!!! warning\n    Not thread-safe.'
    assert embed_body(text) == "Timeouts matter\n Set a timeout on every client.\n\n Not thread-safe."


def test_collapsible_admonitions_and_content_tabs_keep_their_titles():
    text = '??? tip "Faster installs"\n    Use a wheel.\n???+ danger highlight "Do not"\n    x\n=== "Windows"\n    run.bat'
    assert embed_body(text) == "Faster installs\n Use a wheel.\nDo not\n x\nWindows\n run.bat"


def test_autodoc_directives_keep_the_object_name_and_drop_their_options():
    text = "## Exceptions\n\n::: httpx.HTTPError\n    :docstring:\n    :members: request response\n\n::: pkg.Client\n    options:\n      show_source: false\n"
    assert embed_body(text) == "## Exceptions\n\nhttpx.HTTPError\nrequest response\n\npkg.Client"


def test_container_directives_keep_only_their_title():
    text = ":::tip[Pro tip]\nUse caching.\n:::\n\n::: warning\nCareful.\n:::\n::: {.note}\nPandoc.\n:::"
    assert embed_body(text) == "Pro tip\nUse caching.\n\nCareful.\nPandoc."


def test_html_comments_spanning_lines_or_left_open_are_dropped():
    assert embed_body("Before\n<!--\nhidden\n\nstill hidden\n-->\nAfter") == "Before\n \nAfter"
    assert embed_body("Kept <!-- a comment the chunk cut\nlater lines") == "Kept"


def test_markers_inside_prose_lines_stay():
    text = "Wow!!! note this\nSee ::: in text and === \"x\" mid-line"
    assert embed_body(text) == text


def test_vector_space_names_the_view():
    assert vector_space_id("local:m") == "local:m|view-v4"


def test_myst_directives_read_as_prose_with_their_titles_code_directives_stay_and_toctrees_go():
    text = ("```{note} Rolling restarts\nDrain first.\n```\n\n:::{admonition} Escaping Dollars\n:class: dropdown\n"
            "Use a backslash.\n:::\n\n```{code-block} python\nx = 1\n```\n\n```{toctree}\nintro\n```\nend")
    assert embed_body(text) == ("Rolling restarts\nDrain first.\n\nEscaping Dollars\nUse a backslash.\n\n"
                                "```{code-block} python\nx = 1\n```\n\nend")


def test_targets_roles_imports_components_and_alerts_read_as_the_page_shows_them():
    text = ("(install-guide)=\nimport Tabs from '@theme/Tabs';\n<Tabs groupId=\"pm\">\n"
            "<TabItem value=\"a\" label=\"npm install\">\nRun {command}`npm i`.\n</TabItem>\n> [!NOTE]\n> Mind it.")
    assert " ".join(embed_body(text).split()) == "install-guide npm install Run {command}`npm i`. > Note > Mind it."


def test_wikilinks_read_as_their_alias_else_their_page():
    assert embed_body("See [[Setup Guide]], [[Setup#Install|installing]] and ![[diagram]].") == (
        "See Setup Guide, installing and diagram.")


def test_dialect_markup_inside_code_spans_and_upper_case_placeholders_stay():
    assert embed_body("Crates with `[[bin]]` targets; `<Tabs>` wraps; run rg <PATTERN> [[Page]]") == (
        "Crates with `[[bin]]` targets; `<Tabs>` wraps; run rg <PATTERN> Page")
