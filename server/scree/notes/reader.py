"""Read one note under the policy, safely.

The file is opened without blocking (a FIFO named `x.md` is never waited on) and without following
a last-moment symlink, then `fstat` proves it is a regular file and the very file the policy
checked. Size is capped before and during the read. Every failure is a `FileSkipped` with a reason.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat

from ..errors import FileSkipped
from . import formats
from .notebook import notebook_text
from .pdftext import pdf_text
from .roffblocks import is_roff
from .policy import NotesPolicy, Verdict
from ..records import NoteText

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
_READ_CHUNK = 1024 * 1024
_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_MAN_HEAD_CHARS = 64 * 1024  # where a manual page's header is looked for
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


def read_note(policy: NotesPolicy, rel_path: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> NoteText:
    """Read and decode a note. Raises `FileSkipped` when it is refused, binary, too big or unreadable.
    A PDF's text is its pages' text with page and outline markers (`pdftext`); a notebook's, its cells as
    Markdown (`notebook`); a file named as a manual page (`ssh.1`) must be roff (`roffblocks.is_roff`).

    The BOM is stripped; invalid UTF-8 is replaced (U+FFFD) and reported in `warnings`;
    `sha256`/`size` are of the raw bytes, `mtime_ns` is taken before reading so a change during
    the read shows up as a new version at the next sync.
    """
    rel, data, st = _read_checked(policy, rel_path, max_bytes)
    warnings: tuple[str, ...] = ()
    kind = formats.kind_of(rel)
    if kind == formats.PDF:
        text = pdf_text(rel, data)  # FileSkipped when it gives no text
    elif kind == formats.NOTEBOOK:
        _refuse_binary(rel, data)
        text = notebook_text(rel, data)  # FileSkipped when it is no notebook
    else:
        _refuse_binary(rel, data)
        body = data[len(_BOM) :] if data.startswith(_BOM) else data
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            offset = exc.start + (len(data) - len(body))
            text = body.decode("utf-8", errors="replace")
            warnings = (f"invalid UTF-8 (first bad byte at offset {offset}) replaced with U+FFFD",)
        if kind == formats.ROFF and not is_roff(text[:_MAN_HEAD_CHARS].splitlines()):
            raise FileSkipped(rel, "is named as a manual page but holds no roff (no .TH or .Dd among its first "
                                   "requests); add it to .screeignore if it is not a document")
    return NoteText(
        rel_path=rel,
        text=text,
        sha256=hashlib.sha256(data).hexdigest(),
        mtime_ns=st.st_mtime_ns,
        size=len(data),
        warnings=warnings,
    )


def hash_note(
    policy: NotesPolicy, rel_path: str, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[str, int, int]:
    """(sha256 of the raw bytes, mtime_ns, size) under the same checks as `read_note`, without decoding.

    Binary files are refused here too, so a file `hash_note` accepts is one `read_note` accepts.
    """
    rel, data, st = _read_checked(policy, rel_path, max_bytes)
    if not _is_pdf(rel):  # a PDF is binary by nature; read_note says whether it gives text
        _refuse_binary(rel, data)
    return hashlib.sha256(data).hexdigest(), st.st_mtime_ns, len(data)


def _read_checked(policy: NotesPolicy, rel_path: str, max_bytes: int) -> tuple[str, bytes, os.stat_result]:
    verdict = policy.inspect(rel_path)
    data, st = read_admitted(verdict, max_bytes=max_bytes)
    return verdict.rel_path, data, st


def read_admitted(verdict: Verdict, *, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[bytes, os.stat_result]:
    """Raw bytes and `fstat` of the file a policy verdict admitted, proving it is still that file.

    Refuses (FileSkipped) when the verdict is a refusal, when what opens is not a regular file or
    not the (st_dev, st_ino) the policy checked (swapped after the check), or when it is over
    `max_bytes` by size or by what a read returns.
    """
    rel = verdict.rel_path
    if not verdict.admitted or verdict.path is None or verdict.stat is None:
        raise FileSkipped(rel, verdict.reason or "refused by the policy")
    fd = _open(rel, verdict.path)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileSkipped(rel, "is not a regular file (it changed after it was checked)")
        if (st.st_dev, st.st_ino) != (verdict.stat.st_dev, verdict.stat.st_ino):
            raise FileSkipped(rel, "was replaced while being checked; the next sync will read it")
        if st.st_size > max_bytes:
            raise FileSkipped(rel, _too_big(st.st_size, max_bytes))
        data = _read_capped(fd, rel, max_bytes)
    finally:
        os.close(fd)
    return data, st


def _open(rel: str, path: str) -> int:
    try:
        return os.open(path, _OPEN_FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        raise FileSkipped(rel, "vanished before it could be read") from None
    except PermissionError:
        raise FileSkipped(rel, "permission denied; make it readable to have it indexed") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FileSkipped(rel, "became a symbolic link after it was checked") from None
        raise FileSkipped(rel, f"cannot be opened ({exc.strerror})") from None


def _read_capped(fd: int, rel: str, max_bytes: int) -> bytes:
    """Read to EOF, but never more than max_bytes + 1 bytes: a file growing under us stays capped."""
    parts: list[bytes] = []
    total = 0
    while True:
        try:
            part = os.read(fd, min(_READ_CHUNK, max_bytes + 1 - total))
        except OSError as exc:
            raise FileSkipped(rel, f"cannot be read ({exc.strerror})") from None
        if not part:
            break
        parts.append(part)
        total += len(part)
        if total > max_bytes:
            raise FileSkipped(rel, _too_big(total, max_bytes, growing=True))
    return b"".join(parts)


def _is_pdf(rel: str) -> bool:
    return formats.kind_of(rel) == formats.PDF


def _refuse_binary(rel: str, data: bytes) -> None:
    if b"\0" in data:
        if data.startswith(_UTF16_BOMS):
            raise FileSkipped(rel, "is UTF-16 text; save it as UTF-8 to have it indexed")
        raise FileSkipped(rel, "is binary (contains NUL bytes)")


def _too_big(size: int, max_bytes: int, *, growing: bool = False) -> str:
    if growing:
        return f"grew past the {_human(max_bytes)} limit for one note while being read"
    return f"is {_human(size)}, over the {_human(max_bytes)} limit for one note"


def _human(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MB"
    if n >= 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n} bytes"
