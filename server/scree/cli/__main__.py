"""`python -m scree.cli ...` is `scree ...`."""

import sys

from . import main

sys.exit(main())
