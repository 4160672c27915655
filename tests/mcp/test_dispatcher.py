"""JSON-RPC dispatch through ``POST /mcp``: the decision table, tools/call and the fixed crashes."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from starlette.testclient import TestClient

from mymcp import settings
from mymcp.app import create_app
from mymcp.mcp.dispatcher import MCPDispatcher
from mymcp.mcp.tool_registry import ToolRegistry
from tests.synthetic_host import (
    BASE_URL,
    INSTRUCTIONS,
    MARKER,
    VERBATIM_RESULT,
    SyntheticHost,
    exact_json,
)

INVALID_REQUEST = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}'
PARSE_ERROR = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'
ORIGINAL_INITIALIZE = {
    "protocolVersion": "2024-11-05",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "mymcp", "version": "0.2.0"},
}
JSON_IDS = [
    "abc",
    "",
    "caf\u00e9 \u2713",
    0,
    -7,
    123456789012345678901234567890,
    1.5,
    -0.25,
    True,
    False,
    None,
    {"nested": [1, {"x": None}]},
    [1, "two", None],
    [],
    {},
]
NON_OBJECT_PARAMS = [[], ["x"], "params", None, 5, 1.5, True]
NON_OBJECT_ARGUMENTS = [[], [{"count": 1}], "{}", None, 5, False]


def error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def result(request_id: Any, payload: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": payload}


# --- row 1: the envelope must be an object -------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "[]",
        "null",
        "5",
        '"ping"',
        "true",
        '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
        '[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}]',
    ],
)
def test_non_object_envelope_is_invalid_request_with_null_id(
    host: SyntheticHost, body: str
) -> None:
    response = host.post(body)

    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.content == INVALID_REQUEST
    assert host.calls.received == []


# --- row 2: notifications ------------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "echo", "arguments": {}}},
        {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "explode"}},
        {"method": "x", "params": []},
        {"method": 5, "params": "not an object"},
        {"method": ["a"], "params": None},
        {"params": {"name": "echo"}},
        {},
    ],
)
def test_notification_gets_202_with_empty_body_and_runs_nothing(
    host: SyntheticHost, message: dict[str, Any]
) -> None:
    response = host.send(message)

    assert response.status_code == 202
    assert response.content == b""
    assert response.headers["content-length"] == "0"
    assert "content-type" not in response.headers
    assert host.calls.received == []


def test_null_id_is_a_request_not_a_notification(host: SyntheticHost) -> None:
    assert host.rpc({"jsonrpc": "2.0", "id": None, "method": "ping"}) == result(None, {})

    reply = host.call("echo", {"label": "x"}, request_id=None)

    assert reply["id"] is None
    assert host.calls.names() == ["echo"]


# --- row 3: params must be an object -------------------------------------------------------


@pytest.mark.parametrize("params", NON_OBJECT_PARAMS)
@pytest.mark.parametrize("method", ["initialize", "ping", "tools/list", "tools/call", "nope"])
def test_params_that_are_not_an_object_are_invalid_params(
    host: SyntheticHost, method: str, params: Any
) -> None:
    reply = host.rpc({"jsonrpc": "2.0", "id": "keep-me", "method": method, "params": params})

    assert reply == error("keep-me", -32602, "Invalid params")
    assert host.calls.received == []


def test_missing_params_means_an_empty_object(host: SyntheticHost) -> None:
    assert host.rpc({"jsonrpc": "2.0", "id": 1, "method": "initialize"}) == result(
        1, ORIGINAL_INITIALIZE
    )
    assert host.rpc({"jsonrpc": "2.0", "id": 2, "method": "tools/call"}) == error(
        2, -32602, "Unknown tool: None"
    )


# --- row 4: initialize ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [None, {}, {"protocolVersion": "2024-11-05"}, {"capabilities": {}, "clientInfo": {"n": "x"}}],
)
def test_initialize_answers_like_the_original(host: SyntheticHost, params: Any) -> None:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
    if params is not None:
        message["params"] = params

    response = host.send(message)

    assert response.status_code == 200
    assert response.content == exact_json(result(1, ORIGINAL_INITIALIZE))


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_initialize_echoes_every_supported_protocol_version(
    host: SyntheticHost, version: str
) -> None:
    reply = host.rpc(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": version}}
    )

    # Issue 12: revisions from 2025-03-26 on also get the usage note, after serverInfo.
    expected = {**ORIGINAL_INITIALIZE, "protocolVersion": version}
    if version != "2024-11-05":
        expected["instructions"] = INSTRUCTIONS
    assert reply == result(1, expected)
    assert list(reply["result"]) == list(expected)


@pytest.mark.parametrize("requested", ["2025-03-26", "2025-11-25", "2099-01-01"])
def test_newer_clients_get_instructions_within_1000_characters(
    host: SyntheticHost, requested: str
) -> None:
    params = {"protocolVersion": requested}
    reply = host.rpc({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})

    instructions = reply["result"]["instructions"]
    assert instructions == INSTRUCTIONS
    assert 0 < len(instructions) <= 1000


def test_a_runtime_without_a_usage_note_answers_without_instructions() -> None:
    class Runtime:
        registry = ToolRegistry([])

    params = {"protocolVersion": "2025-11-25"}
    with TestClient(create_app(Runtime()), base_url=BASE_URL) as client:
        hello = client.post("/mcp", json={"id": 1, "method": "initialize", "params": params})

    assert "instructions" not in hello.json()["result"]


@pytest.mark.parametrize("requested", ["1999-01-01", "2026-07-28", "", "latest", 5, ["2025-06-18"]])
def test_initialize_offers_the_newest_version_for_an_unknown_one(
    host: SyntheticHost, requested: Any
) -> None:
    reply = host.rpc(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": requested},
        }
    )

    assert reply["result"]["protocolVersion"] == "2025-11-25"
    assert reply["result"]["protocolVersion"] == settings.SUPPORTED_PROTOCOL_VERSIONS[-1]


def test_supported_versions_are_the_four_known_revisions_oldest_first() -> None:
    assert settings.SUPPORTED_PROTOCOL_VERSIONS == (
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
    )
    assert settings.PROTOCOL_VERSION == "2024-11-05"


# --- row 5: ping and an id-bearing notifications/initialized -------------------------------


@pytest.mark.parametrize("method", ["ping", "notifications/initialized"])
@pytest.mark.parametrize("params", [None, {}, {"anything": [1, 2]}])
def test_ping_and_initialized_with_an_id_answer_an_empty_object(
    host: SyntheticHost, method: str, params: Any
) -> None:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 9, "method": method}
    if params is not None:
        message["params"] = params

    response = host.send(message)

    assert response.content == b'{"jsonrpc":"2.0","id":9,"result":{}}'


# --- row 6: tools/list ---------------------------------------------------------------------


def test_tools_list_publishes_the_registered_definitions_in_order(host: SyntheticHost) -> None:
    reply = host.rpc({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})

    tools = reply["result"]["tools"]
    assert list(reply["result"]) == ["tools"]
    assert [tool["name"] for tool in tools] == [
        "list_tools",
        *(d["name"] for d in host.definitions),
    ]
    assert tools[1:] == host.definitions


def test_tools_list_ignores_params_and_never_pages(host: SyntheticHost) -> None:
    plain = host.rpc({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    paged = host.rpc(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": "abc", "x": 1}}
    )

    assert paged == plain
    assert "nextCursor" not in paged["result"]


def test_tools_list_and_call_work_without_initialize(host: SyntheticHost) -> None:
    assert host.rpc({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})["result"]["tools"]
    assert "result" in host.call("echo", {})


# --- row 7: tools/call ---------------------------------------------------------------------


def test_tools_call_defaults_absent_arguments_to_an_empty_object(host: SyntheticHost) -> None:
    reply = host.call("echo")

    assert reply == result(1, {"content": [], "received": {}})
    assert host.calls.received == [("echo", {})]


@pytest.mark.parametrize("arguments", NON_OBJECT_ARGUMENTS)
@pytest.mark.parametrize("name", ["echo", "no_such_tool", None, ["echo"]])
def test_tools_call_rejects_non_object_arguments_before_lookup(
    host: SyntheticHost, name: Any, arguments: Any
) -> None:
    message = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }

    assert host.rpc(message) == error(4, -32602, "Invalid params")
    assert host.calls.received == []


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"name": "no_such_tool"}, "Unknown tool: no_such_tool"),
        ({"name": "ECHO"}, "Unknown tool: ECHO"),
        ({"name": ""}, "Unknown tool: "),
        ({}, "Unknown tool: None"),
        ({"name": None}, "Unknown tool: None"),
        ({"name": 5}, "Unknown tool: 5"),
        ({"name": True}, "Unknown tool: True"),
        ({"name": 2.5}, "Unknown tool: 2.5"),
        ({"arguments": {"count": 1}}, "Unknown tool: None"),
    ],
)
def test_tools_call_names_the_unknown_tool(
    host: SyntheticHost, params: dict[str, Any], message: str
) -> None:
    reply = host.rpc({"jsonrpc": "2.0", "id": "u", "method": "tools/call", "params": params})

    assert reply == error("u", -32602, message)
    assert host.calls.received == []


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_tools_call_returns_the_handler_result_verbatim(host: SyntheticHost, version: str) -> None:
    response = host.send(
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "verbatim"}},
        headers={"MCP-Protocol-Version": version},
    )

    assert response.status_code == 200
    assert response.content == exact_json(result(3, VERBATIM_RESULT))
    assert "isError" not in response.json()["result"]


@pytest.mark.parametrize(
    "headers", [{}, {"MCP-Protocol-Version": "2024-11-05"}, {"MCP-Protocol-Version": "2025-03-26"}]
)
def test_clients_before_structured_results_get_no_structured_content(
    host: SyntheticHost, headers: dict[str, str]
) -> None:
    response = host.send(
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "verbatim"}},
        headers=headers,
    )

    expected = {key: value for key, value in VERBATIM_RESULT.items() if key != "structuredContent"}
    assert response.content == exact_json(result(3, expected))


def test_a_tool_error_result_is_still_a_json_rpc_result(host: SyntheticHost) -> None:
    response = host.send(
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "tool_error"}}
    )

    assert response.status_code == 200
    assert response.json() == result(3, {"content": [], "isError": True})


def test_tools_call_normalizes_arguments_against_the_schema(host: SyntheticHost) -> None:
    reply = host.call("echo", {"count": "3", "label": "5", "tags": '["a","b"]', "other": "7"})

    assert reply["result"]["received"] == {
        "count": 3,
        "label": "5",
        "tags": ["a", "b"],
        "other": "7",
    }


# --- row 8: unknown methods ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "text"),
    [
        ({"method": "resources/list"}, "Unknown method: resources/list"),
        ({"method": "prompts/list"}, "Unknown method: prompts/list"),
        (
            {"method": "logging/setLevel", "params": {"level": "debug"}},
            "Unknown method: logging/setLevel",
        ),
        ({"method": "TOOLS/LIST"}, "Unknown method: TOOLS/LIST"),
        ({}, "Unknown method: None"),
        ({"method": None}, "Unknown method: None"),
        ({"method": 5}, "Unknown method: 5"),
        ({"method": True}, "Unknown method: True"),
        ({"method": -1.5}, "Unknown method: -1.5"),
    ],
)
def test_unknown_method_is_method_not_found(
    host: SyntheticHost, message: dict[str, Any], text: str
) -> None:
    reply = host.rpc({"jsonrpc": "2.0", "id": 11, **message})

    assert reply == error(11, -32601, text)


# --- ids, envelope leniency ----------------------------------------------------------------


@pytest.mark.parametrize("request_id", JSON_IDS)
def test_every_json_id_is_echoed_verbatim(host: SyntheticHost, request_id: Any) -> None:
    ok = host.send({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
    failed = host.send({"jsonrpc": "2.0", "id": request_id, "method": "nope"})

    assert ok.content == exact_json(result(request_id, {}))
    assert failed.json() == error(request_id, -32601, "Unknown method: nope")


def test_large_integer_id_keeps_every_digit(host: SyntheticHost) -> None:
    response = host.post('{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}')

    assert response.content == b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}'


def test_duplicate_keys_last_one_wins(host: SyntheticHost) -> None:
    response = host.post('{"id":1,"method":"ping","id":2}')
    renamed = host.post('{"id":1,"method":"nope","method":"ping"}')

    assert response.json() == result(2, {})
    assert renamed.json() == result(1, {})


@pytest.mark.parametrize("envelope", [{}, {"jsonrpc": "1.0"}, {"jsonrpc": 2}])
def test_jsonrpc_member_is_not_checked(host: SyntheticHost, envelope: dict[str, Any]) -> None:
    assert host.rpc({**envelope, "id": 1, "method": "ping"}) == result(1, {})


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", ""])
def test_content_type_is_ignored(host: SyntheticHost, content_type: str) -> None:
    response = host.post('{"id":1,"method":"ping"}', headers={"content-type": content_type})

    assert response.json() == result(1, {})


@pytest.mark.parametrize(
    "body",
    [
        b'\xef\xbb\xbf{"id":1,"method":"ping"}',
        '{"id":1,"method":"ping"}'.encode("utf-16"),
        '{"id":1,"method":"ping"}'.encode("utf-16-le"),
        '{"id":1,"method":"ping"}'.encode("utf-32"),
    ],
)
def test_utf8_bom_and_utf16_or_utf32_bodies_are_still_understood(
    host: SyntheticHost, body: bytes
) -> None:
    assert host.post(body).json() == result(1, {})


# --- D1, D2: unparsable bodies ---------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b"{",
        b"",
        b"   ",
        b'{"id":1,"method":"ping"} x',
        b'{"id":1,"method":"ping"}{"id":2}',
        b"\x80",
        b'{"id":"\xed\xa0\x80","method":"ping"}',
        b'{"id":"\xf4\x90\x80\x80","method":"ping"}',
        b'{"id":1,"method":"ping"}\xff',
        '{"id":"\ud800","method":"ping"}'.encode("utf-16", "surrogatepass"),
        b'{"id":1,"method":"caf\xe9"}',
        b'{"id":1,"method":"\xc3\x28"}',
        b"{'id':1}",
        b'{"id":1,"method":"ping",}',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    ],
    ids=lambda body: repr(body[:24]),
)
def test_unparsable_body_is_a_parse_error(host: SyntheticHost, body: bytes) -> None:
    response = host.post(body)

    assert response.status_code == 400
    assert response.headers["content-type"] == "application/json"
    assert response.content == PARSE_ERROR


@pytest.mark.parametrize(
    "body",
    [
        '{"id":NaN,"method":"ping"}',
        '{"id":Infinity,"method":"ping"}',
        '{"id":-Infinity,"method":"ping"}',
        '{"id":1e400,"method":"ping"}',
        '{"id":-1e400,"method":"ping"}',
        '{"id":1,"method":"tools/call","params":{"name":"echo","arguments":{"ratio":NaN}}}',
        '{"id":1,"method":"tools/call","params":{"name":"echo","arguments":{"ratio":1e999}}}',
        '{"method":"notifications/initialized","params":{"x":Infinity}}',
    ],
)
def test_non_finite_numbers_are_a_parse_error(host: SyntheticHost, body: str) -> None:
    response = host.post(body)

    assert response.status_code == 400
    assert response.content == PARSE_ERROR
    assert host.calls.received == []


def test_large_but_finite_numbers_are_accepted(host: SyntheticHost) -> None:
    response = host.post('{"id":1.7976931348623157e308,"method":"ping"}')

    assert response.status_code == 200
    assert response.json()["id"] == 1.7976931348623157e308


# --- D5: structured methods and tool names --------------------------------------------------


@pytest.mark.parametrize("method", [["ping"], [], {"name": "ping"}, {}])
def test_array_or_object_method_is_invalid_request(host: SyntheticHost, method: Any) -> None:
    reply = host.rpc({"jsonrpc": "2.0", "id": 8, "method": method})

    assert reply == error(8, -32600, "Invalid Request")


@pytest.mark.parametrize("name", [["echo"], [], {"name": "echo"}, {}])
def test_array_or_object_tool_name_is_invalid_params(host: SyntheticHost, name: Any) -> None:
    reply = host.call(name, {}, request_id=8)

    assert reply == error(8, -32602, "Invalid params")
    assert host.calls.received == []


# --- D3: failing handlers and unserializable results ----------------------------------------


INTERNAL_ERROR_FOR_5 = (
    b'{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Internal error"}}'
)


@pytest.mark.parametrize(
    "tool", ["explode", "unserializable", "not_finite", "infinite", "too_deep"]
)
def test_failing_handler_or_unserializable_result_is_internal_error(
    host: SyntheticHost, tool: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)

    response = host.send(
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": tool}}
    )

    assert response.status_code == 200
    assert response.content == INTERNAL_ERROR_FOR_5
    assert host.calls.names() == [tool]
    assert MARKER not in caplog.text
    assert all(record.exc_info is None for record in caplog.records)


def test_the_server_keeps_answering_after_an_internal_error(host: SyntheticHost) -> None:
    host.call("explode")
    host.call("unserializable")

    assert host.rpc({"jsonrpc": "2.0", "id": 2, "method": "ping"}) == result(2, {})


# --- the dispatcher's own checks -------------------------------------------------------------


@pytest.mark.parametrize(
    "runtime",
    [object(), None, type("R", (), {"registry": None})(), type("R", (), {"registry": []})()],
)
def test_dispatcher_requires_a_tool_registry(runtime: Any) -> None:
    with pytest.raises(ValueError, match=r"^invalid MCP runtime$"):
        MCPDispatcher(runtime)


def test_dispatcher_reads_only_the_registry() -> None:
    class Runtime:
        registry = ToolRegistry([])

    with TestClient(create_app(Runtime()), base_url=BASE_URL) as client:
        listed = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        noted = client.post("/mcp", json={"jsonrpc": "2.0", "method": "tools/list"})
        batch = client.post("/mcp", json=[1])

    assert listed.json() == result(1, {"tools": []})
    assert (noted.status_code, noted.content) == (202, b"")
    assert batch.json() == json.loads(INVALID_REQUEST)


# --- weakness 5: client strings are reflected only when short and plain --------------------


@pytest.mark.parametrize(
    "value",
    [
        "line\nbreak",
        "two words",
        "caf\u00e9",
        "x" * 129,
        "<script>",
        "a\u2028b",
        "\ud800",
    ],
)
def test_unusual_or_long_names_are_not_reflected(host: SyntheticHost, value: str) -> None:
    tool = host.call(value, {}, request_id=1)
    method = host.rpc({"jsonrpc": "2.0", "id": 2, "method": value})

    assert tool == error(1, -32602, "Unknown tool")
    assert method == error(2, -32601, "Unknown method")


def test_names_up_to_128_plain_characters_are_reflected(host: SyntheticHost) -> None:
    name = "a" * 128

    assert host.call(name, {})["error"]["message"] == f"Unknown tool: {name}"
    assert host.call("x/y.z:w-v_1", {})["error"]["message"] == "Unknown tool: x/y.z:w-v_1"
