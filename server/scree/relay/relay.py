"""A session's `scree serve` inside Claude Code: a small stdlib-only relay in front of the user's engine.

Why: each Claude Code session starts its own server. Run whole, each held the SDK, an index and a model
(150-570 MB idle), and one that needed uv or an environment it did not have failed the handshake, which
made Claude Code skip it for 15 minutes. The relay needs only a `python3`: it answers the handshake,
`tools/list` and `ping` itself from `tools.json` at once, and forwards every other request to one engine
per user (`scree engine`, see `engine/engine.py`) over a private Unix socket, starting the engine (and,
on a first run, fetching uv and letting it build the environment) in the background. A tool call that
comes before the engine is up waits a little, then answers with what is happening and when search will
be ready, so the session keeps its tools and the agent can call again.

When the engine exits (idle, killed, upgraded), the next call starts it again; a call it was answering
is sent once more to the new engine. Stdout carries only protocol messages.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import IO, Any, Callable, Dict, List, Mapping, Optional

from . import channel
from .toolschemas import initialize_result, load_snapshot

# How long a tool call waits for an engine that is starting before it answers with the state instead.
CALL_WAIT = 45.0
ENGINE_START_TIMEOUT = 900.0  # a first run builds the environment: minutes on a slow network
CONNECT_POLL = 0.1
RETRY_FAILED_AFTER = 10.0  # a failed start is tried again by a call at least this long after
INIT_ID = "scree-relay-init"
MAX_RESENDS = 1
EMPTY_LISTS: Dict[str, Dict[str, List[Any]]] = {"prompts/list": {"prompts": []}, "resources/list": {"resources": []},
               "resources/templates/list": {"resourceTemplates": []}}


class EngineDown(Exception):
    """No engine answers: why, for the tool result."""


class State:
    """What the relay is doing about its engine, said in a tool answer while search is not ready."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.phase = "idle"  # idle | fetching-uv | building | starting | ready | failed
        self.detail = ""
        self.since = time.monotonic()
        self.failed_at = 0.0

    def set(self, phase: str, detail: str = "") -> None:
        with self.cond:
            if phase != self.phase:
                self.since = time.monotonic()
            self.phase, self.detail = phase, detail
            if phase == "failed":
                self.failed_at = time.monotonic()
            self.cond.notify_all()

    def describe(self) -> str:
        took = int(time.monotonic() - self.since)
        if self.phase == "fetching-uv":
            return ("scree is being set up for its first run: downloading uv, which installs its Python environment "
                    "(%d s so far). Search will be ready in this session, usually within 1-3 minutes: call this "
                    "tool again then; meanwhile use Grep and Read. %s" % (took, self.detail)).strip()
        if self.phase == "building":
            return ("scree is being set up for its first run: installing its Python environment (%d s so far; "
                    "usually 1-3 minutes). Search will be ready in this session: call this tool again in a "
                    "minute; meanwhile use Grep and Read." % took)
        if self.phase == "failed":
            return "scree could not start its engine: %s" % self.detail
        return ("scree's engine is starting (%d s so far); call this tool again in a few seconds." % took)


class Link:
    """One live connection to the engine, past its hello and the replayed handshake."""

    def __init__(self, sock: socket.socket, rfile: IO[bytes]) -> None:
        self.sock = sock
        self.rfile = rfile
        self.wmu = threading.Lock()
        self.alive = True
        self.closed = threading.Event()  # the engine closed its end

    def send(self, data: bytes) -> None:
        with self.wmu:
            self.sock.sendall(data)

    def close(self) -> None:
        self.alive = False
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class Relay:
    def __init__(self, root: str, data: str, argv: List[str], env: Mapping[str, str],
                 out: IO[bytes], err: IO[str], fetch_uv: Optional[Callable[..., str]] = None) -> None:
        self.root, self.data, self.argv, self.env = root, data, list(argv), dict(env)
        self.out, self.err = out, err
        self.snapshot = load_snapshot()
        self.state = State()
        self.omu = threading.Lock()
        self.lmu = threading.Lock()  # one start or connect at a time
        self.link: Optional[Link] = None
        self.pending: Dict[str, Dict[str, Any]] = {}  # request id (as JSON) -> the message, while unanswered
        self.sent: Dict[str, int] = {}  # request id (as JSON) -> times sent to an engine
        # request id (as JSON) -> the link it was handed to. Each unanswered request has one owner: the
        # forward thread until the link has it, then the link, whose loss (`_lost`) sends it again. Without
        # the handoff a call sent as the engine left for idle was answered "went away", or sent twice.
        self.carried: Dict[str, Link] = {}
        self.pmu = threading.Lock()
        self.init_params: Dict[str, Any] = {}
        self.proc: Optional[subprocess.Popen] = None
        self._fetch_uv = fetch_uv
        directory = channel.engine_dir(self.env)
        stamp = channel.code_stamp(root)
        self.sock_path = ""
        self.unsafe = ""
        try:
            channel.ensure_private_dir(directory)
            self.sock_path = channel.socket_path(directory, channel.engine_key(root, data, stamp))
        except (channel.UnsafeDir, OSError) as exc:
            self.unsafe = str(exc)

    # ----- stdout ---------------------------------------------------------------------------------

    def write(self, message: Dict[str, Any]) -> None:
        line = (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "replace")
        with self.omu:
            self.out.write(line)
            self.out.flush()

    def write_raw(self, line: bytes) -> None:
        with self.omu:
            self.out.write(line if line.endswith(b"\n") else line + b"\n")
            self.out.flush()

    def reply(self, request_id: Any, result: Dict[str, Any]) -> None:
        self.write({"jsonrpc": "2.0", "id": request_id, "result": result})

    def error(self, request_id: Any, code: int, text: str) -> None:
        self.write({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}})

    def say(self, text: str) -> None:
        try:
            self.err.write("scree relay: %s\n" % text)
            self.err.flush()
        except (OSError, ValueError):
            pass

    # ----- stdin ----------------------------------------------------------------------------------

    def run(self, source: IO[bytes]) -> int:
        for raw in iter(source.readline, b""):
            self.dispatch(raw)
        self.close()
        return 0

    def close(self, wait: float = 5.0) -> None:
        """The session is over (stdin closed): end this session in the engine and wait until it has let
        go of the index, so the writer lock is free when this process exits, as it was when each
        session ran its own server."""
        link = self.link
        if link is None or not link.alive:
            return
        try:
            link.sock.shutdown(socket.SHUT_WR)
        except OSError:
            return
        link.closed.wait(wait)

    def dispatch(self, raw: bytes) -> None:
        if not raw.strip():
            return
        try:
            message = json.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            self.error(None, -32700, "Parse error: the line is not JSON")
            return
        if not isinstance(message, dict):
            self.error(None, -32600, "Invalid Request: send one JSON object per line (batches are not supported)")
            return
        method = message.get("method")
        request_id = message.get("id")
        if method is None:  # the client's answer to a request the engine made
            self._forward_if_linked(message)
            return
        if not isinstance(method, str):
            if request_id is not None:
                self.error(request_id, -32600, "Invalid Request: method must be a string")
            return
        if request_id is None:  # a notification
            if method != "notifications/initialized":
                self._forward_if_linked(message)
            return
        if method == "initialize":
            given = message.get("params")
            params: Dict[str, Any] = given if isinstance(given, dict) else {}
            self.init_params = params
            self.reply(request_id, initialize_result(params.get("protocolVersion"), self.snapshot))
            threading.Thread(target=self._warm, name="scree-warm", daemon=True).start()
        elif method == "ping":
            self.reply(request_id, {})
        elif method == "tools/list":
            self.reply(request_id, {"tools": self.snapshot["tools"]})
        elif method in EMPTY_LISTS:
            self.reply(request_id, EMPTY_LISTS[method])
        else:
            threading.Thread(target=self.forward, args=(message,), name="scree-call", daemon=True).start()

    def _forward_if_linked(self, message: Dict[str, Any]) -> None:
        link = self.link
        if link is not None and link.alive:
            try:
                link.send(_line(message))
            except OSError:
                pass

    # ----- calls ----------------------------------------------------------------------------------

    def _warm(self) -> None:
        """Start (or reach) the engine as the session begins, as the in-process server opened its index
        after the handshake: the first search then finds it ready."""
        try:
            self.ensure_link(time.monotonic() + ENGINE_START_TIMEOUT)
        except EngineDown as exc:
            self.say(str(exc))

    def forward(self, message: Dict[str, Any]) -> None:
        key = json.dumps(message.get("id"))
        with self.pmu:
            self.pending[key] = message
        while True:
            with self.pmu:
                if key not in self.pending:
                    return  # answered meanwhile
                tries = self.sent[key] = self.sent.get(key, 0) + 1
            link: Optional[Link] = None
            try:
                link = self.ensure_link(time.monotonic() + CALL_WAIT)
                with self.pmu:
                    self.carried[key] = link
                link.send(_line(message))
                return
            except (EngineDown, OSError) as exc:
                with self.pmu:
                    if link is not None:
                        if self.carried.get(key) is not link:
                            return  # the link was lost meanwhile and `_lost` sends the request again
                        del self.carried[key]
                    # A send that fails found the engine gone before the request reached it (it left for idle
                    # as the call came): the next engine gets it, as a request lost in flight does.
                    again = link is not None and tries <= MAX_RESENDS
                    if not again:
                        self.sent.pop(key, None)
                        if self.pending.pop(key, None) is None:
                            return  # answered meanwhile
                if link is not None:
                    self._drop(link)
                if again:
                    continue
                self._fail(message, str(exc) if isinstance(exc, EngineDown) else "the engine went away (%s)" % exc)
                return

    def _fail(self, message: Dict[str, Any], text: str) -> None:
        if message.get("method") == "tools/call":
            self.reply(message.get("id"), {"content": [{"type": "text", "text": text}], "isError": True})
        else:
            self.error(message.get("id"), -32603, text)

    def _answered(self, message: Dict[str, Any]) -> bool:
        """A reply from the engine: True when it answers a request the client is still owed."""
        key = json.dumps(message.get("id"))
        with self.pmu:
            self.sent.pop(key, None)
            self.carried.pop(key, None)
            return self.pending.pop(key, None) is not None

    def _drop(self, link: Link) -> None:
        """Stop using a link whose engine is gone; its pump then sees the close and calls `_lost`."""
        with self.lmu:
            if self.link is link:
                self.link = None
        link.close()

    def _lost(self, link: Link) -> None:
        """The engine closed the connection: send each request it had and did not answer once more (a
        new engine starts for it), then give up on it with a message."""
        self._drop(link)
        with self.pmu:
            lost = [key for key, holder in self.carried.items() if holder is link]
            waiting = []
            for key in lost:
                del self.carried[key]
                message = self.pending.get(key)
                if message is not None:
                    waiting.append((key, message, self.sent.get(key, 0)))
        for key, message, tries in waiting:
            if tries <= MAX_RESENDS:
                threading.Thread(target=self.forward, args=(message,), daemon=True).start()
                continue
            with self.pmu:
                if self.pending.pop(key, None) is None:
                    continue
                self.sent.pop(key, None)
            self._fail(message, "scree's engine stopped twice while answering this call; see %s, or run "
                       "/scree-doctor" % channel.log_path(self.sock_path))

    # ----- the engine -----------------------------------------------------------------------------

    def ensure_link(self, deadline: float) -> Link:
        """The live link, connecting and (when nobody listens) starting the engine; EngineDown when it
        is not up by `deadline`, saying what is happening."""
        if self.unsafe:
            raise EngineDown(self.unsafe)
        link = self.link
        if link is not None and link.alive:
            return link
        got = self.lmu.acquire(timeout=max(0.0, deadline - time.monotonic()))
        if not got:
            raise EngineDown(self.state.describe())
        try:
            link = self.link
            if link is not None and link.alive:
                return link
            link = self._connect()
            if link is None:
                self._start_if_needed()
                link = self._wait_for_engine(deadline)
            self.link = link
            self.proc = None  # up: from now on its exit is a lost link (started again), not a failed start
            self.state.set("ready")
            threading.Thread(target=self._pump, args=(link,), name="scree-engine-out", daemon=True).start()
            return link
        finally:
            self.lmu.release()

    def _connect(self) -> Optional[Link]:
        """A link to a listening engine, or None when nobody listens (no socket, or a stale one)."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(self.sock_path)
        except OSError:
            sock.close()
            return None
        try:
            sock.settimeout(60.0)
            rfile = sock.makefile("rb")
            sock.sendall(channel.hello(self.argv, self.env, os.getcwd()))
            answer = channel.decode(rfile.readline())
            if answer.get("scree") == "refused":
                sock.close()
                self.state.set("failed", str(answer.get("error")))
                raise EngineDown("scree cannot serve this session: %s" % answer.get("error"))
            if answer.get("scree") != "ready":
                raise ValueError("unexpected answer %r" % answer)
            init = {"jsonrpc": "2.0", "id": INIT_ID, "method": "initialize", "params": self.init_params or {
                "protocolVersion": self.snapshot["latestHandshake"], "capabilities": {},
                "clientInfo": {"name": "scree-relay", "version": "1"}}}
            sock.sendall(_line(init))
            while True:  # the engine's own handshake answer is the relay's, not the client's
                line = rfile.readline()
                if not line:
                    raise ValueError("the engine closed the connection during the handshake")
                reply = json.loads(line.decode("utf-8", "replace"))
                if isinstance(reply, dict) and reply.get("id") == INIT_ID:
                    break
            sock.sendall(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            sock.settimeout(None)
            return Link(sock, rfile)
        except (OSError, ValueError) as exc:  # an engine exiting as we came: start another
            self.say("the engine did not take the connection (%s)" % exc)
            sock.close()
            return None

    def _start_if_needed(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return  # ours is still starting
        if self.state.phase == "failed" and time.monotonic() - self.state.failed_at < RETRY_FAILED_AFTER:
            raise EngineDown(self.state.describe())
        uv = self._uv()
        venv = os.path.join(self.data, "venv")
        self.state.set("starting" if os.path.isdir(venv) else "building")
        env = dict(self.env)
        env["CLAUDE_PLUGIN_DATA"] = self.data
        env["PATH"] = os.path.dirname(uv) + os.pathsep + env.get("PATH", os.defpath)
        env.pop("SCREE_ENGINE", None)
        log = channel.log_path(self.sock_path)
        _trim(log)
        with open(log, "ab") as sink:
            sink.write(("--- %s: starting the engine (%s)\n" % (time.strftime("%Y-%m-%d %H:%M:%S"), uv)).encode())
            sink.flush()
            self.proc = subprocess.Popen(
                ["sh", os.path.join(self.root, "bin", "scree"), "engine", "--socket", self.sock_path],
                stdin=subprocess.DEVNULL, stdout=sink, stderr=sink, env=env, cwd=self.data if os.path.isdir(self.data) else "/",
                start_new_session=True, close_fds=True)
        self.say("started the engine (pid %d); its log: %s" % (self.proc.pid, log))

    def _uv(self) -> str:
        from .finduv import find_uv

        found = find_uv(self.env, self.root, self.data)
        if found is not None:
            return found[0]
        self.state.set("fetching-uv")
        try:
            if self._fetch_uv is not None:
                return self._fetch_uv(os.path.join(self.data, "uv"))
            from .getuv import DEFAULT_INDEX, UvFetchError, fetch_uv

            index = self.env.get("SCREE_UV_INDEX", "").strip() or DEFAULT_INDEX
            try:
                return fetch_uv(os.path.join(self.data, "uv"), index=index,
                                progress=lambda line: self.state.set("fetching-uv", line))
            except UvFetchError as exc:
                self.state.set("failed", str(exc))
                self._log("--- %s: fetching uv\nscree relay: %s" % (time.strftime("%Y-%m-%d %H:%M:%S"), exc))
                raise EngineDown(self.state.describe()) from None
        except OSError as exc:
            self.state.set("failed", "cannot write %s (%s)" % (self.data, exc))
            raise EngineDown(self.state.describe()) from None

    def _log(self, text: str) -> None:
        """A line in the engine's log, where `scree doctor` reads why the last start failed."""
        try:
            with open(channel.log_path(self.sock_path), "a", encoding="utf-8") as sink:
                sink.write(text + "\n")
        except OSError:
            pass

    def _wait_for_engine(self, deadline: float) -> Link:
        while True:
            link = self._connect()
            if link is not None:
                return link
            proc = self.proc
            code = proc.poll() if proc is not None else None
            if code is not None and code != 0:
                self.proc = None
                self.state.set("failed", "it exited with code %d. %s" % (code, _tail(channel.log_path(self.sock_path))))
                raise EngineDown(self.state.describe())
            if code == 0 and not os.path.exists(self.sock_path):
                self.proc = None  # another engine won the start race and then left; start ours again
                self._start_if_needed()
            if time.monotonic() >= deadline:
                raise EngineDown(self.state.describe())
            time.sleep(CONNECT_POLL)

    def _pump(self, link: Link) -> None:
        """The engine's messages to stdout, until it closes the connection."""
        try:
            for line in iter(link.rfile.readline, b""):
                try:
                    message = json.loads(line.decode("utf-8", "replace"))
                except ValueError:
                    continue
                if isinstance(message, dict) and "method" not in message and "id" in message:
                    if not self._answered(message):
                        continue  # a reply nobody waits for (already answered with an error)
                self.write_raw(line)
        except OSError:
            pass
        link.closed.set()
        self._lost(link)


def _line(message: Dict[str, Any]) -> bytes:
    return (json.dumps(message, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")


def _trim(log: str, keep: int = 200_000) -> None:
    """Keep the engine's log short: it only has to say why the last start failed."""
    try:
        if os.path.getsize(log) > 4 * keep:
            with open(log, "rb") as f:
                f.seek(-keep, os.SEEK_END)
                tail = f.read()
            with open(log, "wb") as f:
                f.write(tail)
    except OSError:
        pass


def _tail(log: str, lines: int = 6) -> str:
    try:
        with open(log, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4000))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return "Its log (%s) could not be read." % log
    last = [line for line in text.splitlines() if line.strip() and not line.startswith("---")][-lines:]
    return "Its log (%s) ends: %s" % (log, " | ".join(last)) if last else "Its log: %s" % log


def main(argv: Optional[List[str]] = None) -> int:
    """`relay/main.py --root R --data D [scree serve flags]`, run by bin/scree for `serve`."""
    args = list(sys.argv[1:] if argv is None else argv)
    root = data = ""
    rest: List[str] = []
    while args:
        arg = args.pop(0)
        if arg == "--root" and args:
            root = args.pop(0)
        elif arg == "--data" and args:
            data = args.pop(0)
        else:
            rest.append(arg)
    if not root or not data:
        sys.stderr.write("scree relay: --root and --data are required (bin/scree passes them)\n")
        return 2
    out = os.fdopen(os.dup(1), "wb")
    # Nothing else may write to the protocol stream: stray prints from any library go to stderr.
    os.dup2(2, 1)
    relay = Relay(root, data, rest, os.environ, out, sys.stderr)

    def on_signal(signum: int, frame: object) -> None:
        # Claude Code ends a stdio server with SIGINT, then SIGTERM: end this session in the engine (its
        # index let go) and leave, with no traceback on stderr.
        relay.close(wait=2.0)
        os._exit(128 + signum)

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, on_signal)
    code = relay.run(sys.stdin.buffer)
    try:
        out.flush()
    except OSError:
        pass
    return code
