"""Stage 1, the notes: which files are notes, walking the folder, reading one note, and the pure
work on its text, whatever its format. Nothing here touches the index or the model.

Modules: `policy` (which paths are notes, with `docbookhead` reading an XML or SGML file's head), `ignorerules` (gitignore decided as git does), `gitrepo` (the enclosing repository: its ignore files above the folder, its git directory), `gitindex` (the files git
tracks, which it never ignores), `walk`
(the folder, pruned), `reader` (one note, read safely and hashed), `formats` (which format a note is in,
and its reader), the readers `mdblocks` (Markdown's block structure as a renderer sees it), `rstblocks`
(reStructuredText's, with `rstsubst` writing out its `replace::` substitutions and `sphinxchangelog` reading a
changelog directive's releases), `adocblocks` (AsciiDoc's), `vimhelp` (a Vim plugin's help files), `rdblocks` (an R package's help pages), `roffblocks` (manual pages), `orgblocks` (Org files), `podblocks` (Perl's POD), `texiblocks` (Texinfo manuals), `rdocblocks` (Ruby's RDoc pages), `docbookblocks` (DocBook pages) and `textblocks` (plain text's titles),
`mystdirectives` (a MyST page's directive fences whose content lives elsewhere: autodoc, literalinclude),
`mdbookincludes` (mdBook's `{{#include file.rs:2:9}}` lines), `mkdocssnippets` (PyMdown's `--8<-- "file.py"` lines),
`mkdocsdirectives` (a MkDocs page's mkdocstrings `::: pkg.Name` lines, read as autodoc directives when on),
`chunker` (chunks with heading trails and line ranges),
`autodoc` (the docstrings Sphinx autodoc directives show, read with ast), `autodocdefaults` (conf.py's `autodoc_default_options`; off), `modapi` (what a sphinx-automodapi line stands for: its module's API), `pymodule` (a module's top-level statements, relative imports and `__all__`, for autodoc), `autodocpage` (those docstrings as the page's sections, for search and read_doc), `docstringrst` (what a docstring's reStructuredText makes: its object descriptions as entries, a module docstring's title), `includes` (the lines a
`literalinclude`, or an `include` of a file that is no note, shows from another file), `argparsepage` (the options a
sphinx-argparse directive renders, read from the parser's code; off), `modules` (a Python module of the
folder by dotted name, for autodoc), `pysource` (Python source parsed whatever Python reads it), `pdftext` (a PDF's text, pages and outline), `notebook` (a Jupyter notebook's cells as Markdown), `utf8` (byte sizes and
cuts), `embedview` (what the model reads of a chunk), `sections` (read_doc's section lookup),
`sectiontext` (what a section's trail and text say; import-free, the hooks use it), `wikilinks`,
`language` (a note's language and the page it translates), `secondary` (the notes searched only where the others leave places: a Docusaurus site's
copies for past releases, test folders' notes).

Imports nothing: the hooks import `scree.notes.sectiontext`, which runs this file first.
"""
