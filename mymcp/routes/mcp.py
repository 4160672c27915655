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
import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from mymcp import settings
from mymcp.mcp import jsonrpc
from mymcp.mcp.dispatcher import MCPDispatcher

MAX_BODY_BYTES = 1024 * 1024
PROTOCOL_HEADER = "mcp-protocol-version"
# Messages dispatched at once; more wait for a free worker. The same bound as Starlette's
# own thread pool, so a few slow Tool calls never hold up a ping or another call.
DISPATCH_WORKERS = 40

_logger = logging.getLogger("mcp")


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
    is_request = not isinstance(message, dict) or "id" in message
    request_id = message.get("id") if isinstance(message, dict) else None
    method = message.get("method") if isinstance(message, dict) else None
    if is_request:
        _logger.info(
            "request id=%s method=%s", jsonrpc.log_value(request_id), jsonrpc.log_value(method)
        )
    started = time.perf_counter()
    response = await _in_worker(
        functools.partial(dispatcher.dispatch, message, protocol_version=version)
    )
    duration_ms = round((time.perf_counter() - started) * 1000)
    if response is None:
        _logger.debug(
            "notification method=%s duration_ms=%d", jsonrpc.log_value(method), duration_ms
        )
        return Response(status_code=202)
    body, response = _serialize(response, request_id)
    _log_outcome(response, request_id, method, duration_ms)
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


def _serialize(response: dict[str, Any], request_id: Any) -> tuple[bytes, dict[str, Any]]:
    """The response bytes, falling back to -32603 (and then to a null id) when unencodable."""
    for candidate in (
        response,
        jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, "Internal error"),
        # An id nested just inside the decoder's depth limit may exceed the encoder's.
        jsonrpc.error(None, jsonrpc.INTERNAL_ERROR, "Internal error"),
    ):
        body = _encode(candidate)
        if body is not None:
            return body, candidate
    raise AssertionError("the null-id error envelope is always encodable")


def _encode(response: dict[str, Any]) -> bytes | None:
    try:
        text = jsonrpc.encode_message(response, ensure_ascii=False)
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: escape instead of failing
            return jsonrpc.encode_message(response, ensure_ascii=True).encode("ascii")
    except (TypeError, ValueError, RecursionError):
        return None


def _log_outcome(response: dict[str, Any], request_id: Any, method: Any, duration_ms: int) -> None:
    rid, name = jsonrpc.log_value(request_id), jsonrpc.log_value(method)
    if "error" in response:
        code = response["error"]["code"]
        _logger.warning(
            "response id=%s method=%s outcome=error code=%d duration_ms=%d",
            rid,
            name,
            code,
            duration_ms,
        )
    else:
        _logger.info("response id=%s method=%s outcome=ok duration_ms=%d", rid, name, duration_ms)


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
