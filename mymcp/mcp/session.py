"""One message in, its answer out: the path every transport shares.

:meth:`Session.handle` takes one decoded message and what the transport knows of it (the
request metadata headers over HTTP, None over stdio) and, in this order:

1. chooses the era (``mymcp.mcp.era``); over HTTP a handshake-era request whose
   ``MCP-Protocol-Version`` names no handshake revision is refused before anything else;
2. logs the ``request`` line and starts its clock;
3. has the dispatcher answer it in that era (``mymcp.mcp.dispatcher``);
4. encodes the answer (``mymcp.mcp.encoding``), logs the ``response`` line and takes the
   HTTP status from the table (``mymcp.mcp.errors``).

What never waits is answered at once, on the caller's thread. A Tool call comes back as a
:class:`Work` instead, whose :meth:`Work.run` gives the answer: both transports run it on
a worker thread (``mymcp.transports.base``). Steps 3 and 4 pass through one catch-all
(:meth:`Session._answer`): whatever fails there, a bug included, is answered with
``-32603`` and the request's id, never with a traceback.

The ``request`` and ``response`` lines cost one level check when their level is off: their
fields are not even rendered.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import Any, NamedTuple, cast

from mymcp import settings
from mymcp.jsonvalue import JsonObject
from mymcp.mcp import encoding, errors, jsonrpc
from mymcp.mcp.dispatcher import MCPDispatcher, Prepared, RuntimeLike
from mymcp.mcp.era import Era, HttpHeaders, era_of

# The largest message a transport accepts (an HTTP body, a stdio line), before parsing.
MAX_MESSAGE_BYTES = 1024 * 1024
_KNOWN_REVISIONS = frozenset(
    (*settings.SUPPORTED_PROTOCOL_VERSIONS, *settings.MODERN_PROTOCOL_VERSIONS)
)

_logger = logging.getLogger("mcp")
_RESPONSE_LINE = "response id=%s method=%s outcome=%s duration_ms=%d"

# The bytes to send (empty: nothing, for a notification) and the HTTP status.
Answer = tuple[bytes, int]
_ACCEPTED: Answer = (b"", 202)


class Work:
    """A Tool call that passed every protocol check; :meth:`run` gives its answer and never
    raises. Run it off the event loop: it reads and writes files."""

    __slots__ = ("run",)

    def __init__(self, run: Callable[[], Answer]) -> None:
        self.run = run


class Session:
    """Answers the messages of one transport for one runtime.

    A session that ``remembers_initialize`` (stdio, which has no header) answers later
    handshake-era calls in the revision the last ``initialize`` negotiated.
    """

    def __init__(self, runtime: RuntimeLike, *, remembers_initialize: bool = False) -> None:
        self._dispatcher = MCPDispatcher(runtime, remembers_initialize=remembers_initialize)

    def handle(self, message: Any, headers: HttpHeaders | None = None) -> Answer | Work:
        """The answer to ``message``, or the :class:`Work` that gives it."""
        era = era_of(message, headers)
        if era is Era.HANDSHAKE and headers is not None:
            version = headers.protocol_version
            if version is not None and version not in settings.SUPPORTED_PROTOCOL_VERSIONS:
                return refusal(errors.UNSUPPORTED_HEADER, era)
        incoming = received(message)
        step = functools.partial(self._dispatcher.answer, message, era, headers)
        return self._answer(incoming, era, step)

    def unreadable(self, row: errors.ProtocolError, headers: HttpHeaders | None) -> Answer:
        """The answer to a message that could not be read (too large, cut off, not JSON)."""
        # A header naming no known revision was once refused before the body was read;
        # the answer stays the same when the body cannot be read.
        version = headers.protocol_version if headers is not None else None
        if version is not None and version not in _KNOWN_REVISIONS:
            return refusal(errors.UNSUPPORTED_HEADER, Era.HANDSHAKE)
        return refusal(row, era_of(None, headers))

    def _answer(self, incoming: Incoming, era: Era, step: Callable[[], Prepared]) -> Answer | Work:
        """What ``step`` answers, encoded and logged; a Tool call it hands back becomes
        :class:`Work` that comes back here. The one catch-all of the message path."""
        try:
            response = step()
            if callable(response):
                # The call gives an envelope, never another call: its answer is final.
                run = functools.partial(self._answer, incoming, era, response)
                return Work(cast("Callable[[], Answer]", run))
            body = encoding.encode(response) if response is not None else b""
        except Exception:  # noqa: BLE001 - a bug or an unencodable result: a bounded -32603
            _logger.error("answer failed method=%s", jsonrpc.log_value(incoming.method))
            body, response = encoding.failure(incoming.request_id)
        _log_outcome(incoming, response)
        return (body, errors.http_status(era, response)) if response is not None else _ACCEPTED


def decoded(body: bytes) -> Any:
    """The message a transport read (an HTTP body, a stdio line), or ``errors.PARSE`` when it
    is not strict JSON."""
    try:
        return jsonrpc.decode_body(body)
    except jsonrpc.ParseError:
        return errors.PARSE


def refusal(row: errors.ProtocolError, era: Era) -> Answer:
    """A refusal made before dispatch: a null id and the row's code, message and status."""
    body = encoding.encode(jsonrpc.error(None, row.code, row.message))
    return body, row.status(era)


# --- the log lines of one exchange ---------------------------------------------------------


class Incoming(NamedTuple):
    """What may be said about a decoded message in a log line, and when its dispatch began."""

    request_id: Any
    method: Any
    started: float


def received(message: Any) -> Incoming:
    """Log the ``request`` line of a request (not of a notification) and start its clock."""
    is_object = isinstance(message, dict)
    request_id, method = (message.get("id"), message.get("method")) if is_object else (None, None)
    if (not is_object or "id" in message) and _logger.isEnabledFor(logging.INFO):
        shown = jsonrpc.log_value
        _logger.info("request id=%s method=%s", shown(request_id), shown(method))
    return Incoming(request_id, method, time.perf_counter())


def _log_outcome(incoming: Incoming, response: JsonObject | None) -> None:
    failed = response is not None and "error" in response
    level = logging.DEBUG if response is None else logging.WARNING if failed else logging.INFO
    if not _logger.isEnabledFor(level):
        return
    ms = round((time.perf_counter() - incoming.started) * 1000)
    request_id, method = jsonrpc.log_value(incoming.request_id), jsonrpc.log_value(incoming.method)
    if response is None:
        _logger.debug("notification method=%s duration_ms=%d", method, ms)
        return
    outcome = f"error code={response['error']['code']}" if failed else "ok"
    _logger.log(level, _RESPONSE_LINE, request_id, method, outcome, ms)
