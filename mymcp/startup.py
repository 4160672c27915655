"""What every production entry point does before it serves, over HTTP or over stdio.

Logging goes to standard error, the runtime is composed from the operator's settings, and
the memory root is looked at once; a mistake in the operator's setup stops the start with a
fixed sentence and a note that says where it is and what to do. Importing this module does
none of it.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING

from mymcp import log_writer

if TYPE_CHECKING:
    from mymcp.host.runtime import HostRuntime

LOG_FORMAT = log_writer.LINE_FORMAT
# Uvicorn writes its access lines to standard output; they belong with every other line.
_ACCESS_LOGGER = "uvicorn.access"
# Uvicorn's own loggers with handlers: their lines join ours on the writer, in order.
_UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", _ACCESS_LOGGER)


def configure_logging() -> None:
    """INFO logging to standard error for the host and the plugin, access lines included.

    As ``logging.basicConfig`` does, it installs a handler only when the root logger has
    none. When it does, the lines are written by a thread of their own
    (``mymcp.log_writer``), Uvicorn's with them, so no request waits for a line to be
    formatted or written; and as no line shows a record's thread, process or source
    location, records no longer look them up.
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
    if owned:
        _write_off_the_request_path(root)


def _write_off_the_request_path(root: logging.Logger) -> None:
    for handler in root.handlers:  # the one basicConfig made: the same lines, made faster
        handler.setFormatter(log_writer.LineFormatter())
    writer = log_writer.process_writer()
    for name in ("", *_UVICORN_LOGGERS):
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            if not isinstance(handler, log_writer.DeferredHandler):
                # Uvicorn's own lines (start, stop, errors) are few and may be its last.
                deferred = log_writer.DeferredHandler(handler, writer, at_once=name == "uvicorn")
                logger.removeHandler(handler)
                logger.addHandler(deferred)
    # Nothing the format shows comes from these; looking them up costs every record.
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    logging._srcfile = None  # the documented switch for caller lookup


def flush_logging() -> None:
    """Wait until every log line made so far is written (at the end of a stdio session)."""
    log_writer.flush()


def production_runtime() -> HostRuntime:
    """Configure logging, compose the bundled plugin and check the memory root.

    Startup errors propagate; :func:`setup_problem` tells the operator's mistakes apart.
    """
    configure_logging()
    return checked_runtime()


def checked_runtime() -> HostRuntime:
    """Compose the bundled plugin from the operator's settings and check the memory root."""
    from mymcp.host.bootstrap import build_production_runtime, check_production_setup

    runtime = build_production_runtime()
    check_production_setup()
    return runtime


def setup_problem(error: BaseException) -> list[str] | None:
    """The lines to show for a startup failure the operator can fix, or None for any other."""
    from mymcp.host.bootstrap import describe_setup_error

    return describe_setup_error(error)
