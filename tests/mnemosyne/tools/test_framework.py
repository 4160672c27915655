"""``tool_result``: every Mnemosyne Tool answers its payload as structured content; the host
adds the text item (``tests/mcp/test_encoding.py``). A Tool reads its arguments before it
looks for the memory root."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mymcp.mcp import encoding, jsonrpc
from mymcp.plugins.mnemosyne.tools.framework import tool_result
from tests.helpers import CANONICAL_ID, McpClient


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


_REFERENCE = {
    "schema_version": 2,
    "scope": "project",
    "namespace_id": "mnemosyne",
    "collection_id": "decisions",
    "id": CANONICAL_ID,
}
_LEGACY_REFERENCE = {"schema_version": 1, "scope": "project", "id": "old-note"}


@pytest.mark.parametrize(
    ("tool", "refused", "accepted"),
    [
        (
            "memory_inspect",
            [
                {"reference": {**_REFERENCE, "id": "bad"}},
                {"reference": {**_LEGACY_REFERENCE, "scope": "nope"}},
            ],
            {"reference": _REFERENCE},
        ),
        (
            "memory_recall",
            [
                {"query": "", "scope": "project"},
                {"query": "zebra", "scope": "nope"},
                {"query": "zebra", "scope": "project", "tags": []},
            ],
            {"query": "zebra", "scope": "project"},
        ),
    ],
    ids=["inspect", "recall"],
)
def test_a_tool_resolves_the_root_only_for_a_valid_request(
    client: McpClient,
    memory_root: Path,
    root_resolutions: list[Path],
    tool: str,
    refused: list[dict[str, Any]],
    accepted: dict[str, Any],
) -> None:
    for arguments in refused:
        client.call(tool, arguments)
    assert root_resolutions == []
    client.call(tool, accepted)
    assert root_resolutions == [memory_root]
