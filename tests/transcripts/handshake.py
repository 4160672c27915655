"""A handshake-era session, replayed over HTTP and over stdio, recorded byte for byte.

The exchanges are those of a client of 2024-11-05 to 2025-11-25: ``initialize``, the
``notifications/initialized`` notification, ``tools/list``, ``tools/call`` of the read
Tools, ``ping``, and the errors such a client can meet. ``test_handshake_transcript.py``
replays them against the server and compares every answer with the recording kept beside
this module. A recording is rewritten only on purpose: run the test with
``MYMCP_WRITE_TRANSCRIPTS=1`` after a change that is meant to alter the handshake era.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.clients.scenario import CANONICAL_REFERENCE, LEGACY_REFERENCE

RECORDINGS = Path(__file__).parent
WRITE_VARIABLE = "MYMCP_WRITE_TRANSCRIPTS"
CLIENT_INFO = {"name": "transcript", "version": "1"}


def _request(request_id: int, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def _initialize(request_id: int, version: str | None) -> dict[str, Any]:
    params: dict[str, Any] = {"capabilities": {}, "clientInfo": CLIENT_INFO}
    if version is not None:
        params["protocolVersion"] = version
    return _request(request_id, "initialize", params)


def _call(request_id: int, tool: str, arguments: Any) -> dict[str, Any]:
    return _request(request_id, "tools/call", {"name": tool, "arguments": arguments})


# (label, revision announced in MCP-Protocol-Version over HTTP or None, message as sent).
# Over stdio the header column is ignored: the revision is the one initialize negotiated.
SESSION: list[tuple[str, str | None, Any]] = [
    ("initialize", None, _initialize(1, "2025-11-25")),
    ("initialized", "2025-11-25", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ("tools/list", "2025-11-25", _request(2, "tools/list")),
    ("call list_tools", "2025-11-25", _call(3, "list_tools", {})),
    (
        "call memory_recall",
        "2025-11-25",
        _call(4, "memory_recall", {"query": "memory ownership", "scope": "project"}),
    ),
    ("call memory_list", "2025-11-25", _call(5, "memory_list", {"scope": "preference"})),
    (
        "call memory_inspect v2",
        "2025-11-25",
        _call(6, "memory_inspect", {"reference": CANONICAL_REFERENCE}),
    ),
    (
        "call memory_inspect v1",
        "2025-11-25",
        _call(7, "memory_inspect", {"reference": LEGACY_REFERENCE}),
    ),
    ("tool error", "2025-11-25", _call(8, "memory_recall", {"query": "", "scope": "nowhere"})),
    ("unknown tool", "2025-11-25", _call(9, "memory_nothing", {})),
    ("unknown method", "2025-11-25", _request(10, "resources/list")),
    ("ping", "2025-11-25", _request(11, "ping")),
    (
        "cancelled",
        "2025-11-25",
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}},
    ),
    (
        "params not an object",
        "2025-11-25",
        {"jsonrpc": "2.0", "id": 12, "method": "ping", "params": []},
    ),
    ("discover without envelope", "2025-11-25", _request(13, "server/discover")),
    ("initialize 2026-07-28", None, _initialize(14, "2026-07-28")),
    ("initialize unknown", None, _initialize(15, "1999-01-01")),
    ("initialize 2025-06-18", None, _initialize(16, "2025-06-18")),
    ("call at 2025-06-18", "2025-06-18", _call(17, "list_tools", {})),
    ("initialize 2024-11-05", None, _initialize(18, "2024-11-05")),
    ("call at 2024-11-05", "2024-11-05", _call(19, "list_tools", {})),
    ("initialize without a revision", None, _initialize(20, None)),
]

# The per-request envelope of 2026-07-28, which a header-less HTTP request may carry.
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
}

# Answers only HTTP gives: (label, headers, raw body).
HTTP_ONLY: list[tuple[str, dict[str, str], bytes]] = [
    (
        "header-less tools/list with the envelope",
        {},
        json.dumps(_request(33, "tools/list", {"_meta": ENVELOPE})).encode(),
    ),
    (
        "header-less discover with the envelope",
        {},
        json.dumps(_request(34, "server/discover", {"_meta": ENVELOPE})).encode(),
    ),
    ("header-less tools/call", {}, json.dumps(_call(30, "list_tools", {})).encode()),
    (
        "unsupported header",
        {"mcp-protocol-version": "garbage"},
        json.dumps(_request(31, "tools/list")).encode(),
    ),
    (
        "unsupported header, bad body",
        {"mcp-protocol-version": "1999-01-01"},
        b"{not json",
    ),
    ("parse error", {"mcp-protocol-version": "2025-11-25"}, b"{not json"),
    (
        "batch",
        {"mcp-protocol-version": "2025-11-25"},
        b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
    ),
    (
        "session id ignored",
        {"mcp-protocol-version": "2025-11-25", "mcp-session-id": "abc"},
        json.dumps(_request(32, "ping")).encode(),
    ),
]


def recording_path(transport: str) -> Path:
    return RECORDINGS / f"handshake_{transport}.json"


def load(transport: str) -> list[dict[str, Any]]:
    recorded: list[dict[str, Any]] = json.loads(recording_path(transport).read_text("utf-8"))
    return recorded


def save(transport: str, exchanges: list[dict[str, Any]]) -> None:
    text = json.dumps(exchanges, indent=1, ensure_ascii=False) + "\n"
    recording_path(transport).write_text(text, encoding="utf-8")
