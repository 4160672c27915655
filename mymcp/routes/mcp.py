"""``POST /mcp``: HTTP in, one JSON-RPC message answered, HTTP out, as a plain ASGI app.

:class:`McpEndpoint` speaks ASGI directly: it finds the headers it needs in one pass over
the request's raw headers, reads the body once from ``receive``, and sends the two response
messages itself, so no request or response object is built per call. The app serves it
twice over: as the ``/mcp`` route (which gives every other method its 405), and straight
from the front of the middleware stack for a plain ``POST /mcp`` (``mymcp.app``).

What never waits is answered on the event loop: ``initialize``, ``ping``, ``tools/list``,
``server/discover``, notifications and every protocol error. A Tool call reads and writes
files and must never block the loop, so it runs on a worker thread of the process
(``_Workers``: a queue and a future per call, cheaper than ``run_in_executor`` and far
cheaper than AnyIO's hand-off).

Both protocol eras arrive here: ``mymcp.mcp.era`` says which one a request belongs to, the
dispatcher answers it in that era, and ``mymcp.mcp.errors`` gives the HTTP status.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import os
import queue
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from typing import Any, cast

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect
from starlette.types import Receive, Scope, Send

from mymcp import settings
from mymcp.mcp import errors, exchange, jsonrpc
from mymcp.mcp.dispatcher import MCPDispatcher, Prepared, ToolWork
from mymcp.mcp.era import Era, HttpHeaders, era_of
from mymcp.threads import batch_scheduling

MAX_BODY_BYTES = exchange.MAX_MESSAGE_BYTES
PATH = "/mcp"
PROTOCOL_HEADER = "mcp-protocol-version"
_CONTENT_LENGTH = b"content-length"
# The request metadata headers, in the order HttpHeaders holds them.
_METADATA_HEADERS = (PROTOCOL_HEADER.encode(), b"mcp-method", b"mcp-name")
_KNOWN_REVISIONS = frozenset(
    (*settings.SUPPORTED_PROTOCOL_VERSIONS, *settings.MODERN_PROTOCOL_VERSIONS)
)
# Messages dispatched at once; more wait for a free worker. The same bound as Starlette's
# own thread pool, so a few slow Tool calls never hold up a ping or another call.
DISPATCH_WORKERS = 40
_JSON = [(b"content-type", b"application/json")]
_NO_HEADERS = HttpHeaders()
# The headers read: the body length (-1) and the metadata headers by their position.
_WANTED = {_CONTENT_LENGTH: -1, **{name: slot for slot, name in enumerate(_METADATA_HEADERS)}}

_logger = logging.getLogger("mcp")


def create_router(endpoint: McpEndpoint | MCPDispatcher) -> APIRouter:
    """The MCP route bound to one endpoint (and so to one runtime); other methods get 405."""
    if isinstance(endpoint, MCPDispatcher):
        endpoint = McpEndpoint(endpoint)
    router = APIRouter()
    # An endpoint that is not a function is served as the ASGI app it is.
    router.add_route(PATH, cast(Any, endpoint), methods=["POST"])
    return router


class McpEndpoint:
    """The ASGI app of ``POST /mcp`` for one dispatcher."""

    def __init__(self, dispatcher: MCPDispatcher) -> None:
        self.dispatcher = dispatcher

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            status, body = await self._answer(scope, receive)
        except Exception:  # noqa: BLE001 - a bug answers a bounded -32603, never a 500
            _logger.error("request failed")
            row = errors.INTERNAL_ERROR
            status, body = row.handshake_status, exchange.error_body(row.code, "Internal error")
        await send({"type": "http.response.start", "status": status, "headers": _headers(body)})
        await send({"type": "http.response.body", "body": body})

    async def _answer(self, scope: Scope, receive: Receive) -> tuple[int, bytes]:
        declared, headers = _request_headers(scope["headers"])
        try:
            message = await _read_message(receive, declared)
        except _Refused as refused:
            # A header naming no known revision was once refused before the body was read;
            # the answer stays the same when the body cannot be read.
            if _unknown_revision(headers):
                return _refusal(errors.UNSUPPORTED_HEADER, Era.HANDSHAKE)
            return _refusal(refused.row, era_of(None, headers))
        current = era_of(message, headers)
        if current is Era.HANDSHAKE and not _handshake_header_accepted(headers):
            return _refusal(errors.UNSUPPORTED_HEADER, current)
        incoming = exchange.received(message)
        if current is Era.MODERN:
            prepared = self.dispatcher.prepare_modern(message, headers)
        else:
            prepared = self.dispatcher.prepare(message, protocol_version=headers.protocol_version)
        answer = exchange.reply(incoming, await _settled(prepared))
        if answer is None:
            return 202, b""
        body, sent = answer
        return errors.http_status(current, sent), body


async def _settled(prepared: Prepared) -> dict[str, Any] | None:
    """The answer: as it is, or for a Tool call, once a worker thread has run it."""
    if isinstance(prepared, ToolWork):
        response: dict[str, Any] = await _in_worker(prepared.run)
        return response
    return prepared


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
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
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
        if size > MAX_BODY_BYTES:
            return None
        if not message.get("more_body", False):
            return b"".join((*chunks, chunk)) if chunks else chunk
        chunks.append(chunk)


def _handshake_header_accepted(headers: HttpHeaders) -> bool:
    version = headers.protocol_version
    return version is None or version in settings.SUPPORTED_PROTOCOL_VERSIONS


def _unknown_revision(headers: HttpHeaders) -> bool:
    version = headers.protocol_version
    return version is not None and version not in _KNOWN_REVISIONS


async def _in_worker(dispatch: Callable[[], Any]) -> Any:
    """Run ``dispatch`` on a worker thread and wait for its answer without blocking the loop.

    It runs in a copy of the request's context, as Starlette's own hand-off does. A pool
    that refuses work (any ``Executor`` once the interpreter has begun to exit) is bypassed
    for AnyIO's threads, which still take it, so a server embedded in a thread keeps
    answering.
    """
    call = functools.partial(contextvars.copy_context().run, dispatch)
    pool = _dispatch_pool(_pid())
    loop = asyncio.get_running_loop()
    try:
        if isinstance(pool, _Workers):
            pending = pool.run(loop, call)
        else:  # an Executor put in its place
            pending = loop.run_in_executor(pool, call)
    except RuntimeError:  # no new work is taken (exiting), or no thread can start
        return await run_in_threadpool(call)
    return await pending


_Job = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]", Callable[[], Any]]


class _Workers:
    """The threads that run Tool calls: at most ``size``, started on demand and reused.

    A job is the call and the loop's future for it; the thread that ran it hands the
    outcome back with ``call_soon_threadsafe``. Half the cost of ``run_in_executor``,
    which passes every call through a second future and its lock. The threads are daemon
    threads: the server lets every call in progress finish before it exits.
    """

    def __init__(self, size: int) -> None:
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)  # one token per thread waiting for a job
        self._size = size
        self._started = 0
        self._lock = threading.Lock()

    def run(self, loop: asyncio.AbstractEventLoop, call: Callable[[], Any]) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = loop.create_future()
        # A thread first, then the job: when no thread can start, nothing is left queued
        # for a later thread to run a second time.
        if not self._idle.acquire(blocking=False):
            self._start_thread()
        self._jobs.put((loop, future, call))
        return future

    def _start_thread(self) -> None:
        with self._lock:
            if self._started >= self._size:
                return  # every thread is busy: the job waits for the first one free
            name = f"mymcp-dispatch-{self._started + 1}"
            threading.Thread(target=self._work, name=name, daemon=True).start()
            self._started += 1

    def _work(self) -> None:
        batch_scheduling()
        while True:
            loop, future, call = self._jobs.get()
            try:
                outcome: tuple[Any, BaseException | None] = (call(), None)
            except BaseException as error:  # noqa: BLE001 - handed to the waiting request
                outcome = (None, error)
            try:
                loop.call_soon_threadsafe(_settle, future, outcome)
            except RuntimeError:  # the loop has closed: nobody waits for the answer
                pass
            del loop, future, call, outcome
            self._idle.release()


def _settle(future: asyncio.Future[Any], outcome: tuple[Any, BaseException | None]) -> None:
    if future.cancelled():
        return
    result, error = outcome
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


_known_pid: list[int] = []


def _pid() -> int:
    """This process's id, looked up once and again in a forked child (it is a system call)."""
    if not _known_pid:
        _known_pid.append(os.getpid())
        os.register_at_fork(after_in_child=_known_pid.clear)
    return _known_pid[0]


@functools.lru_cache(maxsize=1)
def _dispatch_pool(pid: int) -> _Workers | Executor:
    """The worker threads of this process (a forked child makes its own), started on demand."""
    return _Workers(DISPATCH_WORKERS)


def _refusal(row: errors.ProtocolError, current: Era) -> tuple[int, bytes]:
    """A refusal made before dispatch: a null id and the row's code, message and status."""
    return row.status(current), exchange.error_body(row.code, row.message)
