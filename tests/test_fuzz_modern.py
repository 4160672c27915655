"""Property-based: malformed 2026-07-28 envelopes, ``_meta`` and headers get bounded answers.

Over HTTP every answer has a status the error table names (never a 5xx) and a JSON-RPC
body, or 202 with none for a notification; over stdio every request gets exactly one line
back. Neither ever shows a planted value from the envelope or the headers, and nothing
is logged with a traceback.
"""

from __future__ import annotations

import base64
import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mymcp.mcp.era import Era, HttpHeaders, era_of
from mymcp.transports import stdio
from tests import modern
from tests.json_strategies import json_scalars, json_values
from tests.synthetic_host import SyntheticHost, build_host, synthetic_runtime

pytestmark = pytest.mark.slow  # fuzzing

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
# Planted where nothing may be reflected; "<" keeps it out of every echo rule.
PLANTED = "<planted 5e2d>"
STATUSES = {200, 202, 400, 404}

SCALARS = json_scalars(text=12, also=st.just(PLANTED))
JSON_VALUES = json_values(SCALARS, width=3, key=6, leaves=12)
VERSIONS = st.sampled_from(["2026-07-28", "2025-11-25", "1900-01-01", "", PLANTED]) | JSON_VALUES
METHODS = (
    st.sampled_from(["server/discover", "tools/list", "tools/call", "initialize", "ping", PLANTED])
    | JSON_VALUES
)
# Tools whose results never carry their arguments back.
TOOL_NAMES = st.sampled_from(["list_tools", "tool_error", "explode", "unserializable"]) | SCALARS
META = (
    st.fixed_dictionaries(
        {},
        optional={
            modern.VERSION_KEY: VERSIONS,
            modern.CAPABILITIES_KEY: st.just({}) | JSON_VALUES,
            modern.CLIENT_INFO_KEY: JSON_VALUES,
            "io.modelcontextprotocol/logLevel": JSON_VALUES,
            PLANTED: JSON_VALUES,
        },
    )
    | JSON_VALUES
)
PARAMS = (
    st.fixed_dictionaries(
        {}, optional={"_meta": META, "name": TOOL_NAMES, "arguments": st.just({}) | JSON_VALUES}
    )
    | JSON_VALUES
)
IDS = st.integers() | st.text(max_size=8) | st.none() | st.booleans() | st.floats(allow_nan=False)
HEADER_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=20)
HEADER_VALUES = (
    st.sampled_from(["2026-07-28", "2025-11-25", "tools/list", "tools/call", "list_tools", PLANTED])
    | HEADER_TEXT
    | HEADER_TEXT.map(lambda text: "=?base64?" + base64.b64encode(text.encode()).decode() + "?=")
    | HEADER_TEXT.map(lambda text: f"=?base64?{text}?=")
)
HEADERS = st.dictionaries(
    st.sampled_from(["mcp-protocol-version", "mcp-method", "mcp-name", "mcp-session-id"]),
    HEADER_VALUES,
    max_size=4,
)
MESSAGES = st.builds(
    lambda request_id, method, params, omit: {
        key: value
        for key, value in {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": method,
            "params": params,
        }.items()
        if key not in omit
    },
    IDS,
    METHODS,
    PARAMS,
    st.sets(st.sampled_from(["id", "method", "params"]), max_size=2),
)


# A well-formed 2026-07-28 request and its headers, then a few changes to either.
BASES = st.sampled_from(
    [
        modern.request("server/discover"),
        modern.request("tools/list"),
        modern.call("list_tools"),
        modern.call("tool_error"),
        modern.call("explode"),
        modern.request("ping"),
        modern.request("initialize", {"protocolVersion": "2025-11-25"}),
        modern.request(PLANTED),
    ]
)
META_CHANGES = st.lists(
    st.tuples(
        st.sampled_from([modern.VERSION_KEY, modern.CAPABILITIES_KEY, modern.CLIENT_INFO_KEY]),
        st.none() | VERSIONS,
    ),
    max_size=2,
)
HEADER_CHANGES = st.lists(
    st.tuples(
        st.sampled_from(["mcp-protocol-version", "mcp-method", "mcp-name"]),
        st.none() | HEADER_VALUES,
    ),
    max_size=2,
)
BODY_CHANGES = st.lists(
    st.tuples(st.sampled_from(["id", "method", "name"]), st.none() | METHODS), max_size=1
)
# A version put in the envelope and the header alike.
BOTH_VERSIONS = st.none() | st.sampled_from(["1900-01-01", "2025-11-25", PLANTED]) | HEADER_TEXT


def _changed(
    base: dict[str, Any], version: str | None, meta: list[Any], headers: list[Any], body: list[Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    """``base`` with the body changes, headers that follow them, then the other changes."""
    message = json.loads(json.dumps(base))
    for key, value in body:
        _set(message["params"] if key == "name" else message, key, value)
    sent = modern.headers(message if isinstance(message.get("method"), str) else base)
    for key, value in list(sent.items()):
        if not (value.isascii() and value.isprintable()):  # as a client would send it
            sent[key] = modern.base64_name(value)
    if version is not None:
        message["params"]["_meta"][modern.VERSION_KEY] = sent["mcp-protocol-version"] = version
    for key, value in meta:
        _set(message["params"]["_meta"], key, value)
    for key, value in headers:
        _set(sent, key, value)
    return message, sent


def _set(target: dict[str, Any], key: str, value: Any) -> None:
    if value is None:
        target.pop(key, None)
    else:
        target[key] = value


@pytest.fixture(scope="module")
def shared() -> Iterator[SyntheticHost]:
    built = build_host()
    with built.client:
        yield built


def _check_logs(caplog: pytest.LogCaptureFixture) -> None:
    for record in caplog.records:
        assert record.exc_info is None, record.getMessage()
        assert PLANTED not in record.getMessage()
    caplog.clear()


@FUZZ
@given(message=MESSAGES, headers=HEADERS)
def test_any_envelope_and_headers_over_http_get_a_bounded_answer(
    shared: SyntheticHost, caplog: pytest.LogCaptureFixture, message: Any, headers: dict[str, str]
) -> None:
    caplog.set_level(logging.DEBUG)
    response = shared.post(json.dumps(message), {"content-type": "application/json", **headers})

    assert response.status_code in STATUSES, response.content
    assert "mcp-session-id" not in response.headers
    if response.status_code == 202:
        assert response.content == b""
        assert "id" not in message
    else:
        body = json.loads(response.content)
        assert ("result" in body) != ("error" in body)
        assert response.status_code == 200 or "error" in body
        assert PLANTED not in response.text
    _check_logs(caplog)


@FUZZ
@given(
    base=BASES, version=BOTH_VERSIONS, meta=META_CHANGES, headers=HEADER_CHANGES, body=BODY_CHANGES
)
def test_a_nearly_right_request_over_http_gets_a_bounded_answer(
    shared: SyntheticHost,
    caplog: pytest.LogCaptureFixture,
    base: dict[str, Any],
    version: str | None,
    meta: list[Any],
    headers: list[Any],
    body: list[Any],
) -> None:
    caplog.set_level(logging.DEBUG)
    message, sent = _changed(base, version, meta, headers, body)

    response = shared.post(json.dumps(message), sent)

    assert response.status_code in STATUSES, response.content
    if response.status_code == 202:  # a notification (unless its header was refused: 400)
        assert "id" not in message and response.content == b""
        return
    answer = json.loads(response.content)
    assert ("result" in answer) != ("error" in answer)
    if "result" in answer:  # the result fields come with the era, and only with it
        http = HttpHeaders(sent.get("mcp-protocol-version"), sent.get("mcp-method"))
        modern_era = era_of(message, http) is Era.MODERN
        assert (answer["result"].get("resultType") == "complete") is modern_era
    assert PLANTED not in json.dumps({key: answer[key] for key in answer if key != "id"})
    _check_logs(caplog)


@FUZZ
@given(headers=HEADERS, body=st.binary(max_size=200))
def test_any_bytes_under_any_headers_get_a_bounded_answer(
    shared: SyntheticHost, headers: dict[str, str], body: bytes
) -> None:
    response = shared.post(body, headers)

    assert response.status_code in STATUSES
    if response.status_code != 202:
        assert "error" in json.loads(response.content) or response.status_code == 200


def _served(lines: bytes) -> list[bytes]:
    runtime = synthetic_runtime()
    output = io.BytesIO()
    stdio.serve(runtime, io.BytesIO(lines), output)
    return output.getvalue().splitlines(keepends=True)


@FUZZ
@given(messages=st.lists(MESSAGES, min_size=1, max_size=4))
def test_any_envelope_over_stdio_gets_one_line_per_request(
    caplog: pytest.LogCaptureFixture, messages: list[Any]
) -> None:
    caplog.set_level(logging.DEBUG)
    lines = _served(b"".join(json.dumps(message).encode() + b"\n" for message in messages))

    assert len(lines) == sum("id" in message for message in messages)
    for line in lines:
        answer = json.loads(line)
        assert ("result" in answer) != ("error" in answer)
        assert PLANTED.encode() not in line
    _check_logs(caplog)


@FUZZ
@given(base=BASES, version=BOTH_VERSIONS, meta=META_CHANGES, body=BODY_CHANGES)
def test_a_nearly_right_request_over_stdio_gets_one_bounded_line(
    caplog: pytest.LogCaptureFixture,
    base: dict[str, Any],
    version: str | None,
    meta: list[Any],
    body: list[Any],
) -> None:
    caplog.set_level(logging.DEBUG)
    message, _ = _changed(base, version, meta, [], body)

    lines = _served(json.dumps(message).encode() + b"\n")

    assert len(lines) == ("id" in message)
    for line in lines:
        answer = json.loads(line)
        assert ("result" in answer) != ("error" in answer)
        if "result" in answer:
            modern_era = era_of(message, None) is Era.MODERN
            assert (answer["result"].get("resultType") == "complete") is modern_era
        assert PLANTED not in json.dumps({key: answer[key] for key in answer if key != "id"})
    _check_logs(caplog)
