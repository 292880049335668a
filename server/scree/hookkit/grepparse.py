"""Find the searches a shell command line runs: grep, egrep, fgrep, ugrep/ug, rg, ag, ack and `git grep`.

The hooks call this on every Bash command, so it never raises and never does much work. It sees
greps inside pipes, `&&`/`;` chains, `xargs`, `find -exec`, `$(...)`, backticks and `bash -c`,
`bfs -exec`, behind `sudo`/`env X=1`/`command`/`timeout`..., and reads each tool's own options (which take a
value, which give a pattern, a glob, a file type) so an option's value is never taken for the pattern.
"""

from __future__ import annotations

from collections import namedtuple

from .shellwords import (MAX_DEPTH, PLACEHOLDER, Token, basename, lex, pipelines, placeholder_indexes,
                         shell_script, strip_placeholders, unwrap)


# Records are namedtuples, not dataclasses: `dataclasses` imports `inspect`, ~8 ms of a hook's 40 ms.
class GrepCall(namedtuple("GrepCall", "tool patterns syntax ignore_case word paths globs types excludes "
                                      "reads_stdin via_xargs cd",
                          defaults=(False, False, (), (), (), (), False, False, None))):
    """One content search found in a command (or made by the Grep tool)."""

    __slots__ = ()
    tool: str  # grep, egrep, fgrep, zgrep, rgrep, ugrep, ug, rg, ag, ack, git-grep, or Grep (the Claude Code tool)
    patterns: tuple[str, ...]  # empty when they come from a file (-f)
    syntax: str  # "bre", "ere" (also PCRE and Rust regex) or "fixed"
    ignore_case: bool
    word: bool
    paths: tuple[str, ...]  # positional paths (and what xargs / $(...) feed it, when known)
    globs: tuple[str, ...]  # include globs: --include, -g, --glob, find -name before xargs
    types: tuple[str, ...]  # rg -t, ack --type, ag --md
    excludes: tuple[str, ...]  # --exclude*, -g '!x', -T
    reads_stdin: bool  # a filter in a pipeline (`ps aux | grep x`), not a search of files
    via_xargs: bool  # file names come from a producer (xargs, find -exec)
    cd: str | None  # the directory a preceding `cd` (or `git -C`) moved to


_GREPS = frozenset({"grep", "egrep", "fgrep", "zgrep", "zegrep", "zfgrep", "rgrep", "ugrep", "ug", "ugrep+", "ug+",
                    "rg", "ag", "ack", "ack-grep"})
# find and its breadth-first twin bfs (Claude Code's native builds ship bfs in place of the Glob tool).
_FINDS = frozenset({"find", "bfs"})
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})


# A command longer than this is a script or generated text, not a person's search: the hooks skip it
# before parsing. Recorded agent searches are under 100 characters; parsing is superlinear in the
# number of pipes and options (10 MB of them took 12 s, past the hooks' 5 s timeout), and 4 KB of
# them still parses in a few tens of ms.
MAX_COMMAND_CHARS = 4096


def too_large(command: str) -> bool:
    """True for a command (or a Grep tool pattern) too long to be a person's search: skipped unparsed."""
    return len(command) > MAX_COMMAND_CHARS


def might_search(command: str) -> bool:
    """A cheap test run before parsing: False means the command certainly runs no grep-like tool."""
    return any(name in command for name in ("grep", "rg", "ag", "ack", "ug"))


def parse_command(command: str) -> list[GrepCall]:
    """Every grep-like search in a shell command line, in order (inner `$(...)` ones after the outer)."""
    if not isinstance(command, str) or not command.strip():
        return []
    return _parse(command, 0)


def grep_tool_call(tool_input: object) -> GrepCall | None:
    """The search made by Claude Code's Grep tool (`pattern`, `path`, `glob`, `type`, `-i`)."""
    if not isinstance(tool_input, dict):
        return None
    pattern = tool_input.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        return None

    def strings(key: str) -> tuple[str, ...]:
        value = tool_input.get(key)
        return (value,) if isinstance(value, str) and value else ()

    globs = strings("glob")
    return GrepCall(
        tool="Grep", patterns=(pattern,), syntax="ere", ignore_case=tool_input.get("-i") is True,
        paths=strings("path"), globs=tuple(g for g in globs if not g.startswith("!")),
        types=strings("type"), excludes=tuple(g[1:] for g in globs if g.startswith("!")),
    )


def _parse(command: str, depth: int) -> list[GrepCall]:
    subs: list[list[Token]] = []
    toks = lex(command, subs, depth)
    calls = _collect(toks, subs, depth)
    for inner in subs:
        calls.extend(_collect(inner, subs, depth))
    return calls


# ---------------------------------------------------------------- commands


def _collect(toks: list[Token], subs: list[list[Token]], depth: int) -> list[GrepCall]:
    calls: list[GrepCall] = []
    cd: str | None = None
    for pipe in pipelines(toks):
        prev_name = ""
        prev_targets: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # what the previous stage lists
        for pos, raw in enumerate(pipe):
            words, via_xargs = unwrap(raw)
            name = basename(words[0]) if words else ""
            call: GrepCall | None = None
            if name == "cd":
                cd = words[1] if len(words) > 1 else None
            elif name in _SHELLS and depth < MAX_DEPTH and shell_script(words) is not None:
                calls.extend(_parse(shell_script(words) or "", depth + 1))
            elif name in _FINDS:
                inner, _ = unwrap(_find_exec(words))
                call = _grep_call(inner, subs) if inner else None
                if call is not None:
                    paths, globs = _producer_targets(words)
                    call = call._replace(paths=call.paths + paths, globs=call.globs + globs, via_xargs=True)
            elif words:
                call = _grep_call(words, subs)
                if call is not None and via_xargs:
                    paths, globs = prev_targets
                    call = call._replace(paths=call.paths + paths, globs=call.globs + globs, via_xargs=True)
                elif call is not None and pos > 0 and not call.paths:
                    # A filter over the previous stage's output; that output is a file only after `cat file`.
                    paths, globs = prev_targets if prev_name in _READERS else ((), ())
                    call = call._replace(paths=paths, globs=globs, reads_stdin=True)
            if call is not None:
                if cd is not None and call.cd is None:
                    call = call._replace(cd=cd)
                calls.append(call)
                prev_targets = (call.paths, call.globs)
            else:
                prev_targets = _producer_targets(words) if words else ((), ())
            prev_name = name
    return calls


def _find_exec(words: list[str]) -> list[str]:
    """The command of `find ... -exec CMD {} ;` (or -execdir/-ok), or []."""
    for i, w in enumerate(words):
        if w in ("-exec", "-execdir", "-ok", "-okdir"):
            rest = words[i + 1:]
            for j, r in enumerate(rest):
                if r in (";", "+"):
                    return [x for x in rest[:j] if x != "{}"]
            return [x for x in rest if x != "{}"]
    return []


# What a pipeline stage feeds the next one: its files (for a following `xargs grep` or `grep`).
_READERS = frozenset({"cat", "head", "tail", "less", "more", "bat", "zcat"})
_FIND_GLOBS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex"})


def _producer_targets(words: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(paths, globs) that a stage like `find docs -name '*.md'` or `git ls-files '*.md'` lists."""
    name = basename(words[0]) if words else ""
    args = words[1:]
    if name in _FINDS:
        i = 0
        while i < len(args) and not args[i].startswith("-") and args[i] not in ("(", "!"):
            i += 1
        globs = [args[j + 1] for j in range(i, len(args) - 1) if args[j] in _FIND_GLOBS]
        return tuple(args[:i]), tuple(globs)
    if name in ("fd", "fdfind"):
        exts = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-e", "--extension")]
        pos = [a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] not in (
            "-e", "--extension", "-t", "--type", "-E", "--exclude", "-d", "--max-depth"))]
        return tuple(pos), tuple(f"*.{e}" for e in exts)
    if name == "git" and "ls-files" in args:
        rest = args[args.index("ls-files") + 1:]
        return tuple(a for a in rest if not a.startswith("-")), ()
    if name in _READERS or name in ("ls", "echo", "printf"):
        return tuple(a for a in args if not a.startswith("-")), ()
    return (), ()


# ---------------------------------------------------------------- grep-like tools


def _getopt(args: list[str], short_arg: str, long_arg: frozenset[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """GNU-style option parsing (options may follow operands); `--` ends the options."""
    opts: list[tuple[str, str | None]] = []
    pos: list[str] = []
    i, n = 0, len(args)
    while i < n:
        a = args[i]
        i += 1
        if a == "--":
            pos.extend(args[i:])
            break
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            if eq:
                opts.append((name, value))
            elif name in long_arg and i < n:
                opts.append((name, args[i]))
                i += 1
            else:
                opts.append((name, None))
        elif a.startswith("-") and len(a) > 1:
            for j in range(1, len(a)):
                c = a[j]
                if c in short_arg:
                    value = a[j + 1:]
                    if not value and i < n:
                        value = args[i]
                        i += 1
                    opts.append((c, value))
                    break
                opts.append((c, None))
        else:
            pos.append(a)
    return opts, pos


# How to read one tool's options: which take a value (short letters, long names), the default
# syntax, and the sets of option names meaning: pattern, pattern file, include glob, exclude,
# file type, fixed strings, ERE, BRE, ignore case, whole words, and "not a content search".
_Spec = namedtuple("_Spec", "short_arg long_arg syntax pattern pattern_file include exclude types fixed ere bre "
                            "icase word not_search")


_CONTEXT = frozenset({"after-context", "before-context", "context", "max-count"})
_GREP = _Spec(
    short_arg="efmABCdDX",
    long_arg=_CONTEXT | {"regexp", "file", "directories", "devices", "include", "exclude", "exclude-dir",
                         "exclude-from", "label", "binary-files", "group-separator"},
    syntax="bre", pattern=frozenset({"e", "regexp"}), pattern_file=frozenset({"f", "file"}),
    include=frozenset({"include"}), exclude=frozenset({"exclude", "exclude-dir"}), types=frozenset(),
    fixed=frozenset({"F", "fixed-strings"}), ere=frozenset({"E", "extended-regexp", "P", "perl-regexp"}),
    bre=frozenset({"G", "basic-regexp"}), icase=frozenset({"i", "y", "ignore-case"}),
    word=frozenset({"w", "word-regexp"}), not_search=frozenset({"help", "V", "version"}),
)
_RG = _Spec(
    short_arg="ABCdEefgjMmrTt",
    long_arg=_CONTEXT | {"regexp", "file", "glob", "iglob", "type", "type-not", "max-depth", "maxdepth",
                         "encoding", "threads", "replace", "max-columns", "max-filesize", "type-add",
                         "type-clear", "color", "colors", "sort", "sortr", "path-separator", "pre", "pre-glob",
                         "ignore-file", "context-separator", "field-match-separator", "field-context-separator",
                         "engine", "dfa-size-limit", "regex-size-limit", "hostname-bin", "hyperlink-format"},
    syntax="ere", pattern=frozenset({"e", "regexp"}), pattern_file=frozenset({"f", "file"}),
    include=frozenset({"g", "glob", "iglob"}), exclude=frozenset({"T", "type-not"}),
    types=frozenset({"t", "type"}), fixed=frozenset({"F", "fixed-strings"}), ere=frozenset(), bre=frozenset(),
    icase=frozenset({"i", "ignore-case"}), word=frozenset({"w", "word-regexp"}),
    not_search=frozenset({"files", "type-list", "help", "h", "version", "V", "generate"}),
)
_AG = _Spec(
    short_arg="ABCGgmpW",
    long_arg=frozenset({"after", "before", "context", "file-search-regex", "max-count", "ignore", "ignore-dir",
                        "depth", "path-to-ignore", "pager", "workers", "width"}),
    syntax="ere", pattern=frozenset(), pattern_file=frozenset(),
    include=frozenset({"G", "file-search-regex"}), exclude=frozenset({"ignore", "ignore-dir"}),
    types=frozenset(), fixed=frozenset({"Q", "literal"}), ere=frozenset(), bre=frozenset(),
    icase=frozenset({"i", "ignore-case"}), word=frozenset({"w", "word-regexp"}),
    not_search=frozenset({"g", "list-file-types", "help", "h", "version", "V"}),
)
_ACK = _Spec(
    short_arg="ABCmt",
    long_arg=_CONTEXT | {"type", "match", "ignore-dir", "noignore-dir", "ignore-file", "output", "range-start",
                         "range-end", "files-from", "type-add", "type-set", "type-del", "pager"},
    syntax="ere", pattern=frozenset({"match"}), pattern_file=frozenset(),
    include=frozenset(), exclude=frozenset({"ignore-dir", "ignore-file"}), types=frozenset({"t", "type"}),
    fixed=frozenset({"Q", "literal"}), ere=frozenset(), bre=frozenset(),
    icase=frozenset({"i", "ignore-case"}), word=frozenset({"w", "word-regexp"}),
    not_search=frozenset({"f", "g", "help", "help-types", "version"}),
)
_GIT_GREP = _Spec(
    short_arg="efABCm",
    long_arg=_CONTEXT | {"regexp", "file", "max-depth", "threads"},
    syntax="bre", pattern=frozenset({"e", "regexp"}), pattern_file=frozenset({"f", "file"}),
    include=frozenset(), exclude=frozenset(), types=frozenset(),
    fixed=frozenset({"F", "fixed-strings"}), ere=frozenset({"E", "extended-regexp", "P", "perl-regexp"}),
    bre=frozenset({"G", "basic-regexp"}), icase=frozenset({"i", "ignore-case"}),
    word=frozenset({"w", "word-regexp"}), not_search=frozenset({"h", "help"}),
)
# ugrep: grep's options plus its own. -t/--file-type takes types, -O extensions, -g globs (`!` excludes),
# -% / --bool reads the pattern as a Boolean query (`a b` = a AND b, `|` = OR), --and/--andnot add
# patterns, -N a negative one; -Q is the interactive query UI (still a search of the files).
_UGREP = _GREP._replace(
    syntax="ere", short_arg="efmABCdDXtOgMJKN",
    long_arg=_GREP.long_arg | {"file-type", "file-extension", "glob", "iglob", "include-dir", "exclude-dir",
                               "and", "andnot", "not", "neg-regexp", "format", "replace", "encoding", "jobs",
                               "depth", "max-files", "tabs", "width", "pager", "sort", "colors", "separator",
                               "config", "save-config", "exclude-fs", "include-fs", "file-magic", "view",
                               "range", "index", "filter", "filter-magic-label", "hexdump"},
    pattern=frozenset({"e", "regexp", "and"}), include=frozenset({"include", "g", "glob", "iglob", "include-dir"}),
    types=frozenset({"t", "file-type"}), not_search=frozenset({"help", "V", "version", "save-config"}),
)
_EXTENSIONS = frozenset({"O", "file-extension"})  # ugrep -O py,go: globs *.py, *.go
# ag and ack take file types as bare long flags (`ag --md foo`).
_TYPE_FLAGS = frozenset({"md", "markdown", "mkd", "mdx", "rst", "asciidoc", "text", "txt", "python", "py", "js",
                         "ts", "go", "rust", "rs", "java", "ruby", "rb", "cc", "cpp", "c", "shell", "sh", "yaml",
                         "json", "html", "css", "sql", "php"})


def _grep_call(words: list[str], subs: list[list[Token]]) -> GrepCall | None:
    name = basename(words[0])
    args = words[1:]
    cd = None
    if name == "git":
        i = 1
        while i < len(words) and words[i].startswith("-"):
            if words[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path") and i + 1 < len(words):
                if words[i] == "-C":
                    cd = words[i + 1]
                i += 1
            i += 1
        if i >= len(words) or words[i] != "grep":
            return None
        tool, spec, args = "git-grep", _GIT_GREP, words[i + 1:]
    elif name in _GREPS:
        tool = "ack" if name == "ack-grep" else name
        tool = tool.rstrip("+")
        spec = {"rg": _RG, "ag": _AG, "ack": _ACK, "ack-grep": _ACK, "ugrep": _UGREP, "ug": _UGREP}.get(tool, _GREP)
    else:
        return None
    opts, pos = _getopt(args, spec.short_arg, spec.long_arg)
    syntax = {"egrep": "ere", "zegrep": "ere", "fgrep": "fixed", "zfgrep": "fixed"}.get(name, spec.syntax)
    patterns: list[str] = []
    from_file = False
    icase = word = False
    globs: list[str] = []
    types: list[str] = []
    excludes: list[str] = []
    for opt, value in opts:
        if opt in spec.not_search:
            return None
        if opt in spec.pattern and value is not None:
            patterns.append(value)
        elif opt in spec.pattern_file:
            from_file = True
        elif opt in spec.fixed:
            syntax = "fixed"
        elif opt in spec.ere:
            syntax = "ere"
        elif opt in spec.bre:
            syntax = "bre"
        elif opt in spec.icase:
            icase = True
        elif opt in spec.word:
            word = True
        elif opt in spec.include and value is not None:
            (excludes if value.startswith("!") else globs).append(value.lstrip("!"))
        elif opt in spec.exclude and value is not None:
            excludes.append(value)
        elif opt in spec.types and value is not None:
            if spec is _UGREP and value == "list":
                return None  # `ugrep -tlist` prints the type table
            if spec is _UGREP:
                types.extend(t for t in value.split(",") if t)
            else:
                types.append(value)
        elif spec is _UGREP and opt in _EXTENSIONS and value is not None:
            for ext in value.split(","):
                (excludes if ext.startswith("!") else globs).append("*." + ext.lstrip("!"))
        elif (spec is _AG or spec is _ACK) and value is None and opt.lower() in _TYPE_FLAGS:
            types.append(opt.lower())
    if not patterns and not from_file:
        if not pos:
            return None
        patterns, pos = [pos[0]], pos[1:]
    paths: list[str] = []
    for p in pos:
        if PLACEHOLDER in p:
            sub_paths, sub_globs = _substituted_targets(p, subs)
            paths.extend(sub_paths)
            globs.extend(sub_globs)
        else:
            paths.append(p)
    return GrepCall(
        tool=tool, patterns=tuple(strip_placeholders(p) for p in patterns), syntax=syntax, ignore_case=icase,
        word=word, paths=tuple(paths), globs=tuple(globs), types=tuple(types), excludes=tuple(excludes), cd=cd,
    )


def _substituted_targets(word: str, subs: list[list[Token]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What `$(find docs -name '*.md')` in a path position lists: the producer's paths and globs."""
    paths: list[str] = []
    globs: list[str] = []
    for index in placeholder_indexes(word):
        if index < len(subs):
            for pipe in pipelines(subs[index]):
                stage, _ = unwrap(pipe[0]) if pipe else ([], False)
                if stage:
                    p, g = _producer_targets(stage)
                    paths.extend(p)
                    globs.extend(g)
                break
    rest = strip_placeholders(word)
    if rest and rest != word:
        paths.append(rest)
    return tuple(paths), tuple(globs)
