"""Shell command lines as the hooks need them: words, operators, pipelines, and the real command.

Hand-written rather than `shlex`: shlex raises on an unbalanced quote, cannot tell a quoted `'|'`
from a pipe, and does not look inside `$(...)` or backticks. This follows the shell closely enough
for real command lines (quotes, escapes, `$'...'`, pipes, `&&`/`||`/`;`, newlines, redirections,
comments, `$(...)`, backticks, `<(...)`) and never raises: on input the shell would reject (an
unbalanced quote) the word simply ends at the end of the line.
"""

from __future__ import annotations

from collections import namedtuple

# A token: `op` is True for a shell operator (unquoted `|`, `&&`, `>`, ...) rather than a word.
Token = namedtuple("Token", "text op")

# Longest first, so `&&` wins over `&` and `>>` over `>`.
_OPS = ("&>>", "<<<", "&&", "||", ";;", "|&", ">>", "<<", ">&", "<&", "&>", ">|", "<>",
        "|", "&", ";", "(", ")", "<", ">")
_REDIRECTS = frozenset({"&>>", "<<<", ">>", "<<", ">&", "<&", "&>", ">|", "<>", "<", ">"})
_ANSI_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "e": "\x1b"}
PLACEHOLDER = "\x00"  # a substitution appears in a word as \x00<index>\x00
MAX_DEPTH = 4  # substitutions nested deeper are not looked into


def lex(s: str, subs: list[list[Token]], depth: int = 0) -> list[Token]:
    """Split into words and operators; each `$(...)`/backtick/`<(...)` is lexed into `subs` and
    appears in its word as a placeholder (see `placeholder_indexes`)."""
    toks: list[Token] = []
    buf: list[str] = []
    in_word = False
    i, n = 0, len(s)
    # Here-documents: `<<` makes the next word a delimiter; at the end of that line, the body up to
    # the delimiter line is text fed to a command, never commands (`cat <<EOF > x.sh` holding a grep).
    want_delimiter = False
    delimiters: list[tuple[str, bool]] = []  # (delimiter, `<<-`: leading tabs stripped)

    def flush() -> None:
        nonlocal in_word, want_delimiter
        if in_word:
            word = "".join(buf)
            toks.append(Token(word, False))
            buf.clear()
            in_word = False
            if want_delimiter:
                want_delimiter = False
                dash = word.startswith("-")
                delimiters.append((word[1:] if dash else word, dash))

    def skip_heredocs(start: int) -> int:
        """The index after the bodies of the pending here-documents whose text starts at `start`."""
        j = start
        for delimiter, dash in delimiters:
            while j < n:
                end = s.find("\n", j)
                end = n if end < 0 else end
                line = s[j:end]
                j = end + 1
                if (line.lstrip("\t") if dash else line) == delimiter:
                    break
        delimiters.clear()
        return j

    def substitute(start: int, closer: str) -> int:
        inner, end = _substitution_body(s, start, closer)
        index = len(subs)
        subs.append([])
        if depth < MAX_DEPTH:
            subs[index] = lex(inner, subs, depth + 1)
        buf.append(f"{PLACEHOLDER}{index}{PLACEHOLDER}")
        return end

    while i < n:
        c = s[i]
        if c in " \t\r":
            flush()
            i += 1
        elif c == "\n":
            flush()
            toks.append(Token(";", True))
            i += 1
            if delimiters:
                i = skip_heredocs(i)
        elif c == "#" and not in_word:
            j = s.find("\n", i)
            i = n if j < 0 else j
        elif c == "\\":
            if i + 1 < n and s[i + 1] != "\n":
                buf.append(s[i + 1])
                in_word = True
            i += 2
        elif c == "'":
            j = s.find("'", i + 1)
            j = n if j < 0 else j
            buf.append(s[i + 1:j])
            in_word = True
            i = j + 1
        elif c == "$" and s.startswith("$'", i):  # ANSI-C quoting: $'tab\there'
            j = i + 2
            while j < n and s[j] != "'":
                if s[j] == "\\" and j + 1 < n:
                    j += 1
                    buf.append(_ANSI_ESCAPES.get(s[j], s[j]))
                else:
                    buf.append(s[j])
                j += 1
            in_word = True
            i = j + 1
        elif c == '"':
            in_word = True
            i += 1
            while i < n and s[i] != '"':
                if s[i] == "\\" and i + 1 < n and s[i + 1] in '$`"\\\n':
                    if s[i + 1] != "\n":
                        buf.append(s[i + 1])
                    i += 2
                elif s.startswith("$(", i):
                    i = substitute(i + 2, ")")
                elif s[i] == "`":
                    i = substitute(i + 1, "`")
                else:
                    buf.append(s[i])
                    i += 1
            i += 1
        elif s.startswith("$(", i):
            in_word = True
            i = substitute(i + 2, ")")
        elif c == "`":
            in_word = True
            i = substitute(i + 1, "`")
        elif c in "<>" and s.startswith("(", i + 1):  # process substitution <(cmd)
            in_word = True
            i = substitute(i + 2, ")")
        elif c in "|&;()<>":
            if c in "<>" and in_word and "".join(buf).isdigit():  # `2>` : the digits name a file descriptor
                buf.clear()
                in_word = False
            flush()
            op = next(o for o in _OPS if s.startswith(o, i))
            toks.append(Token(op, True))
            i += len(op)
            want_delimiter = op == "<<"
        else:
            buf.append(c)
            in_word = True
            i += 1
    flush()
    return toks


def _substitution_body(s: str, start: int, closer: str) -> tuple[str, int]:
    """The text of `$(...)` / backticks starting at `start`, and the index after its end."""
    n = len(s)
    if closer == "`":
        j = start
        while j < n and s[j] != "`":
            j += 2 if s[j] == "\\" else 1
        return s[start:min(j, n)], j + 1
    depth, quote, j = 1, "", start
    while j < n:
        ch = s[j]
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"':
                j += 1
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            j += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return s[start:j], j + 1
        j += 1
    return s[start:], n


def pipelines(toks: list[Token]) -> list[list[list[str]]]:
    """Group words into pipelines of simple commands; redirections and their targets are dropped."""
    result: list[list[list[str]]] = []
    pipe: list[list[str]] = []
    cmd: list[str] = []
    skip_target = False
    for t in toks:
        if skip_target:
            skip_target = False
            if not t.op:
                continue
        if not t.op:
            cmd.append(t.text)
        elif t.text in _REDIRECTS:
            skip_target = True
        elif t.text in ("|", "|&"):
            pipe.append(cmd)
            cmd = []
        else:
            pipe.append(cmd)
            result.append(pipe)
            pipe, cmd = [], []
    pipe.append(cmd)
    result.append(pipe)
    return [p for p in result if any(p)]


_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "time", "coproc"})
# Wrappers that run the rest of the line, with the options of each that take a value.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-h", "-p", "-U", "-r", "-t", "-T", "-D", "-R", "--user", "--group"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir", "--split-string"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "nohup": frozenset(),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "chronic": frozenset(),
    "unbuffer": frozenset(),
    "noglob": frozenset(),
    "xargs": frozenset({"-I", "-L", "-n", "-P", "-d", "-E", "-s", "-a", "--arg-file", "--delimiter",
                        "--max-args", "--max-procs", "--max-lines", "--max-chars", "--eof", "--replace"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
}


def unwrap(words: list[str]) -> tuple[list[str], bool]:
    """Drop `VAR=x`, keywords and wrappers (sudo, env, xargs...) in front of the real command."""
    via_xargs = False
    i, n = 0, len(words)
    while i < n:
        w = words[i]
        if w in _KEYWORDS or is_assignment(w):
            i += 1
            continue
        name = basename(w)
        takes = _WRAPPERS.get(name)
        if takes is None:
            break
        if name == "command" and i + 1 < n and words[i + 1] in ("-v", "-V"):
            return [], False  # `command -v grep` only looks the name up
        via_xargs = via_xargs or name == "xargs"
        i += 1
        while i < n and (words[i].startswith("-") and words[i] != "-" or (name == "env" and is_assignment(words[i]))):
            if words[i] == "--":
                i += 1
                break
            i += 2 if words[i] in takes else 1
        if name == "timeout" and i < n:
            i += 1  # the duration
    return words[i:], via_xargs


def is_assignment(word: str) -> bool:
    """True for `NAME=value` (an environment assignment in front of a command)."""
    name, eq, _ = word.partition("=")
    return bool(eq) and bool(name) and (name[0].isalpha() or name[0] == "_") and all(
        c.isalnum() or c == "_" for c in name)


def basename(word: str) -> str:
    """`/usr/bin/grep` -> `grep`."""
    return word.rsplit("/", 1)[-1]


def shell_script(words: list[str]) -> str | None:
    """The script of `bash -c 'script'` (also `-lc`, `-ec`), or None."""
    for i, w in enumerate(words[1:], start=1):
        if w.startswith("-") and not w.startswith("--") and w.endswith("c"):
            return words[i + 1] if i + 1 < len(words) else None
        if not w.startswith("-"):
            return None
    return None


def placeholder_indexes(word: str) -> list[int]:
    """The indexes of the substitutions a word holds."""
    parts = word.split(PLACEHOLDER)
    return [int(p) for p in parts[1::2] if p.isdigit()]


def strip_placeholders(word: str) -> str:
    """The word without its substitutions (their output is unknown)."""
    parts = word.split(PLACEHOLDER)
    return "".join(parts[0::2])
