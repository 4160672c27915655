"""The ASGI application factories.

``create_app(runtime)`` serves one already-composed runtime (``mymcp.transports.http``);
``create_production_app()`` composes the bundled plugin from the operator's settings and is
the Uvicorn factory target (``uvicorn --factory mymcp.app:create_production_app``). There is
no module-level app and importing this module does nothing: not even the web framework is
imported before the factory runs (see ``create_production_app``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI

    from mymcp.transports.http import create_app

__all__ = ["create_app", "create_production_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from mymcp.transports.http import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def create_production_app() -> FastAPI:
    """Compose the bundled Mnemosyne plugin and serve it, with the notebook page.

    The plugin is composed before the web framework is imported: its warm-up (and reading a
    large notebook ahead) then begins while that import runs. Startup errors propagate: a
    mistake in the operator's setup carries a note saying where it is and what to do, which
    Uvicorn's traceback prints last.
    """
    from mymcp.host import bootstrap
    from mymcp.startup import production_runtime

    runtime = production_runtime()
    from mymcp.transports.http import HttpSecurity, create_app

    security = HttpSecurity.from_environment()
    app = create_app(runtime, security=security, routers=bootstrap.production_pages())
    bootstrap.wait_until_warm()
    return app
