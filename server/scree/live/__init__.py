"""Stage 4, the live index behind `scree serve` and `scree watch`: one writer per index that syncs
and watches, every other process reads.

Modules: `live` (`LiveIndex`: roles, the worker, status), `livestage` (the writer's background
stage two), `modelmemory` (when the model is dropped), `jobqueue` (the worker's coalesced jobs), `watcher` (policy-aware debounced inotify),
`lock` (one writer per index), `health` (when a writer must stop), `readindex` (the read
connection), `writeindex` (the writer's connection, checked and repaired).

Imports nothing: importing one module never loads the others.
"""
