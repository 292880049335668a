"""`scree serve` (also `scree-mcp`, and `python -m scree.cli serve`): the MCP server over stdio, or streamable HTTP with `--http`.

Stdout belongs to the protocol; everything else goes to stderr. The SDK is imported only once the
arguments are known to be good, so a bad flag fails fast, and `scree search` never pays for it.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import select
import signal
import socket
import sys
import threading
import time
from dataclasses import replace
from typing import Any, Mapping

from .. import settings_table
from ..config import Config, add_embedder_flag
from ..errors import ConfigError
from ..locate import index_location, resolve_folder
from ._common import add_common

log = logging.getLogger(__name__)

TOKEN_ENV = settings_table.HTTP_TOKEN.env
DEFAULT_PORT = 8000


def _port(raw: str) -> int:
    """A TCP port: the OS reduces anything past 65535 modulo 65536 (99999 became 34463) without saying so."""
    try:
        port = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{raw!r} is not a port number: use 1..65535, or 0 for any free port") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a TCP port: use 1..65535, or 0 for any free port")
    return port


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the MCP server (stdio; --http for streamable HTTP)",
                       description="Serve search_docs, read_doc and reindex over MCP.")
    add_common(p)
    add_embedder_flag(p)
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    p.add_argument("--port", type=_port, default=DEFAULT_PORT,
                   help=f"HTTP port 1..65535 (default {DEFAULT_PORT}; 0 = any free one, printed once listening)")
    p.add_argument("--token", help=f"HTTP bearer token (prefer ${TOKEN_ENV}: flags show in `ps`); "
                   "required when --host is not a loopback address")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="another Host header name clients use to reach this server (repeatable)")
    p.add_argument("--first-sync-wait", type=float, metavar="SECONDS",
                   help="while a new index is first built, a search waits up to this long for it "
                   "(default 100; 0 answers at once from what is indexed)")
    p.add_argument("--no-watch", action="store_true", help="do not watch the folder for changes")
    # How often the writer checks that the folder and index file are still the ones it started with.
    p.add_argument("--health-interval", type=float, default=None, help=argparse.SUPPRESS)


def http_token(args: argparse.Namespace, env: Mapping[str, str]) -> str | None:
    """The bearer token from --token or $SCREE_HTTP_TOKEN (None when neither is set)."""
    token = (args.token or env.get(TOKEN_ENV, "")).strip()
    return token or None


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and `localhost`: addresses only this machine can reach."""
    bare = host.strip("[]")
    if bare.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:
        return False


def cmd_serve(args: argparse.Namespace, cfg: Config) -> int:
    """Run the server until stdin closes (stdio) or it is interrupted (HTTP)."""
    folder = resolve_folder(cfg)
    if args.first_sync_wait is not None and args.first_sync_wait < 0:
        raise ConfigError("--first-sync-wait must be 0 or more seconds")
    token = http_token(args, os.environ) if args.http else None
    if args.http and not is_loopback(args.host) and token is None:
        raise ConfigError(f"refusing to serve HTTP on {args.host} without a token: set {TOKEN_ENV} (or --token), "
                          "or bind 127.0.0.1")
    from ..mcpserver import IndexHandle, ServeOptions, build_server

    options = ServeOptions(watch=not args.no_watch, health_interval=args.health_interval)
    if args.first_sync_wait is not None:
        options = replace(options, first_sync_wait=args.first_sync_wait)
    handle = IndexHandle(cfg, folder, options)
    log.info("serving %s (index %s) over %s", folder, index_location(folder, cfg).db,
             "HTTP" if args.http else "stdio")
    server = build_server(handle)
    try:
        if args.http:
            _exit_on_signal(handle)  # uvicorn's own handling re-raised the signal before stop() ran
            handle.start()  # a long-lived server: index now, not at the first client's handshake
            _serve_http(server, args.host, args.port, token, tuple(args.allow_host))
        else:
            _exit_on_signal(handle)
            from ..stdio.stdinfilter import install

            install()  # a lone surrogate in a request gets an error reply, not silence
            from ..stdio.stdioguard import run

            run(server)  # a malformed request that carries an id gets an error reply, not silence
    finally:
        handle.stop()
    return 0


# A stop that has not ended the process by then ends it anyway (the lock is an flock: the OS frees it).
STOP_DEADLINE_S = 5.0
# How long the signal's stop waits for the index writer (stage two drops its batch within a model run).
STOP_WAIT_S = 2.0

# What the signal pipe carries: a signal number written by CPython's C-level handler (`set_wakeup_fd`),
# the same number with HANDLER_BIT set by the Python-level handler, or STOPPED once the index stopped.
HANDLER_BIT = 0x40
STOPPED = 0


def _exit_on_signal(handle: Any) -> None:
    """End a server at once on SIGINT or SIGTERM, after stopping the index (which releases the lock).

    Claude Code stops a stdio server with SIGINT and escalates to SIGTERM after a few seconds. A
    KeyboardInterrupt would not end this process: the SDK reads stdin on a worker thread blocked in
    read(), and the event loop waits for that thread before it returns.

    Nothing here depends on the main thread. A Python signal handler runs there only between two
    bytecodes: possibly inside a lock `stop` needs (seen: `Event.set`), and not at all while the main
    thread sleeps in a call the signal did not interrupt, which is what happens when the kernel
    delivers it to another thread (seen in CI under load: the server outlived four signals). So the
    signal's number reaches a pipe twice: from C, in whichever thread took it (`signal.set_wakeup_fd`),
    and from the Python handler, which takes no lock. A thread started here, beforehand, reads the
    pipe, stops the index and exits. A second signal exits at once, and a stop that takes longer than
    STOP_DEADLINE_S exits anyway.
    """
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)

    def on_signal(signum: int, frame: object) -> None:
        try:
            os.write(write_end, bytes([HANDLER_BIT | signum]))
        except OSError:  # a full pipe: the signal thread has enough to go on
            pass

    def stop_index() -> None:
        try:
            if not handle.stop(timeout=STOP_WAIT_S):
                # Said so that a slow stop is seen; the OS frees the lock, the unfinished part was never committed.
                print(f"scree: the index writer did not stop within {STOP_WAIT_S:g} s; exiting anyway",
                      file=sys.stderr)
        finally:
            sys.stderr.flush()
            os.write(write_end, bytes([STOPPED]))

    def watch() -> None:
        seen = {True: 0, False: 0}  # signals counted per route (from the handler or not)
        code: int | None = None
        deadline = 0.0
        while True:
            wait = None if code is None else max(0.0, deadline - time.monotonic())
            if not select.select([read_end], [], [], wait)[0]:
                os._exit(code if code is not None else 1)  # the stop outlasted its deadline
            for byte in os.read(read_end, 64):
                if byte == STOPPED and code is not None:
                    os._exit(code)
                route, signum = bool(byte & HANDLER_BIT), byte & ~HANDLER_BIT
                seen[route] += 1
                if code is None:
                    code, deadline = 128 + signum, time.monotonic() + STOP_DEADLINE_S
                    threading.Thread(target=stop_index, name="scree-stop", daemon=True).start()
                elif seen[route] > 1:  # a second signal, not the first one's other route
                    os._exit(128 + signum)

    threading.Thread(target=watch, name="scree-signals", daemon=True).start()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, on_signal)
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)


def _serve_http(server: Any, host: str, port: int, token: str | None, extra_hosts: tuple[str, ...]) -> None:
    import uvicorn

    from ..mcpserver import http_app

    sock = _bind(host, port)
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    app = http_app(server, host=host, port=port, token=token, extra_hosts=extra_hosts)
    print(f"scree: serving MCP on http://{shown}:{port}/mcp" + (" (bearer token required)" if token else ""),
          file=sys.stderr, flush=True)
    # log_config=None: uvicorn's records go to scree's handler, which scrubs every line, not to its own.
    _quiet_server(uvicorn.Config(app, log_level="warning", log_config=None, lifespan="on")).run(sockets=[sock])


def _quiet_server(config: Any) -> Any:
    """uvicorn without its signal handlers, so `_exit_on_signal`'s stay in place: SIGINT/SIGTERM stop
    the index (and its model) and the process exits 130/143. uvicorn's own ended the loop and
    re-raised the signal: SIGTERM killed the process before the index's stop() ran, and after SIGINT
    the interpreter shut down around a model still embedding (onnxruntime aborted, rc 134).
    `Server.capture_signals` is uvicorn's: its version is pinned in pyproject.toml."""
    import contextlib
    from collections.abc import Iterator

    import uvicorn

    class QuietServer(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return QuietServer(config)


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0 picks a free one), so the real port is known before
    the Host allow-list is built and announced."""
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(128)  # connections made before uvicorn is up wait in the backlog, not refused
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port} ({exc.strerror or exc}): pick another --host/--port") from None
    sock.set_inheritable(False)
    return sock


COMMANDS = {"serve": cmd_serve}
