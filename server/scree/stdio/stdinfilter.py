"""Keep a request holding a lone UTF-16 surrogate answerable over stdio.

JSON allows `"\\ud800"` (an unpaired surrogate escape); Python's `json` decodes it, but the MCP SDK
parses each line with pydantic-core, which rejects it, and drops the line: the client never gets a
reply. This filter sits between the real stdin and the SDK (a pipe on fd 0, fed by a daemon thread)
and rewrites only such lines: each lone surrogate becomes U+FFFD, the replacement character, as the CLI
repairs an argument that is not UTF-8, and the request is answered (a line on stderr says so). It used to
become U+FFFF for the tools to refuse, but U+FFFF is a valid code point a client may send, and it was
refused too (issue 36, item 4). Every other line passes through byte for byte.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from typing import Any

log = logging.getLogger(__name__)

MARK = "\ufffd"
_MAYBE = re.compile(rb"\\u[dD][89a-fA-F]")
_LONE = re.compile(r"[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")


def _mark(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE.sub(MARK, value)
    if isinstance(value, list):
        return [_mark(v) for v in value]
    if isinstance(value, dict):
        return {_mark(k): _mark(v) for k, v in value.items()}
    return value


def clean_line(line: bytes) -> bytes:
    """The line itself, or (when it holds a lone surrogate escape) the same JSON with each lone
    surrogate replaced by U+FFFD."""
    if not _MAYBE.search(line):
        return line
    try:
        message = json.loads(line)
    except ValueError:
        return line  # not JSON: the SDK answers that itself
    text = json.dumps(message, ensure_ascii=False)
    if not _LONE.search(text):
        return line  # only valid pairs
    log.warning("a request held a lone UTF-16 surrogate (invalid Unicode); it was read with U+FFFD in its place")
    return (json.dumps(_mark(message), ensure_ascii=False) + "\n").encode("utf-8")


def install() -> None:
    """Put the filter in front of fd 0 for the rest of the process (stdio serving only)."""
    real = os.dup(0)
    r, w = os.pipe()
    os.dup2(r, 0)
    os.close(r)

    def pump() -> None:
        try:
            with os.fdopen(real, "rb", buffering=0) as src, os.fdopen(w, "wb", buffering=0) as dst:
                pending = b""
                while True:
                    chunk = src.read(65536)
                    if not chunk:
                        break
                    pending += chunk
                    *lines, pending = pending.split(b"\n")
                    for line in lines:
                        dst.write(clean_line(line + b"\n"))
                if pending:
                    dst.write(clean_line(pending))
        except OSError as exc:  # the server is going away
            log.debug("stdin filter stopped: %s", exc)

    threading.Thread(target=pump, name="scree-stdin", daemon=True).start()
