"""An embedder behind any OpenAI-compatible `/embeddings` endpoint (OpenRouter by default), over httpx.

What leaves the machine: the text of each changed chunk (path, heading trail and markup-free body)
and each semantic query, sent to the configured base URL with the key in an `Authorization` header.
With zero data retention on (the default) and an OpenRouter base URL, every request asks OpenRouter
to route only to endpoints that retain nothing and collect nothing; a model without such an endpoint
fails with an error naming it, never silently falls back.

Requests: up to 64 inputs each within a token budget, up to 4 in flight while a sync embeds. Queries
get 10 s per attempt and 2 attempts, indexing 30 s and 3: network errors, 429 (after `Retry-After`)
and 5xx are retried with jittered backoff; any other 4xx fails at once with the provider's message.

The key never reaches a message: every string built from a request, a response or an httpx
exception goes through `scrub` before it is cut, logged or raised, and httpx's exceptions are never
chained onto ours (their tracebacks would be printed by `log.exception`).

httpx here is `httpx2`, httpx's maintained successor (same author and API), which the MCP SDK already
depends on; scree declares it itself. Imported by this module only (tests/test_architecture.py).
"""

from __future__ import annotations

import base64
import logging
import math
import random
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Sequence
from urllib.parse import urlsplit

import httpx2 as httpx
import numpy as np

from scree.config import DEFAULT_API_BASE, DEFAULT_DIMENSIONS, DEFAULT_MODEL, Config
from scree.errors import (HIDDEN, ConfigError, EmbedderError, EmbedderUnavailable, EmbedStopped,  # noqa: F401
                          scrub)  # HIDDEN and scrub are re-exported

from .apiwindows import MAX_WINDOWS, estimate_tokens, group_requests, plan_windows  # noqa: F401 - re-exported
from .base import Passage

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = DEFAULT_API_BASE
# The store's rowid is chunk_id * max_windows + window: the same stride as the local model, so the two
# embedders lay out an index alike (changing embedder re-embeds everything anyway).
BATCH_INPUTS = 64  # inputs per request
IN_FLIGHT = 4  # concurrent requests while a sync embeds
STOP_POLL = 0.1  # seconds between two looks at a stop request while requests are in flight
# Estimated tokens per request. OpenAI caps a request at 300k tokens; the estimate below runs high on
# prose, so this leaves room and keeps one slow request from holding a large share of a sync.
REQUEST_TOKEN_BUDGET = 100_000
DEFAULT_MAX_TOKENS = 512  # a model scree does not know: windows sized for the smallest common limit
ZDR_PROVIDER = {"zdr": True, "data_collection": "deny"}


@dataclass(frozen=True)
class ModelInfo:
    """What scree knows about a model: its input limit, its own width, whether it takes `dimensions`
    (Matryoshka-trained models can be cut short), and its price in USD per million input tokens."""

    max_tokens: int
    native_dimensions: int
    takes_dimensions: bool
    usd_per_million: float | None = None


# Keyed by the model's bare name (provider prefix and `:tag` dropped); prices as OpenRouter lists them.
KNOWN_MODELS: dict[str, ModelInfo] = {
    "text-embedding-3-small": ModelInfo(8191, 1536, True, 0.02),
    "text-embedding-3-large": ModelInfo(8191, 3072, True, 0.13),
    "text-embedding-ada-002": ModelInfo(8191, 1536, False, 0.10),
    # Common local models (Ollama, LM Studio, vLLM names); free, so no price. nomic-embed-text reads
    # 8192 tokens but Ollama runs it with a 2048-token context by default.
    "nomic-embed-text": ModelInfo(2048, 768, False),
    "mxbai-embed-large": ModelInfo(512, 1024, False),
    "all-minilm": ModelInfo(256, 384, False),
    "bge-m3": ModelInfo(8192, 1024, False),
}


def model_info(model: str) -> ModelInfo | None:
    """The table entry for `model` (`openai/text-embedding-3-small`, `nomic-embed-text:latest`,
    `text-embedding-nomic-embed-text-v1.5`...), or None for a model scree does not know."""
    bare = model.strip().lower().rsplit("/", 1)[-1].split(":", 1)[0]
    if bare in KNOWN_MODELS:
        return KNOWN_MODELS[bare]
    matches = [name for name in KNOWN_MODELS if name in bare]
    return KNOWN_MODELS[max(matches, key=len)] if matches else None


@dataclass(frozen=True)
class Attempts:
    """How hard one kind of request tries: seconds per attempt, attempts, and the longest
    `Retry-After` it will wait for (a longer one fails at once: the caller pauses instead)."""

    timeout: float
    attempts: int
    max_retry_after: float


QUERY_ATTEMPTS = Attempts(timeout=10.0, attempts=2, max_retry_after=5.0)
INDEX_ATTEMPTS = Attempts(timeout=30.0, attempts=3, max_retry_after=60.0)


@dataclass(frozen=True)
class ApiSettings:
    """Everything the API embedder needs; built from `Config` by `scree.embed.make_embedder`.
    The timing fields exist so tests can shrink them; real callers keep the defaults."""

    base_url: str = DEFAULT_BASE_URL
    model: str = DEFAULT_MODEL
    dimensions: int = DEFAULT_DIMENSIONS  # 0: the model's own width
    key: str | None = field(default=None, repr=False)
    zdr: bool = True
    query: Attempts = QUERY_ATTEMPTS
    indexing: Attempts = INDEX_ATTEMPTS
    backoff: float = 1.0  # the first retry waits up to this (jittered), doubling per attempt
    backoff_cap: float = 8.0
    quiet_after_outage: float = 30.0  # queries fail at once this long after the API was unreachable
    batch_inputs: int = BATCH_INPUTS
    in_flight: int = IN_FLIGHT
    request_token_budget: int = REQUEST_TOKEN_BUDGET
    languages: frozenset[str] | None = frozenset({"en"})  # SCREE_MODEL_LANGUAGES; None: a multilingual model


def settings_from_config(cfg: Config | None) -> ApiSettings:
    """The API settings from `SCREE_API_BASE`, `SCREE_API_KEY` (or its fallbacks), `SCREE_MODEL`,
    `SCREE_DIMENSIONS` and `SCREE_ZDR`; the defaults without a config."""
    if cfg is None:
        return ApiSettings()
    return ApiSettings(base_url=cfg.api_base, model=cfg.model, dimensions=cfg.dimensions, key=cfg.api_key,
                       zdr=bool(cfg.zdr), languages=cfg.readable_languages)


# ----- pure helpers ---------------------------------------------------------------------------------


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A `Retry-After` header (seconds, or an HTTP date) as seconds from now; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def is_openrouter(base_url: str) -> bool:
    host = (urlsplit(base_url).hostname or "").lower()
    return host == "openrouter.ai" or host.endswith(".openrouter.ai")


def _no_zdr_endpoint(status: int, message: str) -> bool:
    """OpenRouter's answer when no endpoint of the model meets the data policy (404 "No endpoints
    found matching your data policy")."""
    text = message.lower()
    return status in (400, 404) and ("no endpoints" in text or "no endpoint" in text or "data policy" in text
                                     or "zero data retention" in text or "zdr" in text)


# ----- the embedder ---------------------------------------------------------------------------------


class ApiEmbedder:
    """Embeddings from an OpenAI-compatible API; implements :class:`scree.embed.Embedder`.

    Construction is offline: it checks the settings and fixes the vector space (`id`, `dimensions`);
    the HTTP client is made on the first request.
    """

    max_windows: int = MAX_WINDOWS

    def __init__(self, settings: ApiSettings) -> None:
        self.settings = settings
        parts = urlsplit(settings.base_url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"SCREE_API_BASE={_display_url(settings.base_url)!r} is not an http(s) URL: use e.g. "
                              f"{DEFAULT_BASE_URL} or http://localhost:11434/v1 (Ollama)")
        if not settings.model.strip():
            raise ConfigError("SCREE_MODEL is empty: name the embedding model, e.g. " + DEFAULT_MODEL)
        if settings.dimensions < 0:
            raise ConfigError(f"SCREE_DIMENSIONS={settings.dimensions} must be 0 (the model's own) or a width")
        for name in ("batch_inputs", "in_flight", "request_token_budget"):
            if getattr(settings, name) < 1:
                raise ConfigError(f"{name} must be at least 1")
        self.model = settings.model.strip()
        self.languages = settings.languages
        self.host = parts.netloc.rsplit("@", 1)[-1].lower()  # never the userinfo
        self.url = settings.base_url.strip().rstrip("/") + "/embeddings"
        self.endpoint = _display_url(self.url)
        self.info = model_info(self.model)
        self.dimensions, self.sends_dimensions = _vector_width(self.model, self.info, settings.dimensions)
        self.max_tokens = self.info.max_tokens if self.info else DEFAULT_MAX_TOKENS
        self.zdr = settings.zdr and is_openrouter(settings.base_url)
        self.id = f"api:{self.host}:{self.model}:{self.dimensions}"
        # sync.py gathers this many passages per call, so one call can keep `in_flight` requests busy.
        self.batch_passages = settings.batch_inputs * settings.in_flight
        self._secrets = [settings.key, parts.password]
        self._lock = threading.Lock()
        self._client: Any = None  # httpx.Client, made on first use
        self._down_until = 0.0
        self._down_reason = ""

    # -- the Embedder interface -------------------------------------------------------------------

    def embed_query(self, text: str) -> np.ndarray:
        """A `(dimensions,)` unit vector. Fails at once while a recent outage is remembered."""
        with self._lock:
            down_until, reason = self._down_until, self._down_reason
        if time.monotonic() < down_until:
            raise EmbedderUnavailable(reason)
        window = plan_windows(Passage("", text.strip()), self.max_tokens, max_windows=1)[0].strip()
        return self._call([window or text], self.settings.query, None)[0]

    def embed_passages(self, passages: Sequence[Passage], should_stop: Callable[[], bool] | None = None,
                       ) -> list[np.ndarray]:
        """One `(n_windows, dimensions)` array of unit rows per passage, in input order.

        All or nothing: if any request fails, the whole call raises and nothing from it is used. A stop
        (`should_stop`, looked at every STOP_POLL seconds) raises EmbedStopped without waiting for the
        requests in flight: they end on their own and their answers are dropped."""
        if not passages:
            return []
        planned = [plan_windows(p, self.max_tokens) for p in passages]
        texts = [w for windows in planned for w in windows]
        groups = group_requests([estimate_tokens(t) for t in texts], max_inputs=self.settings.batch_inputs,
                                budget=self.settings.request_token_budget)
        rows = np.concatenate(self._run_groups([[texts[i] for i in g] for g in groups], should_stop))
        out, at = [], 0
        for windows in planned:
            out.append(rows[at:at + len(windows)])
            at += len(windows)
        return out

    def close(self) -> None:
        """Close the HTTP client (its connections); the next call makes a new one."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def trim(self) -> None:
        """Nothing to give back: no model is held in memory."""

    # -- requests ---------------------------------------------------------------------------------

    def _run_groups(self, groups: list[list[str]], should_stop: Callable[[], bool] | None = None,
                    ) -> list[np.ndarray]:
        if should_stop is not None and should_stop():
            raise EmbedStopped()
        if len(groups) == 1 and should_stop is None:
            return [self._call(groups[0], self.settings.indexing, None)]
        abort = threading.Event()  # set on the first failure or a stop: the other requests stop retrying
        pool = ThreadPoolExecutor(max_workers=min(self.settings.in_flight, len(groups)),
                                  thread_name_prefix="scree-embed")
        try:
            futures: list[Future[np.ndarray]] = [pool.submit(self._call, g, self.settings.indexing, abort)
                                                 for g in groups]
            while True:
                done, waiting = wait(futures, timeout=None if should_stop is None else STOP_POLL,
                                     return_when=FIRST_EXCEPTION)
                failed = next((f for f in futures if f in done and f.exception() is not None), None)
                if failed is not None:
                    abort.set()
                    error = failed.exception()
                    assert error is not None
                    raise error
                if not waiting:
                    return [f.result() for f in futures]
                if should_stop is not None and should_stop():
                    abort.set()
                    raise EmbedStopped()
        except BaseException:
            abort.set()  # an interrupt too: the requests in flight are not waited for
            raise
        finally:
            # After a failure, requests still in flight (up to a timeout each) are not waited for:
            # they end on their own, see `abort`, and their answers are dropped.
            pool.shutdown(wait=not abort.is_set(), cancel_futures=True)

    def _http(self) -> Any:
        with self._lock:
            if self._client is None:
                headers = {"Content-Type": "application/json", "User-Agent": "scree"}
                if self.settings.key:
                    headers["Authorization"] = f"Bearer {self.settings.key}"
                # Plain http needs no TLS context (loading the trust store costs ~0.2 s).
                verify = self.url.startswith("https:")
                self._client = httpx.Client(headers=headers, follow_redirects=False, verify=verify,
                                            limits=httpx.Limits(max_connections=self.settings.in_flight + 1))
            return self._client

    def request_body(self, inputs: Sequence[str]) -> dict[str, Any]:
        """The JSON sent for `inputs` (public for tests and doctor: it shows what leaves the machine)."""
        body: dict[str, Any] = {"model": self.model, "input": list(inputs)}
        if self.sends_dimensions:
            body["dimensions"] = self.dimensions
        if self.zdr:
            body["provider"] = dict(ZDR_PROVIDER)
        return body

    def _call(self, inputs: list[str], attempts: Attempts, abort: threading.Event | None) -> np.ndarray:
        """POST one request, retrying what may pass later; an `(len(inputs), dimensions)` array."""
        body = self.request_body(inputs)
        problem = ""
        abandoned = EmbedderUnavailable(f"the embeddings request to {self.endpoint} was abandoned: another "
                                        "request of the same batch failed")
        for attempt in range(1, attempts.attempts + 1):
            if abort is not None and abort.is_set():
                raise abandoned
            pause = self._backoff(attempt)
            client = self._http()
            try:
                response = client.post(self.url, json=body, timeout=attempts.timeout)
            except RuntimeError:
                if client is self._client:
                    raise
                problem = "the client was closed meanwhile (memory release)"  # the next attempt makes a new one
                pause = 0.0
            except httpx.TimeoutException:
                problem = f"no answer within {attempts.timeout:g} s"
            except httpx.HTTPError as exc:  # refused, reset, DNS, TLS...
                problem = self._scrub(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
            else:
                status = response.status_code
                if status == 200:
                    vectors = self._parse(response, len(inputs))
                    with self._lock:
                        self._down_until = 0.0  # it answers again: queries may use it at once
                    return vectors
                message = self._provider_message(response)
                if status == 429:
                    wait_for = retry_after_seconds(response.headers.get("retry-after"))
                    problem = "rate-limited (429)" + (f": {message}" if message else "")
                    if wait_for is not None:
                        if wait_for > attempts.max_retry_after:
                            raise self._unavailable(f"{problem}; it asks to wait {wait_for:.0f} s", attempt)
                        pause = wait_for
                elif status >= 500:
                    problem = f"server error {status}" + (f": {message}" if message else "")
                else:
                    raise self._client_error(status, message)
            if attempt < attempts.attempts:
                log.info("%s", self._scrub(f"embeddings request to {self.endpoint} failed ({problem}); "
                                           f"retrying in {pause:.1f} s"))
                if self._sleep(pause, abort):
                    raise abandoned
        raise self._unavailable(problem, attempts.attempts)

    def _backoff(self, attempt: int) -> float:
        """Exponential, capped, with full jitter, so parallel requests do not retry in lockstep."""
        ceiling = min(self.settings.backoff_cap, self.settings.backoff * 2 ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)

    @staticmethod
    def _sleep(seconds: float, abort: threading.Event | None) -> bool:
        """Wait `seconds`; True when the batch was abandoned meanwhile."""
        if abort is None:
            time.sleep(seconds)
            return False
        return abort.wait(seconds)

    def _unavailable(self, problem: str, attempts: int) -> EmbedderUnavailable:
        tries = f" after {attempts} attempt{'s' * (attempts != 1)}"
        reason = self._scrub(f"the embeddings API at {self.endpoint} is unavailable ({problem}{tries}); "
                             "keyword search still works, and the next sync sends what is missing")
        with self._lock:
            self._down_until = time.monotonic() + self.settings.quiet_after_outage
            self._down_reason = reason
        return EmbedderUnavailable(reason)

    def _client_error(self, status: int, message: str) -> EmbedderError:
        said = f" ({status}" + (f": {message})" if message else ")")
        if status in (401, 403):
            if not self.settings.key:
                fix = "no API key is set: set SCREE_API_KEY (or OPENROUTER_API_KEY / OPENAI_API_KEY)"
            else:
                fix = "check the key in SCREE_API_KEY (or OPENROUTER_API_KEY / OPENAI_API_KEY) and its permissions"
            text = f"{self.endpoint} refused the request{said}: {fix}"
        elif self.zdr and _no_zdr_endpoint(status, message):
            text = (f"no endpoint serves the model {self.model} with zero data retention and no data "
                    f"collection{said}; scree does not fall back to one that may keep your notes: choose another "
                    "model (SCREE_MODEL), or set SCREE_ZDR=0 to allow any endpoint")
        elif status == 402:
            text = f"{self.endpoint} wants payment{said}: add credits to the account, then `scree reindex`"
        elif status == 404:
            text = (f"{self.endpoint} does not know the model {self.model} or has no /embeddings route{said}: "
                    "check SCREE_MODEL and SCREE_API_BASE")
        else:
            text = f"{self.endpoint} rejected the embeddings request for {self.model}{said}"
        return EmbedderError(self._scrub(text + "; keyword search still works (--mode keyword)"))

    def _provider_message(self, response: Any) -> str:
        """The provider's own error text (scrubbed, then cut), from JSON `error.message` or the body."""
        try:
            doc = response.json()
        except ValueError:
            doc = None
        message: Any = None
        if isinstance(doc, dict):
            err = doc.get("error", doc)
            message = err.get("message") or err.get("detail") if isinstance(err, dict) else err
            if message is None:
                message = doc.get("detail") or doc.get("message")
        if not isinstance(message, str):
            message = response.text
        return _cut(" ".join(self._scrub(message).split()), 300)

    def _parse(self, response: Any, expected: int) -> np.ndarray:
        """Check an answer fully before any of it is used: JSON, count, width, finite, non-zero."""
        try:
            doc = response.json()
        except ValueError:
            kind = response.headers.get("content-type", "no content type")
            raise self._bad(f"an answer that is not JSON ({self._scrub(kind)}, {len(response.content)} bytes)") from None
        if isinstance(doc, dict) and "error" in doc and "data" not in doc:
            # OpenRouter can answer 200 with an error body when the upstream provider failed.
            err = doc["error"]
            status = err.get("code") if isinstance(err, dict) else None
            message = self._provider_message(response)
            if isinstance(status, int) and 400 <= status < 500 and status != 429:
                raise self._client_error(status, message)
            raise self._bad(f"an error in place of embeddings: {message}")
        data = doc.get("data") if isinstance(doc, dict) else None
        if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
            raise self._bad("JSON without a `data` list of embeddings")
        if len(data) != expected:
            raise self._bad(f"{len(data)} embeddings for {expected} inputs")
        if all(isinstance(d.get("index"), int) for d in data):
            data = sorted(data, key=lambda d: d["index"])
        vectors = [_decode(d.get("embedding")) for d in data]
        widths = {len(v) for v in vectors if v is not None}
        if any(v is None for v in vectors):
            raise self._bad("an embedding that is not a list of numbers")
        if widths != {self.dimensions}:
            got = sorted(widths)[0]
            hint = (f"set SCREE_DIMENSIONS={got} if that is the model's width" if not self.sends_dimensions else
                    "the server ignored `dimensions`: set SCREE_DIMENSIONS=0 to use the model's own width")
            raise EmbedderError(self._scrub(
                f"{self.endpoint} returned {got}-dimensional embeddings for {self.model}, expected "
                f"{self.dimensions}; nothing was stored: {hint}"))
        try:
            rows = np.asarray(vectors, dtype=np.float64)
        except (TypeError, ValueError):
            raise self._bad("an embedding that is not a list of numbers") from None
        if not np.all(np.isfinite(rows)):
            raise self._bad("embeddings holding NaN or infinity")
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        if np.any(norms == 0):
            raise self._bad("an all-zero embedding")
        return (rows / norms).astype(np.float32)

    def _bad(self, what: str) -> EmbedderUnavailable:
        return EmbedderUnavailable(self._scrub(
            f"{self.endpoint} answered with {what}; nothing from it was stored and the next sync retries"))

    def _scrub(self, text: str) -> str:
        return scrub(text, self._secrets)


def _vector_width(model: str, info: ModelInfo | None, asked: int) -> tuple[int, bool]:
    """(width of the vectors, whether `dimensions` is sent) for the model and SCREE_DIMENSIONS."""
    if info is None:
        if asked == 0:
            raise ConfigError(f"scree does not know the width of the model {model}: set SCREE_DIMENSIONS to it "
                              "(e.g. 768); it is checked against the answers, not sent")
        return asked, False
    if not info.takes_dimensions or asked == 0:
        return info.native_dimensions, False
    if asked > info.native_dimensions:
        raise ConfigError(f"SCREE_DIMENSIONS={asked} is more than {model} makes ({info.native_dimensions}): "
                          f"use {info.native_dimensions} or fewer, or 0 for its own width")
    return asked, True


def _decode(value: object) -> list[float] | None:
    """An embedding as floats: a JSON list, or base64 of little-endian float32 (`encoding_format`)."""
    if isinstance(value, list):
        return value if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value) else None
    if isinstance(value, str):
        try:
            raw = base64.b64decode(value, validate=True)
        except ValueError:
            return None
        if len(raw) % 4:
            return None
        return np.frombuffer(raw, dtype="<f4").astype(float).tolist()
    return None


def _display_url(url: str) -> str:
    """The URL without userinfo and query: what messages may show."""
    parts = urlsplit(url.strip())
    host = parts.netloc.rsplit("@", 1)[-1]
    return f"{parts.scheme}://{host}{parts.path}" if parts.scheme else _cut(url.split("?", 1)[0], 80)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def estimate_cost(total_bytes: int, info: ModelInfo | None) -> tuple[int, float | None]:
    """(tokens, USD) for sending `total_bytes` of UTF-8 text to the model: bytes / 4 tokens at the
    model's price per million; USD is None when scree does not know the price."""
    tokens = math.ceil(total_bytes / 4)
    if info is None or info.usd_per_million is None:
        return tokens, None
    return tokens, tokens * info.usd_per_million / 1_000_000
