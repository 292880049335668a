"""Whether an `.xml` or `.sgml` file is DocBook, by its head (`docbookblocks.is_docbook`): the one check of the notes
policy that reads a file. Read without blocking or following a link (a FIFO or a link is refused later, by its kind),
and known again while the file's modification time and size hold, so a walk reads each head once.
"""

from __future__ import annotations

import os
import stat

from . import docbookblocks, formats

HEAD_BYTES = 4096  # what of such a file says whether it is DocBook


class DocbookHeads:
    """The verdicts on the files it was asked about, by path: (mtime, size, is DocBook)."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[int, int, bool]] = {}

    def holds_docbook(self, path: str, rel: str) -> bool:
        """True when the file at `path` (the note `rel`) is DocBook by its first kB; True too when it cannot be read
        as a regular file, whose own check then says what is wrong with it."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return True
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return True
            known = self._known.get(rel)
            if known is not None and known[:2] == (st.st_mtime_ns, st.st_size):
                return known[2]
            head = os.read(fd, HEAD_BYTES).decode("utf-8", errors="replace")
        except OSError:
            return True
        finally:
            os.close(fd)
        verdict = docbookblocks.is_docbook(head, sgml=rel.lower().endswith(formats.DOCBOOK_SGML_SUFFIX))
        self._known[rel] = (st.st_mtime_ns, st.st_size, verdict)
        return verdict
