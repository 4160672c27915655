"""MCP 2026-07-28 over HTTP: every result and every error row, with its status and code.

The requests are raw, built as the specification asks (``tests/modern.py``); each test
changes one thing about them. The server is the synthetic host: the protocol layer does not
depend on the plugin, and ``tests/clients`` run the official SDK against the real one.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mymcp.transports.http import HttpSecurity
from tests import modern
from tests.synthetic_host import INSTRUCTIONS, MARKER, SyntheticHost, build_host

Message = dict[str, Any]


def post(host: SyntheticHost, message: Any, headers: dict[str, str] | None = None) -> Any:
    sent = modern.headers(message) if headers is None else headers
    return host.post(json.dumps(message), sent)


def error_of(response: Any, status: int, code: int) -> dict[str, Any]:
    """The error of ``response`` after checking its status, media type and code."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert "result" not in body
    assert body["error"]["code"] == code, body
    error: dict[str, Any] = body["error"]
    return error


def result_of(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    assert "mcp-session-id" not in response.headers
    result: dict[str, Any] = response.json()["result"]
    assert result["resultType"] == "complete"
    assert result["_meta"][modern.SERVER_INFO_KEY] == modern.SERVER_INFO
    return result


# --- results --------------------------------------------------------------------------------


def test_discover_names_versions_capabilities_instructions_and_cache_hints(
    host: SyntheticHost,
) -> None:
    result = result_of(post(host, modern.request("server/discover", request_id="d-1")))

    assert result["supportedVersions"] == modern.SUPPORTED
    assert result["capabilities"] == {"tools": {}}
    assert result["instructions"] == INSTRUCTIONS
    assert isinstance(result["ttlMs"], int) and result["ttlMs"] == modern.DISCOVER_TTL_MS
    assert result["cacheScope"] == "public"


def test_discover_answers_with_the_request_id(host: SyntheticHost) -> None:
    response = post(host, modern.request("server/discover", request_id="d-1"))

    assert response.json()["id"] == "d-1"


def test_tools_list_lists_the_same_tools_with_cache_hints(host: SyntheticHost) -> None:
    legacy = host.rpc({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})["result"]

    result = result_of(post(host, modern.request("tools/list")))

    assert result["tools"] == legacy["tools"]
    assert isinstance(result["ttlMs"], int) and result["ttlMs"] == modern.TOOLS_LIST_TTL_MS
    assert result["cacheScope"] == "public"
    assert "nextCursor" not in result


def test_tools_list_is_the_same_on_every_request(host: SyntheticHost) -> None:
    first = post(host, modern.request("tools/list")).content
    post(host, modern.call("echo", {"count": 1}))

    assert post(host, modern.request("tools/list", request_id=1)).content == first


def test_tools_call_keeps_the_tool_result_and_adds_the_result_fields(host: SyntheticHost) -> None:
    result = result_of(post(host, modern.call("verbatim")))

    assert result["content"] == [{"type": "text", "text": "caf\u00e9 \u2713"}]
    assert result["structuredContent"] == {"n": [1, 2.5, None, True, "x"], "deep": {"a": {"b": []}}}
    assert result["extra"] == "hosts add nothing"
    assert "ttlMs" not in result and "cacheScope" not in result


def test_a_tool_error_stays_a_result_with_is_error(host: SyntheticHost) -> None:
    result = result_of(post(host, modern.call("tool_error")))

    assert result["isError"] is True


def test_tools_call_passes_the_arguments_unchanged(host: SyntheticHost) -> None:
    post(host, modern.call("echo", {"count": 2, "label": "x"}))

    assert host.calls.received == [("echo", {"count": 2, "label": "x"})]


def test_a_base64_mcp_name_is_decoded_before_it_is_compared(host: SyntheticHost) -> None:
    message = modern.call("echo")
    headers = {**modern.headers(message), "mcp-name": modern.base64_name("echo")}

    result_of(post(host, message, headers))


def test_header_names_are_case_insensitive(host: SyntheticHost) -> None:
    message = modern.call("echo")
    headers = {key.upper(): value for key, value in modern.headers(message).items()}

    result_of(post(host, message, headers))


def test_a_session_id_is_ignored_and_never_minted(host: SyntheticHost) -> None:
    message = modern.request("tools/list")

    response = post(host, message, {**modern.headers(message), "mcp-session-id": "abc"})

    result_of(response)


def test_a_notification_is_accepted_with_202_and_no_body(host: SyntheticHost) -> None:
    message = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}
    headers = {**modern.headers(message)}

    response = post(host, message, headers)

    assert response.status_code == 202
    assert response.content == b""


def test_a_notification_with_the_envelope_is_accepted_and_runs_nothing(host: SyntheticHost) -> None:
    message = modern.call("echo")
    del message["id"]

    response = post(host, message)

    assert response.status_code == 202
    assert response.content == b""
    assert host.calls.received == []


# --- -32602: the envelope ------------------------------------------------------------------


def _without_envelope(params: Any) -> Message:
    message: Message = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}
    if params is not None:
        message["params"] = params
    return message


def _meta(**changes: Any) -> dict[str, Any]:
    meta = modern.envelope()
    for key, value in changes.items():
        full = {"version": modern.VERSION_KEY, "capabilities": modern.CAPABILITIES_KEY}[key]
        if value is None:
            del meta[full]
        else:
            meta[full] = value
    return meta


@pytest.mark.parametrize(
    "params",
    [
        None,
        {},
        [],
        "x",
        {"_meta": None},
        {"_meta": []},
        {"_meta": _meta(capabilities=None)},
        {"_meta": _meta(capabilities=[])},
        {"_meta": _meta(capabilities="all")},
        {"_meta": _meta(version=5)},
        {"_meta": _meta(version=None, capabilities=None)},
    ],
    ids=repr,
)
def test_a_missing_or_malformed_envelope_is_invalid_params_with_400(
    host: SyntheticHost, params: Any
) -> None:
    message = _without_envelope(params)

    error = error_of(post(host, message), 400, -32602)

    assert post(host, message).json()["id"] == 7
    assert "_meta" in error["message"]
    assert "data" not in error


def test_the_2026_header_over_a_body_without_envelope_is_invalid_params(
    host: SyntheticHost,
) -> None:
    # Before issue 14 this was the handshake era's 400 -32600 with a null id.
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo"}}

    response = post(host, message)

    error_of(response, 400, -32602)
    assert response.json()["id"] == 1
    assert host.calls.received == []


def test_client_info_is_optional(host: SyntheticHost) -> None:
    message = modern.request("tools/list")
    del message["params"]["_meta"][modern.CLIENT_INFO_KEY]

    result_of(post(host, message))


# --- -32022: the version --------------------------------------------------------------------


@pytest.mark.parametrize("version", ["1900-01-01", "2025-11-25", "2024-11-05", "2027-01-01"])
def test_a_version_not_served_statelessly_is_unsupported_with_400(
    host: SyntheticHost, version: str
) -> None:
    message = modern.request("tools/list", version=version)

    error = error_of(post(host, message, modern.headers(message, version)), 400, -32022)

    assert error["message"] == "Unsupported protocol version"
    assert error["data"] == {"supported": modern.SUPPORTED, "requested": version}


@pytest.mark.parametrize("version", ["", "x" * 33, f"{MARKER} <b>", "2026-07-28 ", "a/b"])
def test_an_odd_requested_version_is_not_reflected(host: SyntheticHost, version: str) -> None:
    message = modern.request("tools/list", version=version)

    response = post(host, message, modern.headers(message, version))

    error = error_of(response, 400, -32022)
    assert error["data"]["requested"] == ""
    assert MARKER not in response.text


def test_an_unsupported_version_is_named_exactly_once_in_the_answer(host: SyntheticHost) -> None:
    message = modern.request("server/discover", version="1999-01-01")

    response = post(host, message, modern.headers(message, "1999-01-01"))

    assert response.text.count("1999-01-01") == 1


# --- -32020: headers that disagree with the body --------------------------------------------


def _header_case(change: dict[str, str | None], message: Message | None = None) -> Any:
    sent = message or modern.call("echo")
    headers: dict[str, Any] = modern.headers(sent)
    for key, value in change.items():
        if value is None:
            headers.pop(key, None)
        else:
            headers[key] = value
    return sent, headers


HEADER_CASES: dict[str, tuple[Message, dict[str, Any]]] = {
    "version differs": _header_case({"mcp-protocol-version": "2025-11-25"}),
    "unknown version header": _header_case({"mcp-protocol-version": "1900-01-01"}),
    "empty version header": _header_case({"mcp-protocol-version": ""}),
    "method missing": _header_case({"mcp-method": None}),
    "method differs": _header_case({"mcp-method": "tools/list"}),
    "method case differs": _header_case({"mcp-method": "TOOLS/CALL"}),
    "name missing": _header_case({"mcp-name": None}),
    "name differs": _header_case({"mcp-name": "verbatim"}),
    "name case differs": _header_case({"mcp-name": "ECHO"}),
    "name base64 differs": _header_case({"mcp-name": modern.base64_name("verbatim")}),
    "name base64 broken": _header_case({"mcp-name": "=?base64?!!!?="}),
    "name base64 not utf-8": _header_case({"mcp-name": "=?base64?/w==?="}),
    "name without a body name": _header_case(
        {"mcp-name": "echo"}, modern.request("tools/call", {"arguments": {}})
    ),
    "list method differs": _header_case({"mcp-method": "tools/call"}, modern.request("tools/list")),
    "discover method missing": _header_case(
        {"mcp-method": None}, modern.request("server/discover")
    ),
}


@pytest.mark.parametrize("case", sorted(HEADER_CASES))
def test_headers_that_disagree_with_the_body_are_a_header_mismatch_with_400(
    host: SyntheticHost, case: str
) -> None:
    message, headers = HEADER_CASES[case]

    error = error_of(post(host, message, headers), 400, -32020)

    assert error["message"].startswith("Header mismatch")
    assert host.calls.received == []


def test_a_repeated_metadata_header_is_a_header_mismatch(host: SyntheticHost) -> None:
    message = modern.call("echo")
    pairs = [*modern.headers(message).items(), ("mcp-name", "echo")]

    response = host.client.post("/mcp", content=json.dumps(message), headers=pairs)

    error_of(response, 400, -32020)


def test_a_header_value_outside_visible_ascii_is_a_header_mismatch(host: SyntheticHost) -> None:
    message = modern.call("caf\u00e9")
    plain = {key: value for key, value in modern.headers(message).items() if key != "mcp-name"}
    headers: list[Any] = [*plain.items(), ("mcp-name", "caf\u00e9".encode("latin-1"))]

    response = host.client.post("/mcp", content=json.dumps(message), headers=headers)

    error_of(response, 400, -32020)


def test_a_handshake_header_over_a_2026_body_is_a_mismatch_not_a_legacy_request(
    host: SyntheticHost,
) -> None:
    message = modern.request("tools/list")

    response = post(host, message, modern.headers(message, "2025-11-25"))

    error_of(response, 400, -32020)


def test_the_header_check_comes_before_the_version_check(host: SyntheticHost) -> None:
    message = modern.request("tools/list", version="1900-01-01")

    error_of(post(host, message), 400, -32020)


def test_the_envelope_check_comes_before_the_header_check(host: SyntheticHost) -> None:
    message = _without_envelope({})

    error_of(post(host, message, {"mcp-protocol-version": "2026-07-28"}), 400, -32602)


# --- -32601: removed and unknown methods ----------------------------------------------------


@pytest.mark.parametrize(
    "method",
    [
        "initialize",
        "ping",
        "notifications/initialized",
        "logging/setLevel",
        "resources/subscribe",
        "resources/list",
        "prompts/list",
        "foo/bar",
        "",
        MARKER,
    ],
)
def test_removed_and_unknown_methods_are_method_not_found_with_404(
    host: SyntheticHost, method: str
) -> None:
    response = post(host, modern.request(method, request_id=5))

    error = error_of(response, 404, -32601)
    assert response.json()["id"] == 5
    assert MARKER not in response.text
    assert "data" not in error


def test_initialize_with_the_envelope_is_not_a_handshake(host: SyntheticHost) -> None:
    message = modern.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})

    response = post(host, message)

    error_of(response, 404, -32601)
    assert "protocolVersion" not in response.text


# --- -32600: not a request ------------------------------------------------------------------


def _with(**changes: Any) -> Message:
    message = modern.request("tools/list")
    for key, value in changes.items():
        if value is _DROP:
            del message[key]
        else:
            message[key] = value
    return message


_DROP = object()


@pytest.mark.parametrize(
    "message",
    [
        _with(id=None),
        _with(id=True),
        _with(id=1.5),
        _with(id=[1]),
        _with(id={"a": 1}),
        _with(method=_DROP),
        _with(method=5),
        _with(method=["tools/list"]),
        {"jsonrpc": "2.0", "id": 1, "result": {}},
    ],
    ids=repr,
)
def test_a_body_that_is_not_a_request_is_invalid_request_with_400(
    host: SyntheticHost, message: Message
) -> None:
    headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}

    error_of(post(host, message, headers), 400, -32600)


@pytest.mark.parametrize("body", [b"[]", b"null", b"5", b'"x"', b'[{"jsonrpc":"2.0"}]'])
def test_a_body_that_is_not_an_object_is_invalid_request_with_400(
    host: SyntheticHost, body: bytes
) -> None:
    response = host.post(body, {"mcp-protocol-version": "2026-07-28"})

    error_of(response, 400, -32600)
    assert response.json()["id"] is None


def test_an_invalid_id_is_answered_with_a_null_id(host: SyntheticHost) -> None:
    response = post(host, _with(id={"a": MARKER}))

    assert response.json()["id"] is None
    assert MARKER not in response.text


# --- -32700 and 413 -------------------------------------------------------------------------


@pytest.mark.parametrize("body", [b"{bad", b"", b"\xff", b'{"id":1} x', b'{"id":NaN}'])
def test_a_body_that_is_not_json_is_a_parse_error_with_400(
    host: SyntheticHost, body: bytes
) -> None:
    response = host.post(body, {"mcp-protocol-version": "2026-07-28"})

    error_of(response, 400, -32700)
    assert response.json()["id"] is None


def test_a_body_over_the_limit_is_refused_with_413(host: SyntheticHost) -> None:
    body = b'{"padding":"' + b"x" * (1024 * 1024) + b'"}'

    response = host.post(body, {"mcp-protocol-version": "2026-07-28"})

    error_of(response, 413, -32600)


# --- Tool errors and failures ---------------------------------------------------------------


def test_an_unknown_tool_is_invalid_params_with_400(host: SyntheticHost) -> None:
    error = error_of(post(host, modern.call("nothing_here")), 400, -32602)

    assert error["message"] == "Unknown tool: nothing_here"


def test_arguments_that_are_not_an_object_are_invalid_params_with_400(host: SyntheticHost) -> None:
    message = modern.request("tools/call", {"name": "echo", "arguments": [1]})

    error_of(post(host, message), 400, -32602)
    assert host.calls.received == []


@pytest.mark.parametrize("tool", ["explode", "unserializable", "not_finite", "too_deep"])
def test_a_failing_tool_is_an_internal_error_with_200_and_nothing_of_it(
    host: SyntheticHost, tool: str
) -> None:
    response = post(host, modern.call(tool))

    error = error_of(response, 200, -32603)
    assert error["message"] == "Internal error"
    assert MARKER not in response.text


# --- the transport around it ----------------------------------------------------------------


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_get_and_delete_are_not_allowed(host: SyntheticHost, method: str) -> None:
    response = host.client.request(
        method, "/mcp", headers={"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}
    )

    assert response.status_code == 405
    assert response.headers["allow"] == "POST"


def test_a_foreign_origin_is_refused_with_403() -> None:
    host = build_host(HttpSecurity())
    message = modern.request("server/discover")

    response = post(host, message, {**modern.headers(message), "origin": "http://evil.example"})

    assert response.status_code == 403
    assert "evil" not in response.text


def test_a_foreign_host_is_refused_with_421() -> None:
    host = build_host(HttpSecurity())
    message = modern.request("server/discover")

    response = post(host, message, {**modern.headers(message), "host": "evil.example"})

    assert response.status_code == 421


def test_no_request_needs_a_discover_or_handshake_first(host: SyntheticHost) -> None:
    result_of(post(host, modern.call("echo", {"count": 1})))

    assert host.calls.names() == ["echo"]


def test_the_handshake_era_goes_on_beside_it(host: SyntheticHost) -> None:
    result_of(post(host, modern.request("server/discover")))

    legacy = host.rpc({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})["result"]
    assert list(legacy) == ["tools"]


def test_no_published_schema_asks_for_mcp_param_headers(mcp: Any) -> None:
    # With no x-mcp-header in any inputSchema there is no Mcp-Param-* header to check.
    client = mcp(remember=True, revise=True, archive_restore=True, forget=True)
    message = modern.request("tools/list")

    response = client.http.post(
        "/mcp", content=json.dumps(message), headers=modern.headers(message)
    )

    assert response.status_code == 200
    assert len(response.json()["result"]["tools"]) == 9
    assert b"x-mcp-header" not in response.content
