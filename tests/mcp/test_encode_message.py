"""``jsonrpc.encode_message``: a response's wire text, reusing the text of pre-encoded members."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.mcp import encoding, jsonrpc
from mymcp.mcp.encoding import EncodedObject
from tests.json_strategies import json_scalars, json_values

SCALARS = json_scalars()
JSON_VALUES = json_values(SCALARS)
OBJECTS = st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=5)


def _plain(value: Any, ensure_ascii: bool) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=ensure_ascii, allow_nan=False)


def _compact_ascii(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True)


def _tool_response(request_id: Any, payload: dict[str, Any], *, is_error: bool) -> dict[str, Any]:
    text = _compact_ascii(payload)
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": text}],
        "structuredContent": EncodedObject(payload, text),
    }
    if is_error:
        result["isError"] = True
    return jsonrpc.result(request_id, result)


@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_a_response_without_encoded_members_is_plain_compact_json(ensure_ascii: bool) -> None:
    responses = [
        jsonrpc.result(7, {"tools": [{"name": "é"}]}),
        jsonrpc.error(None, jsonrpc.INTERNAL_ERROR, "Internal error"),
        jsonrpc.result("x", {}),
    ]

    for response in responses:
        assert encoding.encode_message(response, ensure_ascii=ensure_ascii) == _plain(
            response, ensure_ascii
        )


def test_an_encoded_member_is_written_as_its_text_in_key_order() -> None:
    payload = {"status": "ok", "n": 1}
    response = _tool_response(3, payload, is_error=True)

    text = encoding.encode_message(response, ensure_ascii=False)

    assert text == _plain(
        {
            "jsonrpc": "2.0",
            "id": 3,
            "result": {
                "content": [{"type": "text", "text": '{"status":"ok","n":1}'}],
                "structuredContent": payload,
                "isError": True,
            },
        },
        False,
    )


def test_the_members_text_is_used_as_given_not_encoded_again() -> None:
    # The text is trusted: a deliberately different (but valid) text shows which one is sent.
    response = jsonrpc.result(1, {"structuredContent": EncodedObject({"a": 1}, '{"a": 1}')})

    assert encoding.encode_message(response, ensure_ascii=False) == (
        '{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"a": 1}}}'
    )


def test_an_id_that_looks_like_a_result_member_is_encoded_normally() -> None:
    request_id = {"structuredContent": None, "result": [1]}
    response = _tool_response(request_id, {"k": "v"}, is_error=False)

    decoded = json.loads(encoding.encode_message(response, ensure_ascii=False))

    assert decoded["id"] == request_id
    assert decoded["result"]["structuredContent"] == {"k": "v"}


@pytest.mark.parametrize(
    "message",
    [
        {"result": {"structuredContent": EncodedObject({"a": 1}, '{"a":1}')}},
        {"jsonrpc": "2.0", "id": 1, "result": {1: EncodedObject({"a": 1}, '{"a":1}')}},
        {"result": {"x": EncodedObject({}, "{}")}, "jsonrpc": "2.0"},
    ],
)
def test_shapes_other_than_an_envelope_ending_in_result_are_encoded_plainly(
    message: dict[Any, Any],
) -> None:
    assert encoding.encode_message(message, ensure_ascii=False) == _plain(message, False)


def test_an_unencodable_id_still_raises_for_the_caller_to_map() -> None:
    response = _tool_response(float("nan"), {"k": 1}, is_error=False)

    with pytest.raises(ValueError):
        encoding.encode_message(response, ensure_ascii=False)


@settings(max_examples=200, deadline=None)
@given(request_id=JSON_VALUES, payload=OBJECTS, is_error=st.booleans(), ensure_ascii=st.booleans())
def test_a_tool_response_is_byte_for_byte_what_plain_encoding_writes(
    request_id: Any, payload: dict[str, Any], is_error: bool, ensure_ascii: bool
) -> None:
    response = _tool_response(request_id, payload, is_error=is_error)

    spliced = encoding.encode_message(response, ensure_ascii=ensure_ascii)

    assert spliced == _plain(response, ensure_ascii)


def test_non_ascii_in_an_encoded_member_is_still_written_as_raw_utf8() -> None:
    payload = {"title": "caf\u00e9 \u2028", "n": 1}
    response = _tool_response(5, payload, is_error=False)

    text = encoding.encode_message(response, ensure_ascii=False)

    assert text == _plain(response, False)
    assert '"structuredContent":{"title":"caf\u00e9 \u2028","n":1}' in text
