"""Run the relay as a script, with nothing but the standard library: `python3 -E -s relay/main.py ...`.

bin/scree runs this for `serve` before any environment exists, so it cannot count on `scree` being
installed: it puts the package's parent (server/) first on the path instead of this file's folder,
whose module names must not shadow the standard library's.
"""

import os
import sys

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[0] = os.path.dirname(os.path.dirname(here))
    from scree.relay.relay import main

    sys.exit(main())
