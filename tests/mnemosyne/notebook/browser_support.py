"""Headless Chromium for the page's browser tests, driven by Playwright.

The browser is Debian's ``chromium`` package (``/usr/bin/chromium``, or ``MYMCP_CHROMIUM``);
nothing ever downloads one. When it or Playwright is missing, :data:`MISSING` says what to
install and the browser tests skip. Screenshots go to ``.artifacts/notebook/`` (ignored by
git), or to the folder ``MYMCP_TEST_ARTIFACTS`` names.
"""

from __future__ import annotations

import http.server
import importlib.util
import os
import shutil
import threading
from pathlib import Path
from typing import Any

from tests.processes import REPO_ROOT, free_port

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


# The page marks its body once the memory list has been painted.
READY = "body[data-ready=true]"


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


def visit_from_another_origin(chromium: Any, storage: Any, script: str) -> str:
    """Open, in a browser holding the notebook's cookie (``storage``), a page served from
    another origin of this machine (another port of 127.0.0.1) that runs ``script``; the
    page's title once the script has set it."""

    class Other(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            body = f"<!doctype html><title>waiting</title><script>{script}</script>".encode()
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Other)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    context = chromium.new_context(storage_state=storage)
    try:
        tab = context.new_page()
        tab.goto(f"http://127.0.0.1:{server.server_address[1]}/")
        tab.wait_for_function("document.title !== 'waiting'")
        title: str = tab.title()
        return title
    finally:
        context.close()
        server.shutdown()
        server.server_close()
