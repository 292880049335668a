"""The MCP server: tools `search_docs`, `read_doc` and `reindex` over one notes folder.

Startup is built for a fast handshake: this module imports the SDK and pydantic only; the live
index (numpy, SQLite, the model) is imported and started by `IndexHandle` on a background thread
once the handshake is answered, and the first sync runs there. Tools wait for the handle.

Claude Code shows the model the compact JSON of `structuredContent`, so outputs are flat and
omit empty fields; every empty answer carries a `note` saying why and what to do.
"""

from __future__ import annotations

import functools
import hmac
import logging
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field, model_serializer

from . import __version__
from .config import Config
from .errors import ScreeError
from .records import Hit

if TYPE_CHECKING:  # imported for real only on the background thread (numpy, SQLite)
    from .live.live import IndexStatus, LiveIndex
    from .index.sync import SyncReport

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "scree searches this repository's notes and docs (design notes, ADRs, READMEs, runbooks; Markdown, "
    "reStructuredText/Sphinx with its API docstrings, AsciiDoc, PDF). "
    "For any question about what the repo's notes or docs say, call search_docs first, before grep, rg "
    "or find; then read_doc to read a whole section or file. Edits are indexed automatically."
)

DEFAULT_FIRST_SYNC_WAIT = 100.0  # seconds; below the 120 s per-call timeouts clients commonly use
MAX_READ_BYTES = 100_000
MAX_LISTED_PATHS = 30
MAX_QUERY_CHARS = 2000  # search.MAX_QUERY_CHARS (not imported: search pulls numpy in before the handshake)
MAX_GUESS_CHARS = 2000  # search.expansion.MAX_GUESS_CHARS, likewise
# The parameter's description is what the model reads in the tool list: when to fill it, when not.
EXPECTED_ANSWER = (
    "with a question in plain language: one to three sentences you expect the answer to say, in the words "
    "the docs would use (names you know from the code are welcome), e.g. for 'how are failed uploads "
    "retried': 'Failed uploads are retried three times with exponential backoff.' It widens the search; the "
    "query stays primary. Leave it out for a bare name, flag, setting or error string. Past "
    f"{MAX_GUESS_CHARS} characters it is cut")
ENGINE_OPEN_TIMEOUT = 60.0  # how long a tool waits for the background start (imports + open)

Mode = Literal["auto", "semantic", "keyword", "hybrid"]
# Integer and boolean tool arguments are strict (`Field(strict=True)`): pydantic's lax mode took
# `k=true` as 1 and `reindex(all="yes")` as a full rebuild. A number or boolean sent as a string
# (`"5"`, `"true"`) is refused too: the SDK's pre-parse leaves such scalars as strings.


class _Compact(BaseModel):
    """Dumps without None fields: the agent pays for every byte of `"note": null`."""

    @model_serializer(mode="wrap")
    def _drop_none(self, handler):  # noqa: ANN001, ANN202 - pydantic's serializer protocol
        return {k: v for k, v in handler(self).items() if v is not None}


class SearchHitOut(_Compact):
    path: str
    heading: str
    start_line: int
    end_line: int
    score: float
    text: str
    also_in: list[str] | None = None  # languages this page's copies, folded into this hit, are in


class SearchOut(_Compact):
    results: list[SearchHitOut]
    mode: str
    index: str
    note: str | None = None
    names: list[str] | None = None  # query words taken as names (matched verbatim)


class ReadOut(_Compact):
    path: str
    heading: str | None = None
    start_line: int
    end_line: int
    text: str
    note: str | None = None


class ReindexOut(_Compact):
    added: int
    updated: int
    removed: int
    unchanged: int
    changed: list[str]
    skipped: list[str] | None = None
    seconds: float
    index: str
    note: str | None = None


@dataclass(frozen=True)
class ServeOptions:
    """How the server behaves, from `scree serve` flags."""

    first_sync_wait: float = DEFAULT_FIRST_SYNC_WAIT  # see IndexHandle.wait_first_sync
    max_read_bytes: int = MAX_READ_BYTES
    watch: bool = True
    lock_retry: float = 5.0
    health_interval: float | None = None  # None: LiveIndex's default
    # For an index that exists, how long a search waits for the start sync's first stage (edits made while
    # no server watched). The shared engine sets it: it exits when idle and starts again at the next call.
    catch_up: float = 0.0


class IndexHandle:
    """Owns the LiveIndex: builds and starts it on a background thread, hands it to tools when ready.

    `first_build` is True when the index had no indexed file once started: searches then wait
    (bounded) for that first sync, because an answer from a half-built index is wrong in ways the
    agent cannot see.
    """

    def __init__(self, config: Config, folder: Path, options: ServeOptions) -> None:
        self.config = config
        self.folder = folder
        self.options = options
        self._ready = threading.Event()
        self._stopping = threading.Event()
        self._mu = threading.Lock()
        self._live: LiveIndex | None = None
        self._error: str | None = None
        self._first_build = False
        self._caught_up = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Return at once; the index opens and starts syncing on a daemon thread. Idempotent."""
        with self._mu:
            if self._thread is None and not self._stopping.is_set():
                self._thread = threading.Thread(target=self._open, name="scree-open", daemon=True)
                self._thread.start()

    def _open(self) -> None:
        try:
            from .live.live import LiveIndex
            from .locate import index_location
            from .index.store import has_indexed_files
            from .workspace import Workspace

            ws = Workspace(config=self.config, folder=self.folder, location=index_location(self.folder, self.config))
            self._first_build = not has_indexed_files(ws.location.db)
            tuning: dict[str, Any] = {} if self.options.health_interval is None else {"health_interval": self.options.health_interval}
            live = LiveIndex(ws, watch=self.options.watch, lock_retry=self.options.lock_retry, **tuning)
            with self._mu:
                if self._stopping.is_set():
                    return
                live.start()
                self._live = live
            log.info("index for %s opened (%s)", self.folder, live.status().describe())
        except ScreeError as exc:
            self._error = str(exc)
            log.error("cannot open the index: %s", exc)
        except Exception as exc:  # noqa: BLE001 - reported to every tool call instead of a dead server
            self._error = f"the index could not be opened ({type(exc).__name__}: {exc}); see the server log"
            log.exception("cannot open the index")
        finally:
            self._ready.set()

    def get(self, timeout: float = ENGINE_OPEN_TIMEOUT) -> LiveIndex:
        """The started LiveIndex (starting it if nobody did); raises ToolError when it failed to open
        or is not open in time."""
        self.start()
        if not self._ready.wait(timeout):
            raise ToolError("the index is still opening; try again in a few seconds")
        if self._live is None:
            raise ToolError(self._error or "the server is shutting down")
        return self._live

    def peek(self) -> LiveIndex | None:
        """The LiveIndex when it is open, without starting or waiting for it."""
        return self._live

    def wait_first_sync(self, live: LiveIndex, timeout: float) -> IndexStatus:
        """During the first sync of an index that started empty, wait up to `timeout` s for it to end."""
        status = live.status()
        if not self._first_build:
            if self.options.catch_up > 0 and not self._caught_up:
                # Bounded: past it the search answers from the index as it is, and its status says "syncing".
                live.wait_until(lambda st: st.state != "syncing" or self._stopping.is_set(), self.options.catch_up)
                self._caught_up = True
                return live.status()
            return status
        over = live.wait_until(lambda st: st.state != "syncing" or self._stopping.is_set(), timeout)
        if over:
            self._first_build = False  # the first sync is over: later searches never wait
        return live.status()

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop the index's threads; True when they ended within `timeout`."""
        self._stopping.set()
        with self._mu:
            live = self._live
            self._live = None
        return live.stop(timeout) if live is not None else True


class StartAfterHandshake:
    """SDK middleware: start the index on the first message after `initialize`.

    Opening the index imports numpy and SQLite and starts a sync; on a busy machine that competes
    with the handshake for the CPU and the GIL, and the client waits for the handshake, not for the
    index. Any later message (normally `notifications/initialized`, sent at once) starts it.
    """

    def __init__(self, handle: IndexHandle) -> None:
        self.handle = handle

    async def __call__(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        if ctx.method != "initialize":
            self.handle.start()
        return await call_next(ctx)


F = TypeVar("F", bound=Callable[..., Any])


def speaks_scree_errors(fn: F) -> F:
    """Let the agent read scree's own message for every anticipated failure.

    The SDK shows the model only "Error executing tool <name>" for any exception but `ToolError`; a
    `ScreeError` says what happened and what to do (a broken model: how to reinstall it; a held lock:
    whose), so it is turned into a `ToolError` carrying that text. `functools.wraps` keeps the
    signature the SDK builds the input schema from.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ScreeError as exc:
            raise ToolError(str(exc)) from exc

    return wrapper  # type: ignore[return-value]


def build_server(handle: IndexHandle) -> MCPServer:
    """The MCP server with its three tools bound to `handle`; the index starts after the handshake
    (or earlier, by `handle.start()`)."""
    mcp = MCPServer("scree", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING",
                    middleware=[StartAfterHandshake(handle)])
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    def tool(annotations: ToolAnnotations) -> Callable[[F], F]:
        """Register a tool: every tool goes through here, so every tool speaks scree's errors."""
        def register(fn: F) -> F:
            mcp.tool(annotations=annotations)(speaks_scree_errors(fn))
            return fn
        return register

    @tool(read_only)
    def search_docs(
        query: Annotated[str, Field(description=f"a question or the names you look for; past {MAX_QUERY_CHARS} "
                                                "characters it is cut (the answer's note says so)")],
        k: Annotated[int, Field(ge=1, le=50, strict=True, description="how many sections to return; asking for more "
                                "only adds results after the same first ones")] = 5,
        mode: Mode = "auto",
        path: Annotated[str | list[str] | None, Field(description="glob(s) to search within, e.g. 'docs/**'")] = None,
        expected_answer: Annotated[str | None, Field(description=EXPECTED_ANSWER)] = None,
    ) -> SearchOut:
        """Search this repo's notes and docs (Markdown, reStructuredText, AsciiDoc, PDF) by meaning and keywords; returns the best
        sections (path, heading trail, lines, text). Ask a question (and pass expected_answer, your
        guess at the answer) or name what you look for."""
        globs = (path,) if isinstance(path, str) else tuple(path or ())
        check_text("query", query)
        if expected_answer is not None:
            check_text("expected_answer", expected_answer)
        for glob in globs:
            check_text("path", glob)
        live = handle.get()
        # Only now: the handle's thread has imported numpy (via the live index). A first import of
        # numpy on two threads at once can hand one of them a half-initialised module.
        from .search.search import Query
        from .errors import BadPattern
        from .notes.ignorerules import check_globs

        try:
            check_globs(globs)
        except BadPattern as exc:
            raise ToolError(str(exc)) from None
        handle.wait_first_sync(live, handle.options.first_sync_wait)
        result = live.search(Query(query, k=k, mode=mode, paths=globs, expected_answer=expected_answer or ""))
        status = live.status()
        return search_output(result.hits, result.mode, result.notes, status, result.names)

    @tool(read_only)
    def read_doc(
        path: str,
        heading: Annotated[str | None, Field(description="section trail, e.g. 'Tokens' or 'Auth > Tokens'")] = None,
        start_line: Annotated[int | None, Field(strict=True)] = None,
        end_line: Annotated[int | None, Field(strict=True)] = None,
    ) -> ReadOut:
        """Read a note or doc of this repo verbatim: the whole file, one section by heading, or a line range.
        `path` may also be a wikilink a note holds, e.g. '[[Setup]]' or '[[Setup#Install]]'."""
        check_text("path", path)
        if heading is not None:
            check_text("heading", heading)
        return read_output(handle.folder, path, heading=heading, start_line=start_line, end_line=end_line,
                           max_file_bytes=handle.config.max_file_bytes, max_bytes=handle.options.max_read_bytes,
                           suffixes=handle.config.note_suffixes)

    @tool(ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False))
    def reindex(all: Annotated[bool, Field(strict=True)] = False) -> ReindexOut:  # noqa: A002 - the tool's public parameter name
        """Sync the notes index now and report what changed (all=true rebuilds it). Rarely needed:
        edits are indexed automatically."""
        live = handle.get()
        report = live.reindex(rebuild=all)  # LockHeld names the writer's pid; others say why the index is unusable
        return reindex_output(report, live.status())

    return mcp


def check_text(name: str, value: str) -> None:
    """Refuse an argument that no answer could carry: a lone UTF-16 surrogate cannot be encoded, so
    a reply echoing it would never be sent (stdout is UTF-8). The message escapes it. (Over stdio the
    transport already read each lone surrogate as U+FFFD: `stdio/stdinfilter.py`; U+FFFF is valid text.)"""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = value[exc.start:exc.end].encode("utf-8", "backslashreplace").decode("ascii")
        raise ToolError(f"{name} holds an invalid character ({bad}, a lone UTF-16 surrogate, at position "
                        f"{exc.start}): send valid Unicode text") from None


def search_output(hits: list[Hit], mode: str, notes: list[str], status: IndexStatus,
                  names: list[str] | None = None) -> SearchOut:
    """The structured answer of search_docs; never empty without a note saying why."""
    # LiveIndex.search puts the index state first among its notes; `index` already says it.
    said = status.describe().split(":", 1)[0] + ":"
    described = status.describe()  # stage two's progress is said there once, not again as a note
    remarks = [n for n in notes if not (status.state != "complete" and n.startswith(said)) and n not in described]
    if not hits and not remarks:
        remarks.append("no note matches this query; try other words")
    return SearchOut(
        results=[SearchHitOut(path=h.path, heading=h.heading, start_line=h.start_line, end_line=h.end_line,
                              score=h.score, text=h.text, also_in=list(h.also_in) or None) for h in hits],
        mode=mode, index=status.describe(), note="; ".join(remarks) or None, names=names or None,
    )


def read_output(folder: Path, path: str, *, heading: str | None, start_line: int | None, end_line: int | None,
                max_file_bytes: int, max_bytes: int, suffixes: tuple[str, ...] | None = None) -> ReadOut:
    """read_doc: resolve `path` (or a `[[wikilink]]`, see `wikilinks`) under the folder's current policy,
    read it, cut the asked part.

    Refusals (outside the folder, symlinks out, not a doc scree reads, ignored...) raise ToolError with the reason.
    """
    from .errors import FileSkipped, PathRefused
    from .notes.policy import NotesPolicy
    from .notes.reader import read_note
    from .notes.autodocpage import docstring_excerpt, with_own_docstrings
    from .notes.argparsepage import with_cli_options
    from .notes.includes import included_excerpt, with_included_lines
    from .notes.modules import ModuleFiles
    from .notes.sections import excerpt
    from .notes.walk import walk_notes
    from .notes.wikilinks import parse_wikilink, resolve_wikilink

    if "\x00" in path:
        raise ToolError("path holds a NUL character, which no file name can contain: send the note's path "
                        "relative to the notes folder, e.g. 'docs/setup.md'")
    # Fresh: ignore files may have changed since the last call.
    policy = NotesPolicy.load(folder, suffixes=suffixes) if suffixes else NotesPolicy.load(folder)
    link = parse_wikilink(path)
    if link is not None:  # `[[Page]]`, `[[Page#Heading]]`, `[[Page|alias]]`: the note the link names
        named = resolve_wikilink(link.target, (p for p in walk_notes(policy) if isinstance(p, str)),
                                 policy.suffixes) if link.target else None
        if named is None:
            raise ToolError(f"cannot read {path!r}: no note is named {link.target!r} (a wikilink names a note by "
                            "its file name without the extension, or by its path)")
        path, heading = named, heading or link.heading
    try:
        rel = policy.resolve(path)
    except PathRefused as exc:
        raise ToolError(f"cannot read {path!r}: {exc.reason}") from None
    try:
        note = read_note(policy, rel, max_bytes=max_file_bytes)
    except FileSkipped as exc:
        raise ToolError(f"cannot read {rel!r}: {exc.reason}") from None
    kind = policy.note_kind(rel)
    modules = ModuleFiles(policy)  # one reader of the folder's modules and conf.py for every step below
    try:
        ex = excerpt(note.text, heading=heading, start_line=start_line, end_line=end_line, max_bytes=max_bytes,
                     kind=kind, changelog_sections=modules.changelog_sections(rel, note.text))
        if heading:
            ex = with_own_docstrings(ex, note.text, kind, modules, max_bytes, modules.summary_members(rel),
                                     modules.autodoc_defaults(rel))
        ex = with_included_lines(ex, note.text, kind, rel, modules.text, max_bytes)
        ex = with_cli_options(ex, note.text, kind, modules, max_bytes)
    except ScreeError as exc:
        shown = docstring_excerpt(note.text, kind, heading, modules, max_bytes, modules.summary_members(rel),
                                  modules.autodoc_defaults(rel)) if heading else None
        if shown is None and heading:  # a heading a snippet brings into the page (`mkdocssnippets.SPLICED`)
            shown = included_excerpt(note.text, kind, heading, rel, modules.text, max_bytes)
        if shown is None:
            raise ToolError(f"{rel}: {exc}") from None
        ex = shown
    remarks = [r for r in (ex.note, *note.warnings) if r]
    if not ex.text.strip():
        remarks.append("this part of the file is empty")
    return ReadOut(path=rel, heading=ex.heading, start_line=ex.start_line, end_line=ex.end_line, text=ex.text,
                   note="; ".join(remarks) or None)


def reindex_output(report: SyncReport, status: IndexStatus) -> ReindexOut:
    """reindex's answer: counts, the changed paths (capped), skips with reasons, and the index state."""
    changed = ([f"added {p}" for p in report.added] + [f"updated {p}" for p in report.updated]
               + [f"removed {p}" for p in report.removed])
    skipped = [f"{s.rel_path}: {s.reason}" for s in report.skipped]
    remarks = [*report.warnings, *(m for m in (report.reset, report.rechunked) if m)]
    if len(changed) > MAX_LISTED_PATHS:
        remarks.append(f"{len(changed) - MAX_LISTED_PATHS} more changed paths not listed")
    if len(skipped) > MAX_LISTED_PATHS:
        remarks.append(f"{len(skipped) - MAX_LISTED_PATHS} more skipped paths not listed")
    if not report.changed and report.vectors_missing:
        remarks.append(f"no note changed; {report.vectors_missing:,} chunks still lack vectors (keyword search "
                       "covers them)")
    elif not report.changed:
        remarks.append("nothing changed: the index already matched the notes")
    return ReindexOut(
        added=len(report.added), updated=len(report.updated), removed=len(report.removed),
        unchanged=report.unchanged, changed=changed[:MAX_LISTED_PATHS], skipped=skipped[:MAX_LISTED_PATHS] or None,
        seconds=round(report.seconds, 2), index=status.describe(), note="; ".join(remarks[:10]) or None,
    )


# ----- HTTP ------------------------------------------------------------------------------------

def transport_security(host: str, port: int, extra_hosts: tuple[str, ...] = ()) -> TransportSecuritySettings:
    """DNS-rebinding protection: only Host headers naming this server (the bound address or a
    localhost form, with the port) and Origins built from them are accepted."""
    names = {host, "localhost", "127.0.0.1", "[::1]", *extra_hosts}
    hosts = sorted({(f"[{n}]" if ":" in n and not n.startswith("[") else n) + f":{port}" for n in names})
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")],
    )


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BearerAuth:
    """ASGI wrapper: every HTTP request needs `Authorization: Bearer <token>` (constant-time compare)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = token.encode()

    def _authorized(self, headers: list[tuple[bytes, bytes]]) -> bool:
        """Exactly one Authorization header, scheme `Bearer` in any case (RFC 7235), the right token."""
        given = [v for k, v in headers if k.lower() == b"authorization"]
        if len(given) != 1:
            return False
        scheme, _, token = given[0].strip().partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(token.strip(), self._expected)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            if not self._authorized(list(scope.get("headers") or [])):
                body = b"missing or wrong bearer token: send 'Authorization: Bearer <SCREE_HTTP_TOKEN>'"
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(server: MCPServer, *, host: str, port: int, token: str | None,
             extra_hosts: tuple[str, ...] = ()) -> ASGIApp:
    """The streamable-HTTP app at /mcp with Host/Origin checks, behind a bearer token when one is set."""
    # json_response: a tool call is answered with one JSON body, not an SSE stream opened and closed
    # per request (scree's tools send no progress events); under 16 clients the streams cost more than the search.
    app: ASGIApp = server.streamable_http_app(transport_security=transport_security(host, port, extra_hosts),
                                              host=host, json_response=True)
    return BearerAuth(app, token) if token else app
