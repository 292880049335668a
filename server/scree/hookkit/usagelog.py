"""The local usage log: one JSON line per scree call, grep and hint, one file per project.

Written by the hooks (`append_event`), read by `scree usage` (`read_events`, `summarize`).
Nothing here sends anything anywhere. A file is 0600 in a 0700 directory and is capped: a line that
would take it past `MAX_BYTES` goes to a new file, the old one moving to `<name>.1` (replacing the
previous one), so a project keeps at most twice that. A line is capped too, whatever the payload: a
query or pattern (`text`) is kept up to MAX_TEXT_CHARS characters, any other string up to
MAX_FIELD_CHARS, and a whole line at MAX_LINE_BYTES (`capped_line`).

An event: `time` (ISO 8601 UTC), `session`, `project` (scree.locate.folder_key), `event`
(`search`, `read`, `reindex`, `grep`, `hint`, `other`), `tool`, `call` (tool_use_id),
`mode`, `results`, `bytes`, `duration_ms`; a `grep` event also names the program (`grep`: rg,
git-grep...), a `hint` event its `reason` (match, docs, prose), a `search` event whether the agent
sent its guess at the answer (`expanded`). The query or pattern is kept only as `text` (the guess as
`expected_answer`), and only when the user opted in with SCREE_USAGE_TEXT=1.
"""

from __future__ import annotations

import os
import time

from . import jsonio as json  # `import json` would pull in re and enum: see jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a hook ~2 ms it does not need
    from typing import Iterable, Mapping

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

MAX_BYTES = 1_000_000
MAX_TEXT_CHARS = 2000  # a query or grep pattern kept with SCREE_USAGE_TEXT=1 (search_docs cuts queries there too)
MAX_FIELD_CHARS = 200  # any other string: a tool name, a call or session id
MAX_LINE_BYTES = 16 * 1024
FOLLOW_WINDOW = 3  # a scree search within this many tool calls after a hint "follows" it


def usage_path(root: str, project_key: str) -> str:
    """`<root>/usage/<project_key>.jsonl`."""
    return os.path.join(root, "usage", f"{project_key}.jsonl")


def find_usage_files(env: Mapping[str, str] | None = None) -> list[str]:
    """Every usage log on this machine, for `scree usage` run outside a hook (no CLAUDE_PLUGIN_DATA then).

    Looks in $CLAUDE_PLUGIN_DATA/usage when set, in every scree plugin data dir under
    `${CLAUDE_CONFIG_DIR:-~/.claude}/plugins/data/scree-*/usage` (one per marketplace, plus
    `scree-inline` for --plugin-dir), and in ~/.cache/scree/usage (hooks run outside Claude Code).
    Rotated `.1` parts are not listed: `read_events` reads them with their file.
    """
    import glob

    from .mcpstate import config_dir

    env = os.environ if env is None else env
    home = env.get("HOME") or os.path.expanduser("~")
    config = config_dir(env)
    dirs = []
    if env.get("CLAUDE_PLUGIN_DATA", "").strip():
        dirs.append(os.path.join(env["CLAUDE_PLUGIN_DATA"].strip(), "usage"))
    dirs.extend(sorted(glob.glob(os.path.join(glob.escape(config), "plugins", "data", "scree-*", "usage"))))
    dirs.append(os.path.join(home, ".cache", "scree", "usage"))
    found: list[str] = []
    for d in dict.fromkeys(os.path.realpath(d) for d in dirs):
        found.extend(sorted(glob.glob(os.path.join(glob.escape(d), "*.jsonl"))))
    return found


def now_iso() -> str:
    """The current UTC time as the log writes it (millisecond precision)."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1000):03d}Z"


# The fields holding what the user typed (only with SCREE_USAGE_TEXT=1), kept to MAX_TEXT_CHARS.
TEXT_FIELDS = frozenset({"text", "expected_answer"})


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"... ({len(text) - limit} more characters)"


def capped_line(event: Mapping[str, object]) -> bytes:
    """`event` as one JSON line of at most MAX_LINE_BYTES: strings cut (saying how much was left out),
    and anything that is not a string, a number, a bool or null dropped (a hook only writes those)."""
    limits = {k: MAX_TEXT_CHARS if k in TEXT_FIELDS else MAX_FIELD_CHARS for k in event}
    while True:
        capped = {_cut(str(k), MAX_FIELD_CHARS): _cut(v, limits[k]) if isinstance(v, str) else
                  (v if v is None or isinstance(v, (bool, int, float)) else None) for k, v in event.items()}
        # A lone surrogate cannot be UTF-8: written as its JSON escape (\udcff), the line stays JSON.
        line = (json.dumps(capped, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8",
                                                                                             "backslashreplace")
        if len(line) <= MAX_LINE_BYTES or not any(limits.values()):
            return line  # escapes (\u0001 is six bytes) can outgrow the character caps: halve them
        limits = {k: n // 2 for k, n in limits.items()}


def append_event(path: str, event: Mapping[str, object], max_bytes: int = MAX_BYTES) -> None:
    """Append one event as a capped JSON line (`capped_line`), first moving the file to `.1` when the
    line would take it past `max_bytes`, so no file outgrows it.

    Concurrent writers are serialised by an exclusive flock on the file; a writer that waited on a
    file another one just rotated away reopens the new one.
    """
    line = capped_line(event)
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        os.makedirs(folder, mode=0o700, exist_ok=True)
    for _ in range(5):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            st = os.fstat(fd)
            try:
                current = os.stat(path)
            except FileNotFoundError:
                continue  # rotated away while we waited: open the new file
            if (current.st_ino, current.st_dev) != (st.st_ino, st.st_dev):
                continue
            if st.st_size and st.st_size + len(line) > max_bytes:
                os.replace(path, path + ".1")
                continue
            os.write(fd, line)
            return
        finally:
            os.close(fd)


def read_events(path: str, include_rotated: bool = True) -> list[dict]:
    """Every event in the log (the rotated `.1` part first), oldest first.

    Lines that are not JSON objects (a torn last line after a crash, a hand edit) are skipped.
    A missing file is an empty log.
    """
    events: list[dict] = []
    for p in ([path + ".1"] if include_rotated else []) + [path]:
        try:
            with open(p, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        for raw in data.split(b"\n"):
            if not raw.strip():
                continue
            try:
                value = json.loads(raw.decode("utf-8", errors="replace"))
            except ValueError:
                continue
            if isinstance(value, dict):
                events.append(value)
    return events


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    s = sorted(values)
    mid = len(s) // 2
    return float(s[mid]) if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _stats(events: list[dict]) -> dict:
    """Counters for one session's events in time order (the follow rules need one session's order)."""
    kinds = [str(e.get("event", "")) for e in events]
    out = {
        "events": len(events),
        "searches": kinds.count("search"),
        "searches_expanded": sum(1 for e in events if e.get("event") == "search" and e.get("expanded") is True),
        "reads": kinds.count("read"),
        "reindexes": kinds.count("reindex"),
        "greps": kinds.count("grep"),
        "hints_shown": kinds.count("hint"),
        "hints_followed": 0,
        "grep_after_search": 0,
    }
    for i, e in enumerate(events):
        kind = kinds[i]
        if kind not in ("hint", "search"):
            continue
        # The next tool calls, not counting hints or the hinted call itself (its own grep event).
        later = [x for x in events[i + 1:] if x.get("event") != "hint"
                 and not (kind == "hint" and e.get("call") and x.get("call") == e.get("call"))][:FOLLOW_WINDOW]
        if kind == "hint" and any(x.get("event") == "search" for x in later):
            out["hints_followed"] += 1
        if kind == "search" and any(x.get("event") == "grep" for x in later):
            out["grep_after_search"] += 1
    return out


def _bytes(events: Iterable[dict], kinds: frozenset[str]) -> list[float]:
    return [b for e in events if e.get("event") in kinds and (b := _number(e.get("bytes"))) is not None]


_COUNTERS = ("events", "searches", "searches_expanded", "reads", "reindexes", "greps", "hints_shown", "hints_followed",
             "grep_after_search")


def _group(events: Iterable[dict], field: str) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    for e in events:
        groups.setdefault(str(e.get(field, "")), []).append(e)
    return groups


def _summary(events: list[dict]) -> dict:
    """Counters summed over the sessions in `events` (time-ordered), with medians and the time span."""
    per_session = [_stats(evs) for evs in _group(events, "session").values()]
    out: dict = {k: sum(p[k] for p in per_session) for k in _COUNTERS}
    out["sessions"] = len(per_session)
    out["median_bytes_scree"] = _median(_bytes(events, frozenset({"search", "read"})))
    out["median_bytes_grep"] = _median(_bytes(events, frozenset({"grep"})))
    times = sorted(str(e["time"]) for e in events if isinstance(e.get("time"), str))
    out["first"] = times[0] if times else None
    out["last"] = times[-1] if times else None
    return out


def summarize(events: Iterable[Mapping[str, object]]) -> dict:
    """Usage figures: `total`, the same per `projects` and per `sessions`, and event counts per `days`.

    Per group: events, searches, searches_expanded (sent with an expected answer), reads, reindexes,
    greps, hints_shown, hints_followed (a scree search within the next 3 tool calls after a hint),
    grep_after_search (a grep within the next 3 tool calls after a scree search), sessions,
    median_bytes_scree vs median_bytes_grep, first/last.
    """
    ordered = sorted((dict(e) for e in events), key=lambda e: str(e.get("time", "")))
    days: dict[str, dict[str, int]] = {}
    for e in ordered:
        counts = days.setdefault(str(e.get("time", ""))[:10] or "unknown", {})
        kind = str(e.get("event", "other"))
        counts[kind] = counts.get(kind, 0) + 1
    return {
        "total": _summary(ordered),
        "projects": {p: _summary(evs) for p, evs in _group(ordered, "project").items()},
        "sessions": {s: _summary(evs) for s, evs in _group(ordered, "session").items()},
        "days": dict(sorted(days.items())),
    }
