"""One JSON-RPC exchange as every transport logs and encodes it.

HTTP and stdio move bytes differently but must say the same things about a message: the
``request`` line before it is dispatched, the ``response`` (or ``notification``) line after,
and the response bytes, with a bounded ``-32603`` in place of anything that cannot be
encoded. A transport calls :func:`received` with the decoded message, dispatches it, and
hands the dispatcher's answer to :func:`answered`.

A line below the logger's level costs one level check: its fields are not even rendered.
An answer around a fixed result is written from its bytes encoded once
(``mymcp.mcp.fixed``), with the same bytes the plain encoding gives.
"""

from __future__ import annotations

import functools
import logging
import time
from typing import Any, NamedTuple

from mymcp.mcp import fixed, jsonrpc

# The largest message a transport accepts (an HTTP body, a stdio line), before parsing.
MAX_MESSAGE_BYTES = 1024 * 1024

_logger = logging.getLogger("mcp")


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
        _logger.info("request id=%s method=%s", _shown(request_id), _shown(method))
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
            _logger.debug(
                "notification method=%s duration_ms=%d",
                _shown(incoming.method),
                duration_ms,
            )
        return None
    body, sent = serialize(response, incoming.request_id)
    _log_outcome(sent, incoming, duration_ms)
    return body, sent


def serialize(response: dict[str, Any], request_id: Any) -> tuple[bytes, dict[str, Any]]:
    """The response bytes, falling back to -32603 (and then to a null id) when unencodable.

    Returns the bytes and the envelope they encode: compact UTF-8 JSON, which never holds a
    newline byte (JSON escapes control characters inside strings).
    """
    spliced = fixed.splice(response)
    if spliced is not None:
        return spliced, response
    for candidate in (
        response,
        jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, "Internal error"),
        # An id nested just inside the decoder's depth limit may exceed the encoder's.
        jsonrpc.error(None, jsonrpc.INTERNAL_ERROR, "Internal error"),
    ):
        body = _encode(candidate)
        if body is not None:
            return body, candidate
    raise AssertionError("the null-id error envelope is always encodable")


@functools.lru_cache(maxsize=16)  # the transports' few fixed refusals
def error_body(code: int, message: str) -> bytes:
    """The bytes of an error answer that has no request to refer to (a null id)."""
    return serialize(jsonrpc.error(None, code, message), None)[0]


def _encode(response: dict[str, Any]) -> bytes | None:
    try:
        text = jsonrpc.encode_message(response, ensure_ascii=False)
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: escape instead of failing
            return jsonrpc.encode_message(response, ensure_ascii=True).encode("ascii")
    except (TypeError, ValueError, RecursionError):
        return None


# The methods a client sends most, rendered as jsonrpc.log_value renders them.
_KNOWN_METHODS = {
    method: jsonrpc.log_value(method)
    for method in (
        "initialize",
        "ping",
        "tools/list",
        "tools/call",
        "server/discover",
        "notifications/initialized",
        "notifications/cancelled",
    )
}


def _shown(value: Any) -> str:
    """``jsonrpc.log_value(value)``, without its checks for a known method or a small id."""
    if type(value) is str:
        known = _KNOWN_METHODS.get(value)
        if known is not None:
            return known
    elif type(value) is int and -_SMALL < value < _SMALL:
        return str(value)
    return jsonrpc.log_value(value)


_SMALL = 10**18  # an integer of at most 18 digits renders in full


def _log_outcome(response: dict[str, Any], incoming: Incoming, duration_ms: int) -> None:
    failed = "error" in response
    if not _logger.isEnabledFor(logging.WARNING if failed else logging.INFO):
        return
    rid, name = _shown(incoming.request_id), _shown(incoming.method)
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
