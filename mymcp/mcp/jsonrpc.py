"""JSON-RPC 2.0 envelopes: decoding request bodies, named error codes, response builders.

A response's bytes are written by ``mymcp.mcp.encoding``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mymcp import jsonvalue

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# Defined by MCP 2026-07-28 (and only answered to requests of that revision).
HEADER_MISMATCH = -32020
UNSUPPORTED_PROTOCOL_VERSION = -32022

# Text that may be echoed into an error message or a log line as it is.
_ECHO_SAFE = re.compile(r"[A-Za-z0-9_./:-]{0,128}")
_SMALL = 10**18
_SHOWN: set[str] = set()  # strings echo shows as they are


class ParseError(ValueError):
    """The body is not one strict JSON document."""


def decode_body(body: bytes) -> Any:
    """Decode a request body as strict JSON (no NaN/Infinity, no overflow, bounded depth)."""
    try:
        # Decoded strictly: json.loads(bytes) would let UTF-8-encoded surrogates through.
        # A body that opens with "{" is UTF-8 by the rules of json.detect_encoding.
        utf8 = body[:1] == b"{" and body[1:2] != b"\x00"
        return jsonvalue.decode(body.decode("utf-8" if utf8 else json.detect_encoding(body)))
    except (ValueError, TypeError):
        raise ParseError("Parse error") from None


def result(request_id: Any, payload: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": payload}


def error(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    """An error envelope; ``data`` (never None) only where the protocol defines one."""
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


def internal_error(request_id: Any) -> dict[str, Any]:
    """The one ``-32603`` answer: the server failed, and nothing says how."""
    return error(request_id, INTERNAL_ERROR, "Internal error")


def echo(value: Any) -> str | None:
    """How a client-supplied name may appear in a message, or None if it must not be echoed.

    Short plain names and scalars render as Python's ``str`` does (``None``, ``5``); anything
    long, structured or containing unusual characters is never reflected.
    """
    if value is None or isinstance(value, (bool, int, float)):
        rendered = str(value)
    elif isinstance(value, str) and _ECHO_SAFE.fullmatch(value):
        rendered = value
    else:
        return None
    return rendered if len(rendered) <= 128 else None


def log_value(value: Any) -> str:
    """A bounded, single-line rendering for log lines."""
    kind = type(value)
    if kind is int and -_SMALL < value < _SMALL or kind is str and value in _SHOWN:
        return int.__repr__(value) if kind is int else value  # the usual ones, for less
    rendered = echo(value)
    if rendered is not None and kind is str and len(_SHOWN) < 256:
        _SHOWN.add(value)  # method names repeat: each is checked once
    return rendered if rendered is not None else "<redacted>"
