"""Finding a section by heading trail: tiers, ambiguity, fences, front matter, and agreement with the chunker."""

from __future__ import annotations

from scree.notes.chunker import chunk_markdown
import pytest

from scree.errors import ScreeError
from scree.notes.sections import excerpt, find_section, line_slice, sections, split_lines

DOC = """\
---
title: "# not a heading"
---
Intro text.

# Guide

Welcome.

## Authentication

How to log in.

### Tokens

Use a token.

```sh
# a shell comment, not a heading
```

### OAuth

Flows.

## Deployment

### Tokens

Deploy tokens differ.

# Appendix `api_host`

Last words.
"""


def _by_trail(text: str) -> dict[str, tuple[int, int]]:
    return {s.trail: (s.start_line, s.end_line) for s in sections(text)}


def test_section_runs_to_the_line_before_the_next_heading_of_same_or_higher_level() -> None:
    spans = _by_trail(DOC)
    assert spans["Guide > Authentication > Tokens"] == (14, 21)
    assert spans["Guide > Authentication"] == (10, 25)  # includes its subsections up to "## Deployment"
    assert spans["Guide"] == (6, 31)
    assert spans["Appendix `api_host`"] == (32, 34)  # runs to the end of the text


def test_headings_inside_fences_and_front_matter_are_not_headings() -> None:
    trails = [s.trail for s in sections(DOC)]
    assert not any("comment" in t or "not a heading" in t for t in trails)


def test_exact_trail_wins() -> None:
    found = find_section(DOC, "Guide > Authentication > Tokens")
    assert found.how == "exact"
    assert [(s.start_line, s.end_line) for s in found.matches] == [(14, 21)]


def test_case_insensitive_match_ignores_case_spacing_and_backticks() -> None:
    found = find_section(DOC, "appendix   API_HOST")
    assert found.how == "case-insensitive"
    assert found.matches[0].start_line == 32


def test_trailing_fragment_matches_the_end_of_a_trail() -> None:
    found = find_section(DOC, "authentication > tokens")
    assert found.how == "trailing"
    assert [s.start_line for s in found.matches] == [14]


def test_ambiguous_fragment_returns_every_candidate() -> None:
    found = find_section(DOC, "Tokens")
    assert found.how == "trailing"
    assert [s.trail for s in found.matches] == ["Guide > Authentication > Tokens", "Guide > Deployment > Tokens"]


def test_leading_hashes_in_the_request_are_ignored() -> None:
    assert find_section(DOC, "### OAuth").matches[0].trail == "Guide > Authentication > OAuth"


def test_unknown_heading_matches_nothing() -> None:
    found = find_section(DOC, "Billing")
    assert found.matches == () and found.how == ""


def test_fragment_must_match_whole_parts_not_substrings() -> None:
    assert find_section(DOC, "Auth").matches == ()


COMMONMARK_DOC = """\
<div align="center">
# not a heading: inside an HTML block
</div>

Changelog
=========

14.1.1 (2024-09-08)
-------------------
Fixes.

1. Build

   #### Windows
   Run it.

> ## Quoted
> text

    # indented code

---

Last words.
"""


def test_setext_list_and_quote_headings_are_sections_but_code_and_html_lines_are_not() -> None:
    spans = _by_trail(COMMONMARK_DOC)
    assert spans == {
        "Changelog": (5, 24),
        "Changelog > 14.1.1 (2024-09-08)": (8, 16),  # closed by the quoted level-2 heading
        "Changelog > 14.1.1 (2024-09-08) > Windows": (14, 16),
        "Changelog > Quoted": (17, 24),
    }


@pytest.mark.parametrize("doc", [DOC, COMMONMARK_DOC])
def test_every_chunk_trail_finds_a_section_that_contains_the_chunk(doc: str) -> None:
    for chunk in chunk_markdown(doc).chunks:
        if not chunk.heading:
            continue
        found = find_section(doc, chunk.heading)
        assert found.how == "exact"
        assert any(s.start_line <= chunk.start_line and chunk.end_line <= s.end_line for s in found.matches)
        assert chunk.start_line in [s.start_line for s in sections(doc)] or chunk.start_line > min(
            s.start_line for s in found.matches), "a section's first chunk starts on its heading line"


def test_crlf_and_bom_keep_line_numbers_and_drop_carriage_returns() -> None:
    text = "\ufeff# A\r\nbody\r\n## B\r\nmore\r\n"
    lines = split_lines(text)
    assert lines == ["# A", "body", "## B", "more"]
    b = find_section(text, "B").matches[0]
    assert line_slice(lines, b.start_line, b.end_line) == "## B\nmore"


def test_cr_only_and_mixed_notes_have_the_sections_and_excerpts_of_their_lf_twin() -> None:
    cr = DOC.replace("\n", "\r")
    mixed = "".join(line + ("\r", "\r\n", "\n")[i % 3] for i, line in enumerate(DOC.split("\n")[:-1]))
    want = sections(DOC)
    assert len(want) > 3
    for text in (cr, mixed):
        assert split_lines(text) == split_lines(DOC)
        assert sections(text) == want
        for s in want:
            assert excerpt(text, heading=s.trail, start_line=s.start_line) == excerpt(
                DOC, heading=s.trail, start_line=s.start_line)
        assert excerpt(text, start_line=2, end_line=9) == excerpt(DOC, start_line=2, end_line=9)


def test_unclosed_fence_hides_every_later_heading() -> None:
    text = "# Top\n```\n# inside\n"
    assert [s.trail for s in sections(text)] == ["Top"]
    assert sections(text)[0].end_line == 3


def test_lone_hash_heading_closes_sections_without_adding_to_trails() -> None:
    text = "# A\none\n#\ntwo\n## B\n"
    spans = _by_trail(text)
    assert spans["A"] == (1, 2)
    assert spans["B"] == (5, 5)


def test_excerpt_of_a_section_by_heading_reports_its_trail_and_lines() -> None:
    ex = excerpt(DOC, heading="OAuth")
    assert (ex.heading, ex.start_line, ex.end_line) == ("Guide > Authentication > OAuth", 22, 25)
    assert ex.text.startswith("### OAuth\n\nFlows.") and ex.note is None


def test_excerpt_start_line_picks_among_same_named_sections() -> None:
    assert excerpt(DOC, heading="Tokens", start_line=29).heading == "Guide > Deployment > Tokens"
    with pytest.raises(ScreeError, match=r"matches 2 sections: 'Guide > Authentication > Tokens' \(lines 14-21\)"):
        excerpt(DOC, heading="Tokens")


def test_excerpt_says_when_a_line_range_was_ignored_for_a_heading() -> None:
    assert "ignored" in (excerpt(DOC, heading="OAuth", start_line=1, end_line=2).note or "")


def test_unknown_heading_lists_the_headings_that_exist() -> None:
    with pytest.raises(ScreeError, match="its headings are: 'Guide' \\(lines 6-31\\)"):
        excerpt(DOC, heading="Billing")
    with pytest.raises(ScreeError, match="no headings"):
        excerpt("just text\n", heading="Intro")


def test_line_range_is_clamped_at_the_end_and_refused_when_empty_or_past_it() -> None:
    ex = excerpt("a\nb\nc\n", start_line=2, end_line=99)
    assert (ex.start_line, ex.end_line, ex.text, ex.total_lines) == (2, 3, "b\nc", 3)
    for kwargs, msg in (({"start_line": 4}, "past the end"), ({"start_line": 0}, "1 or more"),
                        ({"start_line": 3, "end_line": 2}, "before start_line")):
        with pytest.raises(ScreeError, match=msg):
            excerpt("a\nb\nc\n", **kwargs)


def test_cap_stops_at_a_line_boundary_and_says_where_to_read_on() -> None:
    text = "\n".join(f"line {i:03d} " + "x" * 90 for i in range(1, 101))  # 100 lines of 99 bytes
    ex = excerpt(text, max_bytes=1000)
    assert ex.end_line == 10 and len(ex.text.encode()) <= 1000 and ex.text.endswith("line 010 " + "x" * 90)
    assert "lines 1-10 of 1-100 shown" in (ex.note or "") and "start_line=11" in (ex.note or "")


def test_a_single_line_over_the_cap_is_cut_on_a_character_boundary() -> None:
    ex = excerpt("é" * 1000 + "\nnext\n", max_bytes=1001)
    assert ex.text == "é" * 500 and ex.end_line == 1
    assert "line 1 alone is longer" in (ex.note or "") and "start_line=2" in (ex.note or "")
