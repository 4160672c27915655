"""Requests of MCP 2026-07-28 as a client sends them: the ``_meta`` envelope and the headers."""

from __future__ import annotations

import base64
from typing import Any

REVISION = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
HANDSHAKE_REVISIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
SUPPORTED = [REVISION, *HANDSHAKE_REVISIONS]
SERVER_INFO = {"name": "mymcp", "version": "0.2.0"}
# The cache lifetimes docs/DIFFERENCES.md and the README state: an hour, five minutes.
DISCOVER_TTL_MS = 60 * 60 * 1000
TOOLS_LIST_TTL_MS = 5 * 60 * 1000


def envelope(version: str = REVISION) -> dict[str, Any]:
    return {
        VERSION_KEY: version,
        CLIENT_INFO_KEY: {"name": "modern-test", "version": "1"},
        CAPABILITIES_KEY: {},
    }


def request(
    method: str, params: dict[str, Any] | None = None, request_id: Any = 1, version: str = REVISION
) -> dict[str, Any]:
    """A request whose params carry the envelope (beside ``params``)."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**(params or {}), "_meta": envelope(version)},
    }


def call(tool: str, arguments: Any = None, request_id: Any = 1) -> dict[str, Any]:
    return request("tools/call", {"name": tool, "arguments": arguments or {}}, request_id)


def headers(message: dict[str, Any], version: str = REVISION) -> dict[str, str]:
    """The request metadata headers the specification asks for ``message``."""
    sent = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": version,
        "mcp-method": message["method"],
    }
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    if message["method"] == "tools/call" and isinstance(name, str):
        sent["mcp-name"] = name
    return sent


def base64_name(name: str) -> str:
    return "=?base64?" + base64.b64encode(name.encode()).decode() + "?="
