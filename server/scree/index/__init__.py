"""Stage 2, the index: bring the SQLite index in line with the notes folder (chunks, keyword rows,
vectors, the repo's vocabulary) and say where it stands. The SQL itself is in `scree.db`.

Modules: `store` (open an index, refuse another folder's, reset vectors for another embedder),
`sync` (plan, then stage one: text and keyword rows per file), `embedstage` (stage two: vectors),
`vectors` (in-memory KNN over the stored vectors), `vocab` (names from code and manifests, pure),
`vocabsync` (collect them on a full sync), `progress` (sync progress on stderr), `indexstatus` (the
status record and the signal a caller waits on), `space` (when the file gives space back).

Imports nothing: importing one module never loads the others.
"""
