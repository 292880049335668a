"""A cheap first look at a hook's raw stdin, before `json` (and with it `re`, `enum`...) is imported.

Most Bash calls run no search at all; for them a hook should cost little more than the interpreter's
start. `may_search` answers "could this payload hold a grep-like call?" by byte scans only. It may
say yes wrongly (the full parse then says no); it must never say no to a real search.
"""

# grep/egrep/fgrep/zgrep/ugrep and `git grep` contain b"grep"; `bfs -exec grep` too.
_TOOLS = (b"grep", b"rg", b"ag", b"ack", b"ug")
_BEFORE = b" \t\n\"'|;&(`{$\\/=n"  # what may precede a command word (n: an escaped newline "\n")


def _word_starts(raw: bytes, word: bytes) -> bool:
    start = raw.find(word)
    while start != -1:
        end = start + len(word)
        before_ok = start == 0 or raw[start - 1] in _BEFORE
        after_ok = end == len(raw) or raw[end:end + 1] in (b" ", b"\t", b"\\", b'"', b"'", b";", b"|", b")")
        if before_ok and after_ok:
            return True
        start = raw.find(word, start + 1)
    return False


def may_search(raw: bytes) -> bool:
    """False only when the payload certainly holds no Grep tool call and no grep/rg/ag/ack command."""
    if b'"Grep"' in raw or b"grep" in raw:
        return True
    return any(_word_starts(raw, w) for w in _TOOLS[1:])


def is_scree_tool(raw: bytes) -> bool:
    """The payload names one of scree's own MCP tools (their calls are always logged)."""
    return b"mcp__plugin_scree_scree__" in raw


def debug_requested() -> bool:
    """SCREE_HOOKS_DEBUG is on (read without importing the rest of the hook kit)."""
    import os

    return os.environ.get("SCREE_HOOKS_DEBUG", "").strip().lower() in ("1", "on", "true", "yes")
