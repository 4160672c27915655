"""Arbitrary arguments to every memory Tool get a bounded answer: never a crash, never a 5xx."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import McpClient, remember_arguments
from tests.surface import TOOL_ORDER

pytestmark = pytest.mark.slow  # fuzzing

TOOLS = list(TOOL_ORDER)
KEYS = [
    "query", "scope", "tags", "namespace_id", "collection_id", "page_size", "cursor",
    "reference", "expected_revision", "namespace", "collection", "kind", "language", "title",
    "content", "origin", "occurred_at", "namespace_label", "collection_label", "schema_version",
    "id", "label",
]  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    st.sampled_from(["project", "self", "event", "mem_" + "a" * 32, "null", "[]", '{"a":1}', "2"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS), inner, max_size=5)
    ),
    max_leaves=12,
)
ARGUMENTS = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=8)


@pytest.fixture(scope="module")
def shared_client(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[[], McpClient]]:
    """One app with every gate on over a throwaway root, shared by the examples."""
    from starlette.testclient import TestClient

    from mymcp.app import create_production_app

    root = tmp_path_factory.mktemp("fuzz") / "memory"
    patch = pytest.MonkeyPatch()
    patch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    patch.setenv("MNEMOSYNE_MEMORY_ROOT", str(root))
    for gate in ("REMEMBER", "REVISE", "ARCHIVE_RESTORE", "FORGET"):
        patch.setenv(f"MNEMOSYNE_MEMORY_{gate}_ENABLED", "true")
    client = TestClient(create_production_app(), base_url="http://127.0.0.1:8000")
    patch.undo()
    yield lambda: McpClient(client)
    client.close()


@pytest.mark.parametrize("tool", TOOLS)
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(arguments=ARGUMENTS)
def test_arbitrary_arguments_get_a_bounded_tool_answer(
    shared_client: Callable[[], McpClient], tool: str, arguments: dict[str, Any]
) -> None:
    client = shared_client()
    response = client.post(
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments}})
    )  # fmt: skip
    assert response.status_code == 200
    result = response.json()["result"]
    payload = json.loads(result["content"][0]["text"])
    assert payload["status"] != "internal_error", payload
    assert isinstance(payload["status"], str)


REFERENCE = {
    "schema_version": 2,
    "scope": "project",
    "namespace_id": "mnemosyne",
    "collection_id": "decisions",
    "id": "mem_0123456789abcdef0123456789abcdef",
}
VALID: dict[str, dict[str, Any]] = {
    "memory_recall": {"query": "tea", "scope": "preference", "tags": ["tea"]},
    "memory_list": {"scope": "project", "namespace_id": "mnemosyne", "page_size": 5},
    "memory_inspect": {"reference": REFERENCE},
    "memory_remember": remember_arguments(
        collection={"id": "decisions", "label": None},
        kind="event",
        title="Kick-off",
        content="The project started.",
        tags=["start"],
        occurred_at="2026-07-20T15:00:00Z",
    ),
    "memory_revise": {
        "reference": REFERENCE,
        "expected_revision": 1,
        "namespace_label": None,
        "collection_label": "Decisions",
        "title": None,
        "content": "Revised.",
        "tags": [],
    },
    "memory_archive": {"reference": REFERENCE, "expected_revision": 1},
    "memory_restore": {"reference": REFERENCE, "expected_revision": 1},
    "memory_forget": {"reference": REFERENCE, "expected_revision": 1},
}


@pytest.mark.parametrize("tool", TOOLS)
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_valid_arguments_with_one_field_replaced_get_a_bounded_answer(
    shared_client: Callable[[], McpClient], tool: str, data: st.DataObject
) -> None:
    arguments = json.loads(json.dumps(VALID[tool]))
    key = data.draw(st.sampled_from(sorted(arguments)))
    target = arguments
    if isinstance(arguments[key], dict) and data.draw(st.booleans()):
        target = arguments[key]
        key = data.draw(st.sampled_from(sorted(target)))
    target[key] = data.draw(VALUES)
    reply = shared_client().call(tool, arguments)
    assert reply.payload["status"] != "internal_error", (arguments, reply.payload)
