"""One message in, its answer out: the path every transport shares.

:meth:`Session.handle` takes one decoded message and what the transport knows of it (the
request metadata headers over HTTP, None over stdio) and does, in this order, what both
transports once did each on their own:

1. choose the era (``mymcp.mcp.era``); over HTTP a handshake-era request whose
   ``MCP-Protocol-Version`` names no handshake revision is refused before anything else;
2. log the ``request`` line (:func:`received`) and start its clock;
3. have the dispatcher answer it in that era (``mymcp.mcp.dispatcher``): everything that
   never waits is answered at once, on the caller's thread;
4. encode the answer (``mymcp.mcp.encoding``), log the ``response`` line and take the HTTP
   status from the table (``mymcp.mcp.errors``).

A Tool call comes back as :class:`Work` instead: the transport runs its ``call`` on a worker
thread (``mymcp.transports.base``) and hands the envelope to its ``answer`` for step 4 (over
HTTP back on the event loop, over stdio on the worker). A session that
``remembers_initialize`` (stdio, which has no header) keeps the revision the last
``initialize`` negotiated: it is what later handshake-era calls are answered in.

The ``request`` and ``response`` lines cost one level check when their level is off: their
fields are not even rendered.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from mymcp import settings
from mymcp.jsonvalue import JsonObject
from mymcp.mcp import encoding, errors, jsonrpc
from mymcp.mcp.dispatcher import MCPDispatcher, RuntimeLike, ToolWork
from mymcp.mcp.era import Era, HttpHeaders, era_of

# The largest message a transport accepts (an HTTP body, a stdio line), before parsing.
MAX_MESSAGE_BYTES = 1024 * 1024
_KNOWN_REVISIONS = frozenset(
    (*settings.SUPPORTED_PROTOCOL_VERSIONS, *settings.MODERN_PROTOCOL_VERSIONS)
)

_logger = logging.getLogger("mcp")


# The bytes to send (empty: nothing, for a notification) and the HTTP status.
Answer = tuple[bytes, int]


class Work:
    """A Tool call that passed every protocol check.

    ``call`` runs it (on a worker thread) and gives the response envelope; :meth:`answer`
    encodes that envelope and logs it (over HTTP back on the event loop). :meth:`run` does
    both and never raises: a failure is a bounded ``-32603`` carrying the request's id (over
    HTTP the endpoint answers one).
    """

    __slots__ = ("_incoming", "_era", "call")

    def __init__(self, incoming: Incoming, era: Era, call: Callable[[], JsonObject]) -> None:
        self._incoming, self._era, self.call = incoming, era, call

    def answer(self, response: JsonObject) -> Answer:
        return _answer(self._incoming, self._era, response)

    def run(self) -> Answer:
        try:
            response = self.call()
        except Exception:  # noqa: BLE001 - the dispatcher already bounds handler failures
            incoming = self._incoming
            _logger.error("dispatch failed method=%s", jsonrpc.log_value(incoming.method))
            response = jsonrpc.error(incoming.request_id, jsonrpc.INTERNAL_ERROR, "Internal error")
        return self.answer(response)


_ACCEPTED: Answer = (b"", 202)


class Session:
    """Answers the messages of one transport for one runtime."""

    def __init__(self, runtime: RuntimeLike, *, remembers_initialize: bool = False) -> None:
        self.dispatcher = MCPDispatcher(runtime)
        self._remembers = remembers_initialize
        self.version: str | None = None  # the revision initialize negotiated (stdio)

    def handle(self, message: Any, headers: HttpHeaders | None = None) -> Answer | Work:
        """The answer to ``message``, or the :class:`Work` that gives it."""
        current = era_of(message, headers)
        if current is Era.HANDSHAKE and headers is not None:
            version = headers.protocol_version
            if version is not None and version not in settings.SUPPORTED_PROTOCOL_VERSIONS:
                return refusal(errors.UNSUPPORTED_HEADER, current)
        incoming = received(message)
        if current is Era.MODERN:
            prepared = self.dispatcher.prepare_modern(message, headers)
        else:
            version = headers.protocol_version if headers is not None else self.version
            prepared = self.dispatcher.prepare(message, protocol_version=version)
            if self._remembers and incoming.method == "initialize" and isinstance(prepared, dict):
                self._remember(prepared)
        if isinstance(prepared, ToolWork):
            return Work(incoming, current, prepared.run)
        return _answer(incoming, current, prepared)

    def unreadable(self, row: errors.ProtocolError, headers: HttpHeaders | None) -> Answer:
        """The answer to a message that could not be read (too large, cut off, not JSON)."""
        # A header naming no known revision was once refused before the body was read;
        # the answer stays the same when the body cannot be read.
        version = headers.protocol_version if headers is not None else None
        if version is not None and version not in _KNOWN_REVISIONS:
            return refusal(errors.UNSUPPORTED_HEADER, Era.HANDSHAKE)
        return refusal(row, era_of(None, headers))

    def _remember(self, answer: JsonObject) -> None:
        result = answer.get("result")
        if isinstance(result, dict):
            self.version = result["protocolVersion"]


def refusal(row: errors.ProtocolError, current: Era) -> Answer:
    """A refusal made before dispatch: a null id and the row's code, message and status."""
    return encoding.error_body(row.code, row.message), row.status(current)


def failure() -> Answer:
    """The answer when answering itself failed (a bug): a bounded ``-32603``, never a 500."""
    row = errors.INTERNAL_ERROR
    return encoding.error_body(row.code, "Internal error"), row.handshake_status


def _answer(incoming: Incoming, current: Era, response: JsonObject | None) -> Answer:
    answer = reply(incoming, response)
    if answer is None:
        return _ACCEPTED
    body, sent = answer
    return body, errors.http_status(current, sent)


# --- the log lines of one exchange ---------------------------------------------------------


class Incoming(NamedTuple):
    """What may be said about a decoded message in a log line, and when its dispatch began."""

    is_request: bool
    request_id: Any
    method: Any
    started: float


def received(message: Any) -> Incoming:
    """Log the ``request`` line of a request (not of a notification) and start its clock."""
    is_object = isinstance(message, dict)
    is_request = not is_object or "id" in message
    request_id = message.get("id") if is_object else None
    method = message.get("method") if is_object else None
    if is_request and _logger.isEnabledFor(logging.INFO):
        _logger.info("request id=%s method=%s", encoding.shown(request_id), encoding.shown(method))
    return Incoming(is_request, request_id, method, time.perf_counter())


def answered(incoming: Incoming, response: dict[str, Any] | None) -> bytes | None:
    """The bytes of ``response`` (None for a notification), after logging the outcome."""
    answer = reply(incoming, response)
    return answer[0] if answer is not None else None


def reply(
    incoming: Incoming, response: dict[str, Any] | None
) -> tuple[bytes, dict[str, Any]] | None:
    """Like :func:`answered`, with the envelope the bytes encode (it may be a fallback)."""
    duration_ms = round((time.perf_counter() - incoming.started) * 1000)
    if response is None:
        if _logger.isEnabledFor(logging.DEBUG):
            shown = encoding.shown(incoming.method)
            _logger.debug("notification method=%s duration_ms=%d", shown, duration_ms)
        return None
    body, sent = encoding.serialize(response, incoming.request_id)
    _log_outcome(sent, incoming, duration_ms)
    return body, sent


def _log_outcome(response: dict[str, Any], incoming: Incoming, duration_ms: int) -> None:
    failed = "error" in response
    if not _logger.isEnabledFor(logging.WARNING if failed else logging.INFO):
        return
    rid, name = encoding.shown(incoming.request_id), encoding.shown(incoming.method)
    if failed:
        code = response["error"]["code"]
        _logger.warning(
            "response id=%s method=%s outcome=error code=%d duration_ms=%d",
            rid,
            name,
            code,
            duration_ms,
        )
    else:
        _logger.info("response id=%s method=%s outcome=ok duration_ms=%d", rid, name, duration_ms)
