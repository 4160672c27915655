"""Fixed answers: encoded once, and byte for byte what the plain encoding writes for any id."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mymcp import settings
from mymcp.mcp import encoding, jsonrpc, list_tools
from mymcp.mcp import encoding as fixed
from mymcp.mcp.dispatcher import MCPDispatcher, ToolWork
from mymcp.mcp.encoding import FixedResult
from mymcp.mcp.era import CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY
from mymcp.mcp.tool_registry import ToolRegistration, ToolRegistry
from tests.synthetic_host import runtime_for, tool_definition

# Every kind of text a decoded id can hold, lone surrogates included (JSON can escape one).
TEXT = st.text(st.characters(exclude_categories=()), max_size=12)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
IDS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
MODERN_META = {PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: {}}
# A Tool list with text that is not ASCII, as a plugin's descriptions may have.
TOOLS = [
    (tool_definition("caf\u00e9_tool", {"type": "object", "description": "\u2713 \u00fc"}), dict),
    (tool_definition("plain"), dict),
]


def plain_bytes(envelope: dict[str, Any]) -> bytes:
    """What the ordinary encoder writes for ``envelope`` once nothing in it is fixed."""
    ordinary = {**envelope, "result": copy.deepcopy(dict(envelope["result"]))}
    body, sent = encoding.serialize(ordinary, ordinary["id"])
    assert fixed.splice(ordinary) is None
    return body if sent is ordinary else b"<fallback> " + body


def fixed_answers(request_id: Any) -> list[dict[str, Any]]:
    """Every fixed answer a dispatcher gives, with ``request_id`` as its id."""
    dispatcher = MCPDispatcher(runtime_for(TOOLS))
    answers: list[Any] = [
        dispatcher.prepare({"id": request_id, "method": "ping"}),
        dispatcher.prepare({"id": request_id, "method": "tools/list"}),
        dispatcher.prepare({"id": request_id, "method": "notifications/initialized"}),
    ]
    for version in (None, "1999-01-01", *settings.SUPPORTED_PROTOCOL_VERSIONS):
        params = {} if version is None else {"protocolVersion": version}
        answers.append(
            dispatcher.prepare({"id": request_id, "method": "initialize", "params": params})
        )
    call = {"name": list_tools.NAME, "arguments": {}}
    work = dispatcher.prepare({"id": request_id, "method": "tools/call", "params": call})
    assert isinstance(work, ToolWork)
    answers.append(work.run())
    return answers


def modern_fixed_answers(request_id: int | str) -> list[dict[str, Any]]:
    dispatcher = MCPDispatcher(runtime_for(TOOLS))
    answers: list[Any] = []
    for method, params in (
        ("server/discover", {}),
        ("tools/list", {}),
        ("tools/call", {"name": list_tools.NAME, "arguments": {}}),
    ):
        message = {"id": request_id, "method": method, "params": {**params, "_meta": MODERN_META}}
        prepared = dispatcher.prepare_modern(message)
        answers.append(prepared.run() if isinstance(prepared, ToolWork) else prepared)
    return answers


@given(request_id=IDS)
def test_every_fixed_answer_is_written_exactly_as_the_plain_encoding(request_id: Any) -> None:
    for envelope in fixed_answers(request_id):
        assert type(envelope["result"]) is FixedResult
        body, sent = encoding.serialize(envelope, request_id)
        assert sent is envelope or fixed.splice(envelope) is None
        assert body == plain_bytes(envelope)


@given(request_id=st.integers() | TEXT)
def test_every_fixed_answer_of_2026_07_28_is_written_exactly_as_the_plain_encoding(
    request_id: int | str,
) -> None:
    for envelope in modern_fixed_answers(request_id):
        assert type(envelope["result"]) is FixedResult
        body, _ = encoding.serialize(envelope, request_id)
        assert body == plain_bytes(envelope)


@given(request_id=IDS)
def test_a_spliced_id_is_the_id_as_json_dumps_writes_it(request_id: Any) -> None:
    try:
        expected: bytes | None = json.dumps(
            request_id, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        ).encode("utf-8")
    except UnicodeEncodeError:
        expected = None

    assert fixed.encoded_id(request_id) == expected


def test_an_id_with_a_lone_surrogate_is_encoded_the_plain_way_with_escapes() -> None:
    envelope = jsonrpc.result("\ud800", FixedResult({"text": "caf\u00e9"}))

    body, _ = encoding.serialize(envelope, "\ud800")

    assert fixed.splice(envelope) is None
    assert body == b'{"jsonrpc":"2.0","id":"\\ud800","result":{"text":"caf\\u00e9"}}'


def test_an_id_too_deep_to_encode_still_gets_the_null_id_fallback() -> None:
    request_id: Any = []
    for _ in range(5000):
        request_id = [request_id]
    envelope = jsonrpc.result(request_id, FixedResult({}))

    body, _ = encoding.serialize(envelope, request_id)

    assert json.loads(body) == jsonrpc.error(None, jsonrpc.INTERNAL_ERROR, "Internal error")


def test_only_a_plain_result_envelope_is_spliced() -> None:
    result = FixedResult({"a": 1})

    assert fixed.splice({"jsonrpc": "2.0", "id": 1, "result": result}) is not None
    assert fixed.splice({"id": 1, "jsonrpc": "2.0", "result": result}) is None
    assert fixed.splice({"jsonrpc": "2.0", "id": 1, "result": {"a": 1}}) is None
    assert fixed.splice({"jsonrpc": "2.0", "id": 1, "result": result, "x": 0}) is None
    assert fixed.splice({"jsonrpc": "1.0", "id": 1, "result": result}) is None


@pytest.mark.parametrize("value", [{"n": float("nan")}, {"s": "\udc80"}, {"o": object()}])
def test_a_value_that_cannot_be_encoded_once_is_not_fixed(value: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        FixedResult(value)
    assert fixed.fixed(value) is None


def test_a_tool_list_that_cannot_be_encoded_still_fails_per_request() -> None:
    definition = tool_definition("odd", {"type": "object", "default": float("nan")})
    dispatcher = MCPDispatcher(runtime_for([(definition, dict)]))

    envelope = dispatcher.prepare({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
    assert envelope is not None and not isinstance(envelope, ToolWork)
    body, _ = encoding.serialize(envelope, 4)

    assert json.loads(body) == jsonrpc.error(4, jsonrpc.INTERNAL_ERROR, "Internal error")


def test_dispatch_hands_out_copies_that_leave_the_fixed_answer_unchanged() -> None:
    dispatcher = MCPDispatcher(runtime_for(TOOLS))
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}

    first = dispatcher.dispatch(message)
    assert first is not None and type(first["result"]) is dict
    first["result"]["tools"][0]["name"] = "changed"
    first["result"]["tools"].clear()

    again = dispatcher.dispatch(message)
    assert again is not None
    names = [tool["name"] for tool in again["result"]["tools"]]
    assert names == ["list_tools", "caf\u00e9_tool", "plain"]
    shared = dispatcher.prepare(message)
    assert isinstance(shared, dict) and type(shared["result"]) is FixedResult
    assert json.loads(shared["result"].encoded) == again["result"]


def test_each_fixed_answer_is_built_once_per_dispatcher() -> None:
    dispatcher = MCPDispatcher(runtime_for(TOOLS))

    def result_of(message: dict[str, Any]) -> Any:
        prepared = dispatcher.prepare(message)
        assert isinstance(prepared, dict)
        return prepared["result"]

    for method in ("tools/list", "ping"):
        assert result_of({"id": 1, "method": method}) is result_of({"id": 2, "method": method})
    hello = {"method": "initialize", "params": {"protocolVersion": "2025-06-18"}}
    assert result_of({**hello, "id": 1}) is result_of({**hello, "id": "x"})
    discover = {"method": "server/discover", "params": {"_meta": MODERN_META}}
    first, second = (dispatcher.prepare_modern({**discover, "id": n}) for n in (1, 2))
    assert isinstance(first, dict) and isinstance(second, dict)
    assert first["result"] is second["result"]


def test_a_fixed_result_has_at_most_a_few_variants() -> None:
    result = FixedResult({"a": 1})
    made = [result.variant(key, lambda r: {**r, "b": 2}) for key in range(10)]

    assert all(json.loads(variant.encoded) == {"a": 1, "b": 2} for variant in made)
    assert made[0] is result.variant(0, lambda r: {})
    assert len(result._variants) == fixed.MAX_VARIANTS


def test_list_tools_answers_the_same_fixed_result_every_time() -> None:
    registry = ToolRegistry([list_tools.registration([])])

    first, second = (registry.call_tool(list_tools.NAME, {}) for _ in range(2))

    assert first is second and type(first) is FixedResult
    assert first == {"content": [{"type": "text", "text": list_tools.summary([list_tools.NAME])}]}


def test_a_tool_result_with_structured_content_is_still_trimmed_for_old_clients() -> None:
    answer = {"content": [], "structuredContent": {"a": 1}}
    registry = ToolRegistry(
        [list_tools.registration([]), ToolRegistration(tool_definition("s"), lambda _: answer)]
    )
    dispatcher = MCPDispatcher(type("Runtime", (), {"registry": registry})())
    call = {"id": 1, "method": "tools/call", "params": {"name": "s"}}

    old = dispatcher.dispatch(call, protocol_version="2025-03-26")
    new = dispatcher.dispatch(call, protocol_version="2025-06-18")

    assert old == jsonrpc.result(1, {"content": []})
    assert new == jsonrpc.result(1, answer)
