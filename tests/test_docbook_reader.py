"""DocBook (systemd's and shadow's `man/*.xml`, a KDE manual's `index.docbook`, PostgreSQL's and pgpool's
`doc/src/sgml/*.sgml`) read as its built page shows it. The reader directly; the policy that tells DocBook from other
XML; the sync, search and read_doc with a real index."""

from __future__ import annotations

from pathlib import Path

import pytest

from synced import full_sync, keyword_hits, synced_index
from scree.mcpserver import read_output
from scree.notes import formats
from scree.notes.chunker import chunk_note
from scree.notes.docbookblocks import is_docbook, parse_docbook
from scree.notes.mdblocks import split_lines
from scree.notes.policy import NotesPolicy
from scree.notes.sections import sections

PAGE = """\
<?xml version="1.0" encoding="UTF-8"?>
<!-- SPDX-License-Identifier: BSD-3-Clause -->
<!DOCTYPE refentry PUBLIC "-//OASIS//DTD DocBook V4.5//EN"
  "http://www.oasis-open.org/docbook/xml/4.5/docbookx.dtd" [
<!ENTITY QUASAR_HOME SYSTEM "quasar.d/QUASAR_HOME.xml">
<!ENTITY VERSION '4.2'>
]>
<refentry id='quasaradd.8'>
  <refentryinfo>
    <author><firstname>Ada</firstname><surname>Hidden</surname></author>
  </refentryinfo>
  <refmeta>
    <refentrytitle>quasaradd</refentrytitle>
    <manvolnum>8</manvolnum>
  </refmeta>
  <refnamediv id='name'>
    <refname>quasaradd</refname>
    <refpurpose>create a new quasar (version &VERSION;)</refpurpose>
  </refnamediv>
  <refsect1 id='options'>
    <title>OPTIONS</title>
    <variablelist>
      <varlistentry>
        <term>
          <option>-b</option>, <option>--base-dir</option>&nbsp;<replaceable>BASE_DIR</replaceable>
        </term>
        <listitem>
          <para>The zephyrine base directory, see
            <citerefentry><refentrytitle>crypt</refentrytitle><manvolnum>5</manvolnum></citerefentry>.
          </para>
          <programlisting>
quasaradd -b /srv &amp;&amp; echo &lt;done&gt;
          </programlisting>
        </listitem>
      </varlistentry>
      <varlistentry>
        <term><option>-q</option></term>
        <term><option>--quiet</option></term>
        <listitem><para>Say nothing.<remark>a remark nobody sees</remark></para></listitem>
      </varlistentry>
    </variablelist>
  </refsect1>
  <refsect1 id='configuration'>
    <title>CONFIGURATION</title>
    <variablelist>
      &QUASAR_HOME;
    </variablelist>
    <refsect2><title>Defaults</title><para>Kept in <filename>/etc/quasar</filename>.</para></refsect2>
  </refsect1>
</refentry>
"""


def _heads(text: str) -> list[tuple[int, int, str]]:
    return [(h.start, h.level, h.text) for h in parse_docbook(split_lines(text)).blocks.headings]


def test_a_manual_page_is_titled_as_man_shows_it_with_its_sections_and_entries_below() -> None:
    assert _heads(PAGE) == [
        (7, 1, "QUASARADD(8)"), (15, 2, "NAME"), (20, 2, "OPTIONS"), (24, 3, "`-b`, `--base-dir` BASE_DIR"),
        (36, 3, "`-q`, `--quiet`"), (43, 2, "CONFIGURATION"), (47, 3, "Defaults")]


def test_the_shown_text_reads_markup_as_printed_and_leaves_metadata_out() -> None:
    text = parse_docbook(split_lines(PAGE)).text
    shown = "\n".join(text)
    assert "create a new quasar (version 4.2)" in shown  # a declared entity's text
    assert "see" in text[27] and "crypt(5)." in text[28]
    assert "quasaradd -b /srv && echo <done>" in shown  # entities decoded in verbatim lines
    assert "Hidden" not in shown and "nobody" not in shown  # refentryinfo and remarks
    assert "QUASAR_HOME" not in shown  # an entity naming a file brings that file in: it is read as itself
    assert "Kept in `/etc/quasar`." in shown


def test_a_program_listing_is_verbatim() -> None:
    page = parse_docbook(split_lines(PAGE))
    (start, end), = page.blocks.verbatim
    assert (start, end) == (30, 33)  # from the tag's line through the closing tag's


def test_chunks_carry_the_trail_down_to_the_entry() -> None:
    note = chunk_note(PAGE, formats.DOCBOOK)
    by_heading = {c.heading: c.text for c in note.chunks}
    assert "zephyrine" in by_heading["QUASARADD(8) > OPTIONS > `-b`, `--base-dir` BASE_DIR"]
    assert [s.trail for s in sections(PAGE, formats.DOCBOOK)][-1] == "QUASARADD(8) > CONFIGURATION > Defaults"


def test_a_book_nests_its_sections_and_titles_from_info() -> None:
    book = ("<book xmlns='http://docbook.org/ns/docbook'><info><title>The &konsole; Handbook</title>"
            "<author>Someone</author></info>\n<chapter><title>Usage</title>\n<para>Intro.</para>\n"
            "<sect1><title>Profiles</title>\n<para>Text <emphasis>here</emphasis>.</para>\n"
            "<table><title>Not a section</title></table>\n</sect1></chapter></book>\n")
    # An entity a DTD declares (KDE's application names) reads as its name.
    assert _heads(book) == [(0, 1, "The konsole Handbook"), (1, 2, "Usage"), (3, 3, "Profiles")]
    assert "Someone" not in "\n".join(parse_docbook(split_lines(book)).text)


def test_a_kde_handbook_titles_its_book_from_bookinfo_and_menu_entries_by_their_words() -> None:
    book = ("<!DOCTYPE book PUBLIC \"-//KDE//DTD DocBook XML V4.5-Based Variant V1.1//EN\" \"dtd/kdedbx45.dtd\">\n"
            "<book><bookinfo><title>The &konsole; Handbook</title><date>2024</date></bookinfo>\n"
            "<chapter><title>Command Reference</title><variablelist>\n<varlistentry>\n<term><menuchoice>\n"
            "<shortcut><keycombo action='simul'>&Ctrl;&Shift;<keycap>R</keycap></keycombo></shortcut>\n"
            "<guimenu>View</guimenu><guimenuitem>Monitor for\nPrompt</guimenuitem></menuchoice></term>\n"
            "<listitem><para>Toggles prompt monitoring.</para></listitem></varlistentry>\n"
            "</variablelist></chapter></book>\n")
    assert _heads(book) == [(1, 1, "The konsole Handbook"), (2, 2, "Command Reference"),
                            (5, 3, "Ctrl Shift R View Monitor for Prompt")]
    assert "2024" not in "\n".join(parse_docbook(split_lines(book)).text)


@pytest.mark.parametrize(("head", "docbook"), [
    (PAGE, True),
    ("<?xml version='1.0'?>\n<!-- c -->\n<varlistentry>\n<term><option>UMASK</option></term>", True),
    ("<!DOCTYPE book PUBLIC \"-//KDE//DTD DocBook XML V4.5-Based Variant V1.1//EN\" \"dtd/kdedbx45.dtd\" [\n", True),
    ("<article xmlns='http://docbook.org/ns/docbook' version='5.0'>", True),
    ("<?xml version='1.0'?>\n<project><modelVersion>4.0.0</modelVersion></project>", False),  # a Maven build
    ("<LinearLayout android:id='@+id/x'><refentry/></LinearLayout>", False),  # DocBook's word, another root
    ("<para>plain XML with no doctype or namespace</para>", False),
    ("", False),
])
def test_only_xml_that_is_docbook_is_docbook(head: str, docbook: bool) -> None:
    assert is_docbook(head) is docbook


@pytest.mark.parametrize("text", ["<", "<<<", "<!--", "<![CDATA[", "<?x", "<!DOCTYPE", "<!DOCTYPE x [", "&", "&;",
                                  "&#xFFFFFFFF;", "&#99999999999;", "</title>" * 1000, "<title>" * 50_000,
                                  "<varlistentry><term>" * 20_000, "<option>" * 50_000 + "x",
                                  "<refsect1><title>" + "a\n" * 50_000, "<" + "a " * 100_000, "<!--" * 50_000,
                                  "<a b='" + "<" * 100_000, "\x00<title>\ufffd</title>", "<programlisting>\n" * 5000,
                                  "<citerefentry><manvolnum>" * 10_000, "<info><info><title>x</title>" * 1000,
                                  "<!DOCTYPE x [>" * 50_000, "<!DOCTYPE x [<!ENTITY a \"" * 20_000,
                                  "</>" * 100_000, "<literal>x</>" * 50_000, "<sect1><title>a</>" * 20_000,
                                  "<![" * 100_000, "<![ IGNORE [" * 50_000, "<![%a;[" * 50_000, "]]>" * 100_000,
                                  "<xref linkend=a>" * 50_000, "<para></><para></></>" * 30_000])
@pytest.mark.timeout(60)
def test_broken_or_hostile_docbook_never_raises_and_keeps_every_line(text: str) -> None:  # XML's or SGML's
    lines = split_lines(text)
    page = parse_docbook(lines)
    assert len(page.text) == len(lines)
    starts = [h.start for h in page.blocks.headings]
    assert starts == sorted(set(starts))


def test_docbook_xml_in_a_docs_folder_is_a_note_and_other_xml_is_not(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "man" / "quasar.d").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "man" / "quasaradd.8.xml").write_text(PAGE, encoding="utf-8")
    (root / "man" / "quasar.d" / "QUASAR_HOME.xml").write_text(
        "<varlistentry><term><option>QUASAR_HOME</option> (string)</term>"
        "<listitem><para>Where quasars live.</para></listitem></varlistentry>\n", encoding="utf-8")
    (root / "man" / "catalog.xml").write_text("<project><name>zephyrine</name></project>\n", encoding="utf-8")
    (root / "src" / "page.xml").write_text(PAGE, encoding="utf-8")  # DocBook, but where code lives: never read
    (root / "guide.docbook").write_text("<article><title>Guide</title><para>Hi.</para></article>\n",
                                        encoding="utf-8")
    policy = NotesPolicy.load(root)
    assert policy.file_skip_reason("man/quasaradd.8.xml") is None
    assert policy.file_skip_reason("man/quasar.d/QUASAR_HOME.xml") is None
    assert policy.file_skip_reason("guide.docbook") is None
    assert "not DocBook" in (policy.file_skip_reason("man/catalog.xml") or "")
    assert policy.file_skip_reason("src/page.xml") is not None
    narrowed = NotesPolicy.load(root, suffixes=(".md",))
    assert narrowed.file_skip_reason("man/quasaradd.8.xml") is not None
    # A file that becomes DocBook is read from then on.
    (root / "man" / "catalog.xml").write_text(
        "<?xml version='1.0'?>\n<!DOCTYPE article PUBLIC '-//OASIS//DTD DocBook XML'>\n"
        "<article><title>Now a page</title></article>\n", encoding="utf-8")
    assert policy.file_skip_reason("man/catalog.xml") is None


def test_docbook_pages_are_notes_that_search_and_read_doc_answer(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    files = {"man/quasaradd.8.xml": PAGE, "build.xml": "<project><target name='zephyrine'/></project>\n",
             "man/quasar.d/QUASAR_HOME.xml": "<varlistentry><term><option>QUASAR_HOME</option> (string)</term>"
                                             "<listitem><para>Where nebulae live.</para></listitem></varlistentry>\n"}
    with synced_index(root, files) as index:
        full_sync(index, root)
        assert [(h.path, h.heading) for h in keyword_hits(index, root, "zephyrine")] == [
            ("man/quasaradd.8.xml", "QUASARADD(8) > OPTIONS > `-b`, `--base-dir` BASE_DIR")]
        assert [(h.path, h.heading) for h in keyword_hits(index, root, "nebulae")] == [
            ("man/quasar.d/QUASAR_HOME.xml", "`QUASAR_HOME` (string)")]
        assert keyword_hits(index, root, "nobody") == []  # a remark
    out = read_output(root, "man/quasaradd.8.xml", heading="`-q`, `--quiet`", start_line=None, end_line=None,
                      max_file_bytes=1 << 20, max_bytes=100_000)
    assert out.heading == "QUASARADD(8) > OPTIONS > `-q`, `--quiet`" and "Say nothing." in out.text


# A chapter of PostgreSQL's manual as pgpool writes it: SGML, with `</>` ending the innermost element, `<xref>` with no
# end tag, and a marked section of the book's.
SGML_CHAPTER = """\
<!-- doc/src/sgml/quasar-config.sgml -->

<sect1 id="runtime-config-quasar">
 <title>Quasar Settings</title>
 <![%include-index;[&bookindex;]]>
 <![ IGNORE [ <para>an old draft no reader sees</para> ]]>
 <para>
  Edit <filename>quasar.conf</>, then send <systemitem>SIGHUP</> (see <xref linkend="guc-x">).
 </para>
 <variablelist>
  <varlistentry id="guc-quasar-radius" xreflabel="quasar_radius">
   <term><varname>quasar_radius</varname> (<type>integer</>)
    <indexterm><primary><varname>quasar_radius</> configuration parameter</></>
   </term>
   <listitem>
    <para>The <literal>zephyrine</> radius, in parsecs.</para>
   </listitem>
  </varlistentry>
 </variablelist>
 <sect2 id="quasar-after">
  <title>After the List</>
  <para>Still a section of its own.</para>
 </sect2>
</sect1>
"""


def test_sgml_short_end_tags_and_empty_elements_close_what_sgml_closes() -> None:
    assert _heads(SGML_CHAPTER) == [(3, 1, "Quasar Settings"), (11, 2, "`quasar_radius` (`integer`)"),
                                    (20, 2, "After the List")]
    shown = "\n".join(parse_docbook(split_lines(SGML_CHAPTER)).text)
    assert "Edit `quasar.conf`, then send `SIGHUP` (see )." in shown
    assert "The `zephyrine` radius, in parsecs." in shown
    assert "</>" not in shown and "<![" not in shown and "]]>" not in shown and "bookindex" in shown
    assert "draft" not in shown and "configuration parameter" not in shown  # an IGNORE section, an index term
    book = "<!doctype book PUBLIC '-//OASIS//DTD DocBook V4.2//EN' [<!entity product 'Quasar'>]>\n" \
           "<book><title>&product; Guide</></book>\n"
    assert _heads(book) == [(1, 1, "Quasar Guide")]  # SGML's declarations may be lower case


@pytest.mark.parametrize(("head", "docbook"), [
    (SGML_CHAPTER, True),
    ("<!-- doc/src/sgml/func.sgml -->\n\n<chapter id=\"functions\">\n <title>Functions</title>\n <para>x", True),
    ("<!DOCTYPE book PUBLIC \"-//OASIS//DTD DocBook V4.2//EN\" [\n<!ENTITY % version SYSTEM \"version.sgml\">", True),
    ("<!doctype linuxdoc system>\n<article>\n<title>Quasar HOWTO", False),  # LinuxDoc, not DocBook
    ("<!-- doc/src/sgml/filelist.sgml -->\n<!ENTITY history SYSTEM \"history.sgml\">\n", False),  # entities only
])
def test_sgml_in_a_docs_folder_needs_no_docbook_mark_but_a_docbook_root(head: str, docbook: bool) -> None:
    assert is_docbook(head, sgml=True) is docbook


def test_xml_still_needs_a_docbook_mark_that_sgml_does_without() -> None:
    chapter = "<!-- doc/src/sgml/func.sgml -->\n\n<chapter id=\"functions\">\n <title>Functions</title>\n <para>x"
    assert is_docbook(chapter, sgml=True) and not is_docbook(chapter)


def test_docbook_sgml_in_a_docs_folder_is_a_note_and_other_sgml_is_not(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "doc" / "src" / "sgml").mkdir(parents=True)
    (root / "tools").mkdir()
    (root / "doc" / "src" / "sgml" / "quasar-config.sgml").write_text(SGML_CHAPTER, encoding="utf-8")
    (root / "doc" / "src" / "sgml" / "filelist.sgml").write_text(
        "<!ENTITY quasar SYSTEM \"quasar-config.sgml\">\n", encoding="utf-8")
    (root / "tools" / "quasar-config.sgml").write_text(SGML_CHAPTER, encoding="utf-8")
    policy = NotesPolicy.load(root)
    assert policy.file_skip_reason("doc/src/sgml/quasar-config.sgml") is None
    assert "an SGML file that is not DocBook" in (policy.file_skip_reason("doc/src/sgml/filelist.sgml") or "")
    assert policy.file_skip_reason("tools/quasar-config.sgml") is not None  # not a docs folder
    assert NotesPolicy.load(root, suffixes=(".md",)).file_skip_reason("doc/src/sgml/quasar-config.sgml") is not None
    listed = NotesPolicy.load(root, suffixes=(*formats.DEFAULT_SUFFIXES, ".sgml"))
    assert listed.file_skip_reason("tools/quasar-config.sgml") is None  # listed: every SGML file is read
    assert formats.kind_of("doc/src/sgml/quasar-config.sgml") == formats.DOCBOOK


def test_docbook_sgml_pages_are_notes_that_search_and_read_doc_answer(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    with synced_index(root, {"doc/src/sgml/quasar-config.sgml": SGML_CHAPTER}) as index:
        full_sync(index, root)
        assert [(h.path, h.heading) for h in keyword_hits(index, root, "zephyrine")] == [
            ("doc/src/sgml/quasar-config.sgml", "Quasar Settings > `quasar_radius` (`integer`)")]
        assert keyword_hits(index, root, "draft") == []
    out = read_output(root, "doc/src/sgml/quasar-config.sgml", heading="After the List", start_line=None,
                      end_line=None, max_file_bytes=1 << 20, max_bytes=100_000)
    assert out.heading == "Quasar Settings > After the List" and "Still a section of its own." in out.text
