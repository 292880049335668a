"""The per-user engine: one process that serves every Claude Code session's MCP calls over a Unix socket.

Each session runs a small stdlib relay (`relay/relay.py`) that answers the handshake itself and forwards
the rest here. The engine holds the SDK, the indexes (one `IndexHandle` per folder and config, shared by
every session on that folder: one writer, one model) and exits once no call has come for
SCREE_ENGINE_IDLE seconds and no index is syncing, so what it allocated goes back to the system; the
next call starts it again. One connection is one MCP session, run on its own thread and event loop.

Only one engine listens per socket: it holds an flock on `<socket>.lock` for its whole life; a second
one started in a race finds the lock taken and leaves (exit 0), and its relay connects to the first.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Mapping

from .. import __version__
from ..config import Config
from ..errors import ScreeError
from ..relay import channel

log = logging.getLogger(__name__)

DEFAULT_IDLE_SECONDS = 120.0
HELLO_TIMEOUT = 10.0  # a connection that says nothing is dropped
IDLE_TICK = 1.0

# A relay's hello -> the config, notes folder and serve options of its session (the CLI parses them:
# they are `scree serve`'s own flags and settings).
Settings = Callable[[Mapping[str, Any]], "tuple[Config, Path, Any]"]


@dataclass
class Activity:
    """When a session last said anything and which of its requests are still unanswered, over all
    connections: the engine is idle when nothing is pending and nothing was said for the idle time."""

    last: float = field(default_factory=time.monotonic)
    pending: dict[int, set[Any]] = field(default_factory=dict)  # connection number -> request ids
    sessions: int = 0
    hellos: int = 0  # connections accepted and not yet ready (their hello opens an index, which may take long)
    leaving: bool = False  # the engine decided it is idle and is exiting: it takes no more requests
    mu: threading.Lock = field(default_factory=threading.Lock)

    def heard(self, conn: int, message: Any) -> bool:
        """Count a message from a session; False once the engine is leaving, when it must not be answered: its
        relay sends it again to the next engine."""
        with self.mu:
            if self.leaving:
                return False
            self.last = time.monotonic()
            if isinstance(message, dict) and "method" in message and message.get("id") is not None:
                self.pending.setdefault(conn, set()).add(_id_key(message["id"]))
            return True

    def answered(self, conn: int, message: Any) -> None:
        with self.mu:
            self.last = time.monotonic()
            if isinstance(message, dict) and "method" not in message and "id" in message:
                self.pending.get(conn, set()).discard(_id_key(message["id"]))

    def closed(self, conn: int) -> None:
        with self.mu:
            self.pending.pop(conn, None)
            self.last = time.monotonic()

    def hello_started(self) -> None:
        with self.mu:
            self.hellos += 1

    def hello_ended(self) -> None:
        with self.mu:
            self.hellos -= 1
            self.last = time.monotonic()

    def idle_for(self) -> float | None:
        """Seconds since the last message, or None while a request is unanswered or a connection says hello: under
        load a hello that opened its index for longer than the idle time let the engine exit under the session."""
        with self.mu:
            return self._idle()

    def leave_if_idle(self, idle_seconds: float) -> float | None:
        """Decide, with the same lock `heard` takes, that the engine leaves: the seconds it was idle, or None when
        it is not idle that long. A request read after this is dropped, never answered "shutting down"."""
        with self.mu:
            idle = self._idle()
            if idle is None or idle < idle_seconds:
                return None
            self.leaving = True
            return idle

    def _idle(self) -> float | None:  # under `mu`
        if self.hellos or any(self.pending.values()):
            return None
        return time.monotonic() - self.last


def _id_key(value: Any) -> Any:
    return value if isinstance(value, (str, int)) else json.dumps(value, sort_keys=True)


class SocketLines:
    """A connection as the SDK's stdio transport wants its two files: `readline` gives one request
    (a lone surrogate repaired, as on stdio), `write`/`flush` send replies. Both sides report to
    `Activity`. Sync methods: the transport runs them on worker threads (`anyio.wrap_file`)."""

    def __init__(self, sock: socket.socket, rfile: IO[bytes], number: int, activity: Activity) -> None:
        self._rfile = rfile
        self._sock = sock
        self._number = number
        self._activity = activity
        self._out: list[str] = []
        self._wmu = threading.Lock()

    def readline(self) -> str:
        from ..stdio.stdinfilter import clean_line

        try:
            raw = self._rfile.readline()
        except OSError:
            return ""
        if not raw:
            return ""
        line = clean_line(raw).decode("utf-8", "replace")
        if not self._activity.heard(self._number, _parsed(line)):
            return ""  # the engine is leaving: the session ends here, and its relay sends the request on
        return line

    def write(self, text: str) -> int:
        with self._wmu:
            self._out.append(text)
        return len(text)

    def flush(self) -> None:
        with self._wmu:
            data, self._out = "".join(self._out), []
        if not data:
            return
        for line in data.splitlines():
            self._activity.answered(self._number, _parsed(line))
        try:
            self._sock.sendall(data.encode("utf-8"))
        except OSError:  # the relay went away; its session is over
            pass


def _parsed(line: str) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return None


class Engine:
    """Listens on `sock_path`, keeps one IndexHandle per (folder, config, options), exits when idle."""

    def __init__(self, sock_path: str, settings: Settings, idle_seconds: float = DEFAULT_IDLE_SECONDS) -> None:
        self.sock_path = sock_path
        self._settings = settings
        self.idle_seconds = idle_seconds
        self.activity = Activity()
        self._handles: dict[str, Any] = {}
        self._users: dict[str, int] = {}  # sessions per handle key
        self._hmu = threading.Lock()
        self._listener: socket.socket | None = None
        self._inode = -1
        self._lock_file: IO[bytes] | None = None
        self._started = time.time()
        self._count = 0
        self._stopping = threading.Event()
        self._leaving_idle = threading.Event()  # the idle watch is stopping the engine and ends the process
        self._conns: dict[int, socket.socket] = {}  # live sessions' connections, hung up when the engine leaves

    # ----- life -----------------------------------------------------------------------------------

    def claim(self) -> bool:
        """Take the socket's lock and listen; False when another engine holds it."""
        import fcntl

        directory = os.path.dirname(self.sock_path)
        channel.ensure_private_dir(directory)
        lock = open(self.sock_path + ".lock", "ab")  # noqa: SIM115 - held for the process's life
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            return False
        self._lock_file = lock
        try:
            os.unlink(self.sock_path)  # a socket left by an engine that was killed: nobody listens there
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.sock_path)
        os.chmod(self.sock_path, 0o600)
        self._inode = os.stat(self.sock_path).st_ino  # a socket's fstat names no file: remember the path's
        listener.listen(64)
        self._listener = listener
        return True

    def serve_forever(self) -> int:
        """Accept sessions until idle; the exit code of `scree engine`."""
        assert self._listener is not None
        watch = threading.Thread(target=self._idle_watch, name="scree-idle", daemon=True)
        watch.start()
        log.info("engine %d listening on %s (exits after %g s idle)", os.getpid(), self.sock_path, self.idle_seconds)
        while not self._stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                break  # the listener was closed by the idle watch
            self._count += 1
            threading.Thread(target=self._session, args=(conn, self._count), name=f"scree-session-{self._count}",
                             daemon=True).start()
        if self._leaving_idle.is_set():
            # The idle watch closed the listener and is stopping the indexes; it ends the process with
            # os._exit. Returning now would finalize the interpreter while daemon threads (a sync's embedding,
            # in onnxruntime) still run, which aborts the process ("FATAL: exception not rethrown").
            watch.join()
        return 0

    def _idle_watch(self) -> None:
        while not self._stopping.wait(IDLE_TICK):
            if self._busy():
                continue
            idle = self.activity.leave_if_idle(self.idle_seconds)
            if idle is None:
                continue
            log.info("engine idle for %.0f s: exiting", idle)
            self._leaving_idle.set()
            # Each relay sees its connection close at once and sends a call that came meanwhile to the next engine,
            # instead of that call meeting indexes that are stopping.
            self._hang_up()
            self.shutdown()
            os._exit(0)

    def _hang_up(self) -> None:
        with self._hmu:
            conns = list(self._conns.values())
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _busy(self) -> bool:
        """An index still syncing or embedding keeps the engine: a first build must not stop at the idle time."""
        with self._hmu:
            handles = list(self._handles.values())
        for handle in handles:
            live = handle.peek()
            if live is not None and live.status().state in ("syncing", "embedding"):
                return True
        return False

    def shutdown(self, timeout: float = 5.0) -> None:
        """Stop listening (removing our socket, not a successor's), then stop every index."""
        self._stopping.set()
        listener, self._listener = self._listener, None
        if listener is not None:
            try:
                mine = os.stat(self.sock_path).st_ino == self._inode
            except OSError:
                mine = False
            if mine:
                try:
                    os.unlink(self.sock_path)
                except OSError:
                    pass
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        with self._hmu:
            handles, self._handles = list(self._handles.values()), {}
        for handle in handles:
            handle.stop(timeout)

    # ----- one session ----------------------------------------------------------------------------

    def _session(self, conn: socket.socket, number: int) -> None:
        self.activity.hello_started()
        saying_hello = True
        with self._hmu:
            self._conns[number] = conn
        try:
            uid = channel.peer_uid(conn)
            if uid is not None and uid != os.getuid():
                log.warning("refused a connection from uid %d", uid)
                return
            conn.settimeout(HELLO_TIMEOUT)
            rfile = conn.makefile("rb")  # one reader for the whole connection: it buffers past the hello
            first = rfile.readline()
            conn.settimeout(None)
            try:
                message = channel.decode(first)
            except ValueError:
                return
            if message["scree"] == "status":
                conn.sendall(channel.encode(self.describe()))
                return
            if message["scree"] != "hello":
                return
            try:
                key, handle = self._handle_for(message)
            except ScreeError as exc:
                conn.sendall(channel.encode({"scree": "refused", "error": str(exc)}))
                return
            with self.activity.mu:
                self.activity.sessions += 1
            try:
                conn.sendall(channel.encode({"scree": "ready", "pid": os.getpid(), "version": __version__}))
                self.activity.hello_ended()
                saying_hello = False
                self._run_mcp(handle, conn, rfile, number)
            finally:
                with self.activity.mu:
                    self.activity.sessions -= 1
                self.activity.closed(number)
                self._release(key)
        except OSError as exc:
            log.debug("session %d ended: %s", number, exc)
        except Exception:  # noqa: BLE001 - one session's bug must not end the others'
            log.exception("session %d failed", number)
        finally:
            if saying_hello:
                self.activity.hello_ended()
            with self._hmu:
                self._conns.pop(number, None)
            try:
                conn.close()
            except OSError:
                pass

    def _run_mcp(self, handle: Any, conn: socket.socket, rfile: IO[bytes], number: int) -> None:
        import anyio

        from ..mcpserver import build_server
        from ..stdio.stdioguard import serve_streams

        lines = SocketLines(conn, rfile, number, self.activity)
        server = build_server(handle)
        anyio.run(serve_streams, server, anyio.wrap_file(lines), anyio.wrap_file(lines))  # type: ignore[arg-type]

    def _handle_for(self, hello: Mapping[str, Any]) -> tuple[str, Any]:
        """The IndexHandle a session's flags and settings name, shared with every session naming the same."""
        from ..mcpserver import IndexHandle

        cfg, folder, options = self._settings(hello)
        key = json.dumps([str(folder), repr(cfg), repr(options)])
        with self._hmu:
            handle = self._handles.get(key)
            if handle is None:
                handle = IndexHandle(cfg, folder, options)
                self._handles[key] = handle
            self._users[key] = self._users.get(key, 0) + 1
        return key, handle

    def _release(self, key: str) -> None:
        """A session ended: the last one on an index stops it, which frees the writer lock at once, as
        a session's own server did when it exited (a `scree reindex` in a terminal then runs)."""
        with self._hmu:
            self._users[key] -= 1
            if self._users[key] > 0:
                return
            del self._users[key]
            handle = self._handles.pop(key, None)
        if handle is not None:
            handle.stop()

    def describe(self) -> dict[str, Any]:
        """What `scree status`/doctor show of a running engine."""
        from ..memory import rss_mb

        with self._hmu:
            folders = sorted({str(h.folder) for h in self._handles.values()})
        idle = self.activity.idle_for()
        return {"scree": "status", "pid": os.getpid(), "version": __version__, "socket": self.sock_path,
                "uptime": round(time.time() - self._started, 1), "sessions": self.activity.sessions,
                "folders": folders, "rss_mb": rss_mb(), "idle": None if idle is None else round(idle, 1),
                "idle_exit": self.idle_seconds}


def run_engine(sock_path: str, settings: Settings, idle_seconds: float,
               on_ready: Callable[[], None] | None = None) -> int:
    """`scree engine`: listen on `sock_path` until idle (exit 0 at once when another engine already does)."""
    engine = Engine(sock_path, settings, idle_seconds)
    if not engine.claim():
        log.info("another engine already serves %s", sock_path)
        return 0
    if on_ready is not None:
        on_ready()
    try:
        return engine.serve_forever()
    finally:
        engine.shutdown()

