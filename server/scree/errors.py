"""The one exception hierarchy of scree.

Every message says what happened and what to do. No message may contain an API
key: build messages from paths, names and counts, never from request headers; text that may echo a
request (a provider's error, an exception, a third-party log line) goes through `scrub`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hooks import this module: `typing` would cost them ~2 ms
    from typing import Iterable

HIDDEN = "[hidden]"
# What a secret looks like wherever it is written, whatever the secret: a bearer token, a key field
# (`api_key=...`, `"Authorization": "..."`), an OpenAI-style `sk-...` key.
_BEARER = r"(?i)(bearer\s+)[^\s\"',;]+"
_KEY_FIELD = r"(?i)((?:api[-_]?key|authorization|x-api-key)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;&}]+"
_SK = r"\bsk-[A-Za-z0-9_-]{8,}"


def scrub(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` with every secret (as written, and as `repr`, JSON and URL-quoting write it), every
    bearer token, `api_key=...` value and `sk-...` key hidden.

    Called before a string is cut or printed, so a key can never be half-shown either."""
    import re  # here: the hooks import this module and never scrub (re costs them a few ms)
    from json import dumps
    from urllib.parse import quote

    for secret in secrets:
        if secret and len(secret) >= 4:
            for form in dict.fromkeys((secret, repr(secret)[1:-1], dumps(secret)[1:-1], quote(secret, safe=""))):
                text = text.replace(form, HIDDEN)
    text = re.sub(_BEARER, lambda m: m.group(1) + HIDDEN, text)
    text = re.sub(_KEY_FIELD, lambda m: m.group(1) + HIDDEN, text)
    return re.sub(_SK, HIDDEN, text)


class ScreeError(Exception):
    """Base of every error scree raises on purpose (the CLI prints these without a traceback)."""


class ConfigError(ScreeError):
    """A setting or flag has a value scree cannot use."""


class BadPattern(ConfigError):
    """A gitignore-style line or path glob that cannot be compiled."""


class FolderError(ScreeError):
    """The notes folder is missing, not a directory, or not the one the index belongs to."""


class IndexError_(ScreeError):
    """The index file is unusable (corrupt, locked, written by a newer scree)."""


class IndexDamaged(IndexError_):
    """The index file cannot be trusted (SQLite says it is malformed or not a database, its rows are out
    of step, its schema is not the one its version claims): it must be rebuilt (it is a cache).
    `detail` says what is wrong, without the advice."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail or message


class DiskFull(IndexError_):
    """A write failed for lack of space (or a file size limit): retrying after space returns works."""


class ReadOnlyIndex(IndexError_):
    """The index (or its folder, or its disk) cannot be written; reading still works."""


class NotAnIndex(IndexError_):
    """The index path holds a file scree did not make (a note, another program's database)."""


class IndexMismatchError(FolderError):
    """The index was built for another folder; syncing it would delete that folder's rows."""


class PathRefused(ScreeError):
    """A path the policy does not admit (outside the folder, hidden, ignored, not Markdown...)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class FileSkipped(ScreeError):
    """A file that looked like a note but cannot be indexed (binary, too big, not a regular file...)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class EmbedderError(ScreeError):
    """The embedding model cannot be loaded or run."""


class ModelMissingError(EmbedderError):
    """The local model package is missing or its file is damaged."""


class EmbedderUnavailable(EmbedderError):
    """Embeddings cannot be had right now (API unreachable, timing out, rate-limited, failing, or
    answering with something unusable); the same request may work later. Searches answer from the
    keyword index meanwhile, and the live index pauses and resyncs."""


class EmbedStopped(ScreeError):
    """A stop request ended an embed call between two model batches (or requests): nothing it computed
    is returned, so nothing of it is stored. The caller stops as it would between two calls."""

    def __init__(self) -> None:
        super().__init__("embedding was stopped")


class SqliteUnavailableError(ScreeError):
    """No SQLite able to load sqlite-vec could be found."""


class LockHeld(ScreeError):
    """Another process holds the writer lock of this index."""

    def __init__(self, message: str, pid: int | None = None) -> None:
        super().__init__(message)
        self.pid = pid
