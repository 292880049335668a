"""Child process for the lock tests: take a WriterLock and hold it until stdin closes.

Usage: lock_holder.py <lock path> [--race]
Prints "locked" (then holds the lock until stdin reaches EOF) or "busy" (and exits 1).
With --race it first prints "ready" and waits for a line on stdin, so a test can release several
children at the same moment.
"""

from __future__ import annotations

import sys
from pathlib import Path

from scree.lock import WriterLock


def main() -> int:
    lock = WriterLock(Path(sys.argv[1]))
    if "--race" in sys.argv[2:]:
        print("ready", flush=True)
        sys.stdin.readline()
    if not lock.try_acquire():
        print("busy", flush=True)
        return 1
    print("locked", flush=True)
    sys.stdin.read()  # hold until the parent closes our stdin (or kills us)
    lock.release()
    return 0


if __name__ == "__main__":
    sys.exit(main())
