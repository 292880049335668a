"""A Vim plugin's help files (`doc/*.txt` beside `plugin/`, `autoload/` or `lua/`) are its docs, read as `:help`
shows them: the title line, `===` sections, capital headlines, `~` column headings and one entry per tag, the name
`:help` jumps to. Pure parts directly; the policy on real folders; the sync, search and read_doc with a real index."""

from __future__ import annotations

from pathlib import Path

from synced import keyword_hits, synced_index
from scree.mcpserver import read_output
from scree.notes import formats
from scree.notes.chunker import chunk_note
from scree.notes.policy import NotesPolicy
from scree.notes.sections import sections
from scree.notes.vimhelp import parse_vimhelp

HELP = """\
*frob.txt*  Frobnicate your buffers

Author:  Somebody

INTRODUCTION                                    *frob*

Frob turns buffers into frobs.  It comes in two kinds:
	quick		frobs at once			*frob-quick*
	slow		frobs in the background

COMMANDS                                        *frob-commands*

                                                *:Frob*
:Frob {args}            Frobnicate with {args}.  See |frob-maps|.

                                                *:Frob!* *:Frob_bang*
:Frob! {args}           Frobnicate in the background (zorblax).

:FrobAll                                        *:FrobAll*
                        Frobnicate every buffer.

                                                *frob-mapping-maps*
Mapping maps ~

                                                *frob_dd*
dd                      Delete a frob.  The word *inline* is no entry.

==============================================================================
OPTIONS                                                  *frob-options*

                                                *g:frob_level*
g:frob_level            How hard to frob.  Example: >
    let g:frob_level = 3
    NOTAHEADLINE *notatag*
<
                                                *'frobwidth'* *'fw'*
'frobwidth' 'fw'        number  (default 8)
        Quasarflux width.

Lua API                                                      *frob.lua*
-------

frob.setup({opts})                                          *frob.setup()*
    Set it up: >lua
        require('frob').setup({ level = 2 })
<
 vim:tw=78:ts=8:ft=help:norl:
"""

TRAILS = [
    "frob.txt Frobnicate your buffers",
    "frob.txt Frobnicate your buffers > INTRODUCTION",
    "frob.txt Frobnicate your buffers > COMMANDS",
    "frob.txt Frobnicate your buffers > COMMANDS > :Frob",
    "frob.txt Frobnicate your buffers > COMMANDS > :Frob! :Frob_bang",
    "frob.txt Frobnicate your buffers > COMMANDS > :FrobAll",
    "frob.txt Frobnicate your buffers > COMMANDS > Mapping maps",
    "frob.txt Frobnicate your buffers > COMMANDS > Mapping maps > frob_dd",
    "frob.txt Frobnicate your buffers > OPTIONS",
    "frob.txt Frobnicate your buffers > OPTIONS > g:frob_level",
    "frob.txt Frobnicate your buffers > OPTIONS > 'frobwidth' 'fw'",
    "frob.txt Frobnicate your buffers > OPTIONS > Lua API",
    "frob.txt Frobnicate your buffers > OPTIONS > Lua API > frob.setup()",
]


def _lines(text: str) -> list[str]:
    return text.split("\n")


def test_sections_are_the_title_rules_headlines_column_headings_and_one_entry_per_tag() -> None:
    assert [s.trail for s in sections(HELP, formats.VIMHELP)] == TRAILS


def test_tag_lines_above_a_column_heading_name_it_and_a_sentences_or_table_rows_tag_opens_nothing() -> None:
    blocks = parse_vimhelp(_lines(HELP))
    lines = _lines(HELP)
    column = next(h for h in blocks.headings if h.text == "Mapping maps")
    assert lines[column.start].strip() == "*frob-mapping-maps*"
    assert not any("inline" in h.text or "quick" in h.text for h in blocks.headings)


def test_an_example_is_verbatim_and_holds_no_heading_and_its_markers_are_markup() -> None:
    lines = _lines(HELP)
    blocks = parse_vimhelp(lines)
    example = next((s, e) for s, e in blocks.verbatim if "let g:frob_level" in lines[s])
    assert lines[example[1] - 1].strip() == "NOTAHEADLINE *notatag*"
    assert not any("NOTAHEADLINE" in h.text or "notatag" in h.text for h in blocks.headings)
    inert = {lines[i].strip() for i in blocks.inert}
    assert "<" in inert and "vim:tw=78:ts=8:ft=help:norl:" in inert and "=" * 78 in inert


def test_a_column_heading_may_end_in_a_tilde_without_a_blank_and_takes_the_tag_above() -> None:
    lines = ["*x.txt*  X", "", "                *x-config.enabled*", "enabled~", "  Toggles it.", "",
             "How to disable it?~", "  Set enabled.", "", "    indented: ~", "    text"]
    assert [s.trail for s in sections("\n".join(lines), formats.VIMHELP)] == [
        "x.txt X", "x.txt X > enabled", "x.txt X > How to disable it?"]


def test_a_dashed_rule_is_a_rule_unless_it_underlines_a_title() -> None:
    lines = ["*x.txt*  X", "", "tag     action ~", "-" * 40, "|x-a|   does a", "", "Properties", "----------",
             "Some.", "", "-" * 40, "More text"]
    assert [s.trail for s in sections("\n".join(lines), formats.VIMHELP)] == ["x.txt X", "x.txt X > Properties"]


def test_an_example_ends_at_a_line_in_the_first_column() -> None:
    lines = ["*x.txt*  X", "", "Run this: >", "    :X 1", "", "NEXT                 *x-next*", "Text."]
    blocks = parse_vimhelp(lines)
    assert blocks.verbatim == ((3, 5),)
    assert [h.text for h in blocks.headings] == ["x.txt X", "NEXT"]


def test_a_tag_opening_a_line_over_its_description_is_a_term_and_a_table_of_terms_is_text() -> None:
    lines = ["*x.txt*  X", "", "✨ FEATURES                     *x-features*", "", "*x.setup* (config: table)",
             "  Set it up.", "", "*:Xold*      Superseded by |:Xnew|.", "*:Xolder*    Superseded by |:Xnew|.",
             "Plain *text* line.", "", "Helpers:", "  *x.mapping.close* ()", "    Same as |x.close|.", "",
             "  *x.mapping.keep*    kept on one line, no entry"]
    assert [s.trail for s in sections("\n".join(lines), formats.VIMHELP)] == [
        "x.txt X", "x.txt X > ✨ FEATURES", "x.txt X > ✨ FEATURES > x.setup",
        "x.txt X > ✨ FEATURES > x.mapping.close"]


def test_a_file_opening_with_a_rule_has_its_sections_as_roots() -> None:
    lines = ["=" * 20, "                        *x.changelog*", "", "Changes.", "", "      *x.changelog-1*", "", "One."]
    assert [s.trail for s in sections("\n".join(lines), formats.VIMHELP)] == [
        "x.changelog", "x.changelog > x.changelog-1"]


def test_chunks_carry_the_entry_trail_and_keep_the_tags_as_text() -> None:
    chunks = chunk_note(HELP, formats.VIMHELP).chunks
    entry = next(c for c in chunks if c.heading.endswith("> :Frob! :Frob_bang"))
    assert "*:Frob!*" in entry.text and "zorblax" in entry.text


def _plugin(root: Path, runtime: str) -> None:
    (root / runtime).mkdir(parents=True)
    (root / "doc").mkdir()
    (root / "doc" / "frob.txt").write_text(HELP)
    (root / "docs").mkdir()
    (root / "docs" / "notes.txt").write_text("plain notes\n")


def test_a_txt_in_doc_beside_a_runtime_folder_is_vim_help_and_nowhere_else(tmp_path: Path) -> None:
    for runtime in ("plugin", "lua", "autoload"):
        root = tmp_path / runtime
        _plugin(root, runtime)
        policy = NotesPolicy.load(root)
        assert policy.file_skip_reason("doc/frob.txt") is None
        assert policy.note_kind("doc/frob.txt") == formats.VIMHELP
        assert "SCREE_NOTE_EXTENSIONS" in (policy.file_skip_reason("docs/notes.txt") or "")
    bare = tmp_path / "bare"
    _plugin(bare, "src")
    assert "SCREE_NOTE_EXTENSIONS" in (NotesPolicy.load(bare).file_skip_reason("doc/frob.txt") or "")


def test_narrowed_extensions_leave_vim_help_out_and_listing_txt_still_reads_it_as_help(tmp_path: Path) -> None:
    root = tmp_path / "p"
    _plugin(root, "plugin")
    assert NotesPolicy.load(root, suffixes=(".md",)).file_skip_reason("doc/frob.txt") is not None
    listed = NotesPolicy.load(root, suffixes=(*formats.DEFAULT_SUFFIXES, ".txt"))
    assert listed.file_skip_reason("doc/frob.txt") is None and listed.note_kind("doc/frob.txt") == formats.VIMHELP
    assert listed.note_kind("docs/notes.txt") == formats.TEXT


def test_a_synced_plugin_answers_by_entry_and_read_doc_finds_the_entry_by_its_tag(tmp_path: Path) -> None:
    root = tmp_path / "frob.vim"
    files = {"plugin/frob.vim": "command! Frob call frob#run()\n", "doc/frob.txt": HELP}
    with synced_index(root, files) as index:
        hits = keyword_hits(index, root, "zorblax")
        assert [(h.path, h.heading) for h in hits] == [("doc/frob.txt", TRAILS[4])]
        assert [h.heading for h in keyword_hits(index, root, "quasarflux")] == [TRAILS[10]]
    out = read_output(root, "doc/frob.txt", heading=":Frob! :Frob_bang", start_line=None, end_line=None,
                      max_file_bytes=1 << 20, max_bytes=100_000)
    assert out.heading == TRAILS[4] and "zorblax" in out.text and "every buffer" not in out.text
