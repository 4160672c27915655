"""MCP over HTTP: the FastAPI app, ``POST /mcp`` as a plain ASGI app, ``/health``, ``/version``,
the ``Host`` and ``Origin`` checks and the access token.

Every HTTP request meets the front of the app first, which reads the request's headers in
one pass (:func:`read_headers`) and refuses what the checks below refuse. A plain
``POST /mcp`` then goes straight to :class:`McpEndpoint`, which reads the body once from
``receive``, hands the decoded message to its session (``mymcp.mcp.session``) and sends the
two response messages itself. Everything else (``/health``, ``/version``, another method on
``/mcp`` and its 405, an unknown path and its 404, a ``root_path`` deployment, the extra
routers) walks FastAPI's middleware stack and router. What never waits is answered on the
event loop; a Tool call runs on the app's worker threads (``mymcp.transports.base``).

DNS rebinding: a browser page can be made to talk to 127.0.0.1 under a foreign host name or
from a foreign origin. Requests whose ``Host`` is not a loopback name get 421; requests
carrying an ``Origin`` that is not a loopback origin get 403. Ordinary MCP clients send no
``Origin`` and a loopback ``Host``, so they are unaffected. The operator can allow more with
``MYMCP_ALLOWED_HOSTS`` and ``MYMCP_ALLOWED_ORIGINS`` (comma-separated).

Other accounts: every user of the machine can reach a loopback port. With
``MYMCP_REQUIRE_TOKEN=true`` (``mymcp serve --require-token``) every request to ``/mcp``
must carry ``Authorization: Bearer <token>`` with the local access token
(``mymcp.access_token``); any other gets 401 with ``WWW-Authenticate: Bearer`` and a fixed
JSON-RPC error, before its body is read. ``/health`` and ``/version`` stay open, and the
extra routers guard themselves.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, cast
from urllib.parse import urlsplit

from fastapi import APIRouter, FastAPI
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send

from mymcp import access_token, jsonvalue, settings
from mymcp.mcp import errors
from mymcp.mcp.dispatcher import RuntimeLike
from mymcp.mcp.era import Era, HttpHeaders
from mymcp.mcp.session import MAX_MESSAGE_BYTES, Answer, Session, Work, decoded, refusal
from mymcp.transports.base import Workers, shared_workers

PATH = "/mcp"
ALLOWED_HOSTS_VARIABLE = "MYMCP_ALLOWED_HOSTS"
ALLOWED_ORIGINS_VARIABLE = "MYMCP_ALLOWED_ORIGINS"

_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_MAX_AUTHORIZATION_BYTES = 512  # longer than any token file may hold, with the scheme
_AMBIGUOUS = b"ambiguous"  # a repeated Authorization: no Bearer credential, never matches
_JSON = (b"content-type", b"application/json")

_logger = logging.getLogger("mcp")


# --- the app -------------------------------------------------------------------------------


def create_app(
    runtime: RuntimeLike,
    *,
    security: HttpSecurity | None = None,
    routers: Iterable[Callable[[Any], APIRouter]] = (),
    workers: Workers | None = None,
) -> FastAPI:
    """An app serving ``runtime``, and the router each of ``routers`` (plugins' pages, each a
    ``plugin_api.PageRoutes``) makes from what the app lends it; apps built from different
    runtimes share nothing but the process's worker threads, unless handed ``workers`` of
    their own."""
    endpoint = McpEndpoint(runtime, workers or shared_workers())
    # FastAPI's documentation pages are off, and so is its OpenTelemetry on the versions
    # that have it: a local memory server reports nothing, and checking cost every request.
    off = ("tracing", "metrics", "logs", "operation_spans", "auto_configure")
    telemetry = "telemetry" in inspect.signature(FastAPI.__init__).parameters
    options = {"telemetry": dict.fromkeys(off, False)} if telemetry else {}
    app = _McpApp(endpoint, security or HttpSecurity(), title=settings.APP_TITLE, **options)
    mcp = APIRouter()  # the endpoint is served as the ASGI app it is; other methods get 405
    mcp.add_route(PATH, cast(Any, endpoint), methods=["POST"])
    for router in (mcp, _router, *(factory(_PageHost(runtime)) for factory in routers)):
        app.include_router(router)
    return app


class _PageHost:
    """What the app lends a plugin's page (``plugin_api.PageHost``): its Tools, the token."""

    def __init__(self, runtime: RuntimeLike) -> None:
        self.serves = runtime.registry.__contains__
        self.call_tool = runtime.registry.call_tool

    def is_access_token(self, presented: str) -> bool:
        try:
            expected = access_token.read_token()
        except access_token.TokenFileError:  # refused: mymcp doctor says why
            return False
        return expected is not None and access_token.token_matches(presented, expected)


class _McpApp(FastAPI):
    """FastAPI behind a front: the Host, Origin and token checks for every request, and the
    fast path for ``POST /mcp``."""

    def __init__(self, endpoint: McpEndpoint, security: HttpSecurity, **options: Any):
        super().__init__(docs_url=None, redoc_url=None, openapi_url=None, **options)
        self._mcp_endpoint, self._security = endpoint, security

    def build_middleware_stack(self) -> ASGIApp:
        stack = super().build_middleware_stack()
        endpoint, security = self._mcp_endpoint, self._security

        async def front(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                return await stack(scope, receive, send)
            headers = read_headers(scope["headers"])
            if (refused := security.refusal(headers, scope)) is not None:
                await _send(send, *refused)
            elif scope["path"] == PATH and scope["method"] == "POST" and not scope.get("root_path"):
                await endpoint.serve(headers, receive, send)
            else:
                await stack(scope, receive, send)

        return front


_router = APIRouter()


@_router.api_route("/health", methods=["GET", "HEAD"])
async def health() -> dict[str, str]:
    """``GET /health``: the process is up."""
    return {"status": "ok"}


@_router.api_route("/version", methods=["GET", "HEAD"])
async def version() -> dict[str, Any]:
    """``GET /version``: who answers, and the handshake and stateless revisions it speaks."""
    return {
        "name": settings.SERVER_NAME,
        "version": settings.SERVER_VERSION,
        "protocolVersion": settings.PROTOCOL_VERSION,
        "supportedProtocolVersions": list(settings.SUPPORTED_PROTOCOL_VERSIONS),
        "modernProtocolVersions": list(settings.MODERN_PROTOCOL_VERSIONS),
    }


async def _send(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _length(body: bytes) -> tuple[bytes, bytes]:
    return (b"content-length", str(len(body)).encode("ascii"))


# --- the request's headers, in one pass ------------------------------------------------------


class RequestHeaders(NamedTuple):
    """What the app reads of a request's headers: ``Host`` and ``Origin`` (the last of each
    counts), ``Authorization`` (a repeated one counts as none that matches), the declared
    body length and the MCP metadata headers (the first of each counts)."""

    host: str | None = None
    origin: str | None = None
    authorization: bytes | None = None
    length: bytes | None = None
    metadata: HttpHeaders = HttpHeaders()


# Where each header read goes: Host, Origin, Authorization, the length, then the metadata
# headers in the order HttpHeaders holds them. ASGI servers give header names in lower case.
_WANTED = {
    name: slot
    for slot, name in enumerate(
        (b"host", b"origin", b"authorization", b"content-length")
        + (b"mcp-protocol-version", b"mcp-method", b"mcp-name")
    )
}
_NONE = RequestHeaders()


def read_headers(raw: Iterable[tuple[bytes, bytes]]) -> RequestHeaders:
    """The headers the app reads, from one pass over the raw ones."""
    found: dict[int, tuple[bytes, ...]] = {}
    for key, value in raw:
        slot = _WANTED.get(key)
        if slot is not None:
            found[slot] = found[slot] + (value,) if slot in found else (value,)
    if not found:
        return _NONE
    host, origin, authorization, length, *sent = map(found.get, range(7))
    metadata = _NONE.metadata
    if any(sent):
        version, method, name = [values[0].decode("latin-1") if values else None for values in sent]
        metadata = HttpHeaders(version, method, name, any(v and len(v) > 1 for v in sent))
    return RequestHeaders(
        host[-1].decode("latin-1") if host else None,
        origin[-1].decode("latin-1") if origin else None,
        (authorization[0] if len(authorization) == 1 else _AMBIGUOUS) if authorization else None,
        length[0] if length else None,
        metadata,
    )


# --- POST /mcp -----------------------------------------------------------------------------


class McpEndpoint:
    """The ASGI app of ``POST /mcp`` for one runtime."""

    def __init__(self, runtime: RuntimeLike, workers: Workers) -> None:
        self.session, self._workers = Session(runtime), workers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Served through the router (a ``root_path`` deployment): the headers once more."""
        await self.serve(read_headers(scope["headers"]), receive, send)

    async def serve(self, headers: RequestHeaders, receive: Receive, send: Send) -> None:
        message = await _read_message(receive, headers.length)
        if isinstance(message, errors.ProtocolError):
            handled: Answer | Work = self.session.unreadable(message, headers.metadata)
        else:
            handled = self.session.handle(message, headers.metadata)
        if isinstance(handled, Work):
            # A Tool call: on a worker thread, in a copy of the request's context (as
            # Starlette's own hand-off does), while the loop serves other requests.
            run = functools.partial(contextvars.copy_context().run, handled.run)
            handled = await self._workers.run(asyncio.get_running_loop(), run)
        body, status = cast(Answer, handled)
        # Starlette's headers: the length, and the JSON type when there is a body.
        await _send(send, status, body, [_length(body), _JSON] if body else [_length(body)])


async def _read_message(receive: Receive, declared: bytes | None) -> Any:
    """The decoded body, or the refusal's row when it is too large, cut off or not JSON."""
    if declared is not None and declared.isdigit() and int(declared) > MAX_MESSAGE_BYTES:
        return errors.TOO_LARGE
    chunks: list[bytes] = []
    size, more = 0, True
    while more:
        try:
            message = await receive()
        except ClientDisconnect:  # as Starlette's own wrappers of receive report it
            return errors.PARSE
        if message["type"] == "http.disconnect":  # gone before the body was complete
            return errors.PARSE
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if size > MAX_MESSAGE_BYTES:
            return errors.TOO_LARGE
        more = message.get("more_body", False)
    return decoded(chunks[0] if len(chunks) == 1 else b"".join(chunks))


# --- Host, Origin and the token --------------------------------------------------------------


@dataclass(frozen=True)
class HttpSecurity:
    """Extra host names and origins the operator allows beside loopback, and the access
    token ``/mcp`` requires (None: none is required)."""

    allowed_hosts: frozenset[str] = frozenset()
    allowed_origins: frozenset[str] = frozenset()
    token: str | None = field(default=None, repr=False)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> HttpSecurity:
        """The settings, read once at start; the token is made when required and missing.

        Raises ``RequireTokenError`` for a bad ``MYMCP_REQUIRE_TOKEN`` and ``TokenFileError``
        for an unsafe token file (both setup errors).
        """
        env = os.environ if environ is None else environ
        return cls(
            allowed_hosts=_split(env.get(ALLOWED_HOSTS_VARIABLE, "")),
            allowed_origins=_split(env.get(ALLOWED_ORIGINS_VARIABLE, "")),
            token=_required_token(env),
        )

    def host_allowed(self, host: str) -> bool:
        name = host.strip().lower()
        if name.startswith("["):
            name = name[1 : name.find("]")] if "]" in name else name
        elif name.count(":") == 1:
            name = name.rsplit(":", 1)[0]
        allowed = self.allowed_hosts
        return name in _LOOPBACK_NAMES or name in allowed or host.lower() in allowed

    def origin_allowed(self, origin: str) -> bool:
        if origin.lower() in self.allowed_origins:
            return True
        try:
            parts = urlsplit(origin)
            hostname = parts.hostname
            parts.port  # noqa: B018 - raises on a malformed port
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or parts.path or parts.query or parts.fragment:
            return False
        return hostname in _LOOPBACK_NAMES

    def refusal(self, headers: RequestHeaders, scope: Scope) -> _Refusal | None:
        """The answer to a request whose ``Host``, ``Origin`` or token is not allowed."""
        if headers.host is not None and not self.host_allowed(headers.host):
            return _HOST_REFUSED
        if headers.origin is not None and not self.origin_allowed(headers.origin):
            return _ORIGIN_REFUSED
        if self.token is not None and _guarded(scope):
            if not _bearer_matches(headers.authorization, self.token):
                return _UNAUTHORIZED
        return None


def _required_token(env: Mapping[str, str]) -> str | None:
    if not access_token.require_token(env):
        return None
    home = Path(env["HOME"]) if env.get("HOME") else None
    token = access_token.read_token(home)
    if token is None:
        token = access_token.ensure_token(home)
        _logger.info("access token made in %s; 'mymcp token' prints it", access_token.SHOWN_PATH)
    _logger.info("access token required on %s (Authorization: Bearer)", PATH)
    return token


def _guarded(scope: Scope) -> bool:
    """Whether the request is for ``/mcp`` (below the ``root_path``, as the router sees it)."""
    path: str = scope["path"].removeprefix(scope.get("root_path", ""))
    return path in (PATH, PATH + "/")


def _bearer_matches(authorization: bytes | None, token: str) -> bool:
    """Whether the ``Authorization`` value is ``Bearer <token>`` (the scheme in any case)."""
    if authorization is None or len(authorization) > _MAX_AUTHORIZATION_BYTES:
        return False
    scheme, _, credential = authorization.partition(b" ")
    return scheme.lower() == b"bearer" and access_token.token_matches(
        credential.strip(b" \t"), token
    )


def _split(value: str) -> frozenset[str]:
    return frozenset(item.strip().lower() for item in value.split(",") if item.strip())


# Each refusal names the header and the setting that would allow it, never the value sent;
# a missing or wrong token gets the same fixed answer, which says nothing more.
_Refusal = tuple[int, bytes, list[tuple[bytes, bytes]]]


def _refusal(status: int, body: bytes, *extra: tuple[bytes, bytes]) -> _Refusal:
    return status, body, [_JSON, _length(body), *extra]


def _header_refusal(status: int, detail: str, header: str, served: str, setting: str) -> _Refusal:
    hint = f"only loopback {served} are served; allow another with {setting}"
    body = jsonvalue.encode({"detail": detail, "header": header, "hint": hint})
    return _refusal(status, body.encode())


_HOST_REFUSED = _header_refusal(
    421, "Misdirected Request", "Host", "host names", ALLOWED_HOSTS_VARIABLE
)
_ORIGIN_REFUSED = _header_refusal(403, "Forbidden", "Origin", "origins", ALLOWED_ORIGINS_VARIABLE)
_UNAUTHORIZED = _refusal(
    errors.UNAUTHORIZED.handshake_status,
    refusal(errors.UNAUTHORIZED, Era.HANDSHAKE)[0],
    (b"www-authenticate", b"Bearer"),
)
