"""The formats scree reads, and which one a note is written in: the seam between readers and the rest.

Each format is one reader that turns a note's lines into the same `Blocks` record (headings with their
lines and levels, verbatim blocks, targets, markup lines): `mdblocks` (Markdown and its dialects),
`rstblocks` (reStructuredText), `adocblocks` (AsciiDoc), `orgblocks` (Org), `podblocks` (Perl's POD), `texiblocks`
(Texinfo), `rdocblocks` (Ruby's RDoc), `docbookblocks` (DocBook's XML), `pdftext` (a PDF's extracted text, its pages
and outline as headings), `vimhelp` (a Vim plugin's help files), `rdblocks` (an R package's help pages), `roffblocks`
(manual pages: roff with the man or mdoc macros); the readers of formats whose markup is no text (Rd, roff, POD,
Texinfo, RDoc, DocBook) write the lines a reader of the page reads (`mdblocks.ShownPage`); a Jupyter notebook is its
cells' Markdown (`notebook`), read by `mdblocks`; plain text has no structure but paragraphs.
The chunker, read_doc's section lookup, the language rules, the embedding view and the store take it from
there and never ask which format a note came from. Adding a format is one reader module, a suffix here,
and its tests.

A note's kind comes from its suffix (a manual page's is its section: `ssh.1`, `sshd_config.5`), except `.txt`:
inside a Sphinx source folder (a folder holding `conf.py`, or below one) it is reStructuredText, as Sphinx reads it
(Django's `docs/**.txt`); in a Vim runtime folder's `doc/` (beside `plugin/`, `autoload/`, `lua/`, ...) it is Vim
help, as `:help` reads it; elsewhere it is plain text, read only when the user lists `.txt` in SCREE_NOTE_EXTENSIONS.
An `.xml` or `.sgml` file is DocBook (a `.docbook` always is): the policy reads it only in a docs folder
(`in_docs_folder`) and when its first kB say so (`docbookblocks.is_docbook`), so a project's other XML (build files,
data, layouts) is never a note.
A suffix the user adds that scree has no reader for (`.mdown`) is read as Markdown, as before formats were told apart;
a docs build's notebooks, a Quarto project's `.qmd` pages, an R package's `.Rd` and `.Rmd` pages and a Perl
distribution's modules (their POD) are read without a setting (`BOOK_PAGES`).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from . import (adocblocks, docbookblocks, mdblocks, mdbookincludes, mkdocsdirectives, mkdocssnippets,
               mystdirectives, orgblocks, pdftext, podblocks, rdblocks, rdocblocks, roffblocks, rstblocks, rstsubst,
               texiblocks, textblocks, vimhelp)
from ..records import AutodocRef

MARKDOWN = "markdown"
RST = "rst"
ASCIIDOC = "asciidoc"
TEXT = "text"
PDF = "pdf"
VIMHELP = "vimhelp"
NOTEBOOK = "notebook"
RD = "rd"
ROFF = "roff"
ORG = "org"
POD = "pod"
TEXINFO = "texinfo"
RDOC = "rdoc"
DOCBOOK = "docbook"

KINDS = (MARKDOWN, RST, ASCIIDOC, TEXT, PDF, VIMHELP, NOTEBOOK, RD, ROFF, ORG, POD, TEXINFO, RDOC, DOCBOOK)
SUFFIX_KINDS = {
    ".md": MARKDOWN, ".mdx": MARKDOWN, ".markdown": MARKDOWN,
    ".rst": RST, ".rest": RST,
    ".adoc": ASCIIDOC, ".asciidoc": ASCIIDOC,
    ".org": ORG,
    ".pod": POD, ".pm": POD,
    ".texi": TEXINFO, ".texinfo": TEXINFO, ".txi": TEXINFO,
    ".rdoc": RDOC,
    ".docbook": DOCBOOK, ".dbk": DOCBOOK, ".xml": DOCBOOK, ".sgml": DOCBOOK,
    ".txt": TEXT,
    ".pdf": PDF,
    ".ipynb": NOTEBOOK,
    ".rd": RD,
}
# Read with no setting: Markdown, MDX, reStructuredText, AsciiDoc, Org, POD, Texinfo, RDoc, DocBook and PDF (its text,
# `pdftext`). `.ipynb` (a notebook's cells, `notebook`) and `.qmd` (Quarto's Markdown) are read where a docs build
# reads them as pages (a Sphinx, Jupyter Book or Quarto source folder: BOOK_PAGES) without a setting, elsewhere only
# when listed: a data project's analysis notebooks are not its docs; an R package's `.Rd` help pages and `.Rmd`
# vignettes likewise. `.txt` is read in Sphinx source folders (as reStructuredText) and Vim help folders (as Vim help)
# without a setting, elsewhere only when listed; manual pages (`is_man_page`) without a setting.
DEFAULT_SUFFIXES = (".md", ".mdx", ".markdown", ".rst", ".adoc", ".asciidoc", ".org", ".pod", ".texi", ".texinfo",
                    ".rdoc", ".docbook", ".pdf")
# An XML or SGML file that is DocBook (`docbookblocks.is_docbook`: systemd's and shadow's `man/*.xml`) in a docs folder
# (one of its folders is named as below, at any depth) is read unless the note extensions are narrowed; any other XML
# file is no note. The folder comes first because telling DocBook means reading the file's head: a Java or Android
# project holds tens of thousands of XML files (build files, layouts, resources), none in such a folder.
DOCBOOK_XML_SUFFIX = ".xml"
# PostgreSQL's manual and its family's (pgpool, PostGIS's older pages) are DocBook written as SGML,
# `doc/src/sgml/*.sgml`, read by the same rule (the head test asks no DocBook mark of SGML: `docbookblocks.is_docbook`).
DOCBOOK_SGML_SUFFIX = ".sgml"
DOCBOOK_MARKUP_SUFFIXES = (DOCBOOK_XML_SUFFIX, DOCBOOK_SGML_SUFFIX)
DOCBOOK_DIRS = frozenset({"man", "doc", "docs", "documentation", "manual", "manuals", "handbook", "specs", "guide",
                          "guides", "book"})


def in_docs_folder(rel: str) -> bool:
    """True when one of the folders of the path `rel` is named as a docs folder (`DOCBOOK_DIRS`, any case)."""
    return any(part.lower() in DOCBOOK_DIRS for part in rel.split("/")[:-1])
SPHINX_TEXT_SUFFIX = ".txt"
SPHINX_CONF = "conf.py"
NOTEBOOK_SUFFIX = ".ipynb"
QUARTO_SUFFIX = ".qmd"
QUARTO_PROJECT = "_quarto.yml"
# The pages a docs build reads besides the formats read everywhere, and what makes a folder (or one above it) the
# source of such a build: notebooks for Sphinx (nbsphinx, MyST-NB), Jupyter Book 1 (`_toc.yml`) and 2 / MyST
# (`myst.yml`) and Quarto; Quarto's own Markdown pages (`.qmd`, read as Markdown) for Quarto.
# An R package (a folder with its `DESCRIPTION`) documents itself in `man/*.Rd` (R's help pages, `rdblocks`) and in
# R Markdown vignettes (`vignettes/*.Rmd`, Markdown with knitr's code chunks), which R CMD build and pkgdown render; a
# bookdown book, an R Markdown site, a Quarto project and a Jupyter Book (through Jupytext) render `.Rmd` pages too.
R_PACKAGE = "DESCRIPTION"
RD_SUFFIX = ".rd"
RMARKDOWN_SUFFIX = ".rmd"
# A Perl distribution (a folder with its `Makefile.PL`, `Build.PL`, Dist::Zilla's `dist.ini` or a `cpanfile`) documents
# its modules in their POD, which `perldoc Mojo::URL` and MetaCPAN show: a `.pm` there is read for its POD.
PERL_MODULE_SUFFIX = ".pm"
PERL_DISTRIBUTION = ("Makefile.PL", "Build.PL", "dist.ini", "cpanfile")
BOOK_PAGES = {NOTEBOOK_SUFFIX: (SPHINX_CONF, "_toc.yml", "myst.yml", QUARTO_PROJECT), QUARTO_SUFFIX: (QUARTO_PROJECT,),
              RD_SUFFIX: (R_PACKAGE,), PERL_MODULE_SUFFIX: PERL_DISTRIBUTION,
              RMARKDOWN_SUFFIX: (R_PACKAGE, "_bookdown.yml", "_site.yml", QUARTO_PROJECT, "_toc.yml", "myst.yml")}
# A page knitted or rendered to Markdown beside its source (`README.Rmd` to `README.md`, `README.qmd` too): the
# Markdown is what readers see and the one read; the source would repeat every section.
KNITTED_SOURCES = (RMARKDOWN_SUFFIX, QUARTO_SUFFIX)
# A manual exported from a source beside it (`magit.texi`, which Org's exporter writes from `magit.org`): the source is
# the one read, while its suffix is; the export would repeat every section.
EXPORTS = {".texi": ".org"}
# A manual page is named for its section (`ssh.1`, `sshd_config.5`, `openssl.1ssl`, `x.man`; the template configure
# fills in, `ip-route.8.in`, is the page in the repository): read unless the note extensions are narrowed. A version
# is no page: the stem's last part must hold a letter (`tc-u32.8`, `python3.1` are pages; `LGPL-2.1`, a file `2.2`
# are not). A file so named that holds no roff (`roffblocks.is_roff`) is skipped with the reason.
_MAN_SUFFIX = re.compile(r"[.](?:[1-9][a-z]{0,4}|man)(?:[.]in)?$", re.IGNORECASE)
_STEM_PARTS = re.compile(r"[-_.+]")


# A project's plain-text docs by their conventional names, as GNU's and older C projects write them: `README`,
# `INSTALL`, `NEWS`, `HACKING`, OpenSSH's `PROTOCOL.agent` and `README.platform`, PostgreSQL's `src/backend/**/README`
# (its design notes). The name is upper case, as the convention writes it (`protocol.c` and `install.rs` are code),
# with no extension, `.txt` or a word for what it covers (`README.VMS`, `PROTOCOL.certkeys`); read as text, in any
# folder, unless the note extensions are narrowed. Not a per-commit `ChangeLog` (git's log holds it), a `TODO` list,
# the authors, thanks or licence; a configure template (`README.in`), a file in a format of its own or one in another
# encoding (`README.euc_jp`) is no such doc.
PLAIN_DOC_NAMES = frozenset({"README", "INSTALL", "NEWS", "CHANGES", "HISTORY", "HACKING", "CONTRIBUTING", "PORTING",
                             "PROTOCOL", "FAQ", "BUGS", "NOTES", "USAGE", "BUILDING", "SECURITY", "UPGRADING"})
_PLAIN_DOC = re.compile(r"([A-Z]+)(?:[.]([A-Za-z][A-Za-z0-9_-]{0,19}))?")
_NOT_PLAIN_SUFFIXES = frozenset({
    "in", "html", "htm", "xml", "json", "yml", "yaml", "toml", "cfg", "ini", "conf", "sh", "bat", "cmd", "ps1", "py",
    "pl", "rb", "js", "ts", "c", "h", "cc", "cpp", "go", "rs", "java", "sample", "template", "tmpl", "j2", "png", "jpg",
    "gif", "svg", "ico", "gz", "zip", "tar", "bz2", "xz", "orig", "rej", "bak", "swp", "old", "mk", "am", "ac"})


def is_plain_doc(name: str) -> bool:
    """True when a file name (or path) names a plain-text doc by convention (`PLAIN_DOC_NAMES`): `README`,
    `INSTALL.txt`, `PROTOCOL.agent`; not `README.md` (Markdown by its suffix), `README.in` or `protocol.c`."""
    m = _PLAIN_DOC.fullmatch(name.rsplit("/", 1)[-1])
    if m is None or m.group(1) not in PLAIN_DOC_NAMES:
        return False
    suffix = (m.group(2) or "").lower()
    if not suffix or suffix == "txt":
        return True
    known = f".{suffix}" in SUFFIX_KINDS or f".{suffix}" in BOOK_PAGES  # a format of its own: `README.Rmd`
    return not known and suffix not in _NOT_PLAIN_SUFFIXES and not _names_encoding(suffix)


def _names_encoding(suffix: str) -> bool:
    """True when a suffix names a text encoding other than UTF-8 (`README.euc_jp`, `README.sjis`): the file is not
    UTF-8, and read as UTF-8 it would be noise."""
    try:
        return codecs.lookup(suffix).name != "utf-8"
    except LookupError:
        return False


def is_man_page(name: str) -> bool:
    """True when a file name (or path) names a manual page: `ssh.1`, `sshd_config.5`, `x.3p`, `tool.man`,
    `ip-route.8.in`, `tc-u32.8`."""
    base = name.rsplit("/", 1)[-1]
    suffix = _MAN_SUFFIX.search(base)
    if suffix is None or suffix.start() == 0:
        return False
    return any(c.isalpha() for c in _STEM_PARTS.split(base[: suffix.start()])[-1])


# A `doc/` folder is Vim's help when the folder holding it is a runtime folder: a plugin's root, Vim's or Neovim's
# `runtime/` (`:help runtimepath`). Vim reads `doc/*.txt` there as help files, and nothing deeper.
VIM_HELP_DIR = "doc"
VIM_RUNTIME_DIRS = ("plugin", "autoload", "lua", "ftplugin", "syntax", "indent", "ftdetect", "colors", "compiler",
                    "after")


@dataclass(frozen=True)
class Structure:
    """A note's block structure, and the autodoc directives of a reStructuredText page. `text` is the note's
    lines as a reader of the built page reads them, when the reader writes some out (reStructuredText
    substitutions, `rstsubst`): as many lines as given, each at its place; None when they are the lines given."""

    blocks: mdblocks.Blocks
    autodoc: tuple[AutodocRef, ...] = ()
    text: list[str] | None = None


# A Markdown page's mkdocstrings directives (`::: griffe.GriffeLoader`) show docstrings, as Sphinx's autodoc
# directives do (`notes/mkdocsdirectives.py`). Measured (docs/benchmarks.md): MKDOCSTRINGS_DIRECTIVES.
MKDOCSTRINGS_DIRECTIVES = False


def kind_of(name: str, *, sphinx_source: bool = False, vim_help: bool = False) -> str:
    """The format of a note named `name` (a path or a file name); `sphinx_source` says it lies in a
    folder with a Sphinx `conf.py` at or above it (inside the notes folder), `vim_help` in a Vim runtime
    folder's `doc/`."""
    dot = name.rfind(".")
    suffix = name[dot:].lower() if dot >= 0 and "/" not in name[dot:] else ""
    if suffix not in SUFFIX_KINDS and is_man_page(name):
        return ROFF
    if suffix not in SUFFIX_KINDS and is_plain_doc(name):
        return TEXT
    if suffix == SPHINX_TEXT_SUFFIX:
        return VIMHELP if vim_help else RST if sphinx_source else TEXT
    return SUFFIX_KINDS.get(suffix, MARKDOWN)


KIND_NAMES = {MARKDOWN: "Markdown", RST: "reStructuredText", ASCIIDOC: "AsciiDoc", TEXT: "text", PDF: "PDF",
              VIMHELP: "Vim help", NOTEBOOK: "Jupyter notebook", RD: "R documentation", ROFF: "manual page",
              ORG: "Org", POD: "POD", TEXINFO: "Texinfo", RDOC: "RDoc",
              DOCBOOK: "DocBook"}


def count_kinds(paths: list[str]) -> dict[str, int]:
    """Notes per format, by name ("Markdown", "reStructuredText", ...; ".txt" for text files, which are
    reStructuredText in a Sphinx source folder, Vim help in a Vim help folder and plain elsewhere), most first."""
    counts: dict[str, int] = {}
    for path in paths:
        kind = ".txt" if path.lower().endswith(SPHINX_TEXT_SUFFIX) else KIND_NAMES[kind_of(path)]
        counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def describe_kinds(counts: dict[str, int]) -> str:
    """`count_kinds` as a phrase: "Markdown 12, reStructuredText 80"."""
    return ", ".join(f"{kind} {n:,}" for kind, n in counts.items()) or "none"


# The readers that write the lines a reader of the page reads (its markup is no text).
_SHOWN_READERS: dict[str, Callable[[list[str]], mdblocks.ShownPage]] = {
    RD: rdblocks.parse_rd, ROFF: roffblocks.parse_roff, POD: podblocks.parse_pod, TEXINFO: texiblocks.parse_texinfo,
    RDOC: rdocblocks.parse_rdoc, DOCBOOK: docbookblocks.parse_docbook}


def structure(kind: str, lines: list[str], changelog_sections: Sequence[str] = ()) -> Structure:
    """The block structure of a note of `kind` given as `mdblocks.split_lines` lines (`changelog_sections`: conf.py's,
    for a reStructuredText changelog, `notes/sphinxchangelog.py`)."""
    if kind == RST:
        rst = rstblocks.parse_rst(lines, changelog_sections)
        defined = rstsubst.definitions(lines)
        text = None
        if defined:
            markup = [i for start, end in rst.blocks.verbatim for i in range(start, end)]
            text = rstsubst.expand(lines, defined, (*markup, *rst.blocks.inert, *rst.blocks.targets))
        return Structure(rst.blocks, rst.autodoc, text)
    if kind == ASCIIDOC:
        return Structure(adocblocks.parse_adoc(lines))
    if kind == TEXT:
        return Structure(textblocks.parse_text(lines))
    if kind == PDF:
        return Structure(pdftext.pdf_blocks(lines))
    if kind == VIMHELP:
        return Structure(vimhelp.parse_vimhelp(lines))
    if (shown_reader := _SHOWN_READERS.get(kind)) is not None:
        page = shown_reader(lines)
        return Structure(page.blocks, text=page.text)
    if kind == ORG:
        return Structure(orgblocks.parse_org(lines))
    blocks = mdblocks.parse_blocks(lines)
    refs = mystdirectives.myst_directives(lines, blocks.verbatim)
    books = (*mdbookincludes.mdbook_includes(lines), *mkdocssnippets.snippets(lines, blocks))
    if books:  # every kind, in the page's order
        refs = tuple(sorted((*refs, *books), key=lambda ref: ref.line))
    if MKDOCSTRINGS_DIRECTIVES:
        mkdocs = mkdocsdirectives.mkdocstrings_directives(lines, blocks.verbatim)
        if mkdocs:  # the two kinds, in the page's order
            refs = tuple(sorted((*refs, *mkdocs), key=lambda ref: ref.line))
    return Structure(blocks, refs)
