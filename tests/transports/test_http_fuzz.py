"""Property-based: whatever arrives at ``POST /mcp``, the answer is never a 5xx."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.json_strategies import json_scalars, json_values
from tests.synthetic_host import SyntheticHost, build_host

pytestmark = pytest.mark.slow  # fuzzing

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Lone surrogates too: Python strings may hold them, JSON text may not.
SURROGATES = st.text(
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3
)
SCALARS = json_scalars(also=SURROGATES)
JSON_VALUES = json_values(SCALARS)
METHODS = (
    st.sampled_from(
        ["initialize", "ping", "tools/list", "tools/call", "notifications/initialized", "nope"]
    )
    | JSON_VALUES
)
TOOL_NAMES = (
    st.sampled_from(
        ["echo", "verbatim", "tool_error", "explode", "unserializable", "not_finite", "list_tools"]
    )
    | JSON_VALUES
)
ARGUMENT_KEYS = st.sampled_from(
    ["count", "ratio", "flag", "label", "tags", "ids", "maybe", "nested"]
)
ARGUMENTS = (
    st.dictionaries(
        ARGUMENT_KEYS | st.text(max_size=6), JSON_VALUES | st.text(max_size=30), max_size=6
    )
    | JSON_VALUES
)


@pytest.fixture(scope="module")
def shared() -> Iterator[SyntheticHost]:
    """One app and one open client for every example, so examples stay cheap."""
    built = build_host()
    with built.client:
        yield built


def assert_well_answered(response: Any, request: Any) -> None:
    assert response.status_code < 500, response.content
    if response.status_code == 202:
        assert response.content == b""
        assert isinstance(request, dict) and "id" not in request
        return
    body = json.loads(response.content)
    assert body["jsonrpc"] == "2.0"
    assert ("result" in body) != ("error" in body)
    if isinstance(request, dict) and "id" in request and response.status_code == 200:
        assert body["id"] == json.loads(json.dumps(request["id"]))


@settings(FUZZ, max_examples=200)
@given(body=st.binary(max_size=300))
def test_arbitrary_bytes_never_cause_a_server_error(shared: SyntheticHost, body: bytes) -> None:
    response = shared.post(body)

    assert response.status_code in (200, 202, 400)


@FUZZ
@given(value=JSON_VALUES)
def test_arbitrary_json_bodies_are_answered(shared: SyntheticHost, value: Any) -> None:
    response = shared.post(json.dumps(value))

    assert response.status_code in (200, 202)
    assert_well_answered(response, value)


@FUZZ
@given(
    request_id=JSON_VALUES,
    method=METHODS,
    params=st.none()
    | JSON_VALUES
    | st.fixed_dictionaries({}, optional={"name": TOOL_NAMES, "arguments": ARGUMENTS}),
    omit=st.sets(st.sampled_from(["id", "method", "params"])),
)
def test_arbitrary_envelopes_are_answered(
    shared: SyntheticHost, request_id: Any, method: Any, params: Any, omit: set[str]
) -> None:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    for key in omit:
        message.pop(key)

    response = shared.post(json.dumps(message))

    assert response.status_code in (200, 202)
    assert_well_answered(response, message)


@FUZZ
@given(request_id=JSON_VALUES, name=TOOL_NAMES, arguments=ARGUMENTS)
def test_arbitrary_tool_calls_are_answered(
    shared: SyntheticHost, request_id: Any, name: Any, arguments: Any
) -> None:
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }

    response = shared.post(json.dumps(message))

    assert response.status_code == 200
    assert_well_answered(response, message)


@FUZZ
@given(text=st.text(max_size=40))
def test_arbitrary_text_bodies_never_cause_a_server_error(shared: SyntheticHost, text: str) -> None:
    response = shared.post(text.encode("utf-8", "surrogatepass"))

    assert response.status_code in (200, 202, 400)
