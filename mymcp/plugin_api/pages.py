"""A plugin's own HTTP pages beside ``/mcp``, and what the host lends them.

A plugin may serve pages of its own (Mnemosyne serves the notebook page below
``/notebook``). It hands the host a :data:`PageRoutes`: a function the host calls once per
app with a :class:`PageHost`, which returns the FastAPI ``APIRouter`` the app includes after
its own routes. The host checks ``Host`` and ``Origin`` for every request before any route
runs; everything else (a login, a session, a CSRF token) the page does itself. A page reaches
the plugin's Tools only through :meth:`PageHost.call_tool`, so it answers, refuses and logs
exactly as a client's call does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from mymcp.jsonvalue import JsonObject

__all__ = ["PageHost", "PageRoutes"]


class PageHost(Protocol):
    """What the host lends a page: the Tools it serves and the local access token."""

    def serves(self, tool: str) -> bool:
        """Whether the app serves the Tool named ``tool`` (its gate is on)."""
        ...

    def call_tool(self, tool: str, arguments: JsonObject) -> JsonObject | None:
        """The Tool's MCP result for ``arguments`` (as the Tool returns it: its
        ``structuredContent`` and ``isError``), or None when the app does not serve it."""
        ...

    def is_access_token(self, presented: str) -> bool:
        """Whether ``presented`` is the local access token (``mymcp token``); never when
        there is none or its file is refused."""
        ...


# Called once per app; returns the ``APIRouter`` of the page's routes.
PageRoutes = Callable[[PageHost], Any]
