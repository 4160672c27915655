"""Console entry points: ``mymcp``, ``mymcp-dev`` and ``mymcp-test``."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

TARGET = "mymcp.app:create_production_app"
HOST = "127.0.0.1"
PORT = 8000


def main() -> None:
    """Serve on 127.0.0.1:8000."""
    import uvicorn

    uvicorn.run(TARGET, host=HOST, port=PORT, factory=True)


def dev() -> None:
    """Serve on 127.0.0.1:8000, reloading when the code changes."""
    import uvicorn

    uvicorn.run(TARGET, host=HOST, port=PORT, factory=True, reload=True)


def test() -> int:
    """Run the test suite from the current directory; return pytest's exit code."""
    if importlib.util.find_spec("pytest") is None:
        print('Test support is not installed. Run: pip install -e ".[test]"')
        return 1
    return subprocess.call([sys.executable, "-m", "pytest", "tests"])
