"""What every production start does before it serves, over HTTP or over stdio.

:func:`production_runtime` is the one start-up sequence, used by ``mymcp stdio`` and by the
Uvicorn factory (``mymcp serve``): logging to standard error, the runtime composed from the
operator's settings, the memory root looked at once. A mistake in the operator's setup
stops the start with a typed error (``mymcp.plugin_api.setup``). Importing this module does
none of it.

The log lines are written by a thread of their own, with the standard library's
``QueueHandler`` and ``QueueListener``: each handler the setup owns is replaced by a
:class:`DeferredHandler` (a ``QueueHandler``) in front of it, which checks the level where
the record is made, fixes a record whose arguments could still change, and queues it with
its handler; the one :class:`LogWriter` (a ``QueueListener``) formats each record with that
handler and, its one addition, writes what has gathered in one write per stream, so the
lines, their order and their text are exactly those the handlers would have written.
Nothing is lost at the end: :func:`flush_logging` waits until every record made so far is
written, the writer stops (writing the rest) when the interpreter exits, and after that,
and in a forked child, every record is written directly.
"""

from __future__ import annotations

import atexit
import copy
import logging
import os
import queue
import sys
import threading
from logging.handlers import QueueHandler, QueueListener
from typing import TYPE_CHECKING, Any, TextIO

from mymcp.threads import batch_scheduling

if TYPE_CHECKING:
    from mymcp.host.runtime import HostRuntime

LOG_FORMAT = "%(levelname)s:%(name)s:%(message)s"
# Records written in one go at most.
MAX_BATCH = 512
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
_IMMUTABLE = frozenset({str, int, float, bool, type(None)})


def production_runtime() -> HostRuntime:
    """Configure logging, compose the bundled plugin and check the memory root.

    Startup errors propagate; an operator's mistake is a ``SetupError`` or carries a hint.
    """
    configure_logging()
    return checked_runtime()


def checked_runtime() -> HostRuntime:
    """Compose the bundled plugin from the operator's settings and check the memory root."""
    from mymcp.host.bootstrap import build_production_runtime, check_production_setup

    runtime = build_production_runtime()
    check_production_setup()
    return runtime


def configure_logging() -> None:
    """INFO logging to standard error for the host and the plugin, access lines included.

    As ``logging.basicConfig`` does, it installs a handler only when the root logger has
    none; when it does, the lines are written by the writer's thread, Uvicorn's with them,
    and as no line shows a record's thread, process or source location, records no longer
    look them up.
    """
    root = logging.getLogger()
    owned = not root.handlers
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
    for name in ("mcp", "mymcp"):
        logging.getLogger(name).setLevel(logging.INFO)
    for handler in logging.getLogger(_ACCESS_LOGGER).handlers:
        if isinstance(handler, logging.StreamHandler) and handler.stream in (
            sys.stdout,
            sys.__stdout__,
        ):
            handler.setStream(sys.stderr)
    if not owned:
        return
    for handler in root.handlers:  # the one basicConfig made: the same lines, made faster
        handler.setFormatter(LineFormatter())
    writer = process_writer()
    for name in ("", *_UVICORN_LOGGERS):
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            if not isinstance(handler, DeferredHandler):
                # Uvicorn's own lines (start, stop, errors) are few and may be its last.
                logger.removeHandler(handler)
                logger.addHandler(DeferredHandler(handler, writer, at_once=name == "uvicorn"))
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    logging._srcfile = None  # the documented switch for caller lookup


def flush_logging() -> None:
    """Wait until every log line made so far is written (at the end of a stdio session)."""
    if _writer is not None:
        _writer.flush()


_STOP = None  # QueueListener's sentinel


class _Marker:
    """Queued behind the records a waiter wants written: set once they are."""

    def __init__(self) -> None:
        self.done = threading.Event()


class LogWriter(QueueListener):
    """The thread that formats and writes the records of the handlers it stands in for."""

    def __init__(self) -> None:
        self.items: queue.SimpleQueue[Any] = queue.SimpleQueue()
        super().__init__(self.items)
        self._wake = threading.Event()  # ends the linger at once: someone waits

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="mymcp-log", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        batch_scheduling()
        self._monitor()  # type: ignore[attr-defined]  # the listener's loop (not in typeshed)

    def stop(self) -> None:
        """Write what is queued, then end the thread; later records are written directly."""
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            self.enqueue_sentinel()
            self._wake.set()
            thread.join(STOP_TIMEOUT_SECONDS)
        self._thread = None
        self.write_leftovers()

    def flush(self, timeout: float = STOP_TIMEOUT_SECONDS) -> None:
        """Wait until every record handed over before this call is written."""
        thread = self._thread
        if thread is None or not thread.is_alive() or thread is threading.current_thread():
            return
        marker = _Marker()
        self.items.put(marker)
        self._wake.set()
        marker.done.wait(timeout)

    def forget_thread(self) -> None:
        """In a forked child: the thread did not come along, so write directly from now on."""
        self._thread = None
        self.items = queue.SimpleQueue()
        self.queue = self.items

    def write_leftovers(self) -> None:
        """Write, on this thread, anything handed over while the writer was ending."""
        while True:
            try:
                item = self.items.get_nowait()
            except queue.Empty:
                return
            if item is not _STOP:
                _write([item])

    def handle(self, item: Any) -> None:
        """Write ``item`` and whatever waits behind it (up to a batch), then let more gather."""
        batch = [item]
        while len(batch) < MAX_BATCH:
            try:
                batch.append(self.items.get_nowait())
            except queue.Empty:
                break
        stopping = _STOP in batch
        if stopping:  # the sentinel goes back, with what came after it, for stop() to write
            cut = batch.index(_STOP)
            for later in batch[cut:]:
                self.items.put(later)
            batch = batch[:cut]
        _write(batch)
        if len(batch) < MAX_BATCH and not stopping:
            self._wake.wait(LINGER_SECONDS)
            self._wake.clear()


def _write(batch: list[Any]) -> None:
    """Write ``batch`` in order, one write per run of lines to the same stream."""
    lines: list[str] = []
    current: tuple[logging.StreamHandler[TextIO], logging.LogRecord] | None = None
    for item in batch:
        if isinstance(item, _Marker) or not _plain_stream(item[0]):
            _emit(current, lines)
            current, lines = None, []
            if isinstance(item, _Marker):
                item.done.set()
            else:
                item[0].handle(item[1])
            continue
        target, record = item
        if current is not None and current[0].stream is not target.stream:
            _emit(current, lines)
            lines = []
        current = (target, record)
        if record.levelno >= target.level and target.filter(record):
            try:
                lines.append(target.format(record) + target.terminator)
            except Exception:  # noqa: BLE001 - exactly what StreamHandler.emit does
                target.handleError(record)
    _emit(current, lines)


def _plain_stream(target: logging.Handler) -> bool:
    """Whether ``target`` writes as a plain StreamHandler does (so lines can be joined)."""
    return isinstance(target, logging.StreamHandler) and (
        type(target).emit is logging.StreamHandler.emit
    )


def _emit(
    current: tuple[logging.StreamHandler[TextIO], logging.LogRecord] | None, lines: list[str]
) -> None:
    if current is None or not lines:
        return
    handler, record = current
    handler.acquire()
    try:
        handler.stream.write("".join(lines))
        handler.flush()
    except Exception:  # noqa: BLE001 - exactly what StreamHandler.emit does
        handler.handleError(record)
    finally:
        handler.release()


class DeferredHandler(QueueHandler):
    """Stands in for ``target``: its records are written by the writer's thread.

    With ``at_once`` every record is written before :meth:`handle` returns (after all those
    handed over before it): for lines as rare and as final as a server's own start and
    stop, which a process may be killed right after.
    """

    def __init__(self, target: logging.Handler, writer: LogWriter, *, at_once: bool = False):
        super().__init__(writer.items)
        self.setLevel(target.level)
        self.target = target
        self._writer = writer
        self._at_once = at_once

    def handle(self, record: logging.LogRecord) -> bool:
        # No lock: handing over is thread-safe, and the target's lock guards the writing.
        if not self.filter(record):
            return False
        self.emit(record)
        if self._at_once:
            self._writer.flush()
        return True

    def enqueue(self, record: logging.LogRecord) -> None:
        writer = self._writer
        if writer._thread is None:
            self.target.handle(record)
            return
        writer.items.put((self.target, record))
        if writer._thread is None:  # the writer stopped meanwhile: nobody else will write it
            writer.write_leftovers()

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        """``record``, or a copy whose text is fixed now if formatting it later could differ."""
        args = record.args
        if (
            type(record.msg) is str
            and not record.exc_info
            and (not args or (type(args) is tuple and all(type(a) in _IMMUTABLE for a in args)))
        ):
            return record
        frozen = copy.copy(record)
        try:
            frozen.msg, frozen.args = record.getMessage(), None
            if record.exc_info and not record.exc_text:
                formatter = self.target.formatter or logging.Formatter()
                frozen.exc_text = formatter.formatException(record.exc_info)
        except Exception:  # noqa: BLE001 - formatting fails again when written, and is reported
            return record
        return frozen


class LineFormatter(logging.Formatter):
    """``LEVEL:logger:message``: the very text ``logging.Formatter`` writes for that format.

    A record without exception or stack text is joined directly, which costs a third of
    the generic path; any other goes the generic way.
    """

    def __init__(self) -> None:
        super().__init__(LOG_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info or record.exc_text or record.stack_info:
            return super().format(record)
        record.message = record.getMessage()
        return f"{record.levelname}:{record.name}:{record.message}"


_writer: LogWriter | None = None
_writer_lock = threading.Lock()


def process_writer() -> LogWriter:
    """The writer of this process, started on first use and stopped at exit."""
    global _writer
    with _writer_lock:
        if _writer is None:
            _writer = LogWriter()
            atexit.register(_writer.stop)
            os.register_at_fork(after_in_child=_writer.forget_thread)
        _writer.start()
        return _writer
