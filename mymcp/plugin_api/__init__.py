"""The plugin-facing API of MyMCP.

A plugin describes itself with inert declarations (``definition``), ships the same
description as ``manifest.json`` (read strictly by ``manifest``), and at runtime hands the
host a ``PluginContribution`` of activated Tools (``contracts``). The host checks that all
three agree and composes the Tools it will serve (``composition``). Nothing here performs
I/O or depends on a concrete plugin.
"""

from mymcp.plugin_api import composition, contracts, definition, manifest, pages
from mymcp.plugin_api.composition import *  # noqa: F403 - each module's __all__ is the API
from mymcp.plugin_api.contracts import *  # noqa: F403
from mymcp.plugin_api.definition import *  # noqa: F403
from mymcp.plugin_api.manifest import *  # noqa: F403
from mymcp.plugin_api.pages import *  # noqa: F403

__all__ = [
    *composition.__all__,
    *contracts.__all__,
    *definition.__all__,
    *manifest.__all__,
    *pages.__all__,
]
