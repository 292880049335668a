"""Ruby's RDoc markup (a `.rdoc` page) read as rdoc shows it. The reader directly; the sync, search and read_doc with a
real index."""

from __future__ import annotations

from pathlib import Path

import pytest

from synced import full_sync, keyword_hits, synced_index
from scree.mcpserver import read_output
from scree.notes import formats
from scree.notes.chunker import chunk_note
from scree.notes.mdblocks import split_lines
from scree.notes.rdocblocks import parse_rdoc, render
from scree.notes.sections import sections

PAGE = """\
= Quasar Command Line Usage

Quasar is invoked as:

    % quasar [options ...] [targets ...]

Options are:

[<tt>--jobs</tt> _number_ (-j)]
    Specifies the number of zephyrine threads.

    Sample values:
       --jobs=1  : one thread

[<tt>--trace</tt>]
    Turn on invoke tracing.
--
Private notes nobody sees.
++
== Environment

RAKEOPT:: Options read before the command line's, see {the guide}[link:doc/guide.rdoc].

* A bullet with +code+ and *bold* and _em_.
  continued here.
1. A numbered item, see Quasar::Task#invoke[rdoc-ref:Quasar::Task#invoke].

:include: other.rdoc
---
=== Odds and ends
Escaped \\*not bold* and \\+not code+ and file_name_here stay.
"""


def _heads(text: str) -> list[tuple[int, int, str, bool]]:
    return [(h.start, h.level, h.text, h.body) for h in parse_rdoc(split_lines(text)).blocks.headings]


def test_headings_are_sections_and_labelled_items_are_entries_below_them() -> None:
    assert _heads(PAGE) == [
        (0, 1, "Quasar Command Line Usage", False),
        (8, 2, "`--jobs` number (-j)", True), (14, 2, "`--trace`", True),
        (19, 2, "Environment", False), (21, 3, "RAKEOPT", True),
        (29, 3, "Odds and ends", False)]


def test_the_shown_text_reads_markup_as_printed_and_leaves_private_text_and_directives_out() -> None:
    lines = split_lines(PAGE)
    page = parse_rdoc(lines)
    assert len(page.text) == len(lines)
    shown = "\n".join(page.text)
    assert page.text[0] == "# Quasar Command Line Usage"
    assert "nobody sees" not in shown and ":include:" not in shown and "---" not in shown
    assert "RAKEOPT: Options read before the command line's, see the guide." in shown
    assert "- A bullet with `code` and bold and em." in shown
    assert "1. A numbered item, see Quasar::Task#invoke." in shown
    assert "Escaped *not bold* and +not code+ and file_name_here stay." in shown
    # Indented past the margin it follows: the command line, and the sample inside the item's text.
    assert page.blocks.verbatim == ((4, 5), (12, 13))


@pytest.mark.parametrize(("raw", "shown"), [
    ("+x+ <tt>a b</tt> <code>c</code>", "`x` `a b` `c`"), ("*bold* _em_ <b>b</b> <em>e</em> <i>i</i>", "bold em b e i"),
    ("a_b_c and 2*3*4", "a_b_c and 2*3*4"), ("{text}[https://example.com] word[https://x.org]", "text word"),
    ("rdoc-ref:Rake::Task link:README.rdoc", "Rake::Task README.rdoc"), ("\\_x_ \\<tt>y</tt>", "_x_ <tt>y</tt>"),
    ("1 + 2 + 3", "1 + 2 + 3"), ("+--trace+", "`--trace`"), ("<tt>unclosed", "<tt>unclosed"),
    ("<b><tt>x</tt> y</b>", "`x` y"), ("<b>x</tt>", "<b>x</tt>")])
def test_inline_markup_reads_as_the_words_it_prints(raw: str, shown: str) -> None:
    assert render(raw) == shown


def test_chunks_carry_the_trail_down_to_the_entry() -> None:
    note = chunk_note(PAGE, formats.RDOC)
    by_heading = {c.heading: c.text for c in note.chunks}
    assert "zephyrine" in by_heading["Quasar Command Line Usage > `--jobs` number (-j)"]
    assert [s.trail for s in sections(PAGE, formats.RDOC)][-2:] == [
        "Quasar Command Line Usage > Environment > RAKEOPT", "Quasar Command Line Usage > Environment > Odds and ends"]


@pytest.mark.parametrize("text", ["=", "= ", "[", "[]", "[x]", "::", "x::", "--", "--\n", "++\n--", "\t\t[a]\n\tb",
                                  "*" * 100_000, "+" * 100_000, "<tt>" * 50_000, "{" * 50_000 + "}[" * 50_000,
                                  "\x00= \ufffd", "[" + "<b>" * 50_000 + "]", " " * 100_000 + "x", "a." * 50_000 + "[x",
                                  "<b>x</tt>" * 20_000, "<tt><b>x</tt></b>" * 10_000, "_a." * 50_000, "+a " * 50_000,
                                  "\n".join(" " * n + "[a]" for n in range(2000))])
@pytest.mark.timeout(60)
def test_broken_or_hostile_rdoc_never_raises_and_keeps_every_line(text: str) -> None:
    lines = split_lines(text)
    page = parse_rdoc(lines)
    assert len(page.text) == len(lines)
    starts = [h.start for h in page.blocks.headings]
    assert starts == sorted(set(starts))


def test_rdoc_pages_are_notes_that_search_and_read_doc_answer(tmp_path: Path) -> None:
    root = tmp_path / "gem"
    with synced_index(root, {"README.rdoc": PAGE, "lib/quasar.rb": "# zephyrine in a comment\nmodule Quasar; end\n"}) \
            as index:
        full_sync(index, root)
        assert [(h.path, h.heading) for h in keyword_hits(index, root, "zephyrine")] == [
            ("README.rdoc", "Quasar Command Line Usage > `--jobs` number (-j)")]
        assert keyword_hits(index, root, "nobody") == []  # private text
    out = read_output(root, "README.rdoc", heading="RAKEOPT", start_line=None, end_line=None,
                      max_file_bytes=1 << 20, max_bytes=100_000)
    assert out.heading == "Quasar Command Line Usage > Environment > RAKEOPT" and "RAKEOPT::" in out.text
