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
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

from mymcp.mcp import errors
from mymcp.mcp.dispatcher import RuntimeLike
from mymcp.mcp.session import MAX_MESSAGE_BYTES, Session, Work, decoded
from mymcp.transports.base import Workers, shared_workers

# Requests read but not yet answered; beyond this the reader waits for a free slot.
MAX_PENDING = 256
_CANCELLED = "notifications/cancelled"
# U+2028 and U+2029, which some line readers split on, are written as JSON escapes.
_LINE_SEPARATORS = ((b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029"))

_logger = logging.getLogger("mcp")


def serve(
    runtime: RuntimeLike, source: BinaryIO, output: BinaryIO, workers: Workers | None = None
) -> None:
    """Serve ``runtime`` over ``source`` and ``output`` until ``source`` ends and every answer
    is out (Tool calls on ``workers``, by default the process's)."""
    _Server(runtime, output, workers or shared_workers()).serve(source)


class _Stop(BaseException):
    """Raised in the reader by SIGINT or SIGTERM."""


class _Server:
    def __init__(self, runtime: RuntimeLike, output: BinaryIO, workers: Workers) -> None:
        self._session = Session(runtime, remembers_initialize=True)
        self._workers, self._output = workers, output
        self._write_lock, self._lock = threading.Lock(), threading.Lock()
        # The calls handed to a worker and not finished: each one's request id, and a flag
        # set once the client cancels it. A free slot for each call not finished.
        self._pending: list[tuple[tuple[str, Any] | None, threading.Event]] = []
        self._slots = threading.BoundedSemaphore(MAX_PENDING)
        self._writable = True

    def serve(self, source: BinaryIO) -> None:
        try:
            with _stop_on_signals():
                for line in _lines(source):
                    self._receive(line)
        except _Stop:  # every call that has not started is skipped; those running finish
            self._cancel(None)
        finally:
            for _ in range(MAX_PENDING):  # every slot back: every call has finished
                self._slots.acquire()

    def _receive(self, line: bytes | None) -> None:
        message = errors.LINE_TOO_LARGE if line is None else decoded(line)
        if isinstance(message, errors.ProtocolError):
            self._write(self._session.unreadable(message, None)[0])
            return
        if (
            isinstance(message, dict)
            and "id" not in message
            and message.get("method") == _CANCELLED
        ):
            params = message.get("params")
            key = _id_key(params.get("requestId") if isinstance(params, dict) else None)
            if key is not None:
                self._cancel(key)
        handled = self._session.handle(message)
        if isinstance(handled, Work):
            self._submit(handled, _id_key(message.get("id")))
        elif handled[0]:
            self._write(handled[0])

    def _submit(self, work: Work, key: tuple[str, Any] | None) -> None:
        self._slots.acquire()
        pending = (key, threading.Event())
        with self._lock:
            self._pending.append(pending)

        def run() -> None:
            cancelled = pending[1]
            try:
                if not cancelled.is_set():
                    body, _ = work.run()
                    if not cancelled.is_set():
                        self._write(body)
            finally:
                with self._lock:
                    self._pending.remove(pending)
                self._slots.release()

        self._workers.submit(run)

    def _cancel(self, key: tuple[str, Any] | None) -> None:
        """Drop the answers of the calls with this id (None: of every call)."""
        with self._lock:
            for pending_key, cancelled in self._pending:
                if key is None or pending_key == key:
                    cancelled.set()

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
            while (rest := source.readline(MAX_MESSAGE_BYTES)) and not rest.endswith(b"\n"):
                pass  # the rest of the line, discarded
            yield None
        elif line.strip():
            yield line.rstrip(b"\r\n")


def _id_key(request_id: Any) -> tuple[str, Any] | None:
    """A request id as a hashable key (strings and integers only; a client cancels by id)."""
    kind = type(request_id)  # a decoded id: never an int subclass but bool
    return (kind.__name__, request_id) if kind in (str, int) else None


@contextmanager
def _stop_on_signals() -> Iterator[None]:
    """Turn SIGINT and SIGTERM into :class:`_Stop` in the reader (the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise _Stop()

    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
