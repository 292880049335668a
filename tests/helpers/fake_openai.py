"""A real OpenAI-compatible `/embeddings` server on 127.0.0.1 for tests and benchmarks, with faults.

Vectors are deterministic feature hashes of the input's words (so similar texts get similar vectors,
and the same text always the same vector), `dimensions` wide when the request asks, else `native`.

Faults are queued and each request takes the next one (or none):

    server.add_faults("429", "500")            # the next two requests fail so
    server.add_faults(Fault("429", retry_after="1"))

Kinds: "429" (with `retry_after`), "500", "503", "hang" (no answer until released or the server
stops), "malformed" (200, not JSON), "wrong_dims", "wrong_count", "nan", "echo_headers" (400 whose
message repeats the request headers, as some proxies do), "no_zdr" (OpenRouter's 404 when no
endpoint meets the data policy), "error_200" (OpenRouter's 200 carrying an upstream 502 error), and
"down" (the connection is dropped and the server stops listening: connection refused until
`come_up()`). With `echo_key`, every answer carries the request's `Authorization` header back in
its own headers, whole and as the bare key (as a misconfigured proxy or gateway does). Every request is recorded (`server.requests`) with its headers, body and fault.

Run standalone for a benchmark: `python tests/helpers/fake_openai.py --delay 0.05` prints its base URL.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import re
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

NO_ZDR_MESSAGE = "No endpoints found matching your data policy (Zero data retention). Configure: https://openrouter.ai/settings/privacy"


@dataclass(frozen=True)
class Fault:
    kind: str
    retry_after: str | None = None


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: Any
    fault: str | None


@functools.lru_cache(maxsize=200_000)
def _word_hash(word: str) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")


def hashed_vector(text: str, dims: int) -> list[float]:
    """A unit vector of `dims` floats from `text`'s lower-cased words (feature hashing with signs)."""
    vec = [0.0] * dims
    words = re.findall(r"\w+", text.lower()) or ["<empty>"]
    for word in words:
        h = _word_hash(word)  # cached: the benchmark measures the client, not this server's hashing
        vec[h % dims] += 1.0 if (h >> 40) & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vec)) or 1.0
    if norm == 1.0 and not any(vec):
        vec[0] = 1.0
    return [x / norm for x in vec]


@dataclass
class _State:
    native: int
    delay: float
    faults: list[Fault] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    cond: threading.Condition = field(default_factory=threading.Condition)
    release: threading.Event = field(default_factory=threading.Event)
    echo_key: bool = False  # every answer carries the request's Authorization header back (a proxy's echo)
    active: int = 0  # requests being answered now
    max_active: int = 0  # the most at once: how many requests the client had in flight


class FakeOpenAI:
    """Start with `with FakeOpenAI() as server:`; `server.base_url` is the `/v1` base."""

    def __init__(self, *, native: int = 1536, delay: float = 0.0, port: int = 0, echo_key: bool = False) -> None:
        self.state = _State(native=native, delay=delay, echo_key=echo_key)
        self._port = port
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._mu = threading.Lock()

    # -- lifecycle ---------------------------------------------------------------------------------

    def __enter__(self) -> "FakeOpenAI":
        self.come_up()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}/v1"

    def come_up(self) -> None:
        """Listen (again, on the same port after `go_down`)."""
        with self._mu:
            if self._httpd is not None:
                return
            httpd = _Server(("127.0.0.1", self._port), _Handler)
            httpd.state = self.state
            httpd.owner = self
            self._port = httpd.server_address[1]
            self._httpd = httpd
            self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                            name="fake-openai", daemon=True)
            self._thread.start()

    def go_down(self) -> None:
        """Stop listening: new connections are refused until `come_up()`."""
        with self._mu:
            httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()

    def go_down_soon(self) -> None:
        """From a handler thread: refuse new connections now, without waiting on ourselves."""
        with self._mu:
            httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.server_close()
            threading.Thread(target=httpd.shutdown, daemon=True).start()

    def stop(self) -> None:
        self.state.release.set()  # hung handlers return
        self.go_down()

    # -- faults and records ------------------------------------------------------------------------

    def add_faults(self, *faults: str | Fault) -> None:
        with self.state.cond:
            self.state.faults.extend(f if isinstance(f, Fault) else Fault(f) for f in faults)

    @property
    def requests(self) -> list[Recorded]:
        with self.state.cond:
            return list(self.state.requests)

    def pending_faults(self) -> int:
        with self.state.cond:
            return len(self.state.faults)

    def wait_for_requests(self, n: int, timeout: float = 10.0) -> bool:
        """Block until at least `n` requests arrived (an event, not a sleep)."""
        with self.state.cond:
            return self.state.cond.wait_for(lambda: len(self.state.requests) >= n, timeout)

    def embedded_inputs(self) -> list[str]:
        """Every input of every request answered with embeddings."""
        return [t for r in self.requests if r.fault in (None, "pass") for t in r.body["input"]]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    state: _State
    owner: FakeOpenAI


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.0"  # one request per connection: going down refuses the next one at once

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        state = self.server.state
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with state.cond:
            fault = state.faults.pop(0) if state.faults else None
            state.requests.append(Recorded(self.path, dict(self.headers.items()), body,
                                           fault.kind if fault else None))
            state.active += 1
            state.max_active = max(state.max_active, state.active)
            state.cond.notify_all()
        try:
            self._answer(state, body, fault)
        finally:
            with state.cond:
                state.active -= 1

    def _answer(self, state: _State, body: Any, fault: Fault | None) -> None:
        if state.delay:
            state.release.wait(state.delay)
        if not self.path.rstrip("/").endswith("/embeddings"):
            return self._json(404, {"error": {"message": f"no route {self.path}"}})
        if fault is not None and fault.kind != "pass":  # "pass": answer normally (to place later faults)
            return self._fault(fault, body)
        if not isinstance(body, dict) or not isinstance(body.get("input"), (list, str)):
            return self._json(400, {"error": {"message": "input is required"}})
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        dims = int(body.get("dimensions") or state.native)
        data = [{"object": "embedding", "index": i, "embedding": hashed_vector(t, dims)} for i, t in enumerate(inputs)]
        data.reverse()  # clients must order by `index`, not by position
        self._json(200, {"object": "list", "data": data, "model": body.get("model"),
                         "usage": {"prompt_tokens": sum(len(t) // 4 for t in inputs)}})

    def _fault(self, fault: Fault, body: Any) -> None:
        kind = fault.kind
        inputs = body.get("input", []) if isinstance(body, dict) else []
        dims = int((body or {}).get("dimensions") or self.server.state.native)
        if kind == "429":
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            return self._json(429, {"error": {"message": "Rate limit exceeded", "code": 429}}, headers)
        if kind in ("500", "503"):
            return self._json(int(kind), {"error": {"message": "upstream trouble", "code": int(kind)}})
        if kind == "hang":
            self.server.state.release.wait(30)
            self.close_connection = True
            return None
        if kind == "malformed":
            return self._raw(200, b"<html>Bad gateway</html>{", "text/html")
        if kind == "wrong_dims":
            return self._json(200, {"data": [{"index": i, "embedding": [0.1] * (dims + 1)} for i in range(len(inputs))]})
        if kind == "wrong_count":
            return self._json(200, {"data": [{"index": 0, "embedding": hashed_vector("x", dims)}]})
        if kind == "nan":
            vec = hashed_vector("x", dims)
            return self._raw(200, json.dumps({"data": [{"index": i, "embedding": vec[:-1] + [math.nan]}
                                                       for i in range(len(inputs))]}).encode(), "application/json")
        if kind == "echo_headers":
            echoed = "; ".join(f"{k}: {v}" for k, v in self.headers.items())
            return self._json(400, {"error": {"message": f"bad request, headers were {echoed}"}})
        if kind == "no_zdr":
            return self._json(404, {"error": {"message": NO_ZDR_MESSAGE, "code": 404}})
        if kind == "error_200":
            return self._json(200, {"error": {"message": "upstream provider returned 502", "code": 502}})
        if kind == "down":
            self.server.owner.go_down_soon()
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return None
        raise ValueError(f"unknown fault {kind!r}")

    def _json(self, status: int, doc: Any, headers: dict[str, str] | None = None) -> None:
        self._raw(status, json.dumps(doc).encode(), "application/json", headers)

    def _raw(self, status: int, data: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        auth = self.headers.get("Authorization")
        if self.server.state.echo_key and auth:  # as a misconfigured gateway does, whole and bare
            self.send_header("Authorization", auth)
            self.send_header("X-Echoed-Key", auth.split(" ", 1)[-1])
        self.end_headers()
        self.wfile.write(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.0, help="seconds added to every request")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--native", type=int, default=1536)
    args = parser.parse_args()
    server = FakeOpenAI(native=args.native, delay=args.delay, port=args.port)
    server.come_up()
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
