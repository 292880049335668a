"""The readers of R help pages, manual pages, Org files, POD, Texinfo, RDoc and DocBook (XML and SGML) on hostile
pages: seconds per page of one repeated shape.

    uv run --frozen python benchmarks/hostile_readers.py [--mb 10]

Each page is `--mb` MB of one fragment (an unclosed command, nested lists, bare braces, unclosed escapes, a term
line of blanks) after the format's header, read by the format's pure reader (`formats.structure`, what the sync
and read_doc call). A reader linear in its input reads 10 MB in seconds; the quadratic ones these shapes once found
took hours. The tests bound the same shapes at a tenth of the size (`tests/test_*_reader.py`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from scree.notes import formats  # noqa: E402
from scree.notes.mdblocks import split_lines  # noqa: E402

SHAPES = {
    formats.RD: ("\\title{T}\n\\description{", ["\\code{x}", "\\item{", "{", "a\\%", "\\section{x}{"]),
    formats.ROFF: (".Dt X 1\n.Sh DESCRIPTION\n", [".Bl -tag\n.It x\n", ".It Fl x Xo\n", ".Sh x\n", ".TP\nx\n",
                                                   "\\[", "\\*[", "\\h'", ".Op Op Op\n"]),
    formats.ORG: ("#+title: T\n", ["* x\n", "- a :: b\n", "=a", "[[", "#+begin_src\n", ":PROPERTIES:\n"]),
    formats.POD: ("=head1 NAME\n\nX - x\n\n", ["C<", "C<< ", "B<x> ", "L<a|", "E<", ">", "=item x\n\n", "=over\n\n",
                                              "=head2 x\n\n", "  x\n\n", "=begin x\n\n"]),
    formats.TEXINFO: ("@settitle X\n", ["@code{", "{", "}", "@", "@table @code\n", "@item x\n", "@chapter x\n",
                                         "@iftex\n", "@example\n", "@deffn C x\n"]),
    formats.RDOC: ("= X\n", ["<tt>", "<b>x</tt>", "*a.", "_a.", "+a ", "a.", "{", "}[", "[x]\n", " [x]\n", "  x\n",
                              "--\n", "x:: y\n"]),
    formats.DOCBOOK: ("<refentry>\n", ["<", "<!--", "<![CDATA[", "<title>", "</title>", "<varlistentry><term>",
                                      "<option>", "&", "&nbsp;", "<a b='", "<programlisting>\n", "<info>",
                                      "<citerefentry><manvolnum>", "<!DOCTYPE x [", "<!DOCTYPE x [>",
                                      "<sect1><title>x</title>\n", "</>", "<literal>x</>", "<![", "<![ IGNORE [",
                                      "<![%a;[", "]]>", "<xref linkend=a>"]),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=10.0)
    size = int(ap.parse_args().mb * 1_000_000)
    print(f"{'format':8} {'shape':16} {'seconds':>8}")
    for kind, (head, fragments) in SHAPES.items():
        for fragment in fragments:
            lines = split_lines(head + fragment * (size // len(fragment)))
            started = time.perf_counter()
            formats.structure(kind, lines)
            print(f"{kind:8} {fragment!r:16} {time.perf_counter() - started:8.2f}", flush=True)


if __name__ == "__main__":
    main()
