"""The era decision and the table of statuses: both pure, both in one place."""

from __future__ import annotations

from typing import Any

import pytest

from mymcp import settings
from mymcp.mcp import errors, jsonrpc
from mymcp.mcp.era import Era, HttpHeaders, era_of
from tests import modern

WITH_ENVELOPE = modern.request("tools/list")
WITHOUT_ENVELOPE = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
LEGACY_META = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {}}}


def _http(version: str | None) -> HttpHeaders:
    return HttpHeaders(protocol_version=version)


@pytest.mark.parametrize(
    ("message", "headers", "era"),
    [
        # stdio: the envelope alone decides
        (WITH_ENVELOPE, None, Era.MODERN),
        (WITHOUT_ENVELOPE, None, Era.HANDSHAKE),
        (LEGACY_META, None, Era.HANDSHAKE),
        (modern.request("initialize"), None, Era.MODERN),
        (
            {"id": 1, "method": "initialize", "params": {"protocolVersion": "2026-07-28"}},
            None,
            Era.HANDSHAKE,
        ),
        ([WITH_ENVELOPE], None, Era.HANDSHAKE),
        # HTTP without the header: always today's request
        (WITH_ENVELOPE, _http(None), Era.HANDSHAKE),
        (WITHOUT_ENVELOPE, _http(None), Era.HANDSHAKE),
        # HTTP with the header
        (WITH_ENVELOPE, _http("2026-07-28"), Era.MODERN),
        (WITH_ENVELOPE, _http("2025-11-25"), Era.MODERN),
        (WITH_ENVELOPE, _http("garbage"), Era.MODERN),
        (WITHOUT_ENVELOPE, _http("2026-07-28"), Era.MODERN),
        ([WITHOUT_ENVELOPE], _http("2026-07-28"), Era.MODERN),
        (None, _http("2026-07-28"), Era.MODERN),
        (WITHOUT_ENVELOPE, _http("2025-11-25"), Era.HANDSHAKE),
        (WITHOUT_ENVELOPE, _http("garbage"), Era.HANDSHAKE),
        (LEGACY_META, _http("2025-06-18"), Era.HANDSHAKE),
    ],
)
def test_the_era_of_a_request(message: Any, headers: HttpHeaders | None, era: Era) -> None:
    assert era_of(message, headers) is era


@pytest.mark.parametrize("value", [None, 5, "", {"x": 1}])
def test_any_value_at_the_version_key_marks_the_2026_era(value: Any) -> None:
    message = {"id": 1, "method": "tools/list", "params": {"_meta": {modern.VERSION_KEY: value}}}

    assert era_of(message, None) is Era.MODERN


def test_no_handshake_revision_is_also_a_modern_one() -> None:
    handshake = set(settings.SUPPORTED_PROTOCOL_VERSIONS)

    assert handshake.isdisjoint(settings.MODERN_PROTOCOL_VERSIONS)


@pytest.mark.parametrize(
    ("code", "handshake", "modern_status"),
    [
        (jsonrpc.INVALID_REQUEST, 200, 400),
        (jsonrpc.METHOD_NOT_FOUND, 200, 404),
        (jsonrpc.INVALID_PARAMS, 200, 400),
        (jsonrpc.INTERNAL_ERROR, 200, 200),
        (jsonrpc.HEADER_MISMATCH, 400, 400),
        (jsonrpc.UNSUPPORTED_PROTOCOL_VERSION, 400, 400),
    ],
)
def test_the_status_of_each_dispatched_error(code: int, handshake: int, modern_status: int) -> None:
    envelope = jsonrpc.error(1, code, "x")

    assert errors.http_status(Era.HANDSHAKE, envelope) == handshake
    assert errors.http_status(Era.MODERN, envelope) == modern_status


@pytest.mark.parametrize("era", list(Era))
def test_a_result_is_200_in_both_eras(era: Era) -> None:
    assert errors.http_status(era, jsonrpc.result(1, {})) == 200


def test_the_refusals_before_dispatch_keep_their_statuses() -> None:
    assert (errors.PARSE.code, errors.PARSE.status(Era.HANDSHAKE)) == (-32700, 400)
    assert (errors.TOO_LARGE.code, errors.TOO_LARGE.status(Era.MODERN)) == (-32600, 413)
    assert errors.UNSUPPORTED_HEADER.status(Era.HANDSHAKE) == 400


def test_the_new_codes_sit_in_the_range_mcp_reserves() -> None:
    for code in (jsonrpc.HEADER_MISMATCH, jsonrpc.UNSUPPORTED_PROTOCOL_VERSION):
        assert -32099 <= code <= -32020
