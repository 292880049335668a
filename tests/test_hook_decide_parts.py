"""The pure parts of the grep hint's decision: the search's aim, code-shaped patterns, the verbatim
literal of a pattern, the suggested query, and the parser's newer shapes (ugrep, ug, bfs, here-docs)."""

from __future__ import annotations

import sqlite3

import pytest

from scree.hookkit.aim import aim_of
from scree.hookkit.codeshape import code_reason
from scree.hookkit.decide import literal_of, literals_of, suggested_query
from scree.hookkit.grepparse import grep_tool_call, parse_command
from scree.hookkit.hint import choose_call
from scree.hookkit.patterns import pattern_words

FOLDER = "/repo"
FILES = ["README.md", "docs/adr/0001-retry.md", "docs/guide/setup.md", "notes/meeting.md", "src/pkg/notes.md"]


def _files_db() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("create table files (path text, sha256 text)")
    conn.executemany("insert into files values (?, 'x')", [(f,) for f in FILES])
    return conn


def covered(command: str, cwd: str = FOLDER) -> list[str]:
    """The indexed files the search's aim covers, by the aim's own SQL."""
    call = choose_call(parse_command(command))
    assert call is not None, command
    aim = aim_of(call, FOLDER, cwd, "/home/me")
    if aim.empty:
        return []
    cond, params = aim.sql("path")
    return sorted(r[0] for r in _files_db().execute(f"select path from files where {cond}", params))


@pytest.mark.parametrize("command,files", [
    ("grep -rn x .", FILES),
    ("grep -rn x", FILES),
    ("rg x docs/", ["docs/adr/0001-retry.md", "docs/guide/setup.md"]),
    ("rg x docs/adr/0001-retry.md", ["docs/adr/0001-retry.md"]),
    ("rg x src/", ["src/pkg/notes.md"]),
    ("rg -tpy x", []),
    ("rg -t md x src", ["src/pkg/notes.md"]),
    ("rg -T md x", []),
    ("grep -rn --include='*.go' x .", []),
    ("grep -rn --include='*.{md,txt}' x docs", ["docs/adr/0001-retry.md", "docs/guide/setup.md"]),
    ("grep -rn --exclude-dir=docs x .", ["README.md", "notes/meeting.md", "src/pkg/notes.md"]),
    ("rg -g '!*.md' x", []),
    ("rg -g 'docs/**' x", ["docs/adr/0001-retry.md", "docs/guide/setup.md"]),
    ("ugrep -r -O go,py x", []),
    ("ugrep -r -tmarkdown x notes", ["notes/meeting.md"]),
    ("find . -name '*.go' -exec grep -l x {} \\;", []),
    ("bfs docs -name '*.md' -exec grep -l x {} +", ["docs/adr/0001-retry.md", "docs/guide/setup.md"]),
    ("find docs -name '*.md' | xargs grep -l x", ["docs/adr/0001-retry.md", "docs/guide/setup.md"]),
    ("cat src/main.py | grep x", []),
    ("cat README.md | grep x", ["README.md"]),
    ("cd docs && grep -rn x .", ["docs/adr/0001-retry.md", "docs/guide/setup.md"]),
    ("cd /elsewhere && grep -rn x .", []),
    ("cd / && grep -rn x .", FILES),
    # A shell glob operand: SQLite's `*` also crosses "/", so this covers more than the shell would
    # (never less): lenient, so the aim check never silences a search that does read notes.
    ("grep -rn x docs/*.md", ["docs/adr/0001-retry.md", "docs/guide/setup.md"]),
    ("grep -rn x src/*.py", []),
    ("grep -rn x docs/*/*.md", ["docs/adr/0001-retry.md", "docs/guide/setup.md"]),
    ("grep -rn x ~/other", []),
    ("grep -rn x \"$DIR\"", []),
    ("grep -rn x \"$DIR\" notes", ["notes/meeting.md"]),
    ("grep -rn x $(git ls-files docs)", ["docs/adr/0001-retry.md", "docs/guide/setup.md"]),
    ("grep -rn x $(cat list.txt)", []),
    ("cd \"$TMP\" && grep -rn x .", []),
])
def test_the_aim_covers_exactly_the_notes_the_search_reads(command: str, files: list[str]) -> None:
    assert covered(command) == sorted(files)


def test_relative_paths_follow_the_payload_cwd() -> None:
    assert covered("grep -rn x .", cwd="/repo/docs/adr") == ["docs/adr/0001-retry.md"]
    assert covered("grep -rn x ../../notes", cwd="/repo/docs/adr") == ["notes/meeting.md"]


def test_an_unknown_operand_is_unknown_not_everything() -> None:
    (call,) = parse_command('grep -rn x "$NOTES_DIR"')
    aim = aim_of(call, FOLDER, FOLDER)
    assert aim.empty and aim.unknown


@pytest.mark.parametrize("pattern,syntax,reason", [
    ("import os", "bre", "declaration"), ("^\\s*class ", "ere", "declaration"), ("def backoff", "bre", "declaration"),
    ("func main", "ere", "declaration"), ("fn\\s+main", "ere", "declaration"), ("type Config struct", "bre", "declaration"),
    ("from .retry import", "ere", "declaration"), ("pub fn new", "ere", "declaration"),
    ("__init__", "bre", "dunder"), ("self.__dict__", "bre", "dunder"),
    ("foo\\(", "ere", "code-syntax"), ("load_config(", "bre", "code-syntax"), ("=> {", "ere", "code-syntax"),
    ("std::env", "ere", "code-syntax"), ("x \\{", "ere", "code-syntax"),
    ("TODO", "bre", "markers"), ("TODO|FIXME|XXX", "ere", "markers"),
    ("token bucket", "bre", None), ("retention_days", "bre", None), ("--locked", "bre", None),
    ("how do we import data", "bre", None), ("classes of service", "bre", None), ("type-add", "ere", None),
    ("yank(ed)? version", "ere", None), ("TODO list for the release", "bre", None), ("__", "bre", None),
])
def test_code_shaped_patterns(pattern: str, syntax: str, reason: str | None) -> None:
    assert code_reason([pattern], syntax, pattern_words([pattern], syntax)) == reason


@pytest.mark.parametrize("pattern,syntax,literal", [
    ("retention_days", "bre", "retention_days"), ("\\bretention_days\\b", "ere", "retention_days"),
    ("^token bucket$", "ere", "token bucket"), ("os.path", "ere", "os.path"), ("a.b(c", "fixed", "a.b(c"),
    ("--locked", "bre", "--locked"), ("rotate.*keys", "ere", None), ("[Hh]ooks", "bre", None),
    ("token\\s+bucket", "ere", None), ("a|b|c", "ere", None), ("x+y", "bre", "x+y"), ("x+y", "ere", None),
    ("id", "bre", None), ("(?i)hosts\\.yml", "ere", "hosts.yml"),
])
def test_the_verbatim_literal_of_a_pattern(pattern: str, syntax: str, literal: str | None) -> None:
    assert literal_of(pattern, syntax) == literal


@pytest.mark.parametrize("pattern,syntax,literals", [
    ("X-Client-Key|Retry-After", "ere", ["X-Client-Key", "Retry-After"]),
    ("X-Client-Key\\|Retry-After", "bre", ["X-Client-Key", "Retry-After"]),
    ("a|b", "ere", []),  # each too short to be worth a verbatim tier
    ("a|b", "bre", ["a|b"]),  # in a basic regex | is a character
    ("token bucket|leaky", "bre", ["token bucket|leaky"]),  # in a basic regex | is a character
    ("(load|save)_config", "ere", []), ("rotate.*keys|bastion", "ere", []), ("bastion", "ere", ["bastion"]),
])
def test_an_alternation_of_literals_gives_each(pattern: str, syntax: str, literals: list[str]) -> None:
    assert literals_of(pattern, syntax) == literals


@pytest.mark.parametrize("command,query", [
    ("rg -n -- '--no-verify' docs", "--no-verify"),
    ("rg -n 'rotate.*keys'", "rotate keys"),
    ("grep -rnE 'dry-run|--offline' docs", "dry-run --offline"),
    ("grep -rnE 'dry-run|x' docs", "dry-run x"),
    ("grep -ri 'why do we retry failed requests' .", "why do we retry failed requests"),
])
def test_the_suggested_query_keeps_the_pattern_as_written(command: str, query: str) -> None:
    (call,) = parse_command(command)
    words = pattern_words(call.patterns, call.syntax)
    literals = [x for x in (literal_of(p, call.syntax) for p in call.patterns) if x]
    assert suggested_query(call, literals, words) == query


@pytest.mark.parametrize("command,tool,patterns,extra", [
    ("ugrep -rn --bool 'token bucket|leaky' docs", "ugrep", ("token bucket|leaky",), {"paths": ("docs",)}),
    ("ug -Q -% x", "ug", ("x",), {}),
    ("ugrep -r -t python,go x", "ugrep", ("x",), {"types": ("python", "go")}),
    ("ugrep -r --and=alpha -e beta .", "ugrep", ("alpha", "beta"), {}),
    ("ugrep -r -N skip want .", "ugrep", ("want",), {}),
    ("ugrep -r -g '!*.md' x", "ugrep", ("x",), {"excludes": ("*.md",)}),
    ("bfs . -type f -name '*.md' -exec ugrep -l x {} +", "ugrep", ("x",), {"globs": ("*.md",), "via_xargs": True}),
])
def test_ugrep_ug_and_bfs_are_parsed(command: str, tool: str, patterns: tuple, extra: dict) -> None:
    (call,) = parse_command(command)
    assert call.tool == tool and call.patterns == patterns
    for k, v in extra.items():
        assert getattr(call, k) == v, k


@pytest.mark.parametrize("command", [
    "cat <<'EOF' > x.sh\ngrep -rn x .\nEOF",
    "python3 - <<EOF\nimport os\nos.system('rg x')\nEOF",
    "cat <<-END\n\tgrep x .\n\tEND",
    "echo 'grep -rn x .'",
    "printf '%s\\n' 'rg -n x docs'",
    "ugrep --help", "ugrep -tlist", "bfs docs -type f",
])
def test_text_that_merely_holds_a_grep_is_not_a_search(command: str) -> None:
    assert choose_call(parse_command(command)) is None


def test_commands_after_a_here_doc_are_still_read() -> None:
    (call,) = parse_command("cat <<EOF > x\ngrep -rn a .\nEOF\nrg -n b docs")
    assert call.tool == "rg" and call.patterns == ("b",)


@pytest.mark.parametrize("command", ["history | grep rg", "ps aux | grep x", "env | grep SCREE",
                                     "git log --oneline | grep fix", "git log --grep retry"])
def test_filters_of_other_output_are_not_searches(command: str) -> None:
    assert choose_call(parse_command(command)) is None


def test_the_grep_tool_form_still_parses() -> None:
    call = grep_tool_call({"pattern": "x", "path": "docs", "glob": "!*.py", "type": "md", "-i": True})
    assert call is not None and call.paths == ("docs",) and call.excludes == ("*.py",) and call.types == ("md",)


def _index_with_chunks(tmp_path, rows: list[tuple[str, str, str, int, int]]):
    """An index file holding `rows` (path, heading, text, start, end) as chunks, read through NotesIndex."""
    from scree.db import schema
    from scree.hookkit.hint import open_notes

    db = tmp_path / "index.db"
    conn = sqlite3.connect(db, isolation_level=None)
    for stmt in schema.MIGRATIONS[1]:
        conn.execute(stmt)
    ids: dict[str, int] = {}
    for seq, (path, heading, text, start, end) in enumerate(rows):
        if path not in ids:
            ids[path] = conn.execute("insert into files(path, sha256, title) values (?, 'x', ?)", (path, path)).lastrowid
        cid = conn.execute("insert into chunks(file_id, seq, heading, text, start_line, end_line, windows) "
                           "values (?,?,?,?,?,?,1)", (ids[path], seq, heading, text, start, end)).lastrowid
        conn.execute("insert into chunks_fts(rowid, heading, text) values (?,?,?)", (cid, heading, text))
    conn.close()
    return open_notes(str(db))


def test_chunks_of_one_section_become_one_line_with_one_range(tmp_path) -> None:
    notes = _index_with_chunks(tmp_path, [
        ("docs/a.md", "Guide > Retries", "retries use exponential backoff, part one", 10, 20),
        ("docs/a.md", "Guide > Retries", "more on exponential backoff, part two", 21, 35),
        ("docs/b.md", "Other > Backoff", "exponential backoff elsewhere", 3, 9),
    ])
    try:
        sections = notes.rank([('"exponential backoff"', True)], ["exponential backoff"], None)
    finally:
        notes.close()
    assert sorted((s.path, s.start_line, s.end_line) for s in sections) == [("docs/a.md", 10, 35), ("docs/b.md", 3, 9)]
    assert all(s.literal for s in sections)


def test_verbatim_sections_rank_before_those_holding_only_the_words(tmp_path) -> None:
    notes = _index_with_chunks(tmp_path, [
        ("docs/words.md", "Keys", "the keys are rotated by the token service; a bucket of keys keys keys", 1, 5),
        ("docs/exact.md", "Limits", "each client has a token bucket", 1, 5),
    ])
    try:
        (call,) = parse_command("rg -n 'token bucket'")
        from scree.hookkit.decide import decide

        d = decide(call, "/repo", "/repo", notes)
    finally:
        notes.close()
    assert d.reason == "mention" and [s.path for s in d.sections][0] == "docs/exact.md"
    assert d.sections[0].literal and not any(s.literal for s in d.sections[1:])


def test_the_hint_lists_a_versioned_copy_only_where_the_current_docs_leave_a_place(tmp_path) -> None:
    # Docusaurus' copies of the docs for past releases, ranked first by BM25 (shorter), come after the current docs,
    # and a section copied in several versions is listed once
    copy = "website/versioned_docs/version-{}/CLI.md"
    notes = _index_with_chunks(tmp_path, [
        (copy.format("29.7"), "Reference > --watch", "--watch reruns", 1, 3),
        (copy.format("30.4"), "Reference > --watch", "--watch reruns", 1, 3),
        ("docs/CLI.md", "Reference > --watch", "--watch reruns the tests related to changed files since the last commit",
         1, 3),
        (copy.format("29.7"), "Reference > --watchman", "--watch uses watchman", 5, 6),
        (copy.format("30.4"), "Reference > --watchman", "--watch uses watchman", 5, 6),
    ])
    try:
        sections = notes.rank([('"--watch"', True)], ["--watch"], None)
    finally:
        notes.close()
    assert [(s.path, s.trail) for s in sections][:2] == [("docs/CLI.md", "Reference > --watch"),
                                                          (copy.format("29.7"), "Reference > --watchman")]
    assert len(sections) == 2
