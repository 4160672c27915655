"""``POST /mcp``: HTTP in, one JSON-RPC message dispatched off the event loop, HTTP out.

The route is a plain Starlette route rather than a FastAPI path operation: it reads the raw
body itself, so FastAPI's parameter machinery would only add cost to every call. The
dispatch runs in a plain thread pool of the process (a Tool call reads and writes files and
must never block the loop); ``loop.run_in_executor`` is a cheaper hand-off than AnyIO's.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from mymcp import settings
from mymcp.mcp import exchange, jsonrpc
from mymcp.mcp.dispatcher import MCPDispatcher

MAX_BODY_BYTES = exchange.MAX_MESSAGE_BYTES
PROTOCOL_HEADER = "mcp-protocol-version"
# Messages dispatched at once; more wait for a free worker. The same bound as Starlette's
# own thread pool, so a few slow Tool calls never hold up a ping or another call.
DISPATCH_WORKERS = 40


def create_router(dispatcher: MCPDispatcher) -> APIRouter:
    """The MCP route bound to one dispatcher (and so to one runtime); other methods get 405."""

    async def post_mcp(request: Request) -> Response:
        version = request.headers.get(PROTOCOL_HEADER)
        if version is not None and version not in settings.SUPPORTED_PROTOCOL_VERSIONS:
            return _error_response(400, jsonrpc.INVALID_REQUEST, "Unsupported protocol version")
        try:
            body = await _read_bounded(request)
        except ClientDisconnect:  # gone before the body was complete: nothing to dispatch
            return _error_response(400, jsonrpc.PARSE_ERROR, "Parse error")
        if body is None:
            return _error_response(413, jsonrpc.INVALID_REQUEST, "Request body too large")
        try:
            message = jsonrpc.decode_body(body)
        except jsonrpc.ParseError:
            return _error_response(400, jsonrpc.PARSE_ERROR, "Parse error")
        return await _answer(dispatcher, message, version)

    router = APIRouter()
    router.add_route("/mcp", post_mcp, methods=["POST"])  # a plain Starlette route
    return router


async def _answer(dispatcher: MCPDispatcher, message: Any, version: str | None) -> Response:
    incoming = exchange.received(message)
    response = await _in_worker(
        functools.partial(dispatcher.dispatch, message, protocol_version=version)
    )
    body = exchange.answered(incoming, response)
    if body is None:
        return Response(status_code=202)
    return Response(content=body, media_type="application/json")


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


def _error_response(status: int, code: int, message: str) -> Response:
    body = json.dumps(jsonrpc.error(None, code, message), separators=(",", ":"))
    return Response(content=body, status_code=status, media_type="application/json")
