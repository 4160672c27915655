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

if TYPE_CHECKING:
    from mymcp.host.runtime import HostRuntime

LOG_FORMAT = "%(levelname)s:%(name)s:%(message)s"
# Uvicorn writes its access lines to standard output; they belong with every other line.
_ACCESS_LOGGER = "uvicorn.access"


def configure_logging() -> None:
    """INFO logging to standard error for the host and the plugin, access lines included."""
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
    for name in ("mcp", "mymcp"):
        logging.getLogger(name).setLevel(logging.INFO)
    for handler in logging.getLogger(_ACCESS_LOGGER).handlers:
        if isinstance(handler, logging.StreamHandler) and handler.stream in (
            sys.stdout,
            sys.__stdout__,
        ):
            handler.setStream(sys.stderr)


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
