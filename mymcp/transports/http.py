"""MCP over HTTP: the FastAPI app, ``POST /mcp`` as a plain ASGI app, ``/health``, ``/version``,
the ``Host`` and ``Origin`` checks and the access token.

:class:`McpEndpoint` speaks ASGI directly: it finds the headers it needs in one pass over
the request's raw headers, reads the body once from ``receive``, hands the decoded message
to its session (``mymcp.mcp.session``) and sends the two response messages itself. A plain
``POST /mcp`` does not walk FastAPI's middleware stack and router: the front of the stack,
which checks ``Host`` and ``Origin`` for every request, hands it to the endpoint directly.
Everything else
(``/health``, ``/version``, another method on ``/mcp`` and its 405, an unknown path and its
404, a ``root_path`` deployment, the routers of :data:`ROUTERS`) goes through the full stack.

What never waits is answered on the event loop; a Tool call runs on a worker thread of the
process (``mymcp.transports.base``).

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
routers of :data:`ROUTERS` guard themselves.
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
from typing import Any, cast
from urllib.parse import urlsplit

from fastapi import APIRouter, FastAPI
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send

from mymcp import access_token, jsonvalue, settings
from mymcp.jsonvalue import JsonObject
from mymcp.mcp import errors, jsonrpc
from mymcp.mcp.dispatcher import RuntimeLike
from mymcp.mcp.era import Era, HttpHeaders
from mymcp.mcp.session import MAX_MESSAGE_BYTES, Answer, Session, Work, failure, refusal
from mymcp.transports import base

PATH = "/mcp"
PROTOCOL_HEADER = "mcp-protocol-version"
ALLOWED_HOSTS_VARIABLE = "MYMCP_ALLOWED_HOSTS"
ALLOWED_ORIGINS_VARIABLE = "MYMCP_ALLOWED_ORIGINS"
REQUIRE_TOKEN_VARIABLE = access_token.REQUIRE_TOKEN_VARIABLE
# More routes for the app, each made from the runtime it serves (a page, say): the app
# includes every one, after its own, so nothing here changes when one is added.
RouterFactory = Callable[[RuntimeLike], APIRouter]
ROUTERS: list[RouterFactory] = []

_CONTENT_LENGTH = b"content-length"
# The request metadata headers, in the order HttpHeaders holds them.
_METADATA_HEADERS = (PROTOCOL_HEADER.encode(), b"mcp-method", b"mcp-name")
_JSON = [(b"content-type", b"application/json")]
_NO_HEADERS = HttpHeaders()
# The headers read: the body length (-1) and the metadata headers by their position.
_WANTED = {_CONTENT_LENGTH: -1, **{name: slot for slot, name in enumerate(_METADATA_HEADERS)}}
_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})

_logger = logging.getLogger("mcp")


# --- the app -------------------------------------------------------------------------------


def create_app(
    runtime: RuntimeLike,
    *,
    security: HttpSecurity | None = None,
    routers: Iterable[RouterFactory] = (),
) -> FastAPI:
    """An app serving ``runtime``; apps built from different runtimes share nothing.

    Besides its own routes it includes the router each factory of :data:`ROUTERS` and then
    of ``routers`` makes for the runtime.
    """
    security = security or HttpSecurity()
    endpoint = McpEndpoint(runtime)
    app = _McpApp(
        endpoint,
        security,
        title=settings.APP_TITLE,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        **_without_telemetry(),
    )
    mcp = APIRouter()  # the endpoint is served as the ASGI app it is; other methods get 405
    mcp.add_route(PATH, cast(Any, endpoint), methods=["POST"])
    app.include_router(mcp)
    app.include_router(_router)
    for factory in (*ROUTERS, *routers):
        app.include_router(factory(runtime))
    return app


class _McpApp(FastAPI):
    """FastAPI behind a front: the Host and Origin checks, and the fast path for ``POST /mcp``."""

    def __init__(self, endpoint: McpEndpoint, security: HttpSecurity, **options: Any):
        super().__init__(**options)
        self._mcp_endpoint = endpoint
        self._security = security

    def build_middleware_stack(self) -> ASGIApp:
        stack = super().build_middleware_stack()
        endpoint, security = self._mcp_endpoint, self._security

        async def front(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await stack(scope, receive, send)
            elif await refused(security, scope, send):
                return
            elif scope["path"] == PATH and scope["method"] == "POST" and not scope.get("root_path"):
                await endpoint(scope, receive, send)
            else:
                await stack(scope, receive, send)

        return front


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


# --- POST /mcp -----------------------------------------------------------------------------


class McpEndpoint:
    """The ASGI app of ``POST /mcp`` for one runtime."""

    def __init__(self, runtime: RuntimeLike) -> None:
        self.session = Session(runtime)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            body, status = await self._answer(scope, receive)
        except Exception:  # noqa: BLE001 - a bug answers a bounded -32603, never a 500
            _logger.error("request failed")
            body, status = failure()
        await send({"type": "http.response.start", "status": status, "headers": _headers(body)})
        await send({"type": "http.response.body", "body": body})

    async def _answer(self, scope: Scope, receive: Receive) -> Answer:
        declared, headers = _request_headers(scope["headers"])
        try:
            message = await _read_message(receive, declared)
        except _Refused as refused:
            return self.session.unreadable(refused.row, headers)
        handled = self.session.handle(message, headers)
        if isinstance(handled, Work):  # the Tool on a worker, its answer back on the loop
            return handled.answer(await _in_worker(handled.call))
        return handled


def _headers(body: bytes) -> list[tuple[bytes, bytes]]:
    """Starlette's response headers: the length, and the JSON type when there is a body."""
    length = [(_CONTENT_LENGTH, str(len(body)).encode("ascii"))]
    return length + _JSON if body else length


class _Refused(Exception):
    def __init__(self, row: errors.ProtocolError) -> None:
        self.row = row


def _request_headers(raw: Iterable[tuple[bytes, bytes]]) -> tuple[bytes | None, HttpHeaders]:
    """The declared body length and the request metadata headers, in one pass.

    Each header's first value counts, as Starlette's ``Headers.get`` reads it.
    """
    declared: bytes | None = None
    found: list[list[bytes]] | None = None
    for key, value in raw:
        slot = _WANTED.get(key)
        if slot is None:
            continue
        if slot < 0:
            if declared is None:
                declared = value
            continue
        found = found or [[], [], []]
        found[slot].append(value)
    if found is None:
        return declared, _NO_HEADERS
    version, method, name = (values[0].decode("latin-1") if values else None for values in found)
    repeated = any(len(values) > 1 for values in found)
    return declared, HttpHeaders(version, method, name, repeated=repeated)


async def _read_message(receive: Receive, declared: bytes | None) -> Any:
    """The decoded body; raises :class:`_Refused` when it is too large, cut off or not JSON."""
    if declared is not None and declared.isdigit() and int(declared) > MAX_MESSAGE_BYTES:
        raise _Refused(errors.TOO_LARGE)
    try:
        body = await _read_bounded(receive)
    except ClientDisconnect:  # as Starlette's own wrappers of receive report it
        raise _Refused(errors.PARSE) from None
    if body is None:
        raise _Refused(errors.TOO_LARGE)
    try:
        return jsonrpc.decode_body(body)
    except jsonrpc.ParseError:
        raise _Refused(errors.PARSE) from None


async def _read_bounded(receive: Receive) -> bytes | None:
    """The whole body, or None past the bound; a client gone before its end is a parse error."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        kind = message["type"]
        if kind == "http.disconnect":  # gone before the body was complete: nothing to answer
            raise _Refused(errors.PARSE)
        if kind != "http.request":
            continue
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_MESSAGE_BYTES:
            return None
        if not message.get("more_body", False):
            return b"".join((*chunks, chunk)) if chunks else chunk
        chunks.append(chunk)


async def _in_worker(run: Callable[[], JsonObject]) -> JsonObject:
    """Run ``run`` on a worker thread and wait for its answer without blocking the loop.

    It runs in a copy of the request's context, as Starlette's own hand-off does. A pool
    that refuses work (any ``Executor`` once the interpreter has begun to exit) is bypassed
    for AnyIO's threads, which still take it, so a server embedded in a thread keeps
    answering.
    """
    call = functools.partial(contextvars.copy_context().run, run)
    pool = base._dispatch_pool(base._pid())
    loop = asyncio.get_running_loop()
    try:
        if isinstance(pool, base._Workers):
            pending = pool.run(loop, call)
        else:  # an Executor put in its place
            pending = loop.run_in_executor(pool, call)
    except RuntimeError:  # no new work is taken (exiting), or no thread can start
        from starlette.concurrency import run_in_threadpool

        return await run_in_threadpool(call)
    response: JsonObject = await pending
    return response


# --- Host and Origin -----------------------------------------------------------------------


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
        name = _host_name(host)
        return (
            name in _LOOPBACK_NAMES
            or name in self.allowed_hosts
            or host.lower() in self.allowed_hosts
        )

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


async def refused(security: HttpSecurity, scope: Scope, send: Send) -> bool:
    """Answer an HTTP request whose ``Host``, ``Origin`` or token is not allowed; True if so."""
    found = _refusal(security, scope)
    if found is None:
        return False
    status, headers, body = found
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
    return True


def _refusal(security: HttpSecurity, scope: Scope) -> _Refusal | None:
    host, origin, authorization = _front_headers(scope)
    if host is not None and not _host_allowed(security, host):
        return _HOST_REFUSED
    if origin is not None and not security.origin_allowed(origin):
        return _ORIGIN_REFUSED
    token = security.token
    if token is not None and _guarded(scope) and not _bearer_matches(authorization, token):
        return _UNAUTHORIZED
    return None


@functools.lru_cache(maxsize=64)  # a client sends the same Host on every request
def _host_allowed(security: HttpSecurity, host: str) -> bool:
    return security.host_allowed(host)


def _guarded(scope: Scope) -> bool:
    """Whether the request is for ``/mcp`` (below the ``root_path``, as the router sees it)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return path == PATH or path == PATH + "/"


def _bearer_matches(authorization: bytes | None, token: str) -> bool:
    """Whether the ``Authorization`` value is ``Bearer <token>`` (the scheme in any case)."""
    if authorization is None or len(authorization) > _MAX_AUTHORIZATION_BYTES:
        return False
    scheme, _, credential = authorization.partition(b" ")
    if scheme.lower() != b"bearer":
        return False
    return access_token.token_matches(credential.strip(b" \t"), token)


_Refusal = tuple[int, list[tuple[bytes, bytes]], bytes]


def _refusal_answer(status: int, body: bytes, *extra: tuple[bytes, bytes]) -> _Refusal:
    length = (b"content-length", str(len(body)).encode("ascii"))
    return status, [(b"content-type", b"application/json"), length, *extra], body


# Each refusal names the header and the setting that would allow it, never the value sent;
# a missing or wrong token gets the same fixed answer, which says nothing more.
_HOST_REFUSED = _refusal_answer(
    421,
    jsonvalue.encode(
        {
            "detail": "Misdirected Request",
            "header": "Host",
            "hint": "only loopback host names are served; "
            f"allow another with {ALLOWED_HOSTS_VARIABLE}",
        }
    ).encode(),
)
_ORIGIN_REFUSED = _refusal_answer(
    403,
    jsonvalue.encode(
        {
            "detail": "Forbidden",
            "header": "Origin",
            "hint": "only loopback origins are served; "
            f"allow another with {ALLOWED_ORIGINS_VARIABLE}",
        }
    ).encode(),
)
_UNAUTHORIZED = _refusal_answer(
    errors.UNAUTHORIZED.handshake_status,
    refusal(errors.UNAUTHORIZED, Era.HANDSHAKE)[0],
    (b"www-authenticate", b"Bearer"),
)
# Longer than any token file may hold, with room for the scheme.
_MAX_AUTHORIZATION_BYTES = 512


def _front_headers(scope: Scope) -> tuple[str | None, str | None, bytes | None]:
    """``Host``, ``Origin`` and ``Authorization``: of a repeated ``Host`` or ``Origin`` the
    last one counts; a repeated ``Authorization`` counts as none that matches."""
    host = origin = authorization = None
    for key, value in scope["headers"]:
        name = key.lower()
        if name == b"host":
            host = value
        elif name == b"origin":
            origin = value
        elif name == b"authorization":
            authorization = _AMBIGUOUS if authorization is not None else value
    return (
        None if host is None else host.decode("latin-1"),
        None if origin is None else origin.decode("latin-1"),
        authorization,
    )


_AMBIGUOUS = b"ambiguous"  # no Bearer credential: never matches


def _host_name(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _split(value: str) -> frozenset[str]:
    return frozenset(item.strip().lower() for item in value.split(",") if item.strip())
