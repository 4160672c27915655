"""The one rule of every Tool that refuses an argument it does not take.

The contract's status and code stay, ``field`` and the message name the argument (the first
one, in the order sent) when it is a plain name, and the log shows the contract's field only.
``memory_recall`` and ``list_tools`` ignore such arguments.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.model.errors import SHOWN_NAME
from mymcp.plugins.mnemosyne.plugin import DECLARED_TOOLS
from tests.clients.scenario import CANONICAL_REFERENCE, MUTATION_CALLS, seed_memory_root
from tests.helpers import McpClient, log_events, unexpected_argument

TARGET = {"reference": CANONICAL_REFERENCE, "expected_revision": 1}
REVISION = {
    **TARGET,
    "namespace_label": None,
    "collection_label": None,
    "title": None,
    "content": "Canonical memory concepts live in the shared memory domain.",
    "tags": [],
}
# (Tool, valid arguments, the contract's code and field for a key it does not take).
REFUSING = [
    ("memory_inspect", {"reference": CANONICAL_REFERENCE}, "invalid_reference", "reference"),
    ("memory_list", {"scope": "project"}, "invalid_request", "request"),
    ("memory_remember", MUTATION_CALLS[0][2], "invalid_record", "memory"),
    ("memory_revise", REVISION, "invalid_record", "revision"),
    ("memory_archive", TARGET, "invalid_reference", "reference"),
    ("memory_restore", TARGET, "invalid_reference", "reference"),
    ("memory_forget", TARGET, "invalid_reference", "reference"),
]
TOOL_IDS = [tool for tool, *_ in REFUSING]
TAKEN = {tool.name: set(tool.input_schema["properties"]) for tool in DECLARED_TOOLS}


@pytest.fixture
def client(mcp: Callable[..., McpClient], memory_root: Path) -> McpClient:
    seed_memory_root(memory_root)
    return mcp(remember=True, revise=True, archive_restore=True, forget=True)


def _refusal(client: McpClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    reply = client.call(tool, arguments)
    assert reply.is_error
    return reply.payload


@pytest.mark.parametrize(("tool", "valid", "code", "field"), REFUSING, ids=TOOL_IDS)
def test_the_valid_calls_are_valid(
    client: McpClient, tool: str, valid: dict[str, Any], code: str, field: str
) -> None:
    assert client.call(tool, valid).payload["status"] != "invalid_request"


@pytest.mark.parametrize(("tool", "valid", "code", "field"), REFUSING, ids=TOOL_IDS)
def test_a_valid_call_with_bogus_is_refused_naming_bogus(
    client: McpClient, tool: str, valid: dict[str, Any], code: str, field: str
) -> None:
    assert _refusal(client, tool, {**valid, "bogus": 1}) == unexpected_argument(code, "bogus")


@pytest.mark.parametrize(("tool", "valid", "code", "field"), REFUSING, ids=TOOL_IDS)
def test_the_first_unexpected_argument_sent_is_named(
    client: McpClient, tool: str, valid: dict[str, Any], code: str, field: str
) -> None:
    payload = _refusal(client, tool, {"zeta": 1, **valid, "alpha": 2})
    assert (payload["code"], payload["field"]) == (code, "zeta")


@pytest.mark.parametrize("name", ["x" * 65, "a b", "naïve", "", "line\nbreak", "{}"])
@pytest.mark.parametrize(("tool", "valid", "code", "field"), REFUSING, ids=TOOL_IDS)
def test_a_name_that_is_not_a_plain_word_is_not_echoed(
    client: McpClient, tool: str, valid: dict[str, Any], code: str, field: str, name: str
) -> None:
    assert _refusal(client, tool, {**valid, name: 1}) == {
        "status": "invalid_request",
        "code": code,
        "field": field,
        "message": "unexpected argument",
    }


@pytest.mark.parametrize(("tool", "valid", "code", "field"), REFUSING, ids=TOOL_IDS)
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=st.text(max_size=80))
def test_any_other_name_is_named_exactly_when_it_is_a_plain_word(
    client: McpClient, tool: str, valid: dict[str, Any], code: str, field: str, name: str
) -> None:
    assume(name not in TAKEN[tool])
    payload = _refusal(client, tool, {**valid, name: 1})
    plain = SHOWN_NAME.fullmatch(name) is not None
    assert payload["status"] == "invalid_request"
    assert payload["code"] == code
    assert payload["field"] == (name if plain else field)
    assert payload["message"] == (
        "unexpected argument: " + name if plain else "unexpected argument"
    )


@pytest.mark.parametrize(("tool", "valid", "code", "field"), REFUSING, ids=TOOL_IDS)
def test_the_log_shows_the_contracts_field_never_the_name(
    client: McpClient,
    caplog: pytest.LogCaptureFixture,
    tool: str,
    valid: dict[str, Any],
    code: str,
    field: str,
) -> None:
    caplog.set_level(logging.INFO)
    _refusal(client, tool, {**valid, "secret-name-4d2f": 1})
    [(level, message)] = log_events(caplog, f"mcp.{tool}")
    assert level == logging.WARNING
    assert f"code={code} field={field}" in message
    assert "secret-name-4d2f" not in caplog.text


def test_recall_and_list_tools_ignore_arguments_they_do_not_take(client: McpClient) -> None:
    recall = client.call("memory_recall", {"query": "memory ownership", "scope": "project", "x": 1})
    assert recall.payload["status"] == "ok"
    listing = client.rpc("tools/call", {"name": "list_tools", "arguments": {"x": 1}})
    assert "isError" not in listing["result"]
