"""What every production start does before it serves, over HTTP or over stdio.

:func:`production_runtime` is the one start-up sequence, used by ``mymcp stdio`` and by the
Uvicorn factory (``mymcp serve``): logging to standard error, the runtime composed from the
operator's settings, the memory root looked at once. A mistake in the operator's setup
stops the start with a typed error (``mymcp.plugin_api.setup``). Importing this module does
none of it.

The log lines are written by a thread of their own, with the standard library's
``QueueHandler`` and ``QueueListener``: each handler the setup owns is replaced by a
queue handler in front of it, and the one listener thread hands each record to the handler
it stands in for, so the lines, their order and their text are exactly those the handlers
would have written. The one thing the standard pair lacks is added: a record is formatted
on the writer's thread, not where it is made, unless its arguments could still change.
Nothing is lost at the end: :func:`flush_logging` waits until every record made so far is
written, the listener stops (writing the rest) when the interpreter exits, and after that,
and in a forked child, every record is written directly.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import logging
import os
import queue
import sys
import threading
from logging.handlers import QueueHandler, QueueListener
from typing import TYPE_CHECKING, Any, TextIO

from mymcp.transports.base import batch_scheduling

if TYPE_CHECKING:
    from mymcp.host.runtime import HostRuntime

LOG_FORMAT = "%(levelname)s:%(name)s:%(message)s"
# After each write the thread lets records gather this long, so a busy server wakes it
# once per a few milliseconds rather than once per line. No line waits longer than this.
LINGER_SECONDS = 0.02
STOP_TIMEOUT_SECONDS = 5.0
# Uvicorn writes its access lines to standard output; they belong with every other line.
_ACCESS_LOGGER = "uvicorn.access"
# Uvicorn's own loggers with handlers: their lines join ours on the writer, in order.
_UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", _ACCESS_LOGGER)
# Arguments of these types cannot change after the call, so formatting them later on the
# writer's thread gives the very text formatting them now would.
_FIXED = frozenset({str, int, float, bool, type(None)})


def production_runtime() -> HostRuntime:
    """Configure logging, compose the bundled plugin and check the memory root.

    Startup errors propagate; an operator's mistake is a ``SetupError`` or carries a hint.
    """
    configure_logging()
    from mymcp.host.bootstrap import build_production_runtime, check_production_setup

    runtime = build_production_runtime()
    check_production_setup()
    return runtime


def configure_logging() -> None:
    """INFO logging to standard error for the host and the plugin, access lines included.

    As ``logging.basicConfig`` does, it installs a handler only when the root logger has
    none; when it does, the lines of its stream handlers are written by the writer's thread,
    Uvicorn's with them, and as no line shows a record's thread, process or source location,
    records no longer look them up.
    """
    owned = not logging.getLogger().handlers
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
    for name in ("mcp", "mymcp"):
        logging.getLogger(name).setLevel(logging.INFO)
    for handler in logging.getLogger(_ACCESS_LOGGER).handlers:
        if getattr(handler, "stream", None) in (sys.stdout, sys.__stdout__):
            handler.setStream(sys.stderr)  # type: ignore[attr-defined]  # a StreamHandler
    if not owned:
        return
    logging.getLogger().handlers[0].setFormatter(_LineFormatter(LOG_FORMAT))
    writer = _process_writer()
    for name in ("", *_UVICORN_LOGGERS):
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            if type(handler).emit is _EMIT:  # a plain stream handler (any other writes itself)
                # Uvicorn's own lines (start, stop, errors) are few and may be its last.
                logger.removeHandler(handler)
                logger.addHandler(_Deferred(handler, writer, at_once=name == "uvicorn"))
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    logging._srcfile = None  # the documented switch for caller lookup


def flush_logging() -> None:
    """Wait until every log line made so far is written (at the end of a stdio session)."""
    if _writer is not None:
        _writer.flush()


class _Writer(QueueListener):
    """The listener thread. Each queued item is a record with the handler it was made for,
    or an event a waiter wants set once everything before it is written.

    What it adds to ``QueueListener``, because ``bench/log_lines.py`` and ``--only protocol``
    show it is worth it (see docs/PERFORMANCE.md): once the queue is empty it writes the lines
    it gathered, one write per run of lines to the same stream, then lets more gather for up
    to :data:`LINGER_SECONDS` (a waiter ends that at once), so a busy server wakes it once per
    a few milliseconds rather than once per line; and it runs on the batch scheduling policy
    (``transports/base.py`` says why).
    """

    def __init__(self) -> None:
        self.items: queue.SimpleQueue[Any] = queue.SimpleQueue()
        super().__init__(self.items)
        self._wake = threading.Event()
        self._lines: list[str] = []
        self._stream: logging.StreamHandler[TextIO] | None = None

    def _monitor(self) -> None:  # the listener's loop, on its thread (not in typeshed)
        batch_scheduling()
        super()._monitor()  # type: ignore[misc]

    def dequeue(self, block: bool) -> Any:
        try:
            return self.items.get_nowait()
        except queue.Empty:
            self._write()
            self._wake.wait(LINGER_SECONDS)
            self._wake.clear()
            return self.items.get()

    def handle(self, item: Any) -> None:
        if isinstance(item, threading.Event):
            self._write()
            return item.set()
        target, record = item
        if self._stream is not None and self._stream.stream is not target.stream:
            self._write()
        self._stream = target
        if record.levelno >= target.level and target.filter(record):
            try:
                self._lines.append(target.format(record) + target.terminator)
            except Exception:  # noqa: BLE001 - exactly what StreamHandler.emit does
                target.handleError(record)

    def _write(self) -> None:
        target, lines = self._stream, self._lines
        if target is None or not lines:
            return
        self._lines = []
        with target.lock or contextlib.nullcontext():
            try:
                target.stream.write("".join(lines))
                target.flush()
            except Exception:  # noqa: BLE001 - exactly what StreamHandler.emit does
                target.handleError(logging.makeLogRecord({"msg": "log lines"}))

    def flush(self) -> None:
        """Wait until every record handed over before this call is written."""
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            written = threading.Event()
            self.items.put(written)
            self._wake.set()
            written.wait(STOP_TIMEOUT_SECONDS)

    def stop(self) -> None:
        """End the thread once it has written what is queued; then write, on this thread,
        anything handed over while it was ending. Later records are written directly."""
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            self.enqueue_sentinel()
            self._wake.set()
            thread.join(STOP_TIMEOUT_SECONDS)
        self._thread = None
        while not self.items.empty():
            if (item := self.items.get_nowait()) is not None:  # None: QueueListener's sentinel
                self.handle(item)
        self._write()


_EMIT = logging.StreamHandler.emit


class _Deferred(QueueHandler):
    """Stands in for ``target``: its records are written by the writer's thread.

    With ``at_once`` every record is written before :meth:`handle` returns (after all those
    handed over before it): for lines as rare and as final as a server's own start and
    stop, which a process may be killed right after.
    """

    def __init__(self, target: logging.Handler, writer: _Writer, *, at_once: bool = False):
        super().__init__(writer.items)
        self.setLevel(target.level)
        self.target, self._writer, self._at_once = target, writer, at_once

    def handle(self, record: logging.LogRecord) -> bool:
        # No lock: handing over is thread-safe, and the target's lock guards the writing.
        if not self.filter(record):
            return False
        if self._writer._thread is None:  # stopped, or in a forked child
            return bool(self.target.handle(record))
        self.queue.put_nowait(self.prepare(record))  # what emit does, without its two calls
        if self._at_once:
            self._writer.flush()
        return True

    def prepare(self, record: logging.LogRecord) -> Any:
        """``record`` with its target; a copy whose text is fixed now if formatting it later
        could differ."""
        args = record.args if type(record.args) is tuple else (record.args,)
        if type(record.msg) is str and not record.exc_info and all(type(a) in _FIXED for a in args):
            return self.target, record
        frozen = copy.copy(record)
        try:
            frozen.msg, frozen.args = record.getMessage(), None
            if record.exc_info and not record.exc_text:
                formatter = self.target.formatter or logging.Formatter()
                frozen.exc_text = formatter.formatException(record.exc_info)
        except Exception:  # noqa: BLE001 - formatting fails again when written, and is reported
            return self.target, record
        return self.target, frozen


class _LineFormatter(logging.Formatter):
    """:data:`LOG_FORMAT`'s very text; a record without exception or stack text is joined
    directly, in a third of the generic path's time (on the writer's thread)."""

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info or record.exc_text or record.stack_info:
            return super().format(record)
        return f"{record.levelname}:{record.name}:{record.getMessage()}"


_writer: _Writer | None = None


def _process_writer() -> _Writer:
    """The writer of this process, started on first use (logging is set up once, by the
    thread that starts the process) and stopped at exit."""
    global _writer
    if _writer is None:
        _writer = _Writer()
        _writer.start()
        atexit.register(_writer.stop)
        # In a forked child the thread did not come along: it writes directly from then on.
        os.register_at_fork(after_in_child=lambda: setattr(_writer, "_thread", None))
    return _writer
