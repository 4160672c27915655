"""Which MCP era a request is served in, decided here and nowhere else, for both transports.

Two eras share one endpoint and one stdio command:

- the **handshake era** (2024-11-05 to 2025-11-25): a client opens with ``initialize`` and
  later requests say nothing about their revision in the body (over HTTP they may carry an
  ``MCP-Protocol-Version`` header naming the negotiated one);
- **2026-07-28**, stateless: every request carries its revision and the client's
  capabilities in ``params._meta`` (and over HTTP the revision again in the header).

The marker of the new era is the ``_meta`` key ``io.modelcontextprotocol/protocolVersion``:
its prefix is reserved for MCP, and no handshake-era client sends it. The rules:

- **stdio** has no header layer: a request carrying the marker is served as 2026-07-28,
  any other request (``initialize`` included) as today. The decision is made for each
  request; a process never locks into one era, so a client may probe with
  ``server/discover`` and still fall back to ``initialize`` in the same process.
- **HTTP**: a request without ``MCP-Protocol-Version`` is served as today, whatever its
  body says (the transport lets a server treat such a request as 2025-03-26). With the
  header, a request carrying the marker is served as 2026-07-28 (so a header that names a
  handshake revision over a 2026-07-28 body is a header mismatch, not a legacy request),
  and so is a request whose header names a 2026-07-28 revision. A header naming a
  handshake revision over a body without the marker is today's request; a header naming
  no revision this server knows, over a body without the marker, is refused as today.

Deciding is pure and cheap: it reads three keys of the decoded message and one header.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, NamedTuple

from mymcp import settings

PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"


class Era(Enum):
    HANDSHAKE = "handshake"
    MODERN = "2026-07-28"


class HttpHeaders(NamedTuple):
    """The request metadata headers of one HTTP POST, as sent (None: absent).

    ``repeated`` is set when any of them came more than once; such a request cannot be
    checked against its body and is refused in the 2026-07-28 era.
    """

    protocol_version: str | None = None
    method: str | None = None
    name: str | None = None
    repeated: bool = False


def era_of(message: Any, headers: HttpHeaders | None) -> Era:
    """The era to serve ``message`` in; ``headers`` is None on a transport without headers."""
    if headers is not None and headers.protocol_version is None:
        return Era.HANDSHAKE
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    if isinstance(meta, dict) and PROTOCOL_VERSION_KEY in meta:
        return Era.MODERN
    if headers is not None and headers.protocol_version in settings.MODERN_PROTOCOL_VERSIONS:
        return Era.MODERN
    return Era.HANDSHAKE
