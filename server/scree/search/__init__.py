"""Stage 3, search: answer a query from the index (semantic, keyword, hybrid) and rank the hits.

Modules: `search` (the query, both halves, fusion, the policy re-check of every hit), `keyword` (the BM25
half: BM25 with the query's names spelled verbatim first), `names` (the verbatim-name tier: which chunks spell a
query's names, a lookup's defining section first), `keyspelling` (a dotted config key spelled by a TOML table or by
YAML nesting), `questionentries` (a question's named entry
kept among its first three), `links` (a
lookup's linked entry: where the notes' links named by the name point), `releases` (the release history's
section that first had a name, for a question asking which release added it or a lookup only the histories
spell), `siblings` (a name only the
release histories spell, looked up by the spelling the docs use: a flag as its key), `entryforms` (a name
with no entry of its own, answered by its entry under another form: a flattened key's category, a flag's
inverse), `ahead` (a long query's vector computed before the index is taken), `vocabsearch`
(which query words are the repo's names; `search_with_names` is what the CLI and server call),
`route` (the mode for `auto`), `ftsquery` (safe FTS5 MATCH strings), `fusion` (DBSF, RRF),
`ranking` (pure ranking steps around fusion), `languages` (the query's language first, copies of one page
in other languages folded into one result), `secondarypass` (the notes read only where the others leave places,
searched after them: Docusaurus' versioned copies, test folders' notes, agents' instructions), `expansion` (how the
caller's guess at the answer, `expected_answer`, widens a question's search).

Imports nothing: importing one module never loads the others.
"""
