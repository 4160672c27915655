"""Two synthetic plugins composed into one runtime and served over POST /mcp."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from mymcp.app import create_app
from mymcp.host import HostRuntime, build_host_runtime
from mymcp.mcp import list_tools
from mymcp.plugin_api import (
    ActivatedTool,
    ConsentRequirement,
    PluginContribution,
    PluginId,
    PluginVersion,
    PublicToolBinding,
)
from tests.plugin_api.samples import READ, WRITE, capability, tool_definition


def _tool(local_id: str, plugin: str, reply: str, effects: Any = READ) -> ActivatedTool:
    def handler(arguments: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": f"{reply}:{arguments.get('q')}"}]}

    consent = ConsentRequirement.NONE if effects is READ else ConsentRequirement.PER_CALL
    return ActivatedTool(
        capability(local_id, plugin), tool_definition(local_id), handler, effects, consent
    )


def _runtime(bindings: list[tuple[str, str, str]] | None = None) -> HostRuntime:
    alpha = PluginContribution(
        PluginId("alpha"),
        PluginVersion("1.0.0"),
        (_tool("search", "alpha", "alpha-search"), _tool("store", "alpha", "alpha-store", WRITE)),
    )
    beta = PluginContribution(
        PluginId("beta"), PluginVersion("2.0.0"), (_tool("fetch", "beta", "beta-fetch"),)
    )
    names = bindings or [
        ("beta", "fetch", "beta_fetch"),
        ("alpha", "search", "alpha_search"),
        ("alpha", "store", "alpha_store"),
    ]
    return build_host_runtime(
        [alpha, beta],
        [PublicToolBinding(capability(local, plugin), public) for plugin, local, public in names],
        list_tools.registration,
    )


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(_runtime()), base_url="http://127.0.0.1:8000")


def _rpc(client: TestClient, method: str, params: dict[str, Any] | None = None) -> Any:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        body["params"] = params
    return client.post("/mcp", json=body).json()


def test_tools_are_listed_in_contribution_order_behind_list_tools(client: TestClient) -> None:
    tools = _rpc(client, "tools/list")["result"]["tools"]
    assert [tool["name"] for tool in tools] == [
        "list_tools",
        "alpha_search",
        "alpha_store",
        "beta_fetch",
    ]
    assert tools[2]["annotations"]["readOnlyHint"] is False


def test_list_tools_reports_the_whole_surface(client: TestClient) -> None:
    result = _rpc(client, "tools/call", {"name": "list_tools"})["result"]
    assert result["content"][0]["text"] == (
        "Server: mymcp 0.2.0. Available tools: list_tools, alpha_search, alpha_store, beta_fetch"
    )


@pytest.mark.parametrize(
    ("name", "answer"),
    [
        ("alpha_search", "alpha-search:x"),
        ("alpha_store", "alpha-store:x"),
        ("beta_fetch", "beta-fetch:x"),
    ],
)
def test_each_plugin_tool_is_dispatched_to_its_own_handler(
    client: TestClient, name: str, answer: str
) -> None:
    result = _rpc(client, "tools/call", {"name": name, "arguments": {"q": "x"}})["result"]
    assert result["content"][0]["text"] == answer


def test_capability_ids_are_not_public_names(client: TestClient) -> None:
    reply = _rpc(client, "tools/call", {"name": "search", "arguments": {}})
    assert reply["error"] == {"code": -32602, "message": "Unknown tool: search"}


@pytest.mark.parametrize(
    ("bindings", "message"),
    [
        (
            [("alpha", "search", "same"), ("alpha", "store", "same"), ("beta", "fetch", "f")],
            "duplicate public tool name",
        ),
        (
            [("alpha", "search", "list_tools"), ("alpha", "store", "s"), ("beta", "fetch", "f")],
            "reserved public tool name",
        ),
        ([("alpha", "search", "a"), ("beta", "fetch", "f")], "missing capability binding"),
    ],
)
def test_colliding_compositions_build_no_runtime(
    bindings: list[tuple[str, str, str]], message: str
) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        _runtime(bindings)
