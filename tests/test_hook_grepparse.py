"""grepparse: real shapes of grep/rg/ag/ack/git grep command lines, and what the hooks read from them."""

from __future__ import annotations

import pytest

from scree.hookkit.grepparse import GrepCall, grep_tool_call, might_search, parse_command

# (command line, expected fields of the first call). Fields left out are not checked.
CASES: list[tuple[str, dict]] = [
    ("grep -rn hooks . | head -3", dict(tool="grep", patterns=("hooks",), syntax="bre", paths=(".",))),
    ("grep -rn \"a b\" docs/", dict(patterns=("a b",), paths=("docs/",))),
    ("grep -rniw 'Retention' docs notes", dict(patterns=("Retention",), ignore_case=True, word=True,
                                              paths=("docs", "notes"))),
    ("grep -E 'TODO|FIXME' -r src", dict(patterns=("TODO|FIXME",), syntax="ere", paths=("src",))),
    ("egrep -n '(load|save)_config' app.py", dict(tool="egrep", syntax="ere", patterns=("(load|save)_config",))),
    ("fgrep -r 'a.b[0]' .", dict(tool="fgrep", syntax="fixed", patterns=("a.b[0]",))),
    ("grep -F -e foo -e 'bar baz' -- src lib", dict(syntax="fixed", patterns=("foo", "bar baz"), paths=("src", "lib"))),
    ("grep --regexp=retention_days --include=*.md -r .", dict(patterns=("retention_days",), globs=("*.md",),
                                                           paths=(".",))),
    ("grep -rn --include '*.md' --exclude-dir=node_modules token .", dict(patterns=("token",), globs=("*.md",),
                                                                        excludes=("node_modules",))),
    ("grep -A3 -B 2 -C1 -m 5 needle hay.txt", dict(patterns=("needle",), paths=("hay.txt",))),
    ("grep -f patterns.txt src/", dict(patterns=(), paths=("src/",))),
    ("grep -- -v file.md", dict(patterns=("-v",), paths=("file.md",))),
    ("rg -n 'fn\\s+main' src/", dict(tool="rg", syntax="ere", patterns=("fn\\s+main",), paths=("src/",))),
    ("rg -t md retention", dict(types=("md",), patterns=("retention",), paths=())),
    ("rg --type=markdown -tmd -T rust retention", dict(types=("markdown", "md"), excludes=("rust",))),
    ("rg -g '*.md' -g '!CHANGELOG.md' -i 'rate limit'", dict(globs=("*.md",), excludes=("CHANGELOG.md",),
                                                          ignore_case=True, patterns=("rate limit",))),
    ("rg -F -e 'a(b' -e c", dict(syntax="fixed", patterns=("a(b", "c"))),
    ("rg -r REPLACED -C 2 old_name src", dict(patterns=("old_name",), paths=("src",))),
    ("ag --md -Q 'a.b' docs", dict(tool="ag", types=("md",), syntax="fixed", paths=("docs",))),
    ("ag -G '\\.md$' retention", dict(globs=("\\.md$",), patterns=("retention",))),
    ("ack --type=markdown -i hooks", dict(tool="ack", types=("markdown",), ignore_case=True)),
    ("ack --match retention notes/", dict(patterns=("retention",), paths=("notes/",))),
    ("git grep -n retention_days", dict(tool="git-grep", patterns=("retention_days",), syntax="bre")),
    ("git --no-pager grep -n -e foo -e bar -- '*.md'", dict(patterns=("foo", "bar"), paths=("*.md",))),
    ("git -C docs grep -iE 'rate.?limit' HEAD", dict(cd="docs", syntax="ere", ignore_case=True, paths=("HEAD",))),
    ("find . -name '*.md' | xargs grep -l foo", dict(via_xargs=True, globs=("*.md",), paths=(".",),
                                                    patterns=("foo",))),
    ("find docs -name '*.md' -print0 | xargs -0 -n 20 grep -Hn 'token bucket'",
     dict(via_xargs=True, paths=("docs",), globs=("*.md",), patterns=("token bucket",))),
    ("find docs -type f -name \"*.md\" -exec grep -H TODO {} \\;", dict(via_xargs=True, paths=("docs",),
                                                                      globs=("*.md",), patterns=("TODO",))),
    ("fd -e md | xargs rg -l retention", dict(tool="rg", via_xargs=True, globs=("*.md",))),
    ("git ls-files '*.md' | xargs grep -n hooks", dict(via_xargs=True, paths=("*.md",))),
    ("rg foo $(git ls-files '*.md')", dict(tool="rg", patterns=("foo",), paths=("*.md",))),
    ("grep retention `find notes -name '*.md'`", dict(paths=("notes",), globs=("*.md",))),
    ("cd notes && rg -n x .", dict(tool="rg", cd="notes", paths=(".",))),
    ("cd /repo; grep -rn 'rate limit' docs 2>/dev/null | sort | uniq -c", dict(cd="/repo", paths=("docs",),
                                                                               reads_stdin=False)),
    ("sudo -u root env LC_ALL=C command grep -rn needle /var/log 2>&1", dict(patterns=("needle",),
                                                                           paths=("/var/log",))),
    ("LC_ALL=C timeout 5 nice -n 10 grep -c x f.md", dict(patterns=("x",), paths=("f.md",))),
    ("bash -lc \"cd docs && ag --md retention\"", dict(tool="ag", cd="docs", types=("md",))),
    ("cat README.md | grep -n install", dict(reads_stdin=True, paths=("README.md",))),
    ("ps aux | grep python", dict(reads_stdin=True, paths=())),
    ("grep -rn \"unbalanced docs/", dict(patterns=("unbalanced docs/",), paths=())),
    ("grep -rn 'it''s here' docs", dict(patterns=("its here",), paths=("docs",))),
    ("grep -n $'tab\\there' notes.md  # find tabs", dict(patterns=("tab\there",), paths=("notes.md",))),
    ("grep \"$(cat pattern.txt)\" notes.md", dict(patterns=("",), paths=("notes.md",))),
    ("if grep -q retention docs/adr/x.md; then echo yes; fi", dict(patterns=("retention",),
                                                                   paths=("docs/adr/x.md",))),
    ("/usr/bin/grep -r needle .", dict(tool="grep", patterns=("needle",))),
]


@pytest.mark.parametrize("command,expected", CASES, ids=[c for c, _ in CASES])
def test_command_line_parses_to_the_search_it_runs(command: str, expected: dict) -> None:
    calls = parse_command(command)
    assert calls, f"no search found in {command!r}"
    got = calls[0]
    for name, value in expected.items():
        assert getattr(got, name) == value, f"{command!r}: {name} = {getattr(got, name)!r}, expected {value!r}"


@pytest.mark.parametrize("command", [
    "ls -la", "echo grep", "cat notes.md", "rg --files | head", "rg --type-list", "ag -g retention",
    "ack -f docs", "command -v grep", "git log --oneline", "git status", "", "   ", "make grep-tests",
    "python -c 'import re'",
])
def test_commands_that_search_no_file_contents_yield_nothing(command: str) -> None:
    assert parse_command(command) == []


def test_a_quoted_pipe_is_a_pattern_not_a_pipeline() -> None:
    (call,) = parse_command("grep -n '|' table.md")
    assert call.patterns == ("|",) and call.paths == ("table.md",) and not call.reads_stdin


def test_every_grep_in_a_chain_is_found_in_order() -> None:
    calls = parse_command("grep -rl foo docs | xargs grep -n bar && rg baz src; echo $(git grep -c qux)")
    assert [(c.tool, c.patterns) for c in calls] == [
        ("grep", ("foo",)), ("grep", ("bar",)), ("rg", ("baz",)), ("git-grep", ("qux",))]
    assert calls[1].via_xargs and calls[1].paths == ("docs",)  # fed by the first grep's file list


def test_a_filter_after_a_search_reads_stdin() -> None:
    calls = parse_command("grep -rn foo docs | grep -v test")
    assert not calls[0].reads_stdin
    assert calls[1].reads_stdin and calls[1].paths == ()


def test_newlines_separate_commands_and_continuations_join_them() -> None:
    calls = parse_command("cd docs\ngrep -rn \\\n  retention .")
    assert len(calls) == 1 and calls[0].cd == "docs" and calls[0].patterns == ("retention",)


@pytest.mark.parametrize("command", [
    "grep 'a", "grep \"a", "rg $(", "grep `x", "grep \\", "grep -e", "rg -g", "((((", "|||", "grep ''''''",
    "grep $'x", "x=$(grep -r \"y)", "grep -- ", "\x00grep\x00 a", "grep " + "(" * 5000, "grep " + "$(" * 200 + "x",
])
def test_malformed_command_lines_never_raise(command: str) -> None:
    result = parse_command(command)
    assert isinstance(result, list)


def test_grep_tool_input_maps_pattern_path_glob_and_type() -> None:
    call = grep_tool_call({"pattern": "rate.?limit", "path": "/repo/docs", "glob": "*.md", "type": "md", "-i": True,
                           "output_mode": "content"})
    assert call == GrepCall(tool="Grep", patterns=("rate.?limit",), syntax="ere", ignore_case=True,
                            paths=("/repo/docs",), globs=("*.md",), types=("md",))
    assert grep_tool_call({"pattern": "x", "glob": "!*.rs"}).excludes == ("*.rs",)
    assert grep_tool_call({"pattern": ""}) is None
    assert grep_tool_call({"path": "x"}) is None
    assert grep_tool_call("not a dict") is None


def test_the_prefilter_lets_every_search_through() -> None:
    for command, _ in CASES:
        assert might_search(command), command
    assert not might_search("ls -la && make test")
