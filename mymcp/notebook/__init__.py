"""The notebook page: a person's own view of their notebook, in their browser.

``routes.py`` serves it below ``/notebook`` (``page_router`` is one of the routers the
production app includes), ``access.py`` keeps its login secrets and sessions, ``guard.py``
makes the checks every request passes and sets the headers every answer carries, and
``static/`` holds the page itself: plain HTML, CSS and JavaScript, loaded from the server
and nowhere else. What it shows comes from the runtime's Tools and, for what no Tool answers
(every record's row, the skipped files, the export), from the plugin through
``host/bootstrap.py``.
"""

from mymcp.notebook.access import access_of
from mymcp.notebook.routes import PATH, page_router

__all__ = ["PATH", "access_of", "page_router"]
