"""``mymcp.mcp.exchange``: what both transports write for one message."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mymcp.mcp import encoding, jsonrpc
from mymcp.mcp import session as exchange

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(request_id=st.integers() | st.text(), payload=JSON)
def test_an_answer_is_one_line_of_json_that_decodes_to_the_envelope(
    request_id: Any, payload: Any
) -> None:
    envelope = jsonrpc.result(request_id, payload)

    body, sent = encoding.serialize(envelope, request_id)

    assert b"\n" not in body and b"\r" not in body
    assert sent is envelope
    assert json.loads(body) == envelope


def test_an_unencodable_answer_becomes_an_internal_error_with_its_id() -> None:
    body, sent = encoding.serialize(jsonrpc.result(7, {"value": object()}), 7)

    assert json.loads(body) == sent == jsonrpc.error(7, jsonrpc.INTERNAL_ERROR, "Internal error")


def test_an_id_that_cannot_be_encoded_falls_back_to_null() -> None:
    request_id: Any = []
    for _ in range(5000):
        request_id = [request_id]

    body, _ = encoding.serialize(jsonrpc.result(request_id, {"value": float("nan")}), request_id)

    assert json.loads(body)["id"] is None


def test_error_body_has_a_null_id() -> None:
    assert json.loads(encoding.error_body(jsonrpc.PARSE_ERROR, "Parse error")) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error"},
    }


def test_the_request_and_response_lines(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="mcp")
    request = exchange.received({"jsonrpc": "2.0", "id": "a", "method": "ping"})
    exchange.answered(request, jsonrpc.result("a", {}))
    note = exchange.received({"jsonrpc": "2.0", "method": "notifications/initialized"})

    assert exchange.answered(note, None) is None
    lines = [record.getMessage() for record in caplog.records]
    assert lines[0] == "request id=a method=ping"
    assert lines[1].startswith("response id=a method=ping outcome=ok duration_ms=")
    assert lines[2].startswith("notification method=notifications/initialized duration_ms=")
    assert len(lines) == 3
