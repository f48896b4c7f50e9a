"""``python -m fmacro``: the command line (same as the ``fmacro`` command)."""

import sys

from fmacro.cli import main

sys.exit(main())
