"""``tool_result``: the text item and the structured payload of every Mnemosyne Tool result."""

from __future__ import annotations

import json

import pytest

from mymcp.mcp import encoding, jsonrpc
from mymcp.plugins.mnemosyne.tools.framework import tool_result


def test_the_text_item_is_the_compact_ascii_json_of_the_payload() -> None:
    payload = {"status": "ok", "title": "caf\u00e9", "tags": ["a"]}

    result = tool_result(payload, is_error=False)

    assert result["content"] == [
        {"type": "text", "text": '{"status":"ok","title":"caf\\u00e9","tags":["a"]}'}
    ]
    assert result["structuredContent"] == payload
    assert "isError" not in result


def test_the_structured_payload_is_sent_as_the_same_text() -> None:
    result = tool_result({"status": "refused", "code": "x"}, is_error=True)

    wire = encoding.encode_message(jsonrpc.result(1, result), ensure_ascii=False)

    assert wire == (
        '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text",'
        '"text":"{\\"status\\":\\"refused\\",\\"code\\":\\"x\\"}"}],'
        '"structuredContent":{"status":"refused","code":"x"},"isError":true}}'
    )


@pytest.mark.parametrize("number", [float("nan"), float("inf"), float("-inf")])
def test_a_payload_json_cannot_represent_is_refused_not_sent(number: float) -> None:
    # The dispatcher turns the exception into -32603; invalid JSON never reaches a client.
    with pytest.raises(ValueError):
        tool_result({"status": "ok", "value": number}, is_error=False)


def test_results_decode_to_the_payload_for_a_client_of_either_kind() -> None:
    payload = {"status": "ok", "memories": [{"title": "\u2028\U0001f600"}]}
    result = tool_result(payload, is_error=False)

    wire = json.loads(encoding.encode_message(jsonrpc.result(2, result), ensure_ascii=False))

    assert json.loads(wire["result"]["content"][0]["text"]) == payload
    assert wire["result"]["structuredContent"] == payload
