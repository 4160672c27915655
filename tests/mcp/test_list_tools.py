"""The host-owned ``list_tools`` Tool: definition, fixed text line and ordering."""

from __future__ import annotations

import types
from typing import Any

import pytest
from starlette.testclient import TestClient

from mymcp.app import create_app
from mymcp.mcp import list_tools
from mymcp.mcp.tool_registry import ToolRegistration, ToolRegistry
from tests.synthetic_host import BASE_URL, SyntheticHost, tool_definition

CONTRACT_DEFINITION = {
    "name": "list_tools",
    "description": "Returns the list of tools exposed by this MCP server.",
    "inputSchema": {"type": "object", "properties": {}},
}


def client_for(*names: str) -> TestClient:
    definitions = [tool_definition(name) for name in names]
    registrations = [ToolRegistration(d, lambda arguments: {"content": []}) for d in definitions]
    registry = ToolRegistry([list_tools.registration(definitions), *registrations])
    return TestClient(create_app(types.SimpleNamespace(registry=registry)), base_url=BASE_URL)


def call_list_tools(client: TestClient, params: dict[str, Any]) -> Any:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    response = client.post("/mcp", json=message)
    assert response.status_code == 200
    return response.json()["result"]


def test_definition_keeps_the_contract_name_description_and_schema() -> None:
    definition = list_tools.DEFINITION

    assert {key: definition[key] for key in CONTRACT_DEFINITION} == CONTRACT_DEFINITION
    assert list(definition)[0] == "name"


def test_annotations_if_published_describe_a_read_only_tool() -> None:
    annotations = list_tools.DEFINITION.get("annotations")

    if annotations is not None:
        assert annotations["readOnlyHint"] is True
        assert annotations["destructiveHint"] is False
        assert annotations["openWorldHint"] is False


def test_list_tools_is_published_first_exactly_as_defined(host: SyntheticHost) -> None:
    response = host.rpc({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})

    assert response["result"]["tools"][0] == list_tools.DEFINITION


def test_text_names_every_tool_in_tools_list_order(host: SyntheticHost) -> None:
    tools = host.rpc({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})["result"]["tools"]
    names = ", ".join(tool["name"] for tool in tools)

    result = host.call("list_tools", {})["result"]

    assert result == {
        "content": [{"type": "text", "text": f"Server: mymcp 0.2.0. Available tools: {names}"}]
    }
    assert names.startswith("list_tools, echo, verbatim")


def test_without_plugin_tools_only_list_tools_is_named() -> None:
    with client_for() as client:
        result = call_list_tools(client, {"name": "list_tools"})

    assert result == {
        "content": [{"type": "text", "text": "Server: mymcp 0.2.0. Available tools: list_tools"}]
    }


def test_text_has_no_trailing_period_and_no_error_flag() -> None:
    with client_for("memory_recall", "memory_list", "memory_inspect") as client:
        result = call_list_tools(client, {"name": "list_tools", "arguments": {}})

    text = result["content"][0]["text"]
    assert text == (
        "Server: mymcp 0.2.0. Available tools: "
        "list_tools, memory_recall, memory_list, memory_inspect"
    )
    assert not text.endswith(".")
    assert "isError" not in result
    assert len(result["content"]) == 1


@pytest.mark.parametrize(
    "params",
    [
        {"name": "list_tools"},
        {"name": "list_tools", "arguments": {}},
        {"name": "list_tools", "arguments": {"unknown": [1, {"x": None}], "verbose": "true"}},
    ],
)
def test_arguments_are_ignored(params: dict[str, Any]) -> None:
    with client_for("alpha", "beta") as client:
        result = call_list_tools(client, params)

    assert (
        result["content"][0]["text"]
        == "Server: mymcp 0.2.0. Available tools: list_tools, alpha, beta"
    )


def test_the_text_is_fixed_when_the_registration_is_built() -> None:
    definitions = [tool_definition("alpha")]
    registration = list_tools.registration(definitions)

    definitions.append(tool_definition("late"))
    definitions[0]["name"] = "renamed"

    assert registration.handler({})["content"][0]["text"].endswith(
        "Available tools: list_tools, alpha"
    )


def test_summary_joins_names_with_comma_and_space() -> None:
    assert list_tools.summary(["list_tools", "a", "b"]) == (
        "Server: mymcp 0.2.0. Available tools: list_tools, a, b"
    )
