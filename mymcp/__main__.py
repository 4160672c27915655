"""``python -m mymcp``: the same as the ``mymcp`` command."""

import sys

from mymcp.cli import main

sys.exit(main())
