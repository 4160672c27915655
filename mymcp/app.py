"""The ASGI application factories.

``create_app(runtime)`` serves one already-composed runtime; ``create_production_app()``
composes the bundled plugin from the operator's settings and is the Uvicorn factory target
(``uvicorn --factory mymcp.app:create_production_app``). There is no module-level app and
importing this module does nothing.

A plain ``POST /mcp`` is the request an MCP server answers thousands of times, so it does
not walk FastAPI's middleware stack and router: the front of the stack checks ``Host`` and
``Origin`` and hands it to the MCP endpoint directly. Everything else (``/health``,
``/version``, another method on ``/mcp`` and its 405, an unknown path and its 404, a
``root_path`` deployment) goes through the full stack as before.
"""

from __future__ import annotations

import inspect
from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from mymcp import settings
from mymcp.mcp.dispatcher import MCPDispatcher, RuntimeLike
from mymcp.routes import health, mcp, version
from mymcp.routes.security import HttpSecurity, SecurityMiddleware, refused


class _McpApp(FastAPI):
    """FastAPI with the fast path for ``POST /mcp`` in front of its middleware stack."""

    def __init__(self, endpoint: mcp.McpEndpoint, security: HttpSecurity, **options: Any):
        super().__init__(**options)
        self._mcp_endpoint = endpoint
        self._security = security

    def build_middleware_stack(self) -> ASGIApp:
        return _McpFront(super().build_middleware_stack(), self._mcp_endpoint, self._security)


class _McpFront:
    """Serves a plain ``POST /mcp`` itself and passes every other request on to ``stack``."""

    def __init__(self, stack: ASGIApp, endpoint: mcp.McpEndpoint, security: HttpSecurity):
        self._stack = stack
        self._endpoint = endpoint
        self._security = security

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["path"] == mcp.PATH
            and scope["method"] == "POST"
            and not scope.get("root_path")
        ):
            if not await refused(self._security, scope, send):
                await self._endpoint(scope, receive, send)
            return
        await self._stack(scope, receive, send)


def create_app(runtime: RuntimeLike, *, security: HttpSecurity | None = None) -> FastAPI:
    """An app serving ``runtime``; apps built from different runtimes share nothing."""
    security = security or HttpSecurity()
    endpoint = mcp.McpEndpoint(MCPDispatcher(runtime))
    app = _McpApp(
        endpoint,
        security,
        title=settings.APP_TITLE,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        **_without_telemetry(),
    )
    app.add_middleware(SecurityMiddleware, security=security)
    app.include_router(mcp.create_router(endpoint))
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
