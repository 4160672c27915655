"""MCP over standard input and output, for clients that start the server as a command.

The wire is newline-delimited JSON-RPC 2.0 in UTF-8: one message per line each way, and the
output carries nothing else. The reader never waits for a Tool: Tool calls run on worker
threads and each answer, carrying its request's id, is written as soon as it is ready, so
answers to pipelined requests may come in any order. What never waits (``initialize``,
``ping``, ``tools/list``, ``server/discover``, notifications and every protocol error) is
answered by the reader itself.

Both eras are served, request by request (``mymcp.mcp.era``): a request whose ``_meta``
names its protocol version is a 2026-07-28 request and carries everything it needs; any
other is a handshake-era request. ``initialize`` is answered on the reader itself: there is
no ``MCP-Protocol-Version`` header on stdio, so the revision it negotiates decides for every
later handshake-era call in the process whether Tool results also carry
``structuredContent`` (before any ``initialize``, they do not; a later one replaces it).

Lines that are not JSON get a ``-32700`` answer with a null id and the server goes on;
notifications get no answer; ``notifications/cancelled`` drops the answer of a request still
in progress and skips one that has not started. At the end of input the server finishes the
requests it has read, then returns; SIGINT and SIGTERM stop it after the calls in progress.
Logging, the dispatcher and the Tools are exactly those of HTTP.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any, BinaryIO

from mymcp.mcp import exchange, jsonrpc
from mymcp.mcp.dispatcher import MCPDispatcher, Prepared, RuntimeLike, ToolWork
from mymcp.mcp.era import Era, era_of
from mymcp.threads import batch_scheduling

# Tool calls run at once; more wait for a free worker. One client drives a stdio server.
DISPATCH_WORKERS = 8
# Requests read but not yet answered; beyond this the reader waits for a free slot.
MAX_PENDING = 256
_INITIALIZE = "initialize"
_CANCELLED = "notifications/cancelled"
# U+2028 and U+2029, which some line readers split on, are written as JSON escapes.
_LINE_SEPARATORS = ((b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029"))

_logger = logging.getLogger("mcp")


class _Stop(BaseException):
    """Raised in the reader by SIGINT or SIGTERM."""


@dataclass(eq=False)
class _Pending:
    """A request handed to a worker; ``cancelled`` once the client gave up on it."""

    key: tuple[str, Any] | None
    future: Future[None] | None = None
    cancelled: bool = False


class StdioServer:
    """Serves one runtime over a pair of byte streams until the input ends."""

    def __init__(self, runtime: RuntimeLike, output: BinaryIO) -> None:
        self._dispatcher = MCPDispatcher(runtime)
        self._output = output
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, Any], list[_Pending]] = {}
        self._slots = threading.BoundedSemaphore(MAX_PENDING)
        self._version: str | None = None
        self._writable = True

    def serve(self, source: BinaryIO) -> None:
        """Answer every message of ``source``; returns once it ends and all answers are out."""
        pool = ThreadPoolExecutor(
            DISPATCH_WORKERS, thread_name_prefix="mymcp-stdio", initializer=batch_scheduling
        )
        stopped = False
        try:
            with _stop_on_signals():
                for line in _lines(source):
                    self._receive(line, pool)
        except _Stop:
            stopped = True
        finally:
            pool.shutdown(wait=True, cancel_futures=stopped)

    # --- the reader ----------------------------------------------------------------------

    def _receive(self, line: bytes | None, pool: ThreadPoolExecutor) -> None:
        if line is None:
            self._write(exchange.error_body(jsonrpc.INVALID_REQUEST, "Message too large"))
            return
        try:
            message = jsonrpc.decode_body(line)
        except jsonrpc.ParseError:
            self._write(exchange.error_body(jsonrpc.PARSE_ERROR, "Parse error"))
            return
        incoming = exchange.received(message)
        if not incoming.is_request:
            self._notification(message, incoming)
        elif era_of(message, None) is Era.MODERN:
            self._settle(self._dispatcher.prepare_modern(message), incoming, pool)
        elif incoming.method == _INITIALIZE:
            self._initialize(message, incoming)
        else:
            prepared = self._dispatcher.prepare(message, protocol_version=self._version)
            self._settle(prepared, incoming, pool)

    def _settle(
        self, prepared: Prepared, incoming: exchange.Incoming, pool: ThreadPoolExecutor
    ) -> None:
        """Answer at once, or hand a Tool call to a worker."""
        if isinstance(prepared, ToolWork):
            self._submit(prepared, incoming, pool)
        else:
            self._answer(incoming, prepared)

    def _notification(self, message: Any, incoming: exchange.Incoming) -> None:
        if incoming.method == _CANCELLED:
            self._cancel(message.get("params"))
        exchange.answered(incoming, self._dispatcher.dispatch(message))

    def _initialize(self, message: Any, incoming: exchange.Incoming) -> None:
        response = self._dispatcher.dispatch(message, protocol_version=self._version)
        result = response.get("result") if response is not None else None
        if isinstance(result, dict):
            self._version = result["protocolVersion"]
        self._answer(incoming, response)

    def _submit(
        self, work: ToolWork, incoming: exchange.Incoming, pool: ThreadPoolExecutor
    ) -> None:
        self._slots.acquire()
        pending = _Pending(_id_key(incoming.request_id))
        self._track(pending)

        def run() -> None:
            try:
                response = work.run()
            except Exception:  # noqa: BLE001 - the dispatcher already bounds handler failures
                _logger.error("dispatch failed method=%s", jsonrpc.log_value(incoming.method))
                response = jsonrpc.error(
                    incoming.request_id, jsonrpc.INTERNAL_ERROR, "Internal error"
                )
            if not pending.cancelled:
                self._answer(incoming, response)

        pending.future = pool.submit(run)
        pending.future.add_done_callback(lambda _: self._untrack(pending))

    # --- requests in progress ------------------------------------------------------------

    def _track(self, pending: _Pending) -> None:
        if pending.key is not None:
            with self._lock:
                self._pending.setdefault(pending.key, []).append(pending)

    def _untrack(self, pending: _Pending) -> None:
        if pending.key is not None:
            with self._lock:
                same = self._pending.get(pending.key, [])
                if pending in same:
                    same.remove(pending)
                if not same:
                    self._pending.pop(pending.key, None)
        self._slots.release()

    def _cancel(self, params: Any) -> None:
        request_id = params.get("requestId") if isinstance(params, dict) else None
        key = _id_key(request_id)
        if key is None:
            return
        with self._lock:
            found = list(self._pending.get(key, ()))
        for pending in found:
            pending.cancelled = True
            if pending.future is not None:
                pending.future.cancel()

    # --- the writer ----------------------------------------------------------------------

    def _answer(self, incoming: exchange.Incoming, response: dict[str, Any] | None) -> None:
        body = exchange.answered(incoming, response)
        if body is not None:
            self._write(body)

    def _write(self, body: bytes) -> None:
        for raw, escaped in _LINE_SEPARATORS:
            body = body.replace(raw, escaped)
        with self._write_lock:
            if not self._writable:
                return
            try:
                self._output.write(body + b"\n")
                self._output.flush()
            except (BrokenPipeError, ValueError, OSError):  # the client stopped reading
                self._writable = False
                _logger.warning("stdout closed; answers are dropped")


def serve(runtime: RuntimeLike, source: BinaryIO, output: BinaryIO) -> None:
    """Serve ``runtime`` over ``source`` and ``output`` until ``source`` ends."""
    StdioServer(runtime, output).serve(source)


def _lines(source: BinaryIO) -> Iterator[bytes | None]:
    """Each non-blank line of ``source`` without its line ending; None for one too long."""
    limit = exchange.MAX_MESSAGE_BYTES
    while True:
        try:
            line = source.readline(limit + 1)
        except (OSError, ValueError):  # the input broke or was closed: as good as its end
            return
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            _discard_rest_of_line(source)
            yield None
            continue
        line = line.rstrip(b"\r\n")
        if line.strip():
            yield line


def _discard_rest_of_line(source: BinaryIO) -> None:
    while True:
        chunk = source.readline(exchange.MAX_MESSAGE_BYTES)
        if not chunk or chunk.endswith(b"\n"):
            return


def _id_key(request_id: Any) -> tuple[str, Any] | None:
    """A request id as a hashable key (strings and integers only; a client cancels by id)."""
    if isinstance(request_id, str) or (
        isinstance(request_id, int) and not isinstance(request_id, bool)
    ):
        return (type(request_id).__name__, request_id)
    return None


@contextmanager
def _stop_on_signals() -> Iterator[None]:
    """Turn SIGINT and SIGTERM into :class:`_Stop` in the reader (the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[signal.Signals, Callable[[int, FrameType | None], Any] | int | None] = {}

    def stop(signum: int, frame: FrameType | None) -> None:
        raise _Stop()

    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, stop)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
