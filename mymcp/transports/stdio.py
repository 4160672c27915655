"""MCP over standard input and output, for clients that start the server as a command.

The wire is newline-delimited JSON-RPC 2.0 in UTF-8: one message per line each way, and the
output carries nothing else. Each line goes to the session (``mymcp.mcp.session``) with no
headers, which serves both eras request by request and keeps the revision ``initialize``
negotiated. The reader never waits for a Tool: Tool calls run on the process's worker
threads (``mymcp.transports.base``) and each answer, carrying its request's id, is written as
soon as it is ready, so answers to pipelined requests may come in any order. What never
waits is answered by the reader itself.

Lines that are not JSON get a ``-32700`` answer with a null id and the server goes on;
notifications get no answer; ``notifications/cancelled`` drops the answer of a request still
in progress and skips one that has not started. At the end of input the server finishes the
requests it has read, then returns; SIGINT and SIGTERM stop it after the calls in progress.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any, BinaryIO

from mymcp.mcp import errors, jsonrpc
from mymcp.mcp.dispatcher import RuntimeLike
from mymcp.mcp.session import MAX_MESSAGE_BYTES, Session, Work
from mymcp.transports.base import DISPATCH_WORKERS, Workers, shared_workers

__all__ = ["DISPATCH_WORKERS", "MAX_PENDING", "StdioServer", "serve"]

# Requests read but not yet answered; beyond this the reader waits for a free slot.
MAX_PENDING = 256
_CANCELLED = "notifications/cancelled"
# U+2028 and U+2029, which some line readers split on, are written as JSON escapes.
_LINE_SEPARATORS = ((b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029"))

_logger = logging.getLogger("mcp")


class _Stop(BaseException):
    """Raised in the reader by SIGINT or SIGTERM."""


@dataclass(eq=False)
class _Pending:
    """A Tool call handed to a worker; ``cancelled`` once the client gave up on it."""

    key: tuple[str, Any] | None
    cancelled: bool = False


class StdioServer:
    """Serves one runtime over a pair of byte streams until the input ends."""

    def __init__(
        self, runtime: RuntimeLike, output: BinaryIO, workers: Workers | None = None
    ) -> None:
        self._session = Session(runtime, remembers_initialize=True)
        self._workers = workers or shared_workers()
        self._output = output
        self._write_lock = threading.Lock()
        self._lock = threading.Condition()
        self._pending: dict[tuple[str, Any], list[_Pending]] = {}
        self._running = 0  # calls handed to a worker and not yet finished
        self._slots = threading.BoundedSemaphore(MAX_PENDING)
        self._writable = True

    def serve(self, source: BinaryIO) -> None:
        """Answer every message of ``source``; returns once it ends and all answers are out."""
        try:
            with _stop_on_signals():
                for line in _lines(source):
                    self._receive(line)
        except _Stop:
            self._cancel_all()
        finally:
            with self._lock:
                self._lock.wait_for(lambda: self._running == 0)

    def _receive(self, line: bytes | None) -> None:
        if line is None:
            self._write(self._session.unreadable(errors.LINE_TOO_LARGE, None)[0])
            return
        try:
            message = jsonrpc.decode_body(line)
        except jsonrpc.ParseError:
            self._write(self._session.unreadable(errors.PARSE, None)[0])
            return
        if isinstance(message, dict) and "id" not in message:
            if message.get("method") == _CANCELLED:
                self._cancel(message.get("params"))
        handled = self._session.handle(message)
        if isinstance(handled, Work):
            self._submit(handled, message.get("id"))
        elif handled[0]:
            self._write(handled[0])

    def _submit(self, work: Work, request_id: Any) -> None:
        self._slots.acquire()
        pending = _Pending(_id_key(request_id))
        with self._lock:
            self._running += 1
            if pending.key is not None:
                self._pending.setdefault(pending.key, []).append(pending)

        def run() -> None:
            try:
                if not pending.cancelled:
                    body, _ = work.run()
                    if not pending.cancelled:
                        self._write(body)
            finally:
                self._finished(pending)

        self._workers.submit(run)

    # --- requests in progress ------------------------------------------------------------

    def _finished(self, pending: _Pending) -> None:
        with self._lock:
            if pending.key is not None:
                same = self._pending.get(pending.key, [])
                if pending in same:
                    same.remove(pending)
                if not same:
                    self._pending.pop(pending.key, None)
            self._running -= 1
            self._lock.notify_all()
        self._slots.release()

    def _cancel(self, params: Any) -> None:
        request_id = params.get("requestId") if isinstance(params, dict) else None
        key = _id_key(request_id)
        if key is None:
            return
        with self._lock:
            for pending in self._pending.get(key, ()):
                pending.cancelled = True

    def _cancel_all(self) -> None:
        """Skip every call that has not started (SIGINT, SIGTERM); those running finish."""
        with self._lock:
            for same in self._pending.values():
                for pending in same:
                    pending.cancelled = True

    # --- the writer ----------------------------------------------------------------------

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


def serve(
    runtime: RuntimeLike, source: BinaryIO, output: BinaryIO, workers: Workers | None = None
) -> None:
    """Serve ``runtime`` over ``source`` and ``output`` until ``source`` ends (Tool calls on
    ``workers``, by default the process's)."""
    StdioServer(runtime, output, workers).serve(source)


def _lines(source: BinaryIO) -> Iterator[bytes | None]:
    """Each non-blank line of ``source`` without its line ending; None for one too long."""
    while True:
        try:
            line = source.readline(MAX_MESSAGE_BYTES + 1)
        except (OSError, ValueError):  # the input broke or was closed: as good as its end
            return
        if not line:
            return
        if len(line) > MAX_MESSAGE_BYTES and not line.endswith(b"\n"):
            _discard_rest_of_line(source)
            yield None
            continue
        line = line.rstrip(b"\r\n")
        if line.strip():
            yield line


def _discard_rest_of_line(source: BinaryIO) -> None:
    while True:
        chunk = source.readline(MAX_MESSAGE_BYTES)
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
