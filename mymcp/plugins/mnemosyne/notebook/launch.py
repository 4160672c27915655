"""``mymcp notebook``: serve as ``mymcp serve`` does, then hand the person the page.

Once the server listens, the page's login address, carrying a fresh single-use secret in
its fragment (which a browser never sends to a server, so it reaches no access log), is the
first line written to standard output, and the default browser opens it unless told not to.
A browser that cannot be opened is one line on standard error; the address still works.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from mymcp.plugins.mnemosyne.notebook.access import access_of
from mymcp.plugins.mnemosyne.notebook.routes import PATH

__all__ = ["login_url", "open_in_browser", "serve_with_login"]

# Uvicorn's exit status when the server never started.
_NOT_STARTED = 3


def login_url(host: str, port: int, secret: str) -> str:
    """The page's login address on ``host`` and ``port``, carrying ``secret``."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{PATH}/login#secret={secret}"


def serve_with_login(
    factory: Callable[[], Any], host: str, port: int, *, open_browser: bool
) -> None:
    """Serve the app ``factory`` builds until stopped; once it listens, print its login address
    (and open it).

    The factory runs where Uvicorn runs ``mymcp serve``'s, after Uvicorn has set up its
    logging, so the log lines go where they go for ``mymcp serve``. Exits as Uvicorn does
    when it cannot start (the caller tells the operator why); a setup mistake propagates.
    """
    import uvicorn

    built: list[Any] = []

    def build() -> Any:
        built.append(factory())
        return built[-1]

    def announce() -> None:
        url = login_url(host, port, access_of(built[-1]).issue_login())
        print(url, flush=True)
        if open_browser:
            threading.Thread(target=open_in_browser, args=(url,), daemon=True).start()

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if not self.should_exit:
                announce()

    server = Server(uvicorn.Config(build, host=host, port=port, factory=True))
    try:
        server.run()
    except KeyboardInterrupt:  # Uvicorn stops first, then raises the signal again
        pass
    if not server.started:
        sys.exit(_NOT_STARTED)


def open_in_browser(url: str) -> None:
    """Open ``url`` in the default browser; say so in one line when that is not possible."""
    import webbrowser

    if not _may_have_a_browser():
        print(
            "mymcp: no graphical browser here; open the address above in a browser on this machine",
            file=sys.stderr,
        )
        return
    try:
        opened = webbrowser.open(url)
    except webbrowser.Error:
        opened = False
    if not opened:
        print("mymcp: no browser could be opened; open the address above", file=sys.stderr)


def _may_have_a_browser() -> bool:
    """False on a Unix without a display, where only a terminal browser (which would take
    over this terminal and cannot run the page) could open."""
    if sys.platform in ("darwin", "win32"):
        return True
    return any(os.environ.get(name) for name in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY"))
