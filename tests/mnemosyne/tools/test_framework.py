"""``tool_result``: every Mnemosyne Tool answers its payload as structured content; the host
adds the text item (``tests/mcp/test_encoding.py``)."""

from __future__ import annotations

import json

from mymcp.mcp import encoding, jsonrpc
from mymcp.plugins.mnemosyne.tools.framework import tool_result


def test_a_result_is_the_payload_as_structured_content() -> None:
    payload = {"status": "ok", "title": "caf\u00e9", "tags": ["a"]}

    assert tool_result(payload, is_error=False) == {"structuredContent": payload}
    assert tool_result(payload, is_error=True) == {"structuredContent": payload, "isError": True}


def test_results_decode_to_the_payload_for_a_client_of_either_kind() -> None:
    payload = {"status": "ok", "memories": [{"title": "\u2028\U0001f600"}]}

    for structured in (True, False):
        sent = encoding.tool_result(tool_result(payload, is_error=False), structured=structured)
        wire = json.loads(encoding.encode(jsonrpc.result(2, sent)))
        assert json.loads(wire["result"]["content"][0]["text"]) == payload
        assert wire["result"].get("structuredContent", payload) == payload
        assert ("structuredContent" in wire["result"]) is structured
