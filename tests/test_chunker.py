"""The Markdown chunker: front matter, CommonMark sections, trails, size limits and line numbers.

What is a heading is checked against markdown-it's rendering in test_mdblocks.py; here: chunks."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from scree.notes.chunker import (
    HARD_CHUNK_BYTES,
    MAX_HEADING_BYTES,
    SOFT_CHUNK_BYTES,
    chunk_markdown,
    clean_heading,
    cut_utf8,
    embed_header,
    embed_text,
)
from scree.notes.mdblocks import parse_blocks, split_lines
from scree.records import Chunk, ChunkedNote

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "bench" / "corpus"  # ../shared beside the repo


def md(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def spans(note: ChunkedNote) -> list[tuple[str, int, int]]:
    return [(c.heading, c.start_line, c.end_line) for c in note.chunks]


def nbytes(s: str) -> int:
    return len(s.encode("utf-8"))


def paragraph(tag: str, nbytes_wanted: int) -> list[str]:
    """Lines of ~80 bytes adding up to about nbytes_wanted, each naming its tag."""
    line = (tag + " " + "x" * 80)[:79]
    return [line] * max(1, nbytes_wanted // 80)


# --------------------------------------------------------------------------- front matter


def test_front_matter_is_skipped_and_its_title_kept_with_real_line_numbers() -> None:
    note = chunk_markdown(md("---", "title: My Note", "tags: [a, b]", "---", "", "# Intro", "", "Hello."))
    assert note.title == "My Note"
    assert note.chunks == [Chunk("Intro", "# Intro\n\nHello.", 6, 8)]


def test_front_matter_may_close_with_three_dots() -> None:
    note = chunk_markdown(md("---", "title: Dots", "...", "Body text."))
    assert note.title == "Dots"
    assert spans(note) == [("", 4, 4)]
    assert note.chunks[0].text == "Body text."


def test_broken_yaml_front_matter_is_skipped_without_a_title() -> None:
    note = chunk_markdown(md("---", "title: [unclosed", "  : : bad", "---", "Body."))
    assert note.title is None
    assert [c.text for c in note.chunks] == ["Body."]
    assert spans(note) == [("", 5, 5)]
    assert note.front_matter_error is not None and note.front_matter_error.startswith("line 3: "), note
    assert chunk_markdown(md("---", "title: fine", "---", "Body.")).front_matter_error is None


def test_front_matter_with_an_invalid_date_does_not_raise() -> None:
    # PyYAML raises ValueError (not YAMLError) for a timestamp that is no real date.
    note = chunk_markdown(md("---", "date: 2024-13-45", "title: T", "---", "Body."))
    assert note.title is None
    assert [c.text for c in note.chunks] == ["Body."]
    assert note.front_matter_error == "month must be in 1..12"


def test_non_string_or_blank_title_is_not_kept() -> None:
    assert chunk_markdown(md("---", "title: 2024", "---", "x")).title is None
    assert chunk_markdown(md("---", "title: [a, b]", "---", "x")).title is None
    assert chunk_markdown(md("---", "title: '  '", "---", "x")).title is None
    assert chunk_markdown(md("---", "- just", "- a list", "---", "x")).title is None


def test_unclosed_front_matter_is_ordinary_text() -> None:
    note = chunk_markdown(md("---", "title: never closed", "", "# Head", "body"))
    assert note.title is None
    assert spans(note) == [("", 1, 2), ("Head", 4, 5)]
    assert note.chunks[0].text == "---\ntitle: never closed"


def test_only_front_matter_gives_a_title_and_no_chunks() -> None:
    note = chunk_markdown("---\ntitle: Lonely\n---\n")
    assert note == ChunkedNote(title="Lonely", chunks=[])


def test_front_matter_must_start_on_the_first_line() -> None:
    # Not on line 1: a thematic break, then a paragraph underlined with `---` (a setext heading).
    note = chunk_markdown(md("", "---", "title: late", "---", "body"))
    assert note.title is None
    assert spans(note) == [("", 2, 2), ("title: late", 3, 5)]
    assert [c.text for c in note.chunks] == ["---", "title: late\n---\nbody"]


# --------------------------------------------------------------------------- headings and trails


def test_trail_follows_heading_levels_and_pops_back() -> None:
    note = chunk_markdown(
        md(
            "# API", "a",
            "## Authentication", "b",
            "### Tokens", "c",
            "#### Scopes", "d",
            "## Errors", "e",
            "#### Deep skip", "f",
            "# Other", "g",
        )
    )  # fmt: skip
    assert spans(note) == [
        ("API", 1, 2),
        ("API > Authentication", 3, 4),
        ("API > Authentication > Tokens", 5, 6),
        ("API > Authentication > Tokens > Scopes", 7, 8),
        ("API > Errors", 9, 10),
        ("API > Errors > Deep skip", 11, 12),
        ("Other", 13, 14),
    ]


def test_same_level_heading_replaces_its_sibling() -> None:
    note = chunk_markdown(md("## A", "x", "## B", "y", "### C", "z", "### D", "w"))
    assert [c.heading for c in note.chunks] == ["A", "B", "B > C", "B > D"]


def test_text_before_the_first_heading_has_an_empty_trail() -> None:
    note = chunk_markdown(md("---", "title: T", "---", "Intro line.", "", "# H", "body"))
    assert spans(note) == [("", 4, 4), ("H", 6, 7)]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("# plain", "plain"),
        ("   ### three spaces", "three spaces"),
        ("#\ttab after", "tab after"),
        ("## closing hashes ##", "closing hashes"),
        ("## closing hashes ##   ", "closing hashes"),
        ("## keeps#inner", "keeps#inner"),
        ("## issue #42", "issue #42"),
        ("###### six", "six"),
        ("#  padded   words  ", "padded words"),
    ],
)
def test_atx_heading_forms(line: str, expected: str) -> None:
    note = chunk_markdown(md(line, "body"))
    assert [c.heading for c in note.chunks] == [expected]
    assert note.chunks[0].text == f"{line}\nbody"


@pytest.mark.parametrize(
    "line",
    ["#hashtag", "####### seven", "    # four spaces is code", "\t# tab indent", "\\# escaped", "text # not"],
)
def test_lines_that_are_not_atx_headings_stay_text(line: str) -> None:
    note = chunk_markdown(md("# Top", "", line, "after"))
    assert spans(note) == [("Top", 1, 4)]
    assert note.chunks[0].text == f"# Top\n\n{line}\nafter"


def test_lone_hash_is_an_empty_heading_that_adds_nothing_to_the_trail() -> None:
    note = chunk_markdown(md("# A", "a", "##", "under empty", "### C", "c", "#", "top empty"))
    assert spans(note) == [("A", 1, 2), ("A", 3, 4), ("A > C", 5, 6), ("", 7, 8)]
    assert note.chunks[1].text == "##\nunder empty"


def test_setext_headings_start_sections_at_their_text_line() -> None:
    note = chunk_markdown(md("# Top", "Sub", "===", "text", "", "Other", "---", "more"))
    # "Sub" is a level-1 heading: it replaces "Top", whose section is heading-only and dropped.
    assert spans(note) == [("Sub", 2, 4), ("Sub > Other", 6, 8)]
    assert note.chunks[0].text == "Sub\n===\ntext"


def test_changelog_versions_underlined_with_equals_are_sections() -> None:
    note = chunk_markdown(md(
        "Release notes", "=============", "",
        "14.1.1 (2024-09-08)", "===================", "Fixes a bug with `--files`.", "",
        "14.1.0 (2024-01-06)", "===================", "", "Feature enhancements:", "", "* Adds `--hyperlink-format`.",
    ))  # fmt: skip
    assert spans(note) == [("14.1.1 (2024-09-08)", 4, 6), ("14.1.0 (2024-01-06)", 8, 13)]


def test_a_note_starting_at_level_two_gets_trails_from_its_own_headings() -> None:
    note = chunk_markdown(md("<p align=\"center\">logo</p>", "", "## Install", "pip", "### Extras", "x", "## Use", "y"))
    assert spans(note) == [("", 1, 1), ("Install", 3, 4), ("Install > Extras", 5, 6), ("Use", 7, 8)]


def test_multi_line_setext_heading_is_one_heading_on_its_first_line() -> None:
    note = chunk_markdown(md("# A", "", "first line", "second line", "---", "body"))
    assert spans(note) == [("A > first line second line", 3, 6)]


def test_a_paragraph_underlined_by_accident_keeps_its_text_in_a_chunk() -> None:
    para = [f"sentence {n} of a long paragraph" for n in range(12)]
    note = chunk_markdown(md("# A", "intro", "", *para, "---"))
    assert spans(note) == [("A", 1, 2), ("A > " + " ".join(para)[:MAX_HEADING_BYTES].rstrip(), 4, 16)]
    assert note.chunks[1].text == "\n".join([*para, "---"])


def test_headings_inside_list_items_and_blockquotes_start_sections() -> None:
    note = chunk_markdown(md("# Build", "", "1. Clone", "", "   #### Windows", "   run it", "", "> ## Quoted", "> text"))
    assert spans(note) == [("Build", 1, 3), ("Build > Windows", 5, 6), ("Build > Quoted", 8, 9)]


def test_heading_like_lines_in_indented_code_and_html_blocks_are_text() -> None:
    note = chunk_markdown(md("# A", "", "    # code", "", "<div>", "# html", "</div>", "", "<!--", "", "# c", "-->"))
    assert spans(note) == [("A", 1, 12)]


def test_heading_text_is_cleaned_of_links_and_images_but_keeps_code() -> None:
    note = chunk_markdown(
        md(
            "# [Docs](https://x.org/docs) and ![logo](l.png) home",
            "a",
            "## The `--flag` [option](https://en.wikipedia.org/wiki/Option_(x))",
            "b",
        )
    )
    assert [c.heading for c in note.chunks] == ["Docs and logo home", "Docs and logo home > The `--flag` option"]


def test_heading_cleaning_matches_the_benchmark_labels() -> None:
    assert clean_heading('<a id="linux">[linux](https://github.com/x#L1)</a>') == "linux"
    assert clean_heading("Recommended _(Official)_") == "Recommended (Official)"
    assert clean_heading("**Bold** and *em*") == "Bold and em"
    assert clean_heading(r"\<oauth2\>") == "<oauth2>"
    assert clean_heading("[`cargo tree`](tree.md) `[a](b)` snake_case_name") == "`cargo tree` `[a](b)` snake_case_name"
    assert clean_heading("[![badge](b.svg)](ci) Project") == "badge Project"
    assert clean_heading("nul \x00 0\x00 kept") == "nul 0 kept"


def test_a_faq_question_heading_is_kept_whole() -> None:
    """FAQ pages (Docusaurus, MkDocs) title each answer with the whole question: 120-160 bytes is common."""
    question = ("I get errors telling me \"... was not found by the project service. Consider either including it "
                "in the tsconfig.json or including it in allowDefaultProject\"")
    assert 150 < nbytes(question) < MAX_HEADING_BYTES
    note = chunk_markdown(md("# FAQ", f"## {question}", "Add the file to `include`."))
    assert note.chunks[-1].heading == f"FAQ > {question}"


def test_heading_is_capped_at_200_bytes_on_a_character_boundary() -> None:
    assert MAX_HEADING_BYTES == 200
    ascii_heading = "a" * 300
    note = chunk_markdown(md(f"# {ascii_heading}", "body"))
    assert note.chunks[0].heading == "a" * MAX_HEADING_BYTES
    accented = "é" * 150  # 2 bytes each: 200 bytes is exactly 100 characters
    assert chunk_markdown(md(f"# {accented}", "body")).chunks[0].heading == "é" * 100
    odd = "a" + "€" * 100  # 1 + 3n bytes: the 67th euro sign would end at byte 202
    capped = chunk_markdown(md(f"# {odd}", "body")).chunks[0].heading
    assert capped == "a" + "€" * 66 and nbytes(capped) == 199
    assert cut_utf8("😀" * 40, 10) == "😀" * 2


# --------------------------------------------------------------------------- fences


def test_heading_inside_backtick_and_tilde_fences_is_text() -> None:
    note = chunk_markdown(
        md("# Real", "```sh", "# comment", "```", "~~~", "## also comment", "~~~", "## Next", "n")
    )
    assert spans(note) == [("Real", 1, 7), ("Real > Next", 8, 9)]


def test_fence_closes_only_with_same_char_and_at_least_same_length() -> None:
    note = chunk_markdown(
        md("# A", "````", "```", "~~~~", "# inside", "`````", "# B", "b")
    )  # fmt: skip
    assert spans(note) == [("A", 1, 6), ("B", 7, 8)]


def test_backtick_fence_info_string_with_a_backtick_is_not_a_fence() -> None:
    note = chunk_markdown(md("# A", "``` not `a fence`", "# B", "b"))
    assert [c.heading for c in note.chunks] == ["A", "B"]


def test_unclosed_fence_runs_to_end_of_file() -> None:
    note = chunk_markdown(md("# A", "```", "# not a heading", "", "## nor this", "x"))
    assert spans(note) == [("A", 1, 6)]


# --------------------------------------------------------------------------- chunk text and lines


def test_chunk_text_strips_outer_blank_lines_and_keeps_inner_text_verbatim() -> None:
    note = chunk_markdown("\n\n  \n# H\n\n  indented\n\n\n\tcode  \n \n\n")
    assert note.chunks == [Chunk("H", "# H\n\n  indented\n\n\n\tcode  ", 4, 9)]


def test_heading_only_sections_are_dropped_but_stay_in_the_trail() -> None:
    note = chunk_markdown(md("# Empty", "", "   ", "## Child", "text", "## Also empty", "", "# Last", "end"))
    assert spans(note) == [("Empty > Child", 4, 5), ("Last", 8, 9)]


def test_crlf_input_chunks_like_lf_with_the_same_lines() -> None:
    lf = md("---", "title: T", "---", "# A", "", "text", "```", "# x", "```", "## B", "b")
    crlf = lf.replace("\n", "\r\n")
    assert chunk_markdown(crlf) == chunk_markdown(lf)
    assert "\r" not in "".join(c.text for c in chunk_markdown(crlf).chunks)


def test_cr_only_and_mixed_notes_chunk_exactly_as_their_lf_twin() -> None:
    """Issue 26: a note written with lone "\\r" endings (classic Mac, some exporters) was one line; a
    first-line heading made it one heading-only chunk, dropped. CommonMark ends a line at a lone "\\r"."""
    from scree.notes.embedview import embed_body

    lf = md("---", "title: T", "aliases: [Mac]", "---", "# Release steps", "", "Run the deploy script crword.",
            "", "```sh", "# not a heading", "", "deploy --now", "```", "", "Setext", "------", "",
            "- step one", "- step two", "", "## Rollback", "", "Use rollbackword.")
    twins = {"cr": lf.replace("\n", "\r"), "crlf": lf.replace("\n", "\r\n"),
             "mixed": "".join(line + ("\r", "\r\n", "\n")[i % 3] for i, line in enumerate(lf.split("\n")[:-1]))}
    want = chunk_markdown(lf)
    assert [c.heading for c in want.chunks] == ["Release steps", "Release steps > Setext", "Release steps > Rollback"]
    for name, text in twins.items():
        got = chunk_markdown(text)
        assert got == want, name
        assert [embed_body(c.text) for c in got.chunks] == [embed_body(c.text) for c in want.chunks], name
    issue = "# Release steps\r\rRun the deploy script crword.\r\r## Rollback\r\rUse rollbackword.\r"
    assert chunk_markdown(issue) == chunk_markdown(issue.replace("\r", "\n"))
    assert spans(chunk_markdown(issue)) == [("Release steps", 1, 3), ("Release steps > Rollback", 5, 7)]


def test_byte_order_mark_does_not_hide_the_first_heading() -> None:
    note = chunk_markdown("\ufeff# Title\nbody\n")
    assert spans(note) == [("Title", 1, 2)]
    assert chunk_markdown("\ufeff---\ntitle: B\n---\nx").title == "B"


@pytest.mark.parametrize("text", ["", "\n", "   \n\t\n", "#", "# ", "#\n#\n", "---\n---", "---\n...\n\n"])
def test_degenerate_inputs_give_no_chunks(text: str) -> None:
    assert chunk_markdown(text).chunks == []


@pytest.mark.parametrize("text", ["---", "```", "~~~\n# x", "####### seven", "#hashtag"])
def test_lone_markup_lines_are_text(text: str) -> None:
    note = chunk_markdown(text)
    assert note.chunks == [Chunk("", text, 1, text.count("\n") + 1)]


def test_odd_characters_never_raise() -> None:
    weird = md("# h\ud800", "lone \udfff surrogate", "nul \x00", "\x0b\x0c\x1c\u2028 seps", "# [x](", "`")
    note = chunk_markdown(weird)
    assert [c.start_line for c in note.chunks] == [1, 5]
    chunk_markdown("---\n\ud800: [\n---\nx")
    chunk_markdown("---\n" + "[" * 5000 + "\n---\nx")


# --------------------------------------------------------------------------- sizes


def test_section_splits_at_a_blank_line_once_past_the_soft_limit() -> None:
    first = paragraph("p1", SOFT_CHUNK_BYTES - 500)
    second = paragraph("p2", 800)  # the chunk passes SOFT_CHUNK_BYTES inside this paragraph
    third = paragraph("p3", 400)
    note = chunk_markdown(md("# Sec", "", *first, "", *second, "", *third))
    n1, n2 = len(first), len(second)
    head_end = 3 + n1 + 1 + n2 - 1  # line of the last p2 line
    assert spans(note) == [("Sec", 1, head_end), ("Sec", head_end + 2, head_end + 1 + len(third))]
    assert note.chunks[0].text.startswith("# Sec\n\np1")
    assert nbytes(note.chunks[0].text) >= SOFT_CHUNK_BYTES
    assert note.chunks[1].text.startswith("p3"), "follow-on chunks do not repeat the heading line"


def test_small_sections_are_not_split_at_blank_lines() -> None:
    body = [line for n in range(10) for line in (f"para {n} " + "y" * 100, "")]
    note = chunk_markdown(md("# S", *body))
    assert len(note.chunks) == 1


def test_blank_lines_inside_a_fence_do_not_split_until_the_hard_cap() -> None:
    n = (HARD_CHUNK_BYTES - 100) // 70
    code = [f"line {i:03} " + "z" * 60 for i in range(n)]  # 70 bytes each, just under the hard cap
    code[SOFT_CHUNK_BYTES // 70 + 2] = ""  # past the soft limit, but inside the fence
    note = chunk_markdown(md("# S", "```", *code, "```", "", "after"))
    assert spans(note) == [("S", 1, n + 3), ("S", n + 5, n + 5)]
    assert nbytes(note.chunks[0].text) > SOFT_CHUNK_BYTES


def test_whitespace_lines_count_toward_the_hard_cap() -> None:
    n = (HARD_CHUNK_BYTES - 200) // 100
    code = [f"{i:03} " + "w" * 95 for i in range(n)]  # 100 bytes each, 200 bytes under the hard cap
    padding = [" " * 99] * 3  # blank, but 300 bytes of verbatim inner text
    note = chunk_markdown(md("```", *code, *padding, "tail of the fence", "```"))
    assert all(nbytes(c.text) <= HARD_CHUNK_BYTES for c in note.chunks)
    assert spans(note) == [("", 1, n + 1), ("", n + 5, n + 6)]


def test_hard_cap_cuts_mid_fence_at_a_line_boundary() -> None:
    code = [f"{n:04} " + "q" * 94 for n in range(80)]  # 100 bytes per line, 8000 bytes of code
    note = chunk_markdown(md("# S", "```python", *code, "```"))
    assert all(nbytes(c.text) <= HARD_CHUNK_BYTES for c in note.chunks)
    assert len(note.chunks) == 3
    assert note.chunks[0].text.startswith("# S\n```python\n0000 ")
    assert note.chunks[1].text[:4].isdigit(), "a follow-on chunk starts with a whole code line"
    lines = md("# S", "```python", *code, "```").split("\n")
    for c in note.chunks:
        assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line])
    assert note.chunks[-1].end_line == 83
    assert {c.heading for c in note.chunks} == {"S"}


def test_a_line_longer_than_the_hard_cap_is_cut_into_pieces_of_its_own() -> None:
    long_line = "é" * 2000 + "a" * 1000  # 5000 bytes; a cut at the (even) hard cap falls inside no character
    long_line = "a" + long_line  # shift by one byte so the cap's byte is mid-character
    note = chunk_markdown(md("# S", "before", long_line, "after"))
    assert spans(note) == [("S", 1, 2), ("S", 3, 3), ("S", 3, 3), ("S", 4, 4)]
    pieces = [note.chunks[1].text, note.chunks[2].text]
    assert "".join(pieces) == long_line
    assert all(nbytes(p) <= HARD_CHUNK_BYTES for p in pieces)
    assert nbytes(pieces[0]) == HARD_CHUNK_BYTES - 1


def test_blank_pieces_of_a_long_line_are_dropped() -> None:
    line = "a" + " " * (HARD_CHUNK_BYTES - 1) + " " * HARD_CHUNK_BYTES + "b"
    note = chunk_markdown(line)
    assert [c.text for c in note.chunks] == ["a" + " " * (HARD_CHUNK_BYTES - 1), "b"]


def test_a_long_heading_line_stays_with_its_body() -> None:
    heading = "# " + "long " * 520  # 2602 bytes: past the soft limit on its own
    note = chunk_markdown(md(heading, "", "body"))
    assert spans(note) == [(("long " * 520)[:MAX_HEADING_BYTES].rstrip(), 1, 3)]
    assert note.chunks[0].text.endswith("\n\nbody")


def test_huge_single_line_document() -> None:
    note = chunk_markdown("word " * 200_000)
    assert len(note.chunks) == math.ceil(1_000_000 / HARD_CHUNK_BYTES)
    assert all(c.start_line == c.end_line == 1 and nbytes(c.text) <= HARD_CHUNK_BYTES for c in note.chunks)
    assert "".join(c.text for c in note.chunks) == "word " * 200_000, "pieces are verbatim"


def test_heading_line_is_dropped_when_its_first_text_line_cannot_share_the_chunk() -> None:
    big = "b" * (HARD_CHUNK_BYTES - 2)
    note = chunk_markdown(md("# H", big, "small"))
    assert note.chunks == [Chunk("H", big, 2, 2), Chunk("H", "small", 3, 3)]


def test_huge_heading_only_section_is_dropped() -> None:
    note = chunk_markdown(md("# " + "h" * 5000, "", "# Next", "n"))
    assert spans(note) == [("Next", 3, 4)]


def test_embed_helpers_put_path_and_trail_before_the_text() -> None:
    assert embed_header("docs/a.md", "API > Tokens") == "docs/a.md\nAPI > Tokens"
    assert embed_text("docs/a.md", "API > Tokens", "body") == "docs/a.md\nAPI > Tokens\n\nbody"


# --------------------------------------------------------------------------- invariants

def check_invariants(text: str, note: ChunkedNote, fm_end: int) -> None:
    """Sizes, line numbers, verbatim text, no heading-only chunk, and full coverage of the body."""
    lines = [line.removesuffix("\r") for line in text.removeprefix("\ufeff").split("\n")]
    # Lines of headings that stand for themselves (a multi-line setext heading is the chunk's text).
    blocks = parse_blocks(split_lines(text))
    heading_lines = {n + 1 for h in blocks.headings if h.end - h.start <= 2 for n in range(h.start, h.end)}
    # Markup a reader never sees (a lone `</dl>` after a split, a MyST target) may be left out, nothing else.
    markup_lines = {n + 1 for n in (*blocks.targets, *blocks.inert)}
    covered = set()
    prev_end = 0
    for c in note.chunks:
        assert 0 < nbytes(c.text) <= HARD_CHUNK_BYTES
        assert fm_end < c.start_line <= c.end_line <= len(lines)
        assert c.start_line >= prev_end, "chunks are in order and do not overlap"
        prev_end = c.end_line
        assert c.text.strip(), "no blank chunk"
        if c.start_line == c.end_line and nbytes(lines[c.start_line - 1]) > HARD_CHUNK_BYTES:
            assert c.text in lines[c.start_line - 1]
        else:
            assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line])
            body = [n for n in range(c.start_line, c.end_line + 1) if lines[n - 1].strip()]
            assert not set(body) <= heading_lines, f"heading-only chunk {c}"
        covered.update(range(c.start_line, c.end_line + 1))
    for n, line in enumerate(lines[fm_end:], start=fm_end + 1):
        if line.strip() and n not in covered:
            assert n in heading_lines or n in markup_lines, f"line {n} {line!r} is in no chunk"


def _random_document(rng: random.Random) -> tuple[str, int, dict[int, str]]:
    """A random note, the number of front-matter lines, and {line number: trail} of real headings."""
    out: list[str] = []
    trails: dict[int, str] = {}
    stack: list[tuple[int, str]] = []
    fm_end = 0
    if rng.random() < 0.3:
        out += ["---", rng.choice(["title: Random", "title: [broken", "x: 1"]), rng.choice(["---", "..."])]
        fm_end = 3
    words = ["alpha", "beta", "`code`", "é", "日本", "😀", "#tag", "a#b", "[l](u)"]
    for _ in range(rng.randint(0, 60)):
        kind = rng.random()
        if kind < 0.2:
            level = rng.randint(1, 6)
            title = rng.choice(["", "Intro", "API", "Tokens", "[Link](x)", "`x`", "Ünïcode"])
            indent = " " * rng.choice([0, 0, 0, 1, 3])
            out.append(f"{indent}{'#' * level} {title}".rstrip() if title or rng.random() < 0.5 else "#" * level)
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, clean_heading(title)))
            trails[len(out)] = " > ".join(t for _, t in stack if t)
        elif kind < 0.3:
            char = rng.choice("`~")
            size = rng.randint(3, 5)
            out.append(char * size + rng.choice(["", "py", "sh"]))
            for _ in range(rng.randint(0, 70)):
                out.append(rng.choice(["# fake heading", "## fake", "", "code " * rng.randint(1, 30), char * (size - 1)]))
            if rng.random() < 0.1:
                break  # an unclosed fence runs to the end: nothing after it is a heading
            out.append(char * rng.randint(size, size + 2))
        elif kind < 0.35:
            odd = rng.choice(["#hashtag", "####### seven", "    # indented", "===", "---", "\t# tab"])
            if odd in ("===", "---"):
                out.append("")  # under a paragraph it would be a setext heading (test_mdblocks covers those)
            out.append(odd)
        elif kind < 0.4:
            out.append(rng.choice(words) * rng.randint(1000, 3000))  # often > 3500 bytes
        else:
            for _ in range(rng.randint(1, 40)):
                out.append(" ".join(rng.choices(words, k=rng.randint(0, 25))))
            out.append(rng.choice(["", "  ", "\t"]))
    if not fm_end and out and out[0].rstrip() == "---":
        out[0] = "intro"  # a leading thematic break would start front matter
    text = "\n".join(out)
    if rng.random() < 0.2:
        text = text.replace("\n", "\r\n")
    return text, fm_end, trails


def test_random_documents_keep_every_invariant() -> None:
    from test_mdblocks import mixed_endings

    rng = random.Random(20240611)
    for _ in range(300):
        text, fm_end, trails = _random_document(rng)
        note = chunk_markdown(text)
        lf = text.replace("\r\n", "\n")
        assert chunk_markdown(mixed_endings(rng, lf)) == note == chunk_markdown(lf.replace("\n", "\r"))
        check_invariants(text, note, fm_end)
        heading_lines = sorted(trails)
        for c in note.chunks:
            enclosing = [n for n in heading_lines if n <= c.start_line]
            assert c.heading == (trails[enclosing[-1]] if enclosing else ""), (c, text)
        # Every non-blank body line is in some chunk, in order; only heading-only chunks are missing.
        body = [line.removesuffix("\r") for line in text.split("\n")][fm_end:]
        expected = [
            line
            for n, line in enumerate(body, start=fm_end + 1)
            if line.strip() and not (n in trails and _heading_stands_alone(n, body, fm_end, trails))
        ]
        assert _squash("".join(c.text for c in note.chunks)) == _squash("".join(expected))


def _squash(s: str) -> str:
    return "".join(s.split())


def _heading_stands_alone(heading_line: int, body: list[str], fm_end: int, trails: dict[int, str]) -> bool:
    """True when the chunk opened by this heading would hold nothing else: its section is empty,
    or the section's first text line is too big to share a chunk with the heading line."""
    size = nbytes(body[heading_line - fm_end - 1])
    n = heading_line + 1
    while n - fm_end <= len(body) and n not in trails:
        line = body[n - fm_end - 1]
        size += nbytes(line) + 1
        if line.strip():
            return size > HARD_CHUNK_BYTES
        n += 1
    return True


@pytest.mark.skipif(not CORPUS.is_dir(), reason="benchmark corpus not present")
def test_bench_corpus_keeps_every_invariant() -> None:
    files = {p: p.read_text(encoding="utf-8", errors="replace") for p in sorted(CORPUS.rglob("*.md"))}
    notes = {p: chunk_markdown(text) for p, text in files.items()}
    for p, text in files.items():
        lines = text.split("\n")
        fm_end = 0
        if lines[0].rstrip() == "---":
            fm_end = next(i + 1 for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "..."))
        check_invariants(text, notes[p], fm_end)
    total = sum(len(n.chunks) for n in notes.values())
    assert 1000 <= total <= 3000


def test_front_matter_aliases_are_names_the_note_is_embedded_under() -> None:
    from scree.index.sync import chunk_passages

    text = "---\ntitle: Setup\naliases: [Install guide, '  Getting   started ', 3]\n---\n# Setup\n\nRun it.\n"
    note = chunk_markdown(text)
    assert note.aliases == ("Install guide", "Getting started")
    (p,) = chunk_passages("docs/setup.md", text)
    assert p.header == "docs/setup.md (Install guide; Getting started)\nSetup"
    assert chunk_markdown("---\nalias: Quick start\n---\nx\n").aliases == ("Quick start",)
    assert chunk_markdown("---\naliases: {a: 1}\n---\nx\n").aliases == ()
