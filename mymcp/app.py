"""The ASGI application factories.

``create_app(runtime)`` serves one already-composed runtime (``mymcp.transports.http``);
``create_production_app()`` composes the bundled plugin from the operator's settings and is
the Uvicorn factory target (``uvicorn --factory mymcp.app:create_production_app``). There is
no module-level app and importing this module does nothing.
"""

from __future__ import annotations

from fastapi import FastAPI

from mymcp.transports.http import HttpSecurity, create_app

__all__ = ["create_app", "create_production_app"]


def create_production_app() -> FastAPI:
    """Compose the bundled Mnemosyne plugin and serve it, with the notebook page.

    Startup errors propagate: a mistake in the operator's setup carries a note saying where
    it is and what to do, which Uvicorn's traceback prints last.
    """
    from mymcp.host import bootstrap
    from mymcp.startup import production_runtime

    runtime = production_runtime()
    security = HttpSecurity.from_environment()
    app = create_app(runtime, security=security, routers=bootstrap.production_pages())
    bootstrap.wait_until_warm()
    return app
