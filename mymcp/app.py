"""The ASGI application factories.

``create_app(runtime)`` serves one already-composed runtime; ``create_production_app()``
composes the bundled plugin from the operator's settings and is the Uvicorn factory target
(``uvicorn --factory mymcp.app:create_production_app``). There is no module-level app and
importing this module does nothing.
"""

from __future__ import annotations

import inspect
from typing import Any

from fastapi import FastAPI

from mymcp import settings
from mymcp.mcp.dispatcher import MCPDispatcher, RuntimeLike
from mymcp.routes import health, mcp, version
from mymcp.routes.security import HttpSecurity, SecurityMiddleware


def create_app(runtime: RuntimeLike, *, security: HttpSecurity | None = None) -> FastAPI:
    """An app serving ``runtime``; apps built from different runtimes share nothing."""
    app = FastAPI(
        title=settings.APP_TITLE,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        **_without_telemetry(),
    )
    app.add_middleware(SecurityMiddleware, security=security or HttpSecurity())
    app.include_router(mcp.create_router(MCPDispatcher(runtime)))
    app.include_router(health.router)
    app.include_router(version.router)
    return app


def _without_telemetry() -> dict[str, Any]:
    """Turn off FastAPI's built-in OpenTelemetry, on the versions that have it.

    A local memory server sends nothing about its requests anywhere, whatever telemetry the
    surrounding environment configures; and checking for it cost every request tens of
    microseconds.
    """
    if "telemetry" not in inspect.signature(FastAPI.__init__).parameters:
        return {}
    switches = ("tracing", "metrics", "logs", "operation_spans", "auto_configure")
    return {"telemetry": dict.fromkeys(switches, False)}


def create_production_app() -> FastAPI:
    """Compose the bundled Mnemosyne plugin and serve it; startup errors propagate.

    A mistake in the operator's setup carries a note saying where it is and what to do,
    which Uvicorn's traceback prints last.
    """
    from mymcp.host.bootstrap import build_production_runtime, check_production_setup
    from mymcp.startup import configure_logging

    configure_logging()
    runtime = build_production_runtime()
    check_production_setup()
    return create_app(runtime, security=HttpSecurity.from_environment())
