"""The plugin's self-checks: `scree doctor` and `scree usage`.

Modules: `checks` (the `Check` record every check returns, and the helpers they share; a leaf),
`doctor` (the checks of Python, SQLite, config, embedder, index, writer, watcher, uv, MCP, and
`run_checks`), `indexreport` (what `scree status` and the index check both say: stage two, languages,
the damage fix), `api` (the API embedder's checks), `hooks` (the hooks' check), `vocabreport` (the
vocabulary check), `installed` (which installed copy Claude Code runs), `engine` (the shared engine: running, what it holds, why its last start
failed), `usage_report` (`scree usage`).

Imports nothing: importing one module never loads the others.
"""
