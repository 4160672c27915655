"""Headless Chromium for the page's browser tests, driven by Playwright.

The browser is Debian's ``chromium`` package (``/usr/bin/chromium``, or ``MYMCP_CHROMIUM``);
nothing ever downloads one. When it or Playwright is missing, :data:`MISSING` says what to
install and the browser tests skip. Screenshots go to ``.artifacts/notebook/`` (ignored by
git), or to the folder ``MYMCP_TEST_ARTIFACTS`` names.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path
from typing import Any

from tests.processes import REPO_ROOT

CHROMIUM = os.environ.get("MYMCP_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# The launch flags that work on a machine with a closed network, as root.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _missing() -> str | None:
    if not os.access(CHROMIUM, os.X_OK):
        return "browser tests skipped: no Chromium; install the package: apt-get install chromium"
    if importlib.util.find_spec("playwright") is None:
        return "browser tests skipped: no Playwright; install the package: pip install playwright"
    return None


MISSING = _missing()


def launch(playwright: Any) -> Any:
    """A headless Chromium with a fresh profile of its own."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)


def artifacts() -> Path:
    """The folder screenshots are written to (made on first use)."""
    folder = Path(os.environ.get("MYMCP_TEST_ARTIFACTS") or REPO_ROOT / ".artifacts" / "notebook")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
