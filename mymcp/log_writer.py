"""Log lines formatted and written by a thread of their own, off the request path.

The production logging setup (``mymcp.startup.configure_logging``) puts a
:class:`DeferredHandler` in the place of each handler it owns. A deferred handler does
what must happen where the record is made (the level check, and freezing a record whose
arguments could still change) and hands the record to the process's :class:`LogWriter`.
The writer's thread formats each record with the handler it stands in for and writes
what it has collected in one write per stream, so the lines, their order and their text
are exactly those the handlers would have written themselves.

Nothing is lost at the end: :meth:`LogWriter.flush` waits until every record handed over
so far is written (``mymcp stdio`` calls it when its input ends), and the writer is flushed
and stopped when the interpreter exits. After that, and in a child forked from the process,
each deferred handler writes through its handler directly, as before.
"""

from __future__ import annotations

import atexit
import copy
import logging
import os
import queue
import threading
from typing import Any, TextIO

from mymcp.threads import batch_scheduling

# Records written in one go at most; the queue itself is unbounded, like QueueHandler's.
MAX_BATCH = 512
# After each write the thread lets records gather this long, so a busy server wakes it
# once per a few milliseconds rather than once per line. No line waits longer than this.
LINGER_SECONDS = 0.02
STOP_TIMEOUT_SECONDS = 5.0
LINE_FORMAT = "%(levelname)s:%(name)s:%(message)s"
# Arguments of these types cannot change after the call, so formatting them later on the
# writer's thread gives the very text formatting them now would.
_IMMUTABLE = frozenset({str, int, float, bool, type(None)})


class _Marker:
    """A queue item that is not a record: stop, or tell a waiter everything before it is out."""

    def __init__(self, *, stop: bool) -> None:
        self.stop = stop
        self.done = threading.Event()


_Item = tuple[logging.Handler, logging.LogRecord] | _Marker


class LogWriter:
    """One thread that formats and writes the records of the handlers it stands in for."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[_Item] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._wake = threading.Event()  # ends the linger at once: someone waits

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                thread = threading.Thread(target=self._run, name="mymcp-log", daemon=True)
                thread.start()
                self._thread = thread

    def put(self, target: logging.Handler, record: logging.LogRecord) -> None:
        """Hand ``record`` over for ``target``; written directly when the writer is stopped."""
        if self._thread is None:
            target.handle(record)
            return
        self._queue.put((target, record))
        if self._thread is None:  # the writer stopped meanwhile: nobody else will write it
            self._write_leftovers()

    def flush(self, timeout: float = STOP_TIMEOUT_SECONDS) -> None:
        """Wait until every record handed over before this call is written."""
        self._wait(_Marker(stop=False), timeout)

    def stop(self, timeout: float = STOP_TIMEOUT_SECONDS) -> None:
        """Write what is queued, then end the thread; later records are written directly."""
        self._wait(_Marker(stop=True), timeout)
        with self._lock:
            self._thread = None
        self._write_leftovers()

    def _write_leftovers(self) -> None:
        """Write, on this thread, anything handed over while the writer was ending."""
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            _write([item])

    def forget_thread(self) -> None:
        """In a forked child: the thread did not come along, so write directly from now on."""
        self._thread = None
        self._queue = queue.SimpleQueue()

    def _wait(self, marker: _Marker, timeout: float) -> None:
        thread = self._thread
        if thread is None or not thread.is_alive() or thread is threading.current_thread():
            return
        self._queue.put(marker)
        self._wake.set()
        marker.done.wait(timeout)

    def _run(self) -> None:
        batch_scheduling()
        while True:
            batch = [self._queue.get()]
            while len(batch) < MAX_BATCH:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            if _write(batch):
                return
            if len(batch) < MAX_BATCH:  # the queue was empty: let the next lines gather
                self._wake.wait(LINGER_SECONDS)
                self._wake.clear()


def _write(batch: list[_Item]) -> bool:
    """Write ``batch`` in order, one write per run of lines to the same stream; True: stop."""
    lines: list[str] = []
    current: tuple[logging.StreamHandler[TextIO], logging.LogRecord] | None = None
    stop = False
    for item in batch:
        if isinstance(item, _Marker):
            _emit(current, lines)
            current, lines = None, []
            item.done.set()
            stop = stop or item.stop
            continue
        target, record = item
        if not _plain_stream(target):
            _emit(current, lines)
            current, lines = None, []
            target.handle(record)
            continue
        stream_handler: logging.StreamHandler[TextIO] = target  # type: ignore[assignment]
        if current is not None and current[0].stream is not stream_handler.stream:
            _emit(current, lines)
            lines = []
        current = (stream_handler, record)
        if record.levelno >= target.level and target.filter(record):
            try:
                lines.append(target.format(record) + stream_handler.terminator)
            except Exception:  # noqa: BLE001 - exactly what StreamHandler.emit does
                target.handleError(record)
    _emit(current, lines)
    return stop


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


class DeferredHandler(logging.Handler):
    """Stands in for ``target``: its records are written by the writer's thread.

    With ``at_once`` every record is written before :meth:`handle` returns (after all those
    handed over before it): for lines as rare and as final as a server's own start and
    stop, which a process may be killed right after (Uvicorn re-raises the signal that
    stopped it once it has said so).
    """

    def __init__(self, target: logging.Handler, writer: LogWriter, *, at_once: bool = False):
        super().__init__(target.level)
        self.target = target
        self._writer = writer
        self._at_once = at_once

    def handle(self, record: logging.LogRecord) -> bool:
        # No lock: handing over is thread-safe, and the target's lock guards the writing.
        if not self.filter(record):
            return False
        self._writer.put(self.target, _frozen(record, self.target))
        if self._at_once:
            self._writer.flush()
        return True

    def emit(self, record: logging.LogRecord) -> None:
        self.handle(record)


def _immutable(args: Any) -> bool:
    if not args:
        return True
    if type(args) is not tuple:
        return False
    for arg in args:
        if type(arg) not in _IMMUTABLE:
            return False
    return True


def _frozen(record: logging.LogRecord, target: logging.Handler) -> logging.LogRecord:
    """``record``, or a copy whose text is fixed now if formatting it later could differ."""
    if type(record.msg) is str and not record.exc_info and _immutable(record.args):
        return record
    frozen = copy.copy(record)
    try:
        frozen.msg, frozen.args = record.getMessage(), None
        if record.exc_info and not record.exc_text:
            formatter = target.formatter or logging.Formatter()
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
        super().__init__(LINE_FORMAT)

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


def flush() -> None:
    """Wait until every log record made so far in this process is written."""
    if _writer is not None:
        _writer.flush()
