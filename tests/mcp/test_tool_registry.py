"""The Tool registry: validation, duplicate names, order and defensive copies."""

from __future__ import annotations

import dataclasses
import types
from typing import Any

import pytest
from starlette.testclient import TestClient

from mymcp.app import create_app
from mymcp.mcp.tool_registry import ToolRegistration, ToolRegistry
from tests.synthetic_host import BASE_URL, tool_definition


def answer(arguments: dict[str, Any]) -> Any:
    return {"content": [], "arguments": arguments}


def registration(name: str, schema: dict[str, Any] | None = None) -> ToolRegistration:
    return ToolRegistration(tool_definition(name, schema), answer)


@pytest.mark.parametrize(
    "item",
    [
        {"name": "x", "description": "d", "inputSchema": {}},
        ("tool", answer),
        None,
        ToolRegistration(tool_definition("x"), "not callable"),  # type: ignore[arg-type]
        ToolRegistration(tool_definition("x"), None),  # type: ignore[arg-type]
        ToolRegistration(["name", "x"], answer),  # type: ignore[arg-type]
        ToolRegistration(None, answer),  # type: ignore[arg-type]
        ToolRegistration({"description": "d", "inputSchema": {}}, answer),
        ToolRegistration({"name": "", "inputSchema": {}}, answer),
        ToolRegistration({"name": 5, "inputSchema": {}}, answer),
        ToolRegistration({"name": None, "inputSchema": {}}, answer),
        ToolRegistration({"name": "x"}, answer),
        ToolRegistration({"name": "x", "inputSchema": None}, answer),
        ToolRegistration({"name": "x", "inputSchema": []}, answer),
        ToolRegistration({"name": "x", "inputSchema": "object"}, answer),
    ],
)
def test_invalid_registration_is_refused(item: Any) -> None:
    with pytest.raises(ValueError, match=r"^invalid tool registration$"):
        ToolRegistry([registration("fine"), item])


def test_a_repeated_name_is_refused_with_the_name() -> None:
    with pytest.raises(ValueError, match=r"^duplicate tool registration: echo$"):
        ToolRegistry([registration("echo"), registration("other"), registration("echo")])


def test_registration_is_a_frozen_pair() -> None:
    item = registration("echo")

    with pytest.raises(dataclasses.FrozenInstanceError):
        item.handler = answer  # type: ignore[misc]
    assert item.tool["name"] == "echo"
    assert item.handler is answer


def test_order_is_kept_and_definitions_are_published_as_registered() -> None:
    definitions: list[dict[str, Any]] = [
        {"name": "b", "description": "B", "inputSchema": {"type": "object"}, "extra": [1]},
        {"inputSchema": {}, "name": "a"},
        {"name": "c", "inputSchema": {"type": "object", "properties": {"x": {"const": 1}}}},
    ]

    registry = ToolRegistry(ToolRegistration(d, answer) for d in definitions)

    assert registry.tools == definitions
    assert [list(tool) for tool in registry.tools] == [list(d) for d in definitions]
    assert [tool["name"] for tool in registry.tools] == ["b", "a", "c"]


def test_an_empty_registry_is_allowed() -> None:
    registry = ToolRegistry([])

    assert registry.tools == []
    assert registry.call_tool("anything", {}) is None


def test_definitions_are_copied_when_registered() -> None:
    definition = tool_definition(
        "echo", {"type": "object", "properties": {"n": {"type": "integer"}}}
    )
    registry = ToolRegistry([ToolRegistration(definition, answer)])

    definition["name"] = "renamed"
    definition["inputSchema"]["properties"]["n"]["type"] = "string"

    assert [tool["name"] for tool in registry.tools] == ["echo"]
    assert registry.tools[0]["inputSchema"]["properties"]["n"]["type"] == "integer"
    assert registry.call_tool("echo", {"n": "2"}) == {"content": [], "arguments": {"n": 2}}


def test_tools_is_a_fresh_deep_copy_on_every_access() -> None:
    registry = ToolRegistry([registration("echo", {"type": "object", "properties": {}})])

    first = registry.tools
    first[0]["name"] = "changed"
    first[0]["inputSchema"]["properties"]["x"] = {"type": "string"}
    first.append({"name": "intruder"})

    assert registry.tools == [tool_definition("echo", {"type": "object", "properties": {}})]
    assert registry.tools is not registry.tools
    assert registry.tools[0] is not registry.tools[0]


def test_a_schema_read_from_the_registry_changes_nothing_it_serves() -> None:
    registry = ToolRegistry([registration("echo", {"type": "object", "properties": {}})])

    schema = registry.tools[0]["inputSchema"]
    schema["properties"]["x"] = {"type": "integer"}

    assert registry.tools[0]["inputSchema"] == {"type": "object", "properties": {}}
    assert registry.call_tool("echo", {"x": "1"}) == {"content": [], "arguments": {"x": "1"}}


def test_the_registry_serves_exactly_its_registrations() -> None:
    registry = ToolRegistry([registration("echo")])

    assert "echo" in registry and "other" not in registry and 5 not in registry
    assert registry.call_tool("other", {}) is None
    assert registry.call_tool("echo", {}) == {"content": [], "arguments": {}}


def test_call_tool_normalizes_then_calls_the_handler() -> None:
    received: list[dict[str, Any]] = []

    def handler(arguments: dict[str, Any]) -> Any:
        received.append(arguments)
        return "whatever the handler returns"

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    registry = ToolRegistry([ToolRegistration(tool_definition("echo", schema), handler)])
    arguments = {"n": "2", "s": "3"}

    answer: object = registry.call_tool("echo", arguments)
    assert answer == "whatever the handler returns"
    assert received == [{"n": 2, "s": "3"}]
    assert arguments == {"n": "2", "s": "3"}


@pytest.mark.parametrize("name", ["missing", "", None, 5, ["echo"]])
def test_call_tool_answers_none_for_an_unknown_tool(name: Any) -> None:
    called: list[Any] = []
    registry = ToolRegistry([ToolRegistration(tool_definition("echo"), _any(called.append))])

    assert registry.call_tool(name, {}) is None
    assert called == []


def test_two_apps_from_two_runtimes_share_nothing() -> None:
    first = types.SimpleNamespace(registry=ToolRegistry([registration("first")]))
    second = types.SimpleNamespace(registry=ToolRegistry([registration("second")]))

    with (
        TestClient(create_app(first), base_url=BASE_URL) as one,
        TestClient(create_app(second), base_url=BASE_URL) as two,
    ):
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        names_one = [
            tool["name"] for tool in one.post("/mcp", json=message).json()["result"]["tools"]
        ]
        names_two = [
            tool["name"] for tool in two.post("/mcp", json=message).json()["result"]["tools"]
        ]

    assert names_one == ["first"]
    assert names_two == ["second"]


def test_create_app_refuses_a_runtime_without_a_registry() -> None:
    with pytest.raises(ValueError, match=r"^invalid MCP runtime$"):
        create_app(types.SimpleNamespace(registry={"tools": []}))


def _any(handler: object) -> Any:
    """A handler of the wrong type, for the tests that call one."""
    return handler
