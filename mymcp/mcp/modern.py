"""MCP 2026-07-28: the checks every request passes, ``server/discover``, what results carry.

A request of this revision is checked in a fixed order, and the first failure is the answer:

1. it is a request: an id that is a string or an integer, a method that is a string
   (``-32600``, with a null id when the id itself is the problem);
2. the envelope: ``params._meta`` is an object holding the protocol version (a string) and
   the client's capabilities (an object) (``-32602``);
3. over HTTP, the request metadata headers repeat the body: ``MCP-Protocol-Version`` the
   version, ``Mcp-Method`` the method, and for ``tools/call`` ``Mcp-Name`` the Tool name,
   plain or as ``=?base64?…?=``; each header is sent once and holds visible ASCII only
   (``-32020``);
4. the version is one this server serves statelessly (``-32022``, naming every revision it
   speaks, newest first, handshake revisions included, and the one requested when that is
   a short plain token, otherwise an empty string: client text is never reflected).

Then the method: ``server/discover``, ``tools/list`` and ``tools/call``; anything else,
including the handshake's ``initialize`` and ``ping``, is ``-32601``. Every result carries
``resultType: "complete"`` and the server's name and version in ``_meta``; the results of
``server/discover`` and ``tools/list`` carry cache hints as well.

Cache hints: the Tool set of a process is fixed when it starts (the gates are read once),
and nothing in either answer belongs to a user or a caller, so both are ``public``.
``tools/list`` stays fresh for five minutes, which bounds how long a client keeps an old list
after the operator restarts the server with other gates; ``server/discover`` changes only
with a new release and stays fresh for an hour.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from mymcp import settings
from mymcp.jsonvalue import JsonObject
from mymcp.mcp import era, jsonrpc
from mymcp.mcp.era import HttpHeaders

DISCOVER = "server/discover"
TOOLS_CALL = "tools/call"
# Every revision this server speaks, newest first: what discover and -32022 name.
SUPPORTED_VERSIONS = (
    *reversed(settings.MODERN_PROTOCOL_VERSIONS),
    *reversed(settings.SUPPORTED_PROTOCOL_VERSIONS),
)
# Handshake-era methods the 2026-07-28 revision removed.
REMOVED_METHODS = frozenset(
    "initialize notifications/initialized ping logging/setLevel resources/subscribe "
    "resources/unsubscribe".split()
)
CACHE_SCOPE = "public"
TOOLS_LIST_TTL_MS = 5 * 60 * 1000
DISCOVER_TTL_MS = 60 * 60 * 1000

ENVELOPE_MESSAGE = (
    "Invalid request envelope: params._meta needs a string "
    f"{era.PROTOCOL_VERSION_KEY} and an object {era.CLIENT_CAPABILITIES_KEY}"
)
UNSUPPORTED_MESSAGE = "Unsupported protocol version"
_REPEATED = "Header mismatch: a request metadata header was sent more than once"
_UNSAFE = "Header mismatch: a request metadata header holds a character outside visible ASCII"
_VERSION_DIFFERS = (
    "Header mismatch: MCP-Protocol-Version differs from the protocol version in params._meta"
)
_METHOD_DIFFERS = "Header mismatch: Mcp-Method is missing or differs from the request's method"
_NAME_DIFFERS = "Header mismatch: Mcp-Name is missing or differs from the Tool name in params.name"
_NOT_FOUND = "Method not found"
_REMOVED = "Method not found: it belongs to the handshake era, not to 2026-07-28"

# A requested version shown back in -32022 only when it looks like a revision name.
_SHOWN_VERSION = re.compile(r"[A-Za-z0-9._-]{1,32}")
# Header values: visible ASCII, space and tab (RFC 9110 field values without obs-text).
_HEADER_SAFE = re.compile(r"[\x20-\x7e\t]*")
_BASE64_PREFIX, _BASE64_SUFFIX = "=?base64?", "?="


def refusal(message: dict[str, Any], headers: HttpHeaders | None) -> JsonObject | None:
    """The error answer to a 2026-07-28 request that fails a check, or None if it passes."""
    request_id = message.get("id")
    if not _is_request_id(request_id):
        return jsonrpc.error(None, jsonrpc.INVALID_REQUEST, "Invalid Request")
    method = message.get("method")
    if not isinstance(method, str):
        return jsonrpc.error(request_id, jsonrpc.INVALID_REQUEST, "Invalid Request")
    params = message.get("params")
    version = _envelope_version(params)
    if version is None:
        return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, ENVELOPE_MESSAGE)
    if headers is not None:
        mismatch = header_mismatch(headers, version, method, params)
        if mismatch is not None:
            return jsonrpc.error(request_id, jsonrpc.HEADER_MISMATCH, mismatch)
    if version not in settings.MODERN_PROTOCOL_VERSIONS:
        data = {"supported": list(SUPPORTED_VERSIONS), "requested": shown_version(version)}
        return jsonrpc.error(
            request_id, jsonrpc.UNSUPPORTED_PROTOCOL_VERSION, UNSUPPORTED_MESSAGE, data
        )
    return None


def header_mismatch(headers: HttpHeaders, version: str, method: str, params: Any) -> str | None:
    """Why the headers of a request disagree with its body, or None if they agree."""
    if headers.repeated:
        return _REPEATED
    sent = (headers.protocol_version, headers.method, headers.name)
    if not all(_HEADER_SAFE.fullmatch(value) for value in sent if value is not None):
        return _UNSAFE
    if headers.protocol_version != version:
        return _VERSION_DIFFERS
    if headers.method != method:
        return _METHOD_DIFFERS
    if method == TOOLS_CALL:
        name = params.get("name") if isinstance(params, dict) else None
        if decoded_name(headers.name) != (name if isinstance(name, str) else None):
            return _NAME_DIFFERS
    return None


def decoded_name(header: str | None) -> str | object | None:
    """An ``Mcp-Name`` value with its Base64 sentinel form decoded.

    A sentinel that does not hold Base64 of UTF-8 text gives an object equal to no name.
    """
    if header is None or not (
        header.startswith(_BASE64_PREFIX) and header.endswith(_BASE64_SUFFIX)
    ):
        return header
    encoded = header[len(_BASE64_PREFIX) : len(header) - len(_BASE64_SUFFIX)]
    try:
        return base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return object()


def shown_version(version: str) -> str:
    """The requested version as -32022 may show it: itself if a short plain token, else ''."""
    return version if _SHOWN_VERSION.fullmatch(version) else ""


def not_found(request_id: Any, method: str) -> JsonObject:
    message = _REMOVED if method in REMOVED_METHODS else _NOT_FOUND
    return jsonrpc.error(request_id, jsonrpc.METHOD_NOT_FOUND, message)


def discover_result(instructions: str = "") -> dict[str, Any]:
    """What ``server/discover`` answers, before the fields every result carries."""
    result = {"supportedVersions": list(SUPPORTED_VERSIONS), "capabilities": {"tools": {}}}
    return {**result, "instructions": instructions} if instructions else result


def completed(result: Any, *, ttl_ms: int | None = None) -> dict[str, Any]:
    """``result`` with the fields a 2026-07-28 result carries; ``ttl_ms`` adds the cache hints.

    Raises ``TypeError`` for a result that is not an object, which cannot carry them.
    """
    if not isinstance(result, dict):
        raise TypeError("a 2026-07-28 result must be an object")
    fields = {**result, "resultType": "complete"}
    if ttl_ms is not None:
        fields["ttlMs"] = ttl_ms
        fields["cacheScope"] = CACHE_SCOPE
    meta = result.get("_meta")
    meta = meta if isinstance(meta, dict) else {}
    fields["_meta"] = {**meta, era.SERVER_INFO_KEY: server_info()}
    return fields


def server_info() -> dict[str, str]:
    """Who answers: the name and version every result and ``initialize`` carry."""
    return {"name": settings.SERVER_NAME, "version": settings.SERVER_VERSION}


def _is_request_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _envelope_version(params: Any) -> str | None:
    """The protocol version of a complete envelope, or None when the envelope is not."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict):
        return None
    version = meta.get(era.PROTOCOL_VERSION_KEY)
    if not isinstance(version, str) or not isinstance(meta.get(era.CLIENT_CAPABILITIES_KEY), dict):
        return None
    return version
