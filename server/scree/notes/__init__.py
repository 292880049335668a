"""Stage 1, the notes: which files are notes, walking the folder, reading one note, and the pure
Markdown work on its text. Nothing here touches the index or the model.

Modules: `policy` (which paths are notes), `ignorerules` (gitignore decided as git does), `walk`
(the folder, pruned), `reader` (one note, read safely and hashed), `mdblocks` (block structure as a
renderer sees it), `chunker` (chunks with heading trails and line ranges), `utf8` (byte sizes and
cuts), `embedview` (what the model reads of a chunk), `sections` (read_doc's section lookup),
`sectiontext` (what a section's trail and text say; import-free, the hooks use it), `wikilinks`,
`language` (a note's language and the page it translates).

Imports nothing: the hooks import `scree.notes.sectiontext`, which runs this file first.
"""
