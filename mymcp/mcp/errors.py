"""Every protocol error this server answers: its JSON-RPC code and its HTTP status, per era.

This is the one table. The HTTP route takes the status of every answer from it; stdio
sends the same codes and has no status. The handshake era keeps the statuses the server
has always used: errors found while answering a request travel in a 200 response, and
only a body that cannot be read or a refused revision header changes the status. At
2026-07-28 the transport gives each kind of error its own status.

| error | code | handshake era | 2026-07-28 |
| --- | --- | --- | --- |
| body is not JSON | -32700 | 400 | 400 |
| body over 1 MiB | -32600 | 413 | 413 |
| the access token is required and missing or wrong | -32600 | 401 | 401 |
| stdio line over 1 MiB (no status: stdio) | -32600 | 413 | 413 |
| ``MCP-Protocol-Version`` names no revision served (no envelope) | -32600 | 400 | (never) |
| not a request (batch, bad id or method) | -32600 | 200 | 400 |
| unknown or removed method | -32601 | 200 | 404 |
| bad params, unknown Tool, missing envelope | -32602 | 200 | 400 |
| the server failed | -32603 | 200 | 200 |
| headers disagree with the body | -32020 | (never) | 400 |
| revision not served | -32022 | (never) | 400 |

An accepted notification is 202 with no body, and a result 200, in both eras.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mymcp.mcp import jsonrpc
from mymcp.mcp.era import Era


@dataclass(frozen=True, slots=True)
class ProtocolError:
    """One row of the table: a code, the HTTP status in each era, a fixed message if any."""

    code: int
    handshake_status: int
    modern_status: int
    message: str = ""

    def status(self, era: Era) -> int:
        return self.modern_status if era is Era.MODERN else self.handshake_status


# Refusals made before a message is dispatched (their message is fixed).
PARSE = ProtocolError(jsonrpc.PARSE_ERROR, 400, 400, "Parse error")
TOO_LARGE = ProtocolError(jsonrpc.INVALID_REQUEST, 413, 413, "Request body too large")
UNAUTHORIZED = ProtocolError(jsonrpc.INVALID_REQUEST, 401, 401, "Unauthorized")
UNSUPPORTED_HEADER = ProtocolError(
    jsonrpc.INVALID_REQUEST, 400, 400, "Unsupported protocol version"
)
LINE_TOO_LARGE = ProtocolError(jsonrpc.INVALID_REQUEST, 413, 413, "Message too large")  # stdio

# Errors of a dispatched message, by code: (handshake-era status, 2026-07-28 status).
_DISPATCHED: dict[object, tuple[int, int]] = {
    jsonrpc.INVALID_REQUEST: (200, 400),
    jsonrpc.METHOD_NOT_FOUND: (200, 404),
    jsonrpc.INVALID_PARAMS: (200, 400),
    jsonrpc.INTERNAL_ERROR: (200, 200),
    jsonrpc.HEADER_MISMATCH: (400, 400),
    jsonrpc.UNSUPPORTED_PROTOCOL_VERSION: (400, 400),
}


def http_status(era: Era, envelope: dict[str, Any]) -> int:
    """The HTTP status of a dispatched answer: 200 for a result, the table's for an error."""
    error = envelope.get("error")
    if not isinstance(error, dict):
        return 200
    statuses = _DISPATCHED.get(error.get("code"), (200, 200))
    return statuses[era is Era.MODERN]
