"""``POST /mcp``: HTTP in, one JSON-RPC message dispatched off the event loop, HTTP out.

The route is a plain Starlette route rather than a FastAPI path operation: it reads the raw
body itself, so FastAPI's parameter machinery would only add cost to every call. The
dispatch runs in a plain thread pool of the process (a Tool call reads and writes files and
must never block the loop); ``loop.run_in_executor`` is a cheaper hand-off than AnyIO's.

Both protocol eras arrive here: ``mymcp.mcp.era`` says which one a request belongs to, the
dispatcher answers it in that era, and ``mymcp.mcp.errors`` gives the HTTP status.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from mymcp import settings
from mymcp.mcp import errors, exchange, jsonrpc
from mymcp.mcp.dispatcher import MCPDispatcher
from mymcp.mcp.era import Era, HttpHeaders, era_of

MAX_BODY_BYTES = exchange.MAX_MESSAGE_BYTES
PROTOCOL_HEADER = "mcp-protocol-version"
# The request metadata headers, in the order HttpHeaders holds them.
_METADATA_HEADERS = (PROTOCOL_HEADER, "mcp-method", "mcp-name")
_KNOWN_REVISIONS = frozenset(
    (*settings.SUPPORTED_PROTOCOL_VERSIONS, *settings.MODERN_PROTOCOL_VERSIONS)
)
# Messages dispatched at once; more wait for a free worker. The same bound as Starlette's
# own thread pool, so a few slow Tool calls never hold up a ping or another call.
DISPATCH_WORKERS = 40


def create_router(dispatcher: MCPDispatcher) -> APIRouter:
    """The MCP route bound to one dispatcher (and so to one runtime); other methods get 405."""

    async def post_mcp(request: Request) -> Response:
        headers = _metadata_headers(request)
        try:
            message = await _read_message(request)
        except _Refused as refused:
            # A header naming no known revision was once refused before the body was read;
            # the answer stays the same when the body cannot be read.
            if _unknown_revision(headers):
                return _refusal(errors.UNSUPPORTED_HEADER, Era.HANDSHAKE)
            return _refusal(refused.row, era_of(None, headers))
        current = era_of(message, headers)
        if current is Era.HANDSHAKE and not _handshake_header_accepted(headers):
            return _refusal(errors.UNSUPPORTED_HEADER, current)
        return await _answer(dispatcher, current, message, headers)

    router = APIRouter()
    router.add_route("/mcp", post_mcp, methods=["POST"])  # a plain Starlette route
    return router


class _Refused(Exception):
    def __init__(self, row: errors.ProtocolError) -> None:
        self.row = row


async def _read_message(request: Request) -> Any:
    """The decoded body; raises :class:`_Refused` when it is too large, cut off or not JSON."""
    try:
        body = await _read_bounded(request)
    except ClientDisconnect:  # gone before the body was complete: nothing to dispatch
        raise _Refused(errors.PARSE) from None
    if body is None:
        raise _Refused(errors.TOO_LARGE)
    try:
        return jsonrpc.decode_body(body)
    except jsonrpc.ParseError:
        raise _Refused(errors.PARSE) from None


def _metadata_headers(request: Request) -> HttpHeaders:
    sent = [request.headers.getlist(name) for name in _METADATA_HEADERS]
    version, method, name = (values[0] if values else None for values in sent)
    return HttpHeaders(version, method, name, repeated=any(len(values) > 1 for values in sent))


def _handshake_header_accepted(headers: HttpHeaders) -> bool:
    version = headers.protocol_version
    return version is None or version in settings.SUPPORTED_PROTOCOL_VERSIONS


def _unknown_revision(headers: HttpHeaders) -> bool:
    version = headers.protocol_version
    return version is not None and version not in _KNOWN_REVISIONS


async def _answer(
    dispatcher: MCPDispatcher, current: Era, message: Any, headers: HttpHeaders
) -> Response:
    incoming = exchange.received(message)
    if current is Era.MODERN:
        dispatch = functools.partial(dispatcher.dispatch_modern, message, headers)
    else:
        dispatch = functools.partial(
            dispatcher.dispatch, message, protocol_version=headers.protocol_version
        )
    answer = exchange.reply(incoming, await _in_worker(dispatch))
    if answer is None:
        return Response(status_code=202)
    body, sent = answer
    status = errors.http_status(current, sent)
    return Response(content=body, status_code=status, media_type="application/json")


async def _in_worker(dispatch: Callable[[], Any]) -> Any:
    """Run ``dispatch`` on a worker thread and wait for its answer without blocking the loop.

    It runs in a copy of the request's context, as Starlette's own hand-off does. Once the
    interpreter has begun to exit, concurrent.futures refuses new work; AnyIO's threads
    still take it, so a server embedded in a thread keeps answering.
    """
    context = contextvars.copy_context()
    try:
        pending = asyncio.get_running_loop().run_in_executor(
            _dispatch_pool(os.getpid()), context.run, dispatch
        )
    except RuntimeError:  # the interpreter is exiting: concurrent.futures takes no new work
        return await run_in_threadpool(context.run, dispatch)
    return await pending


@functools.lru_cache(maxsize=1)
def _dispatch_pool(pid: int) -> ThreadPoolExecutor:
    """The worker threads of this process (a forked child makes its own), started on demand."""
    return ThreadPoolExecutor(max_workers=DISPATCH_WORKERS, thread_name_prefix="mymcp-dispatch")


async def _read_bounded(request: Request) -> bytes | None:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _refusal(row: errors.ProtocolError, current: Era) -> Response:
    """A refusal made before dispatch: a null id and the row's code, message and status."""
    body = exchange.error_body(row.code, row.message)
    return Response(content=body, status_code=row.status(current), media_type="application/json")
