"""`scree doctor`'s checks for the API embedder (`SCREE_EMBEDDER=api`): what is configured, the key,
a live probe, and what embedding this folder would cost.

Nothing printed here ever holds the key: only whether one is set and which variable set it. Messages
from the embedder are already scrubbed (embed/api.py); they are scrubbed once more here because doctor
output is what users paste into bug reports.
"""

from __future__ import annotations

import ipaddress
import os
import time
from pathlib import Path
from typing import Mapping
from urllib.parse import urlsplit

from ..config import API_KEY_VARIABLES, Config
from .checks import FAIL, INFO, OK, WARN, Check, guarded
from ..errors import ScreeError

PROBE_TEXT = "scree doctor probe"


def api_checks(cfg: Config, embedder: object, env: Mapping[str, str] | None = None,
               cwd: Path | None = None) -> list[Check]:
    """The API embedder's checks, in place of the local model's: embedder (settings and a timed
    probe), api-key, cost. `embedder` is the ApiEmbedder, or the ScreeError raised building it."""
    env = os.environ if env is None else env
    if isinstance(embedder, BaseException):
        return [Check("embedder", FAIL, f"the API embedder is misconfigured: {embedder}", {"embedder": "api"},
                      str(embedder)),
                guarded("api-key", lambda: check_key(None, env))]
    return [guarded("embedder", lambda: check_api_embedder(embedder)),
            guarded("api-key", lambda: check_key(embedder, env)),
            guarded("cost", lambda: check_cost(cfg, embedder, cwd))]


def _settings_line(e: object) -> tuple[str, dict[str, object]]:
    endpoint, model, dims = e.endpoint, e.model, e.dimensions  # type: ignore[attr-defined]
    width = f"{dims} dimensions" + (" (sent as `dimensions`)" if e.sends_dimensions else " (the model's own)")  # type: ignore[attr-defined]
    from ..embed.api import is_openrouter

    openrouter = is_openrouter(endpoint)
    if e.zdr:  # type: ignore[attr-defined]
        privacy = "zero data retention requested (only endpoints that keep and collect nothing)"
    elif openrouter:
        privacy = "zero data retention NOT requested (SCREE_ZDR=0): OpenRouter may route to endpoints that keep data"
    else:
        privacy = "zero data retention: not applicable (not OpenRouter; the server's own policy applies)"
    details: dict[str, object] = {"embedder": e.id, "endpoint": endpoint, "model": model,  # type: ignore[attr-defined]
                                  "dimensions": dims, "sends_dimensions": e.sends_dimensions,  # type: ignore[attr-defined]
                                  "zdr_requested": e.zdr, "max_tokens": e.max_tokens}  # type: ignore[attr-defined]
    return f"{endpoint}, model {model}, {width}; {privacy}", details


def check_api_embedder(e: object) -> Check:
    """The endpoint, model, width and privacy setting, and one short embedding, timed."""
    import numpy as np

    line, details = _settings_line(e)
    began = time.perf_counter()
    try:
        vector = np.asarray(e.embed_query(PROBE_TEXT))  # type: ignore[attr-defined]
    except ScreeError as exc:
        details["error"] = _scrub(e, str(exc))
        return Check("embedder", FAIL, f"{line}; the probe failed ({type(exc).__name__})", details, details["error"])  # type: ignore[arg-type]
    took = time.perf_counter() - began
    details["probe_s"] = round(took, 3)
    return Check("embedder", OK, f"{line}; embedded a probe in {took:.2f} s ({vector.shape[-1]} dimensions)", details)


def _scrub(e: object, text: str) -> str:
    scrub = getattr(e, "_scrub", None)
    return scrub(text) if callable(scrub) else text


def _is_local(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback or ipaddress.ip_address(host).is_private
    except ValueError:
        return False


def check_key(e: object | None, env: Mapping[str, str]) -> Check:
    """Whether a key is set and by which variable; never the key itself."""
    source = next((var for var in API_KEY_VARIABLES if env.get(var, "").strip()), None)
    endpoint = getattr(e, "endpoint", None)
    host = urlsplit(endpoint).hostname or "" if endpoint else ""
    details: dict[str, object] = {"key_set": source is not None, "variable": source}
    if source is not None:
        scheme = urlsplit(endpoint).scheme if endpoint else "https"
        if scheme == "http" and host and not _is_local(host):
            return Check("api-key", WARN, f"a key is set ({source}), sent over plain http to {host}", details,
                         "use an https SCREE_API_BASE: over http the key and your notes cross the network readable")
        return Check("api-key", OK, f"a key is set ({source}); its value is never shown", details)
    if host and _is_local(host):
        return Check("api-key", OK, f"no key set: none needed for a server on {host}", details)
    return Check("api-key", FAIL, "no API key is set", details,
                 f"set {API_KEY_VARIABLES[0]} (or {' / '.join(API_KEY_VARIABLES[1:])}) in the environment that "
                 "starts scree, or use SCREE_EMBEDDER=local (no key, nothing leaves the machine)")


def check_cost(cfg: Config, e: object, cwd: Path | None) -> Check:
    """An upper bound on embedding this folder's notes once: every text the sync would send (each chunk's
    markup-free view, whole and in pieces, under its header), at 4 bytes per token."""
    from ..embed.api import estimate_cost
    from ..embed.pieces import sent_texts
    from ..errors import FileSkipped
    from ..notes.reader import read_note
    from ..index.sync import chunk_passages
    from ..notes.walk import walk_notes
    from ..workspace import Workspace

    ws = Workspace.from_config(cfg, cwd)
    policy = ws.policy()
    total = files = 0
    for item in walk_notes(policy):
        if isinstance(item, str):
            try:
                note = read_note(policy, item, max_bytes=cfg.max_file_bytes)
            except FileSkipped:
                continue
            files += 1
            total += sum(len(t.encode("utf-8", "surrogatepass")) for p in chunk_passages(item, note.text)
                         for t in sent_texts(p))
    tokens, usd = estimate_cost(total, e.info)  # type: ignore[attr-defined]
    details: dict[str, object] = {"files": files, "bytes_sent": total, "tokens_upper_bound": tokens,
                                  "usd_upper_bound": usd}
    size = f"{files} notes, {total / 1e6:.2f} MB to send, about {tokens:,} tokens"
    if usd is None:
        return Check("cost", INFO, f"{size}; scree does not know {e.model}'s price (free if it runs locally)", details)  # type: ignore[attr-defined]
    return Check("cost", INFO, f"{size}: at most ${usd:.4f} to embed them all once at "
                 f"${e.info.usd_per_million:g} per million tokens (an upper bound: each chunk is sent whole and in paragraph pieces, and "  # type: ignore[attr-defined]
                 "later syncs embed only changed sections)", details)
