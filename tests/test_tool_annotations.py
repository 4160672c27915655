"""Tool definitions carry a title and behaviour hints; Tool results carry structured content.

The hints of every Mnemosyne Tool must equal the effect metadata ``manifest.json`` declares
for it; ``list_tools`` is the host's own read-only Tool.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import McpClient
from tests.surface import TOOL_ORDER

MANIFEST_PATH = Path(__file__).resolve().parents[1] / "mymcp/plugins/mnemosyne/manifest.json"
HINTS = {
    "readOnlyHint": "read_only",
    "destructiveHint": "destructive",
    "idempotentHint": "idempotent",
    "openWorldHint": "open_world",
}
LIST_TOOLS_HINTS = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}
MEMORY_TOOLS = list(TOOL_ORDER)


def _manifest_hints() -> dict[str, dict[str, bool]]:
    manifest = json.loads(MANIFEST_PATH.read_text(encoding="utf-8"))
    return {
        capability["id"]: {hint: capability[key] for hint, key in HINTS.items()}
        for capability in manifest["capabilities"]
    }


@pytest.fixture
def client(mcp: Callable[..., McpClient]) -> McpClient:
    return mcp(remember=True, revise=True, archive_restore=True, forget=True)


@pytest.fixture
def definitions(client: McpClient) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in client.rpc("tools/list")["result"]["tools"]}


def test_every_listed_tool_has_a_title(definitions: dict[str, dict[str, Any]]) -> None:
    assert list(definitions) == ["list_tools", *MEMORY_TOOLS]
    for name, definition in definitions.items():
        assert isinstance(definition.get("title"), str) and definition["title"].strip(), name


@pytest.mark.parametrize("name", MEMORY_TOOLS)
def test_memory_tool_hints_equal_the_manifest_effects(
    definitions: dict[str, dict[str, Any]], name: str
) -> None:
    assert definitions[name]["annotations"] == _manifest_hints()[name]


def test_list_tools_is_read_only_idempotent_and_closed_world(
    definitions: dict[str, dict[str, Any]],
) -> None:
    assert definitions["list_tools"]["annotations"] == LIST_TOOLS_HINTS


def test_hints_follow_the_gates(mcp: Callable[..., McpClient]) -> None:
    definitions = mcp(forget=True).rpc("tools/list")["result"]["tools"]
    assert [tool["name"] for tool in definitions][-1] == "memory_forget"
    forget = definitions[-1]["annotations"]
    assert forget == _manifest_hints()["memory_forget"]
    assert forget["destructiveHint"] is True and forget["readOnlyHint"] is False


def _structured(client: McpClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call ``tool``; assert structuredContent mirrors the text; return the payload."""
    result = client.rpc("tools/call", {"name": tool, "arguments": arguments})["result"]
    assert [item["type"] for item in result["content"]] == ["text"]
    payload: dict[str, Any] = json.loads(result["content"][0]["text"])
    assert result["structuredContent"] == payload, tool
    assert ("isError" in result) == (result.get("isError") is True)
    return payload


@pytest.mark.parametrize("name", MEMORY_TOOLS)
def test_error_results_carry_structured_content(client: McpClient, name: str) -> None:
    result = client.rpc("tools/call", {"name": name, "arguments": {"unexpected": 1}})["result"]
    assert result["isError"] is True
    payload = json.loads(result["content"][0]["text"])
    assert result["structuredContent"] == payload
    assert payload["status"] == "invalid_request"


def test_success_results_carry_structured_content_through_a_whole_lifecycle(
    client: McpClient,
) -> None:
    remembered = _structured(
        client,
        "memory_remember",
        {
            "scope": "project",
            "namespace": {"kind": "project", "id": "mnemosyne", "label": None},
            "collection": None,
            "kind": "decision",
            "language": "en",
            "title": "Release cadence",
            "content": "Ship a release every second Tuesday.",
            "tags": ["release"],
            "origin": "explicit_user_statement",
        },
    )
    assert remembered["status"] == "remembered"
    reference = {"schema_version": 2, **remembered["reference"]}

    recalled = _structured(
        client, "memory_recall", {"query": "release cadence", "scope": "project"}
    )
    assert recalled["memories"][0]["reference"] == reference
    listed = _structured(client, "memory_list", {"scope": "project"})
    assert [item["reference"] for item in listed["memories"]] == [reference]
    inspected = _structured(client, "memory_inspect", {"reference": reference})
    assert inspected["status"] == "ok"

    revised = _structured(
        client,
        "memory_revise",
        {
            "reference": reference,
            "expected_revision": 1,
            "namespace_label": None,
            "title": "Release cadence",
            "content": "Ship a release every second Wednesday.",
            "tags": ["release"],
        },
    )
    assert (revised["status"], revised["lifecycle"]["revision"]) == ("revised", 2)
    steps = [("memory_archive", 2, "archived"), ("memory_restore", 3, "restored")]
    steps += [("memory_archive", 4, "archived"), ("memory_forget", 5, "forgotten")]
    for tool, revision, status in steps:
        answer = _structured(client, tool, {"reference": reference, "expected_revision": revision})
        assert answer["status"] == status, (tool, answer)

    assert _structured(client, "memory_recall", {"query": "release", "scope": "project"}) == {
        "status": "no_matches",
        "memories": [],
    }


def test_list_tools_result_is_plain_text(client: McpClient) -> None:
    result = client.rpc("tools/call", {"name": "list_tools", "arguments": {}})["result"]
    assert result["content"][0]["text"].startswith("Server: mymcp 0.2.0. Available tools: ")
    assert "isError" not in result


@pytest.mark.parametrize("version", [None, "2024-11-05", "2025-03-26"])
def test_clients_before_2025_06_18_get_the_original_result_shape(
    mcp: Callable[..., McpClient], version: str | None
) -> None:
    client = mcp()
    client.protocol_version = version
    reply = client.call("memory_recall", {"query": "nothing here", "scope": "project"})
    assert reply.raw == {
        "content": [{"type": "text", "text": '{"status":"no_matches","memories":[]}'}]
    }
    failed = client.call("memory_recall", {"query": "", "scope": "project"})
    assert set(failed.raw) == {"content", "isError"}
