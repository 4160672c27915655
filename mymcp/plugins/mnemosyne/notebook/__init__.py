"""The notebook page: a person's own view of their notebook, in their browser.

Mnemosyne's page beside ``/mcp``, handed to the host as a ``plugin_api.PageRoutes``
(:func:`page_router`). ``routes.py`` serves it below ``/notebook``, ``access.py`` keeps its
login secrets and sessions, ``guard.py`` makes the checks every request passes and sets the
headers every answer carries, ``launch.py`` is ``mymcp notebook``, and ``static/`` holds the
page itself: plain HTML, CSS and JavaScript, loaded from the server and nowhere else. What it
shows comes from the Tools the host serves (``PageHost.call_tool``) and, for what no Tool
answers (every record's row, the skipped files, the export), from ``data.py``.
"""

from mymcp.plugins.mnemosyne.notebook.access import access_of
from mymcp.plugins.mnemosyne.notebook.routes import PATH, page_router

__all__ = ["PATH", "access_of", "page_router"]
