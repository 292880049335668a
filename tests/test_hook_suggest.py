"""The PreToolUse hook, run as Claude Code runs it (hooks.json's command line, a recorded payload on
stdin) against a real index of a throwaway git repo: when it suggests, what it names, when it stays quiet."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "hooks"))

from hookrun import REPO_ROOT, Project, context_of, make_project, payload, python_command  # noqa: E402

from scree.db.schema import FTS_WEIGHTS  # noqa: E402
from scree.hookkit import SEARCH_TOOL, hint, patterns  # noqa: E402
from scree.hookkit.grepparse import parse_command  # noqa: E402

ADR = "docs/adr/0003-log-retention.md"
RUNBOOK = "docs/ops/runbook.md"
MEETING = "notes/2024-05-meeting.md"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return make_project(tmp_path_factory.mktemp("suggest"))


_session = iter(range(10**6))


def bash(project: Project, command: str, session: str | None = None, **env: str | None):
    data = payload("pretool_bash", tool_input={"command": command, "description": "search"},
                   session_id=session or f"case-{next(_session)}", cwd=str(project.folder))
    return project.run("suggest.py", data, **env)


def grep_tool(project: Project, tool_input: dict, session: str | None = None):
    data = payload("pretool_grep", tool_input=tool_input, session_id=session or f"case-{next(_session)}",
                   cwd=str(project.folder))
    return project.run("suggest.py", data)


def hint_of(proc: subprocess.CompletedProcess) -> str | None:
    assert proc.returncode == 0, proc.stderr
    return context_of(proc, "PreToolUse")


# (command, sections the hint must name; [] = a hint without sections)
SUGGEST = [
    ("grep -rn retention_days .", [ADR]),
    ("rg -n 'rotate.*keys' docs/", [RUNBOOK]),
    ("grep -rniE 'token bucket|leaky bucket' .", [MEETING]),
    ("git grep -n PURGE_OLD_RECORDS", [ADR]),
    ("grep -rn 'rate limiting' --include=*.md", [MEETING]),
    ("find . -name '*.md' | xargs grep -l 'token bucket'", [MEETING]),
    ("ag -i 'signing keys'", [RUNBOOK]),
    ("ack --markdown pg_dump", [RUNBOOK]),
    ("sudo env LC_ALL=C grep -rF 'retention_days' .", [ADR]),
    ("echo $(grep -c retention_days docs/adr/*.md)", [ADR]),
    ("ugrep -rn retention_days", [ADR]),
    ("ug -% 'token bucket' notes", [MEETING]),
    ("bfs . -name '*.md' -exec grep -l 'signing keys' {} +", [RUNBOOK]),
    ("grep -rn '\\bPURGE_OLD_RECORDS\\b' .", [ADR]),
    ("rg -w '[Bb]astion' -g '*.md'", [RUNBOOK]),
    ("rg -e 'cold storage' -e 'zzz_never' docs/", [ADR]),
    ("bash -c \"cd docs && grep -rn 'token bucket' .\"", [MEETING]),
    ("grep -rn 'pre-commit hooks' . | head -3", ["README.md"]),
    ("grep -rn kubernetes docs/", []),
    ("rg -t md zzzunknownword", []),
    ("grep -n xyzzy README.md", []),
    ("cd notes && rg -n qwerty .", []),
    ("grep -ri 'why did we choose this database' .", []),
]

QUIET = [
    "sudo env LC_ALL=C grep -rF 'retention_days' src/",  # aimed at code: no note there
    "echo $(grep -c retention_days config/logging.yaml)",
    "rg -e 'cold storage' -e 'zzz_never' src/",
    "cd /usr/share && grep -rn 'rate limiting' --include=*.md",  # outside the project
    "rg -tpy retention_days",
    "ugrep -rn --include=*.rs retention_days",
    "find . -name '*.rs' -exec grep -l retention_days {} \\;",
    "cat src/main.rs | grep retention_days",
    "grep -rn retention_days \"$LOGDIR\"",
    "rg -n '^\\s*class ' .",
    "grep -rn 'def retention_days' .",
    "grep -rn __init__ .",
    "rg 'TODO|FIXME' .",
    "cat <<'EOF' > find.sh\ngrep -rn retention_days .\nEOF",
    "echo 'grep -rn retention_days .'",
    "git log --grep retention_days",
    "history | grep retention_days",
    "env | grep SCREE",
    "rg -n 'fn\\s+main' src/",
    "ls -la",
    "ps aux | grep python",
    "git log --oneline | grep fix",
    "grep -rn qqqzzz src/",
    "rg --files | head",
    "command -v grep",
    "grep -c x main.py",
    "grep -f patterns.txt src/",
    "rg -g '!*.md' zzzq",
    "grep -rn qqzz /etc",
    "grep -rn 'println' src/",
    "make test && git status",
]


@pytest.mark.parametrize("command,sections", SUGGEST, ids=[c for c, _ in SUGGEST])
def test_suggests_for_searches_the_notes_can_answer(project: Project, command: str, sections: list[str]) -> None:
    text = hint_of(bash(project, command))
    assert text is not None, f"no hint for {command!r}"
    assert SEARCH_TOOL in text and len(text) <= hint.MAX_HINT_CHARS
    for path in sections:
        assert path in text
    if sections:
        assert f"{sections[0]}:" in text  # named as path:start-end
    else:
        assert ".md:" not in text


@pytest.mark.parametrize("command", QUIET)
def test_quiet_for_searches_the_notes_cannot_help_with(project: Project, command: str) -> None:
    proc = bash(project, command)
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""


def test_hint_names_the_section_trail_and_lines(project: Project) -> None:
    text = hint_of(bash(project, "grep -rn retention_days ."))
    line = next(x for x in text.splitlines() if ADR in x)
    assert line.strip() == f"{project.folder}/{ADR}:7-10  ADR 3: Log retention > Decision"
    assert text.startswith('scree: the indexed notes mention "retention_days":')
    assert "Read those lines first" in text


@pytest.mark.parametrize("tool_input,section", [
    ({"pattern": "retention_days", "path": "docs", "output_mode": "files_with_matches"}, ADR),
    ({"pattern": "qqq_nothing", "glob": "*.md"}, None),
    ({"pattern": "token\\s+bucket", "-i": True}, MEETING),
])
def test_grep_tool_calls_get_hints_too(project: Project, tool_input: dict, section: str | None) -> None:
    text = hint_of(grep_tool(project, tool_input))
    assert text is not None and SEARCH_TOOL in text
    assert section is None or section in text


def test_grep_tool_over_source_without_matches_is_quiet(project: Project) -> None:
    assert hint_of(grep_tool(project, {"pattern": "fn\\s+main", "path": "src"})) is None


def test_other_tools_are_ignored(project: Project) -> None:
    data = payload("pretool_bash", tool_name="Read", tool_input={"file_path": "README.md"})
    assert hint_of(project.run("suggest.py", data)) is None


def test_one_hint_per_pattern_per_session(project: Project) -> None:
    assert hint_of(bash(project, "grep -rn retention_days .", session="once")) is not None
    assert hint_of(bash(project, "grep -rn retention_days .", session="once")) is None
    assert hint_of(bash(project, "rg -i 'RETENTION_DAYS' docs", session="once")) is None  # same words
    assert hint_of(bash(project, "rg -n 'rotate.*keys' docs/", session="once")) is not None
    assert hint_of(bash(project, "grep -rn retention_days .", session="another")) is not None


def test_hints_stop_at_the_session_cap(project: Project) -> None:
    commands = ["grep -rn retention_days .", "rg 'signing keys'", "grep -rn 'token bucket' .", "rg pg_dump",
                "git grep PURGE_OLD_RECORDS", "grep -rn 'cold storage' .", "rg bastion"]
    shown = [hint_of(bash(project, c, session="capped")) is not None for c in commands]
    assert shown == [True] * 5 + [False] * 2


def test_scree_hooks_off_silences_it(project: Project) -> None:
    proc = bash(project, "grep -rn retention_days .", SCREE_HOOKS="off")
    assert proc.returncode == 0 and proc.stdout == b""


def test_no_index_means_no_hint(tmp_path: Path) -> None:
    bare = make_project(tmp_path, index=False)
    proc = bash(bare, "grep -rn retention_days docs/")
    assert proc.returncode == 0 and proc.stdout == b"" and not bare.hook_log.exists()


def test_an_empty_index_means_no_hint(tmp_path: Path) -> None:
    empty = make_project(tmp_path, notes={})
    assert hint_of(bash(empty, "grep -rn anything docs/")) is None


def test_a_garbage_index_file_is_logged_and_quiet(tmp_path: Path) -> None:
    broken = make_project(tmp_path, index=False)
    broken.db.parent.mkdir(parents=True)
    broken.db.write_bytes(b"this is not a database" * 100)
    proc = bash(broken, "grep -rn retention_days docs/")
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
    log = broken.hook_log.read_text()
    assert "suggest" in log and "not a database" in log


def test_index_with_a_vec0_table_is_read_by_stdlib_sqlite(tmp_path: Path) -> None:
    with_vec = make_project(tmp_path, vec=True)
    conn = sqlite3.connect(with_vec.db)
    with pytest.raises(sqlite3.OperationalError, match="no such module: vec0"):
        conn.execute("select count(*) from chunks_vec").fetchone()
    conn.close()
    text = hint_of(bash(with_vec, "grep -rn retention_days ."))
    assert text is not None and ADR in text


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b"{\"tool_name\": 5}", b"\xff\xfe{"])
def test_invalid_input_exits_zero_silently(project: Project, stdin: bytes) -> None:
    proc = project.run("suggest.py", stdin)
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""


def test_a_bad_scree_setting_is_logged_and_quiet(tmp_path: Path) -> None:
    p = make_project(tmp_path)
    proc = bash(p, "grep -rn retention_days .", SCREE_MODE="fastest")
    assert proc.returncode == 0 and proc.stdout == b""
    assert "SCREE_MODE" in p.hook_log.read_text()


def test_hints_are_logged_as_usage_without_the_pattern(tmp_path: Path) -> None:
    p = make_project(tmp_path)
    hint_of(bash(p, "grep -rn retention_days .", session="logged"))
    hint_of(bash(p, "rg pg_dump", session="logged", SCREE_USAGE_TEXT="1"))
    hint_of(bash(p, "rg bastion", session="logged", SCREE_USAGE="off"))
    events = [json.loads(x) for x in p.usage_file.read_text().splitlines()]
    assert [e["event"] for e in events] == ["hint", "hint"]
    first, second = events
    assert first["session"] == "logged" and first["project"] == p.key and first["reason"] == "mention"
    assert first["results"] == 1 and first["call"] == "toolu_01ABC" and "text" not in first
    assert "retention_days" not in json.dumps(first)
    assert second["text"] == "pg_dump"


def test_the_index_location_is_cached_per_session(tmp_path: Path) -> None:
    p = make_project(tmp_path)
    bash(p, "grep -rn zzz_nothing src/", session="cache")
    state = json.loads((p.plugin_data / "state" / "cache.json").read_text())
    assert state["loc"]["db"] == str(p.db) and state["loc"]["key"] == p.key
    # A cached answer is only reused while its inputs are unchanged: another data dir, another index.
    moved = tmp_path / "elsewhere"
    proc = bash(p, "grep -rn retention_days .", session="cache", XDG_DATA_HOME=str(moved))
    assert proc.stdout == b""  # no index at the new location
    state = json.loads((p.plugin_data / "state" / "cache.json").read_text())
    assert state["loc"]["db"].startswith(str(moved))


@pytest.mark.parametrize("script", ["suggest.py", "log_usage.py", "session_start.py"])
def test_hooks_import_only_the_standard_library_and_scree_helpers(tmp_path: Path, script: str) -> None:
    p = make_project(tmp_path)
    name = {"suggest.py": "pretool_bash", "log_usage.py": "posttool_bash", "session_start.py": "session_start"}[script]
    data = payload(name, session_id="imports", cwd=str(p.folder))
    if script == "suggest.py":
        data["tool_input"] = {"command": "grep -rn retention_days ."}
    cmd = python_command(script)
    proc = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], input=json.dumps(data).encode(),
                          capture_output=True, env={**p.env, "SCREE_SYNC_COMMAND": json.dumps(["true"])}, timeout=20)
    assert proc.returncode == 0
    imported = {line.split("|")[-1].strip() for line in proc.stderr.decode().splitlines() if line.startswith("import time:")}
    assert "scree.hookkit.runtime" in imported  # the probe really saw the hook's imports
    heavy = {"numpy", "onnxruntime", "tokenizers", "mcp", "httpx", "sqlite_vec", "watchfiles", "pydantic", "yaml",
             "pathspec", "portalocker", "sqlean", "rich"}
    assert not {m.split(".")[0] for m in imported} & heavy
    scree_modules = {m for m in imported if m.startswith("scree")}
    # scree.notes and scree.search are the packages around sectiontext, secondary, ftsquery and route: their
    # __init__ files hold only a docstring (tests/test_layout.py checks it).
    allowed = {"scree", "scree.errors", "scree.config", "scree.settings_table", "scree.locate", "scree.search",
               "scree.search.ftsquery", "scree.search.route", "scree.pids", "scree.notes", "scree.notes.sectiontext",
               "scree.notes.secondary"}
    assert all(m in allowed or m.startswith("scree.hookkit") for m in scree_modules), scree_modules


def test_hooks_json_runs_the_scripts_through_the_launcher_in_exec_form() -> None:
    config = json.loads((REPO_ROOT / "hooks" / "hooks.json").read_text())
    assert set(config) == {"description", "hooks"}
    assert set(config["hooks"]) == {"PreToolUse", "PostToolUse", "SessionStart"}
    for groups in config["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                assert handler["type"] == "command" and handler["command"] == "sh"
                assert isinstance(handler["timeout"], (int, float))
                launcher, script = handler["args"]
                assert launcher == "${CLAUDE_PLUGIN_ROOT}/hooks/launch.sh"
                assert (REPO_ROOT / "hooks" / script).is_file()
    assert config["hooks"]["PreToolUse"][0]["matcher"] == "Bash|Grep"
    assert config["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"


# ---------------------------------------------------------------- the pure parts


def test_fts_weights_match_the_schema() -> None:
    assert hint.FTS_WEIGHTS == FTS_WEIGHTS


@pytest.mark.parametrize("pattern,syntax,expected", [
    ("fn\\s+main", "ere", '("fn" AND "main")'),
    ("def (load|save)_config", "ere", '("def" AND ("load" OR "save") AND "_config")'),
    ("TODO|FIXME", "ere", '("TODO" OR "FIXME")'),
    ("TODO\\|FIXME", "bre", '("TODO" OR "FIXME")'),
    ("TODO|FIXME", "bre", '("TODO" AND "FIXME")'),  # in a basic regex | is a literal character
    ("\\bretention_days\\b", "ere", '"retention_days"'),
    ("[Hh]ooks", "bre", '"hooks"'),
    ("max[-_]depth", "ere", '("max" AND "depth")'),
    ("os.path", "ere", '"os.path"'),
    ("^#+ Retention.*$", "ere", '"Retention"'),
    ("(?i)token\\s+bucket", "ere", '("token" AND "bucket")'),
    ("(optional)?word", "ere", '"word"'),
    ("how do we rotate the keys", "bre", '("rotate" AND "keys")'),
    ('say "hi"', "fixed", '("say" AND "hi")'),
    ("a.b(c", "fixed", '("a.b" AND "c")'),
    ("\\d+\\.\\d+", "ere", None),
    (".*", "ere", None),
])
def test_patterns_become_fts_queries_of_their_literal_words(pattern: str, syntax: str, expected: str | None) -> None:
    assert patterns.all_words_match([pattern], syntax) == expected


@pytest.mark.parametrize("pattern,plain", [
    ("how do we rotate the keys", True), ("why did we choose postgres?", True), ("rate limit", False),
    ("import numpy as np", False), ("def main ( )", False), ("the retention_days setting", False),
    ("fn\\s+main here now", False), ("TODO fix this", False),
])
def test_plain_language_needs_three_prose_words(pattern: str, plain: bool) -> None:
    assert patterns.is_plain_language(pattern) is plain


def test_decide_passes_only_quoted_terms_to_fts(tmp_path: Path) -> None:
    from notes_index import build_index

    from scree.hookkit.decide import decide

    db = tmp_path / "index.db"
    build_index(db, {"docs/a.md": "# A\n\nNEAR and OR words here\n"})
    notes = hint.open_notes(str(db))
    try:
        for pattern in ("NEAR(a b) OR c* AND -x", 'say "NEAR" ^ c:d', "{heading}: OR"):
            (call,) = parse_command(f"grep -rn {pattern!r} docs")
            decide(call, "/repo", "/repo", notes)  # raises sqlite3.OperationalError on an FTS5 syntax error
        (call,) = parse_command("rg -n 'NEAR(a b) OR c* AND -x' docs")
        assert decide(call, "/repo", "/repo", notes).hint is not None  # aimed at the notes, words found
    finally:
        notes.close()


def test_the_suggested_call_asks_for_a_guess_only_for_plain_words() -> None:
    sections = [hint.Section("docs/uploads.md", 3, 9, "Uploads > Retries")]
    for reason, found in (("words", sections), ("prose", [])):
        prose = hint.render("how are failed uploads retried", reason, found, "/repo")
        assert f'{SEARCH_TOOL}(query="how are failed uploads retried", expected_answer="' in prose
    for name in ("RETRY_LIMIT", "--max-retries", "upload retries"):
        assert "expected_answer" not in hint.render(name, "words", sections, "/repo"), name


def test_without_the_tool_the_hint_suggests_the_command_or_only_the_lines() -> None:
    sections = [hint.Section("docs/uploads.md", 3, 9, "Uploads > Retries")]
    for reason, found in (("mention", [sections[0]._replace(literal="x")]), ("words", sections), ("prose", [])):
        cli = hint.render("how are failed uploads retried", reason, found, "/repo", via=hint.VIA_CLI)
        assert '`scree search --expect "<a sentence the answer might say>" \'how are failed uploads retried\'`' in cli
        none = hint.render("how are failed uploads retried", reason, found, "/repo", via=hint.VIA_NONE)
        for text in (cli, none):
            assert "mcp__" not in text and "search_docs" not in text, text
        assert "scree search" not in none
    assert "`scree search 'RETRY_LIMIT'` (in Bash)" in hint.render("RETRY_LIMIT", "words", sections, "/repo",
                                                                     via=hint.VIA_CLI)


def test_a_mention_hint_marks_the_sections_that_do_not_hold_the_pattern() -> None:
    # Issue 38: every section a hint names for a literal pattern holds it as grep matches it, or says not.
    sections = [hint.Section("docs/a.md", 1, 9, "Ops > Retries", literal="RETRY_LIMIT"),
                hint.Section("docs/b.md", 3, 7, "Ops > Backoff")]
    text = hint.render("RETRY_LIMIT", "mention", sections, "/repo")
    lines = text.split("\n")
    (a,) = [line for line in lines if "docs/a.md" in line]
    (b,) = [line for line in lines if "docs/b.md" in line]
    assert "not verbatim" not in a and b.endswith("(related, not verbatim)")


def test_render_stays_under_the_limit_with_long_trails() -> None:
    sections = [hint.Section("docs/" + "x" * 200 + f"{i}.md", 1, 9, "Trail " * 60) for i in range(3)]
    text = hint.render("q" * 300, "words", sections, "/repo/" + "y" * 100)
    assert len(text) <= hint.MAX_HINT_CHARS and SEARCH_TOOL in text


@pytest.mark.parametrize("target,docs", [
    ("docs/", True), ("notes", True), ("./adr/0001.md", True), ("README", True), ("*.md", True),
    ("**/*.{md,txt}", True), ("\\.md$", True), ("src/", False), ("src/main.rs", False), ("/etc", False),
    ("/repo/docs", True), ("/other/docs", False), ("!*.md", False), ("cmd.mdl", False),
    ("*.rst", True), ("api/index.rst", True), ("guide.adoc", True), ("**/*.asciidoc", True), ("conf.rstx", False),
    ("get-started/*.qmd", True), ("analysis.ipynb", False),
    ("man/", True), ("man/login.defs.d", True), ("src/manager.c", False), ("build.xml", False),
    ("config.sgml", True), ("**/*.sgml", True), ("PROTOCOL.agent", True), ("PROTOCOL*", True), ("src/INSTALL", True),
    ("install/", False), ("protocol.c", False),
])
def test_docs_targets(target: str, docs: bool) -> None:
    (call,) = parse_command(f"rg -n x {target!r}" if not target.startswith("!") else f"rg -g {target!r} x")
    assert hint.targets_docs(call, "/repo") is docs


@pytest.mark.parametrize("command", ["rg -t rst SECRET_KEY", "rg --type=asciidoc retries", "grep -r SECRET_KEY --include=*.rst ."])
def test_a_search_of_rst_or_asciidoc_files_is_a_docs_search(command: str) -> None:
    (call,) = parse_command(command)
    assert hint.targets_docs(call, "/repo")


def test_the_hook_knows_the_plain_text_doc_names_scree_reads() -> None:
    from scree.notes.formats import PLAIN_DOC_NAMES

    assert hint.PLAIN_DOC_NAMES == PLAIN_DOC_NAMES


def test_the_hook_knows_every_text_suffix_scree_reads_but_txt_and_perl_code() -> None:
    # The hook is stdlib only and keeps its own list; it must follow the formats scree reads (a grep never
    # reads a PDF, `*.txt` is mostly logs, a grep of `*.pm` looks for Perl code, not its POD, and one of `*.xml` for
    # build files and data, not DocBook).
    from scree.notes.formats import SUFFIX_KINDS

    skipped = (".txt", ".pdf", ".ipynb", ".pm", ".xml")
    assert {s.lstrip(".") for s in SUFFIX_KINDS if s not in skipped} <= set(hint._DOC_EXTS)
    assert "pm" not in hint._DOC_EXTS and "xml" not in hint._DOC_EXTS


def test_words_in_too_many_sections_are_ranked_by_heading_or_not_at_all(tmp_path: Path) -> None:
    from notes_index import build_index

    notes = {f"docs/n{i}.md": f"# Note {i}\n\n## Part\n\ncommon words here, rare{i % 3}\n" for i in range(hint.RANK_CAP + 20)}
    notes["docs/special.md"] = "# Common knowledge\n\n## Common\n\ncommon again\n"
    db = tmp_path / "index.db"
    build_index(db, notes)
    notes_index = hint.open_notes(str(db))
    try:
        assert notes_index.count('"common"', hint.RANK_CAP + 1) == hint.RANK_CAP + 1
        assert [s.path for s in notes_index.rank([('"common"', False)], [], None)] == ["docs/special.md"]
        assert notes_index.rank([('"words"', False)], [], None) == []  # everywhere, never in a heading: nowhere
        assert len(notes_index.rank([('"rare1"', False)], [], None)) == 3
    finally:
        notes_index.close()


def test_hook_code_parses_as_python_3_8() -> None:
    """The hooks run under the system python3, which may be as old as 3.8 (Ubuntu 20.04) or 3.9 (macOS)."""
    import ast

    files = [*sorted((REPO_ROOT / "hooks").glob("*.py")), *sorted((REPO_ROOT / "server/scree/hookkit").glob("*.py")),
             *(REPO_ROOT / "server/scree" / f for f in ("__init__.py", "errors.py", "config.py", "locate.py",
                                                         "search/ftsquery.py", "search/route.py",
                                                         "notes/__init__.py", "notes/sectiontext.py"))]
    for f in files:
        ast.parse(f.read_text(), str(f), feature_version=(3, 8))


def test_a_docs_search_without_words_gets_no_hint(project: Project) -> None:
    assert hint_of(bash(project, "grep -rnE '[0-9]+\\.[0-9]+' docs/")) is None


HINT_ORDER_CASES = {
    # A section titled by the pattern (its reference entry) first, though BM25 prefers the short mention.
    "titled": ({"docs/moving.md": "# Moving CACHE_DIR and LOG_DIR\n\nSet CACHE_DIR before the move.\n",
                "docs/settings.md": "# Settings\n\n## `CACHE_DIR`\n\nWhere downloaded artefacts are kept between "
                                    "runs; the default is a folder in the user's cache, and CACHE_DIR may point "
                                    "anywhere.\n"},
               "CACHE_DIR", ["docs/settings.md", "docs/moving.md"]),
    # A section using the pattern in prose before a list naming it, though BM25 prefers the short list.
    "list": ({"docs/errors.md": "# Errors\n\n* NetworkError\n* PoolTimeout\n* ProtocolError\n",
              "docs/limits.md": "# Limits\n\nWhen every connection of the pool is busy for longer than the pool "
                                "timeout allows, the request fails with PoolTimeout; raise the pool size when that "
                                "happens.\n"},
             "PoolTimeout", ["docs/limits.md", "docs/errors.md"]),
    # The table row that defines the pattern before a mention, though BM25 prefers the short mention and the
    # table is a list (issue 38).
    "defined": ({"docs/runbook.md": "# Jam\n\nJobs move on after 10 s (`PLATEN_FALLBACK_S`).\n",
                 "docs/config.md": "# Configuration\n\n| Variable | Default | Meaning |\n|---|---|---|\n"
                                   "| `PLATEN_FALLBACK_S` | `10` | Primary unavailable this long |\n"
                                   "| `PLATEN_LEASE_S` | `30` | Lease length |\n| `PLATEN_SITES` | `all` | Sites |\n"},
                "PLATEN_FALLBACK_S", ["docs/config.md", "docs/runbook.md"]),
    # A section about the pattern before an API page naming it only in an autodoc line (whose docstring, when
    # found, is a section of its own), though BM25 prefers the short API page.
    "autodoc": ({"docs/api.md": "# API\n\n.. autofunction:: anyio.fail_after\n",
                 "docs/timeouts.md": "# Timeouts\n\nWrap the block in fail_after to raise TimeoutError once its "
                                     "delay has passed, or in move_on_after to leave the block quietly instead; "
                                     "both take the delay in seconds.\n"},
                "fail_after", ["docs/timeouts.md", "docs/api.md"]),
}


@pytest.mark.parametrize("case", sorted(HINT_ORDER_CASES))
def test_the_hint_orders_sections_spelling_the_pattern_as_search_orders_a_lookup(tmp_path: Path, case: str) -> None:
    from notes_index import build_index

    notes, pattern, expected = HINT_ORDER_CASES[case]
    db = tmp_path / "index.db"
    build_index(db, notes)
    notes_index = hint.open_notes(str(db))
    try:
        ranked = [s.path for s in notes_index.rank([(f'"{pattern}"', True)], [pattern], None)]
        by_bm25 = [row[0] for row in notes_index._rows(f'"{pattern}"', None, 10)]
    finally:
        notes_index.close()
    assert by_bm25[0] == expected[1], "BM25 alone prefers the other section"
    assert ranked == expected
