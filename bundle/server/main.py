"""The MCP bundle's entry point: MyMCP from the packages in ``lib`` beside this file.

The host runs ``python server/main.py stdio``; ``lib`` is put first on the path here as
well as in ``PYTHONPATH``, so the bundled packages win over anything the user's Python has.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))

from mymcp.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
