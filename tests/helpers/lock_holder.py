"""Child process for the lock tests: take a WriterLock and hold it until stdin closes.

Usage: lock_holder.py <lock path> [--race] [--as "scree reindex"]
Prints "locked" (then holds the lock until stdin reaches EOF) or "busy" (and exits 1).
With --race it first prints "ready" and waits for a line on stdin, so a test can release several
children at the same moment. With --as it records itself as that command (as a real `scree reindex`
or `scree serve` would) instead of as this script.
"""

from __future__ import annotations

import sys
from pathlib import Path

from scree.live.lock import WriterLock


def main() -> int:
    args = sys.argv[2:]
    lock = WriterLock(Path(sys.argv[1]))
    if "--as" in args:
        sys.argv = args[args.index("--as") + 1].split()  # what WriterLock records as the holder's command
    if "--race" in args:
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
