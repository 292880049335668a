"""Perl's POD (a `.pod` guide, the POD of a `.pm` module) read as perldoc shows it. The reader directly; the sync,
search and read_doc with a real index."""

from __future__ import annotations

from pathlib import Path

import pytest

from synced import full_sync, keyword_hits, synced_index
from scree.mcpserver import read_output
from scree.notes import formats
from scree.notes.chunker import chunk_note
from scree.notes.mdblocks import split_lines
from scree.notes.podblocks import parse_pod, render
from scree.notes.policy import NotesPolicy
from scree.notes.sections import sections

MODULE = """package Mojo::Quasar;
use Mojo::Base -base;

has max_hops => 3;

sub hop { 1 }

1;

=encoding utf8

=head1 NAME

Mojo::Quasar - Quasarhub client

=head1 SYNOPSIS

  use Mojo::Quasar;

  my $q = Mojo::Quasar->new;

=head1 ATTRIBUTES

=head2 max_hops

  my $hops = $q->max_hops;

Maximum number of B<hops>, see L<Mojo::UserAgent/"max_redirects"> and C<< $a <=> $b >>.

=head1 OPTIONS

=over 2

=item B<-v>, B<--verbose>

=item B<--loud>

Print zephyrine details.

=item B<--list>

=over

=item one

=item two

=back

Lists E<lt>thingsE<gt>.

=back

=over

=item * A bullet

=item 2. A numbered item

=back

=begin html

<p>quasarhub raw html</p>

=end html

=for comment nobody sees this

=cut
"""


def _heads(text: str) -> list[tuple[int, int, str, bool]]:
    return [(h.start, h.level, h.text, h.body) for h in parse_pod(split_lines(text)).blocks.headings]


def test_a_module_s_pod_is_titled_by_its_name_with_sections_and_tagged_items_as_entries() -> None:
    assert _heads(MODULE) == [
        (11, 1, "Mojo::Quasar", False), (15, 2, "SYNOPSIS", False), (21, 2, "ATTRIBUTES", False),
        (23, 3, "max_hops", False), (29, 2, "OPTIONS", False),
        (33, 3, "-v, --verbose", True),  # tags over one text: one entry, titled by the first
        (39, 3, "--list", True)]  # the nested list of bare names is none


def test_pod_between_code_is_read_and_the_code_around_it_is_not() -> None:
    lines = split_lines("sub a { 1 }\n\n=head2 hop\n\nHops zephyr.\n\n=cut\n\nsub hop { 'quasarhub' }\n")
    page = parse_pod(lines)
    assert [(h.start, h.level, h.text) for h in page.blocks.headings] == [(2, 3, "hop")]
    assert page.text == ["", "", "### hop", "", "Hops zephyr.", "", "", "", "", ""]


def test_the_shown_text_reads_codes_as_printed_and_leaves_code_and_markup_out() -> None:
    lines = split_lines(MODULE)
    page = parse_pod(lines)
    assert len(page.text) == len(lines)
    assert page.text[:9] == [""] * 9  # the module's Perl code
    shown = "\n".join(page.text)
    assert "Maximum number of hops, see \"max_redirects\" in Mojo::UserAgent and `$a <=> $b`." in shown
    assert "Lists <things>." in shown and "- A bullet" in shown and "2. A numbered item" in shown
    assert "quasarhub" not in shown and "nobody sees" not in shown and "sub hop" not in shown
    assert page.text[11] == "# Mojo::Quasar" and page.text[13] == "Mojo::Quasar - Quasarhub client"
    assert page.blocks.verbatim == ((17, 20), (25, 26))  # blank lines between verbatim paragraphs: one block


@pytest.mark.parametrize(("raw", "shown"), [
    ("B<bold> I<it> F<file> S<a b>", "bold it file a b"), ("C<x>", "`x`"), ("C<<< a >> b >>>", "`a >> b`"),
    ("L<Mojo::URL>", "Mojo::URL"), ("L<text|Mojo::URL/query>", "text"), ('L</"SEE ALSO">', '"SEE ALSO"'),
    ("L<https://mojolicious.org>", "https://mojolicious.org"), ("E<gt>E<0x41>E<eacute>E<nope>", ">A\u00e9E<nope>"),
    ("X<index>Z<>done", "done"), ("C<unclosed", "unclosed"), ("a > b < c", "a > b < c"), ("I<B<C<x>>>", "`x`")])
def test_formatting_codes_read_as_the_words_they_print(raw: str, shown: str) -> None:
    assert render([raw]) == [shown]


def test_a_code_over_lines_keeps_the_paragraph_s_lines() -> None:
    assert render(["see L<the", "guide|Mojolicious::Guides/", '"Routing"> now']) == ["see the", "guide", " now"]
    assert render(["C<<", "  x", ">> y"]) == ["`x`", "", " y"]


def test_chunks_carry_the_trail_down_to_the_entry() -> None:
    note = chunk_note(MODULE, formats.POD)
    by_heading = {c.heading: c.text for c in note.chunks}
    assert "zephyrine" in by_heading["Mojo::Quasar > OPTIONS > -v, --verbose"]
    assert [s.trail for s in sections(MODULE, formats.POD)][:4] == [
        "Mojo::Quasar", "Mojo::Quasar > SYNOPSIS", "Mojo::Quasar > ATTRIBUTES", "Mojo::Quasar > ATTRIBUTES > max_hops"]


@pytest.mark.parametrize("text", ["=", "=head1", "=head1 NAME", "=head1 NAME\n\n=cut", "=over\n\n=item", "=back\n=back",
                                  "=item x\n\n=item y", "=begin html\n\nnever ended", "=end\n\n=end", "C<" * 50_000,
                                  "=pod\n\n" + "C<< " * 50_000, "=pod\n\n" + "L<a|" * 50_000 + ">" * 50_000,
                                  "=pod\n\n" + "E<" * 50_000, "\x00=head1 \ufffd", "=head1 " + "B<" * 50_000])
@pytest.mark.timeout(60)  # each level of a nest of codes copies what it holds; speed: benchmarks/hostile_readers.py
def test_broken_or_hostile_pod_never_raises_and_keeps_every_line(text: str) -> None:
    lines = split_lines(text)
    page = parse_pod(lines)
    assert len(page.text) == len(lines)
    starts = [h.start for h in page.blocks.headings]
    assert starts == sorted(set(starts))


def test_pod_pages_are_notes_and_a_perl_distribution_s_modules_are_read_for_their_pod(tmp_path: Path) -> None:
    root = tmp_path / "dist"
    files = {"Makefile.PL": "use ExtUtils::MakeMaker;\n", "lib/Mojo/Quasar.pm": MODULE,
             "lib/Mojo/Plain.pm": "package Mojo::Plain;\nsub zephyrine { 1 }\n1;\n",
             "lib/Mojolicious/Guides/Quasar.pod": "=head1 NAME\n\nMojolicious::Guides::Quasar - Guide\n\n"
                                                  "=head1 BASICS\n\nA nebulight guide.\n"}
    with synced_index(root, files) as index:
        full_sync(index, root)
        policy = NotesPolicy.load(root)
        assert policy.note_kind("lib/Mojo/Quasar.pm") == formats.POD
        assert [(h.path, h.heading) for h in keyword_hits(index, root, "zephyrine")] == [
            ("lib/Mojo/Quasar.pm", "Mojo::Quasar > OPTIONS > -v, --verbose")]  # the code of Plain.pm is no text
        assert [(h.path, h.heading) for h in keyword_hits(index, root, "nebulight")] == [
            ("lib/Mojolicious/Guides/Quasar.pod", "Mojolicious::Guides::Quasar > BASICS")]
    out = read_output(root, "lib/Mojo/Quasar.pm", heading="max_hops", start_line=None, end_line=None,
                      max_file_bytes=1 << 20, max_bytes=100_000)
    assert out.heading == "Mojo::Quasar > ATTRIBUTES > max_hops" and "Maximum number of B<hops>" in out.text


def test_a_module_outside_a_perl_distribution_is_read_only_when_listed(tmp_path: Path) -> None:
    root = tmp_path / "app"
    root.mkdir()
    (root / "Quasar.pm").write_text(MODULE, encoding="utf-8")
    assert NotesPolicy.load(root).inspect("Quasar.pm").code is not None
    (root / "cpanfile").write_text("requires 'Mojolicious';\n", encoding="utf-8")
    assert NotesPolicy.load(root).inspect("Quasar.pm").code is None


def test_a_module_s_language_is_read_off_its_pod_not_its_perl_code(tmp_path: Path) -> None:
    # A module whose code comes first: read off the whole file, its language was undetermined (Mojo::URL).
    code = "".join(f"sub method_{n} {{ my ($self, $x) = @_; return $self->{{x_{n}}} //= $x; }}\n" for n in range(120))
    pod = ("\n=head1 NAME\n\nMojo::Quasar - Quasarhub client\n\n=head1 DESCRIPTION\n\nThis module talks to the quasarhub "
           "service for you: it opens a connection, sends each request in turn, waits for every answer and hands the "
           "results back to the caller, retrying the requests that failed because the network was busy.\n\n=cut\n")
    root = tmp_path / "dist"
    with synced_index(root, {"Makefile.PL": "use ExtUtils::MakeMaker;\n", "lib/Mojo/Quasar.pm": code + pod}) as index:
        full_sync(index, root)
        lang, = index.conn.execute("select lang from files where path = 'lib/Mojo/Quasar.pm'").fetchone()
        assert lang == "en"
