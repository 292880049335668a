from scree.embedview import embed_body, vector_space_id


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


def test_vector_space_names_the_view():
    assert vector_space_id("local:m") == "local:m|view-v1"
