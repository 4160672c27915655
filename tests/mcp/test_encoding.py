"""``mymcp.mcp.encoding``: every answer is exactly what ``json.dumps`` writes for it, and what
is kept encoded (fixed answers, a Tool's structured content) is never encoded again."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp import jsonvalue
from mymcp.mcp import encoding, jsonrpc, list_tools
from mymcp.mcp.encoding import Fixed, tool_result
from mymcp.mcp.era import HttpHeaders
from mymcp.mcp.session import Session
from mymcp.mcp.tool_registry import ToolRegistration, ToolRegistry
from tests import modern
from tests.json_strategies import json_scalars, json_values
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
JSON_VALUES = json_values(json_scalars())
OBJECTS = st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=5)
# A Tool list with text that is not ASCII, as a plugin's descriptions may have.
TOOLS = [
    (tool_definition("caf\u00e9_tool", {"type": "object", "description": "\u2713 \u00fc"}), dict),
    (tool_definition("plain"), dict),
]
STRUCTURED = "2025-06-18"


def plain_bytes(envelope: Any) -> bytes:
    """What ``json.dumps`` writes: raw UTF-8, or ASCII when the text cannot be UTF-8."""
    text = json.dumps(envelope, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(envelope, separators=(",", ":"), allow_nan=False).encode("ascii")


def answer(session: Session, message: Any, headers: HttpHeaders | None = None) -> bytes:
    handled = session.handle(message, headers)
    body, _ = handled if isinstance(handled, tuple) else handled.run()
    return body


def fixed_messages(request_id: Any) -> Iterator[dict[str, Any]]:
    """A message for every fixed answer of the handshake era, with ``request_id``."""
    for method in ("ping", "tools/list", "notifications/initialized"):
        yield {"jsonrpc": "2.0", "id": request_id, "method": method}
    for version in (None, "1999-01-01", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"):
        params = {} if version is None else {"protocolVersion": version}
        yield {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def modern_messages(request_id: int | str) -> list[dict[str, Any]]:
    return [
        modern.request("server/discover", request_id=request_id),
        modern.request("tools/list", request_id=request_id),
        modern.call(list_tools.NAME, request_id=request_id),
    ]


def test_an_answer_is_one_line_of_json() -> None:
    body = encoding.encode(jsonrpc.result(1, {"text": "a\nb\u2028c", "n": [1.5, None]}))

    assert b"\n" not in body and b"\r" not in body
    assert json.loads(body)["result"]["text"] == "a\nb\u2028c"


@given(request_id=IDS, payload=JSON_VALUES, error=st.booleans())
def test_every_envelope_is_written_exactly_as_json_dumps_writes_it(
    request_id: Any, payload: Any, error: bool
) -> None:
    envelope = (
        jsonrpc.error(request_id, -32000, str(payload))
        if error
        else jsonrpc.result(request_id, payload)
    )

    assert encoding.encode(envelope) == plain_bytes(envelope)


@pytest.mark.parametrize(
    "envelope",
    [
        jsonrpc.result(7, {"value": object()}),
        jsonrpc.result(7, {"value": float("nan")}),
        jsonrpc.result(float("nan"), {"k": 1}),
    ],
)
def test_an_envelope_json_cannot_hold_raises_and_fails_with_its_id(
    envelope: dict[str, Any],
) -> None:
    with pytest.raises((TypeError, ValueError)):
        encoding.encode(envelope)
    body, sent = encoding.failure(7)
    assert json.loads(body) == sent == jsonrpc.error(7, jsonrpc.INTERNAL_ERROR, "Internal error")


def test_an_id_too_deep_to_encode_fails_with_a_null_id() -> None:
    request_id: Any = []
    for _ in range(5000):
        request_id = [request_id]

    body, sent = encoding.failure(request_id)

    assert json.loads(body) == sent == jsonrpc.error(None, jsonrpc.INTERNAL_ERROR, "Internal error")


def test_an_id_too_deep_to_encode_still_gets_an_answer_with_a_null_id() -> None:
    request_id: Any = []
    for _ in range(5000):
        request_id = [request_id]
    session = Session(runtime_for(TOOLS))

    body = answer(session, {"jsonrpc": "2.0", "id": request_id, "method": "ping"})

    assert json.loads(body) == jsonrpc.error(None, jsonrpc.INTERNAL_ERROR, "Internal error")


# --- fixed answers ---------------------------------------------------------------------------


@given(request_id=IDS)
def test_every_fixed_answer_is_written_exactly_as_the_plain_encoding(request_id: Any) -> None:
    session = Session(runtime_for(TOOLS))
    for message in fixed_messages(request_id):
        body = answer(session, message)
        expected = jsonrpc.result(request_id, json.loads(body)["result"])
        assert body == plain_bytes(expected)


@given(request_id=st.integers() | TEXT)
def test_every_fixed_answer_of_2026_07_28_is_written_exactly_as_the_plain_encoding(
    request_id: int | str,
) -> None:
    session = Session(runtime_for(TOOLS))
    for message in modern_messages(request_id):
        body = answer(session, message)
        expected = jsonrpc.result(request_id, json.loads(body)["result"])
        assert body == plain_bytes(expected)


def test_an_id_with_a_lone_surrogate_is_encoded_the_plain_way_with_escapes() -> None:
    envelope = jsonrpc.result("\ud800", Fixed({"text": "caf\u00e9"}))

    assert encoding.encode(envelope) == (
        b'{"jsonrpc":"2.0","id":"\\ud800","result":{"text":"caf\\u00e9"}}'
    )


@pytest.fixture
def encoded(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every value handed to the JSON encoder, from now on."""
    values: list[Any] = []
    real = jsonvalue.encode

    def counting(value: Any, **options: Any) -> str:
        values.append(value)
        return real(value, **options)

    monkeypatch.setattr(jsonvalue, "encode", counting)
    return values


def test_a_fixed_answer_encodes_only_the_request_id_per_request(encoded: list[Any]) -> None:
    session = Session(runtime_for(TOOLS))
    for message in [*fixed_messages("x"), *modern_messages("x")[:2]]:
        encoded.clear()
        answer(session, message)
        assert all(value == "x" for value in encoded), message["method"]  # the id at most


@pytest.mark.parametrize("value", [{"n": float("nan")}, {"o": object()}])
def test_a_value_that_cannot_be_encoded_once_is_kept_unencoded(value: dict[str, Any]) -> None:
    assert Fixed(value).encoded is None
    with pytest.raises((TypeError, ValueError)):
        encoding.encode(jsonrpc.result(1, Fixed(value)))


def test_a_fixed_value_that_cannot_be_utf8_is_written_with_escapes() -> None:
    envelope = jsonrpc.result(1, Fixed({"s": "\udc80"}))

    assert envelope["result"].encoded is None
    assert encoding.encode(envelope) == b'{"jsonrpc":"2.0","id":1,"result":{"s":"\\udc80"}}'


def test_a_tool_list_that_cannot_be_encoded_still_fails_per_request() -> None:
    definition = tool_definition("odd", {"type": "object", "default": float("nan")})
    session = Session(runtime_for([(definition, dict)]))

    body = answer(session, {"jsonrpc": "2.0", "id": 4, "method": "tools/list"})

    assert json.loads(body) == jsonrpc.error(4, jsonrpc.INTERNAL_ERROR, "Internal error")


def test_every_request_gets_the_same_tool_list() -> None:
    session = Session(runtime_for(TOOLS))
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}

    first, again = answer(session, message), answer(session, message)

    assert first == again
    names = [tool["name"] for tool in json.loads(again)["result"]["tools"]]
    assert names == ["list_tools", "caf\u00e9_tool", "plain"]


def test_list_tools_answers_its_one_line_every_time() -> None:
    registry = ToolRegistry([list_tools.registration([])])

    first, second = (registry.call_tool(list_tools.NAME, {}) for _ in range(2))

    expected = {"content": [{"type": "text", "text": list_tools.summary([list_tools.NAME])}]}
    assert first == second == expected


def test_structured_content_is_trimmed_for_old_clients() -> None:
    answered = {"content": [], "structuredContent": {"a": 1}}
    registry = ToolRegistry(
        [list_tools.registration([]), ToolRegistration(tool_definition("s"), lambda _: answered)]
    )
    session = Session(type("Runtime", (), {"registry": registry})())
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "s"}}

    old = answer(session, call, HttpHeaders(protocol_version="2025-03-26"))
    new = answer(session, call, HttpHeaders(protocol_version=STRUCTURED))

    assert json.loads(old) == jsonrpc.result(1, {"content": []})
    assert json.loads(new) == jsonrpc.result(1, answered)


# --- a Tool's structured content -------------------------------------------------------------


def test_the_text_item_is_the_compact_ascii_json_of_the_structured_content() -> None:
    payload = {"status": "ok", "title": "caf\u00e9", "tags": ["a"]}

    result = tool_result({"structuredContent": payload}, structured=True)

    assert result["content"] == [
        {"type": "text", "text": '{"status":"ok","title":"caf\\u00e9","tags":["a"]}'}
    ]
    assert result["structuredContent"] == payload
    assert "isError" not in result


def test_the_structured_content_is_sent_as_the_same_text_in_key_order() -> None:
    result = tool_result(
        {"structuredContent": {"status": "refused", "code": "x"}, "isError": True},
        structured=True,
    )

    assert encoding.encode(jsonrpc.result(1, result)) == (
        b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text",'
        b'"text":"{\\"status\\":\\"refused\\",\\"code\\":\\"x\\"}"}],'
        b'"structuredContent":{"status":"refused","code":"x"},"isError":true}}'
    )


def test_an_old_client_gets_the_text_item_alone() -> None:
    result = tool_result({"structuredContent": {"a": 1}, "isError": True}, structured=False)

    assert result == {"content": [{"type": "text", "text": '{"a":1}'}], "isError": True}


def test_the_structured_content_is_encoded_once(encoded: list[Any]) -> None:
    payload = {"status": "ok", "memories": [{"title": "t"}] * 3}
    body = encoding.encode(
        jsonrpc.result(1, tool_result({"structuredContent": payload}, structured=True))
    )

    assert [value for value in encoded if value == payload] == [payload]
    assert json.loads(body)["result"]["structuredContent"] == payload


@pytest.mark.parametrize("number", [float("nan"), float("inf"), float("-inf")])
def test_structured_content_json_cannot_represent_is_refused_not_sent(number: float) -> None:
    # The session turns the exception into -32603; invalid JSON never reaches a client.
    with pytest.raises(ValueError):
        tool_result({"structuredContent": {"status": "ok", "value": number}}, structured=True)


def test_an_id_that_looks_like_a_result_member_is_encoded_normally() -> None:
    request_id = {"structuredContent": None, "result": [1]}
    result = tool_result({"structuredContent": {"k": "v"}}, structured=True)

    decoded = json.loads(encoding.encode(jsonrpc.result(request_id, result)))

    assert decoded["id"] == request_id
    assert decoded["result"]["structuredContent"] == {"k": "v"}


@settings(max_examples=200, deadline=None)
@given(request_id=JSON_VALUES, payload=OBJECTS, is_error=st.booleans())
def test_a_tool_response_is_byte_for_byte_what_plain_encoding_writes(
    request_id: Any, payload: dict[str, Any], is_error: bool
) -> None:
    given_result: dict[str, Any] = {"structuredContent": payload}
    if is_error:
        given_result["isError"] = True
    envelope = jsonrpc.result(request_id, tool_result(given_result, structured=True))

    assert encoding.encode(envelope) == plain_bytes(envelope)
    decoded = json.loads(encoding.encode(envelope))["result"]
    assert json.loads(decoded["content"][0]["text"]) == decoded["structuredContent"] == payload


def test_non_ascii_in_structured_content_is_still_written_as_raw_utf8() -> None:
    payload = {"title": "caf\u00e9 \u2028\U0001f600", "n": 1}
    envelope = jsonrpc.result(5, tool_result({"structuredContent": payload}, structured=True))

    body = encoding.encode(envelope)

    assert body == plain_bytes(envelope)
    assert '"structuredContent":{"title":"caf\u00e9 \u2028\U0001f600","n":1}'.encode() in body


def test_a_result_that_gives_its_own_content_is_left_as_it_is() -> None:
    given_result = {"content": [{"type": "text", "text": "x"}], "structuredContent": {"a": 1}}

    assert tool_result(given_result, structured=True) is given_result
    assert tool_result(given_result, structured=False) == {"content": given_result["content"]}
