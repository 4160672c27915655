"""memory_remember through POST /mcp: gate, schema, validation order, policy, duplicates, files."""

from __future__ import annotations

import json
import logging
import os
import re
import stat
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory.model.records import parse_record_bytes, serialize_canonical
from mymcp.plugins.mnemosyne.memory.model.vocabulary import SCOPE_RULES, Scope
from mymcp.plugins.mnemosyne.memory.storage import files
from tests.helpers import (
    CANONICAL_ID,
    V2_KEY_ORDER,
    McpClient,
    ToolReply,
    canonical_record,
    place_canonical,
    remember_arguments,
    snapshot_tree,
    unexpected_argument,
    write_record,
)
from tests.mnemosyne.tools.mutation_support import existing, reference_of

TOOL = "memory_remember"
LOGGER = "mcp.memory_remember"
REFUSAL_MESSAGE = (
    "memory field resembles content that Mnemosyne does not store; review the named field "
    "and retry only if the user confirms that the formatting is benign"
)
MESSAGES = {
    "invalid_origin": "origin is invalid",
    "invalid_scope": "scope is invalid",
    "invalid_namespace": "namespace is invalid for scope",
    "invalid_collection": "collection is invalid",
    "invalid_kind": "kind is invalid for scope",
    "invalid_record": "memory field is invalid",
}
REQUIRED = list(remember_arguments())
OTHER_ID = "mem_fedcba9876543210fedcba9876543210"


draft = remember_arguments


def without(key: str, **overrides: Any) -> dict[str, Any]:
    arguments = draft(**overrides)
    del arguments[key]
    return arguments


def event(**overrides: Any) -> dict[str, Any]:
    return draft(**{"kind": "event", "occurred_at": "2026-07-20T09:30:00Z", **overrides})


@pytest.fixture
def client(mcp: Callable[..., McpClient]) -> McpClient:
    return mcp(remember=True)


@pytest.fixture
def remember(client: McpClient) -> Callable[..., ToolReply]:
    def call(arguments: Any) -> ToolReply:
        return client.call(TOOL, arguments)

    return call


@pytest.fixture
def unchanged(memory_root: Path) -> Iterator[None]:
    """Assert that the root's parent (root included) is exactly as before the test body."""
    before = snapshot_tree(memory_root.parent)
    yield
    assert snapshot_tree(memory_root.parent) == before


def record_files(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*.json") if path.is_file())


def stored(root: Path, reply: ToolReply) -> dict[str, Any]:
    reference = reply.payload["reference"]
    parts = [reference["scope"], reference["namespace_id"]]
    if reference["collection_id"] is not None:
        parts.append(reference["collection_id"])
    data: dict[str, Any] = json.loads(root.joinpath(*parts, reference["id"] + ".json").read_text())
    return data


def assert_remembered(reply: ToolReply) -> None:
    assert not reply.is_error, reply.payload
    assert reply.payload["status"] == "remembered", reply.payload


def list_tools_text(client: McpClient) -> str:
    response = client.rpc("tools/call", {"name": "list_tools", "arguments": {}})
    text: str = response["result"]["content"][0]["text"]
    return text


# --- gate ----------------------------------------------------------------------------------


def test_remember_is_absent_and_unknown_when_the_gate_is_off(
    mcp: Callable[..., McpClient], memory_root: Path
) -> None:
    client = mcp()
    assert TOOL not in client.tool_names()
    listing = list_tools_text(client)
    assert TOOL not in listing
    response = client.rpc("tools/call", {"name": TOOL, "arguments": draft()})
    assert response["error"] == {"code": -32602, "message": f"Unknown tool: {TOOL}"}
    assert not os.path.lexists(memory_root)


def test_remember_gate_enables_only_remember(client: McpClient) -> None:
    names = ["list_tools", "memory_recall", "memory_list", "memory_inspect", TOOL]
    assert client.tool_names() == names
    listing = list_tools_text(client)
    assert listing.endswith("Available tools: " + ", ".join(names))


# --- schema --------------------------------------------------------------------------------


@pytest.fixture
def schema(client: McpClient) -> dict[str, Any]:
    tools = client.rpc("tools/list")["result"]["tools"]
    entry = next(tool for tool in tools if tool["name"] == TOOL)
    result: dict[str, Any] = entry["inputSchema"]
    return result


def object_schemas(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield node
        for value in node.values():
            yield from object_schemas(value)
    elif isinstance(node, list):
        for value in node:
            yield from object_schemas(value)


def schema_values(node: Any, key: str) -> Iterator[Any]:
    if isinstance(node, dict):
        for name, value in node.items():
            if name == key and not isinstance(value, dict):
                yield value
            yield from schema_values(value, key)
    elif isinstance(node, list):
        for value in node:
            yield from schema_values(value, key)


def test_remember_schema_top_level_structure(schema: dict[str, Any]) -> None:
    # Issue 12: one flat object; the per-scope oneOf branches became descriptions.
    assert list(schema) == ["type", "properties", "required", "additionalProperties"]
    assert schema["type"] == "object"
    assert list(schema["properties"]) == [*REQUIRED, "occurred_at"]
    assert schema["required"] == REQUIRED
    assert schema["additionalProperties"] is False
    properties = schema["properties"]
    assert properties["scope"]["enum"] == [scope.value for scope in Scope]
    assert properties["namespace"]["properties"]["kind"]["enum"] == [
        "aspect",
        "person",
        "group",
        "relationship",
        "domain",
        "project",
        "topic",
    ]
    assert properties["namespace"]["required"] == ["kind", "id", "label"]
    assert properties["kind"]["enum"] == [
        "attribute",
        "perspective",
        "summary",
        "preference",
        "practice",
        "decision",
        "constraint",
        "state",
        "event",
        "question",
        "reference",
    ]
    assert properties["origin"]["enum"] == ["explicit_user_statement", "user_approved_proposal"]
    collection = properties["collection"]["anyOf"]
    assert collection[0] == {"type": "null"}
    assert collection[1]["required"] == ["id", "label"]
    assert {"type": "null"} in properties["title"]["anyOf"]
    assert {"type": "null"} in properties["language"]["anyOf"]
    assert properties["tags"]["minItems"] == 0
    assert properties["tags"]["maxItems"] == 10


def test_remember_schema_forbids_extra_properties_at_every_level(schema: dict[str, Any]) -> None:
    objects = list(object_schemas(schema))
    assert len(objects) == 1 + 2  # top level, namespace, collection
    assert all(node["additionalProperties"] is False for node in objects)


def test_remember_schema_is_portable(schema: dict[str, Any]) -> None:
    patterns = list(schema_values(schema, "pattern"))
    assert patterns
    for pattern in patterns:
        assert pattern.startswith("^") and pattern.endswith("$"), pattern
        assert not re.search(r"\\[dwsS]", pattern), pattern
    assert max(schema_values(schema, "maxLength")) <= 1000
    content = schema["properties"]["content"]
    assert "maxLength" not in content
    assert "4,000" in content["description"]


def test_remember_schema_descriptions_state_what_each_scope_takes(
    schema: dict[str, Any],
) -> None:
    # Issue 12: what the six oneOf branches said is now said in words.
    properties = schema["properties"]
    namespace_kind = properties["namespace"]["properties"]["kind"]["description"]
    kind = properties["kind"]["description"]
    for scope in Scope:
        rule = SCOPE_RULES[scope]
        allowed = ", ".join(rule.namespace_kinds)
        assert f"{scope.value}: {allowed}" in namespace_kind
        group = kind.split(f"{scope.value}: ", 1)[1].split(" | ", 1)[0]
        assert [entry.split(": ", 1)[0] for entry in group.split("; ")] == list(rule.memory_kinds)
    occurred_at = properties["occurred_at"]["description"]
    assert "Required for kind event (scope project)" in occurred_at
    assert "refused for any other kind even as null" in occurred_at
    assert properties["occurred_at"]["pattern"] == (
        "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"
    )


def test_remember_schema_describes_guidance_for_every_scope_and_kind(
    schema: dict[str, Any],
) -> None:
    kind = schema["properties"]["kind"]["description"]
    groups = kind.split("Writing guidance by scope: ", 1)[1].split(" | ")
    assert [group.split(": ", 1)[0] for group in groups] == [scope.value for scope in Scope]
    for group, scope in zip(groups, Scope, strict=True):
        for item in SCOPE_RULES[scope].kinds:
            assert f"{item.kind}: {item.guidance}" in group
    scope_text = schema["properties"]["scope"]["description"]
    for scope in Scope:
        assert f"{scope.value}: {SCOPE_RULES[scope].definition}" in scope_text


# --- validation order ----------------------------------------------------------------------

LONG = "x" * 101
# (arguments, code, field): most rows hold two faults, the first of which must win.
VALIDATION_CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("origin missing beats unknown key", without("origin", extra=1), "invalid_origin", "origin"),
    ("origin manual", draft(origin="manual", scope="x"), "invalid_origin", "origin"),
    ("origin import", draft(origin="import"), "invalid_origin", "origin"),
    ("origin null", draft(origin=None), "invalid_origin", "origin"),
    ("origin array", draft(origin=["explicit_user_statement"]), "invalid_origin", "origin"),
    ("origin object", draft(origin={"a": 1}), "invalid_origin", "origin"),
    ("origin case", draft(origin="Explicit_user_statement"), "invalid_origin", "origin"),
    ("missing key beats scope", without("tags", scope="x"), "invalid_record", "memory"),
    ("missing title", without("title"), "invalid_record", "memory"),
    ("scope beats namespace", draft(scope="work", namespace=1), "invalid_scope", "scope"),
    ("scope type", draft(scope=["project"]), "invalid_scope", "scope"),
    ("namespace type", draft(namespace="x", collection=1), "invalid_record", "namespace"),
    (
        "namespace keys",
        draft(namespace={"kind": "project", "id": "a", "label": None, "x": 1}),
        "invalid_record",
        "namespace",
    ),
    (
        "namespace kind type beats id",
        draft(namespace={"kind": 1, "id": "Bad", "label": None}),
        "invalid_namespace",
        "namespace.kind",
    ),
    (
        "namespace id beats label",
        draft(namespace={"kind": "project", "id": "Mnemosyne", "label": " "}),
        "invalid_namespace",
        "namespace.id",
    ),
    (
        "namespace id is not trimmed",
        draft(namespace={"kind": "project", "id": " mnemosyne", "label": None}),
        "invalid_namespace",
        "namespace.id",
    ),
    (
        "namespace label beats collection",
        draft(namespace={"kind": "project", "id": "a", "label": LONG}, collection=1),
        "invalid_record",
        "namespace.label",
    ),
    ("collection type beats kind", draft(collection=[], kind="x"), "invalid_record", "collection"),
    ("collection keys", draft(collection={"id": "a"}), "invalid_record", "collection"),
    (
        "collection id beats label",
        draft(collection={"id": "a-", "label": ""}),
        "invalid_collection",
        "collection.id",
    ),
    (
        "collection label beats kind",
        draft(collection={"id": "a", "label": "  \n "}, kind="x"),
        "invalid_record",
        "collection.label",
    ),
    (
        "unknown kind beats namespace kind",
        draft(kind="note", namespace={"kind": "topic", "id": "a", "label": None}),
        "invalid_kind",
        "kind",
    ),
    (
        "namespace kind beats kind",
        draft(kind="preference", namespace={"kind": "topic", "id": "a", "label": None}),
        "invalid_namespace",
        "namespace.kind",
    ),
    (
        "unknown namespace kind",
        draft(namespace={"kind": "planet", "id": "a", "label": None}),
        "invalid_namespace",
        "namespace.kind",
    ),
    (
        "kind beats occurred_at",
        draft(kind="attribute", occurred_at="2026-01-01T00:00:00Z"),
        "invalid_kind",
        "kind",
    ),
    (
        "event outside project",
        draft(
            scope="knowledge",
            namespace={"kind": "topic", "id": "a", "label": None},
            kind="event",
            occurred_at="2026-01-01T00:00:00Z",
        ),
        "invalid_kind",
        "kind",
    ),
    (
        "occurred_at beats language",
        draft(occurred_at="2026-01-01T00:00:00Z", language="e"),
        "invalid_record",
        "occurred_at",
    ),
    ("occurred_at null", draft(occurred_at=None), "invalid_record", "occurred_at"),
    ("event without occurred_at", draft(kind="event"), "invalid_record", "occurred_at"),
    ("language beats title", draft(language="en_US", title=""), "invalid_record", "language"),
    ("language too long", draft(language="a" * 36), "invalid_record", "language"),
    ("title beats content", draft(title="t" * 201, content=" "), "invalid_record", "title"),
    ("title type", draft(title=7), "invalid_record", "title"),
    ("content beats tags", draft(content="\u3000\n", tags="x"), "invalid_record", "content"),
    ("content too long", draft(content="c" * 4001), "invalid_record", "content"),
    ("content null", draft(content=None), "invalid_record", "content"),
    ("tags type", draft(tags={"a": 1}), "invalid_record", "tags"),
    ("tags null", draft(tags=None), "invalid_record", "tags"),
    ("eleven tags", draft(tags=[f"t{n}" for n in range(11)]), "invalid_record", "tags"),
    ("blank tag", draft(tags=["a", " "]), "invalid_record", "tags"),
    ("long tag", draft(tags=["t" * 51]), "invalid_record", "tags"),
    ("casefold duplicate tags", draft(tags=["Straße", "STRASSE"]), "invalid_record", "tags"),
    ("whitespace duplicate tags", draft(tags=["a  b", "A b"]), "invalid_record", "tags"),
]


@pytest.mark.parametrize(
    ("arguments", "code", "field"),
    [case[1:] for case in VALIDATION_CASES],
    ids=[case[0] for case in VALIDATION_CASES],
)
def test_remember_validates_in_contract_order(
    remember: Callable[..., ToolReply],
    unchanged: None,
    arguments: dict[str, Any],
    code: str,
    field: str,
) -> None:
    reply = remember(arguments)
    assert reply.is_error
    assert reply.payload == {
        "status": "invalid_request",
        "code": code,
        "field": field,
        "message": MESSAGES[code],
    }
    assert list(reply.payload) == ["status", "code", "field", "message"]


@pytest.mark.parametrize(
    ("arguments", "name"),
    [
        (draft(bogus=1), "bogus"),
        (draft(extra=1, scope="x"), "extra"),
        (without("tags", namspace={}), "namspace"),
    ],
)
def test_remember_names_an_unexpected_argument_after_origin(
    remember: Callable[..., ToolReply], unchanged: None, arguments: dict[str, Any], name: str
) -> None:
    reply = remember(arguments)
    assert reply.is_error
    assert reply.payload == unexpected_argument("invalid_record", name)


def test_remember_validation_failure_logs_code_and_field_only(
    remember: Callable[..., ToolReply], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    remember(draft(scope="work"))
    [line] = [r for r in caplog.records if r.name == LOGGER]
    assert line.getMessage() == (
        "event=memory_remember outcome=invalid_request code=invalid_scope field=scope"
    )
    assert line.levelno == logging.WARNING


def test_remember_rejects_a_lone_surrogate_without_touching_disk(
    client: McpClient, unchanged: None
) -> None:
    reply = client.call(TOOL, draft(content="text \ud800 here"))
    assert reply.payload == {
        "status": "invalid_request",
        "code": "invalid_record",
        "field": "memory",
        "message": "memory field is invalid",
    }


# --- occurred_at -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("2026-07-20T09:30:00Z", "2026-07-20T09:30:00Z"),
        ("2999-12-31T23:59:59Z", "2999-12-31T23:59:59Z"),
        ("2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"),
        ("\uff12\uff10\uff12\uff16-07-20T09:30:00Z", "2026-07-20T09:30:00Z"),
    ],
)
def test_remember_stores_event_instants(
    remember: Callable[..., ToolReply], memory_root: Path, given: str, kept: str
) -> None:
    reply = remember(event(occurred_at=given))
    assert_remembered(reply)
    data = stored(memory_root, reply)
    assert data["occurred_at"] == kept
    assert list(data)[-1] == "occurred_at"


@pytest.mark.parametrize(
    "given",
    [
        "2026-07-20T09:30:00.5Z",
        "2026-07-20T09:30:00+00:00",
        "2026-07-20t09:30:00Z",
        "2026-07-20T09:30:00z",
        "2026-02-30T00:00:00Z",
        "2026-07-20T09:30:60Z",
        "2026-\uff107-20T09:30:00Z",
        "2026-07-20T09:30:0\u0661Z",
        "2026-07-20 09:30:00Z",
        "2026-07-20T09:30:00Z\n",
        20260720,
        None,
    ],
)
def test_remember_rejects_bad_event_instants(
    remember: Callable[..., ToolReply], unchanged: None, given: Any
) -> None:
    reply = remember(event(occurred_at=given))
    assert (reply.payload["code"], reply.payload["field"]) == ("invalid_record", "occurred_at")


def test_remember_writes_no_occurred_at_for_other_kinds(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    reply = remember(draft())
    assert "occurred_at" not in stored(memory_root, reply)


# --- host normalization -------------------------------------------------------------------


def test_remember_decodes_stringified_objects_and_tags(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    arguments = draft(
        namespace=json.dumps({"kind": "project", "id": "mnemosyne", "label": "M"}),
        collection=json.dumps({"id": "decisions", "label": None}),
        tags=json.dumps(["one", "two"]),
    )
    reply = remember(arguments)
    assert_remembered(reply)
    data = stored(memory_root, reply)
    assert data["namespace"] == {"kind": "project", "id": "mnemosyne", "label": "M"}
    assert data["collection"] == {"id": "decisions", "label": None}
    assert data["tags"] == ["one", "two"]


def test_remember_reads_collection_null_text_as_null(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    reply = remember(draft(collection="null"))
    assert_remembered(reply)
    assert reply.payload["reference"]["collection_id"] is None
    assert stored(memory_root, reply)["collection"] is None


def test_remember_keeps_null_text_literal_in_title_labels_and_language(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    reply = remember(
        draft(
            title="null",
            language="null",
            namespace={"kind": "project", "id": "mnemosyne", "label": "null"},
            collection={"id": "decisions", "label": "null"},
        )
    )
    assert_remembered(reply)
    data = stored(memory_root, reply)
    assert data["title"] == "null"
    assert data["language"] == "null"
    assert data["namespace"]["label"] == "null"
    assert data["collection"]["label"] == "null"


def test_remember_normalizes_stored_values(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    reply = remember(
        draft(
            language=None,
            title="  Cafe\u0301 title \r\n",
            content="\n line one\r\nline  two\rend  ",
            tags=["  spaced\u00a0  tag ", "Other"],
            namespace={"kind": "project", "id": "mnemosyne", "label": " Label "},
        )
    )
    assert_remembered(reply)
    data = stored(memory_root, reply)
    assert data["language"] == "und"
    assert data["title"] == "Caf\u00e9 title"
    assert data["content"] == "line one\nline  two\nend"
    assert data["tags"] == ["spaced tag", "Other"]
    assert data["namespace"]["label"] == "Label"


# --- content policy ----------------------------------------------------------------------

# One refused and one stored example per detector (MEMORY_WRITE §8.3).
DETECTOR_CASES: list[tuple[str, str | None]] = [
    ("-----BEGIN OPENSSH PRIVATE KEY-----", "private_key_shape"),
    ("-----BEGIN PUBLIC KEY-----", None),
    ("AKIAABCDEFGHIJKLMNOP", "credential_shape"),
    ("AKIAABCDEFGHIJKLMNOPQ", None),
    ("ghp_" + "a" * 20, "credential_shape"),
    ("ghp_" + "a" * 19, None),
    ("xoxb-1234567890", "credential_shape"),
    ("xoxb-123456789", None),
    ("sk_live_" + "a" * 16, "credential_shape"),
    ("sk_live_" + "a" * 15, None),
    ("AIza" + "b" * 35, "credential_shape"),
    ("AIza" + "b" * 34, None),
    ("sk-" + "c" * 20, "credential_shape"),
    ("task-" + "c" * 20, None),
    ("Authorization: Bearer abc", "credential_shape"),
    ("Authorization: Token abc", None),
    ("password=hunter2", "credential_shape"),
    ("password_hash=abcd", None),
    ("https://user:pass@example.com", "credential_shape"),
    ("https://user:@host", None),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "compact_token_shape"),
    ("eyJhbGciOiJIUzI1NiJ9.payload", None),
    ("123-45-6789", "government_identifier_shape"),
    ("555-123-4567", None),
    ("4111 1111 1111 1111", "payment_card_shape"),
    ("ISBN 978-3-16-148410-0", None),
]


@pytest.mark.parametrize(("text", "reason"), DETECTOR_CASES)
def test_remember_applies_each_detector_to_content(
    remember: Callable[..., ToolReply], memory_root: Path, text: str, reason: str | None
) -> None:
    before = snapshot_tree(memory_root.parent)
    reply = remember(draft(content=f"Note: {text} here"))
    if reason is None:
        assert_remembered(reply)
        assert stored(memory_root, reply)["content"] == f"Note: {text} here"
        return
    assert reply.is_error
    assert reply.payload == {
        "status": "refused",
        "code": "disallowed_content",
        "field": "content",
        "reason": reason,
        "message": REFUSAL_MESSAGE,
    }
    assert snapshot_tree(memory_root.parent) == before


SECRET = "password=hunter2"
FIELD_CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        "namespace id",
        draft(namespace={"kind": "project", "id": "123-45-6789", "label": None}),
        "namespace",
    ),
    (
        "namespace label",
        draft(namespace={"kind": "project", "id": "a", "label": SECRET}),
        "namespace",
    ),
    ("collection id", draft(collection={"id": "123-45-6789", "label": None}), "collection"),
    ("collection label", draft(collection={"id": "a", "label": SECRET}), "collection"),
    ("title", draft(title=SECRET), "title"),
    ("content", draft(content=SECRET), "content"),
    ("tag", draft(tags=["ok", SECRET]), "tags"),
    ("collapsed tag", draft(tags=["4111  1111  1111  1111"]), "tags"),
    ("title before content", draft(title=SECRET, content="123-45-6789"), "title"),
    (
        "label before tags",
        draft(collection={"id": "a", "label": SECRET}, tags=[SECRET]),
        "collection",
    ),
]


@pytest.mark.parametrize(
    ("arguments", "field"),
    [case[1:] for case in FIELD_CASES],
    ids=[case[0] for case in FIELD_CASES],
)
def test_remember_reports_the_first_refused_field(
    remember: Callable[..., ToolReply], unchanged: None, arguments: dict[str, Any], field: str
) -> None:
    reply = remember(arguments)
    assert (reply.payload["status"], reply.payload["field"]) == ("refused", field)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("123-45-6789 and eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "compact_token_shape"),
        ("4111111111111111 and 123-45-6789", "government_identifier_shape"),
    ],
)
def test_remember_reports_the_first_detector_in_table_order(
    remember: Callable[..., ToolReply], unchanged: None, content: str, reason: str
) -> None:
    assert remember(draft(content=content)).payload["reason"] == reason


def test_remember_keeps_double_spaced_card_digits_in_content(
    remember: Callable[..., ToolReply],
) -> None:
    assert_remembered(remember(draft(content="4111  1111  1111  1111")))


def test_remember_refusal_logs_no_field_no_reason_and_no_value(
    remember: Callable[..., ToolReply], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    remember(draft(title=SECRET))
    lines = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert lines == [
        "event=memory_remember outcome=refused code=disallowed_content scope=project "
        "namespace_kind=project memory_kind=decision collection_present=True "
        "origin=explicit_user_statement"
    ]
    assert all("hunter2" not in r.getMessage() for r in caplog.records)
    assert all("credential_shape" not in r.getMessage() for r in caplog.records)


# --- duplicates ----------------------------------------------------------------------------


# Issue 12: the reference carries schema_version, so it is ready for memory_inspect.
existing_reference = reference_of


@pytest.mark.parametrize(
    ("lifecycle", "status"),
    [
        ({"state": "active", "revision": 4}, "already_exists"),
        ({"state": "archived", "revision": 2}, "existing_archived"),
    ],
    ids=["active-already-exists", "archived-existing-archived"],
)
def test_remember_answers_for_a_duplicate_by_its_lifecycle(
    remember: Callable[..., ToolReply],
    memory_root: Path,
    lifecycle: dict[str, Any],
    status: str,
) -> None:
    record = existing(memory_root, lifecycle=lifecycle)
    before = snapshot_tree(memory_root.parent)
    reply = remember(draft())
    assert not reply.is_error
    assert reply.payload == {
        "status": status,
        "reference": existing_reference(record),
        "lifecycle": lifecycle,
    }
    assert snapshot_tree(memory_root.parent) == before


@pytest.mark.parametrize(
    "overrides",
    [
        {"language": "de"},
        {"language": None},
        {"origin": "user_approved_proposal"},
        {"namespace": {"kind": "project", "id": "mnemosyne", "label": None}},
        {"collection": {"id": "decisions", "label": "Other"}},
        {"tags": ["MEMORY-DOMAIN", "Architecture"]},
        {"title": "  Shared memory ownership\r\n"},
        {"content": "Canonical memory concepts belong to the shared memory domain.  "},
    ],
    ids=lambda overrides: next(iter(overrides)),
)
def test_remember_ignores_language_labels_origin_tag_order_and_case(
    remember: Callable[..., ToolReply], memory_root: Path, overrides: dict[str, Any]
) -> None:
    existing(memory_root)
    before = snapshot_tree(memory_root.parent)
    reply = remember(draft(**overrides))
    assert reply.payload["status"] == "already_exists"
    assert reply.payload["reference"]["id"] == CANONICAL_ID
    assert snapshot_tree(memory_root.parent) == before


@pytest.mark.parametrize(
    "overrides",
    [
        {"title": "shared memory ownership"},
        {"title": None},
        {"content": "Canonical memory concepts  belong to the shared memory domain."},
        {"tags": ["architecture"]},
        {"tags": ["architecture", "memory-domain", "x"]},
        {"kind": "constraint"},
        {"collection": None},
        {"collection": {"id": "other", "label": "Decisions"}},
        {"namespace": {"kind": "project", "id": "other", "label": "Mnemosyne"}},
    ],
    ids=lambda overrides: f"{next(iter(overrides))}-{str(next(iter(overrides.values())))[:12]}",
)
def test_remember_creates_a_new_record_when_an_identity_field_differs(
    remember: Callable[..., ToolReply], memory_root: Path, overrides: dict[str, Any]
) -> None:
    existing(memory_root)
    reply = remember(draft(**overrides))
    assert_remembered(reply)
    assert len(record_files(memory_root)) == 2


def test_remember_distinguishes_namespace_kinds_sharing_a_directory(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    existing(
        memory_root,
        scope="relationship",
        namespace={"kind": "person", "id": "alice", "label": None},
        collection=None,
        kind="perspective",
    )
    reply = remember(
        draft(
            scope="relationship",
            namespace={"kind": "group", "id": "alice", "label": None},
            collection=None,
            kind="perspective",
        )
    )
    assert_remembered(reply)
    assert len(list((memory_root / "relationship" / "alice").glob("*.json"))) == 2


def test_remember_compares_event_instants(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    existing(memory_root, kind="event", occurred_at="2026-07-20T09:30:00Z")
    same = remember(event(occurred_at="\uff12\uff10\uff12\uff16-07-20T09:30:00Z"))
    assert same.payload["status"] == "already_exists"
    assert same.payload["reference"]["id"] == CANONICAL_ID
    later = remember(event(occurred_at="2026-07-20T09:30:01Z"))
    assert_remembered(later)
    assert len(record_files(memory_root)) == 2


def test_remember_takes_the_first_duplicate_in_discovery_order(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    existing(memory_root, id=OTHER_ID, lifecycle={"state": "archived", "revision": 2})
    existing(memory_root)  # mem_0... sorts before mem_f...
    reply = remember(draft())
    assert (reply.payload["status"], reply.payload["reference"]["id"]) == (
        "already_exists",
        CANONICAL_ID,
    )


def test_remember_never_matches_legacy_or_misplaced_records(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    content = draft()["content"]
    write_record(
        memory_root,
        {"schema_version": 1, "id": "legacy", "content": content},
        "project",
        "mnemosyne",
        "decisions",
        "legacy.json",
    )
    write_record(
        memory_root, canonical_record(), "project", "mnemosyne", "misplaced", f"{CANONICAL_ID}.json"
    )
    assert_remembered(remember(draft()))


# --- files, modes, lazy creation -----------------------------------------------------------


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_remember_creates_missing_directories_0700_and_the_file_0600(
    remember: Callable[..., ToolReply], memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = memory_root.parent / "deep" / "er" / "memory"
    monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(root))
    reply = remember(draft())
    assert_remembered(reply)
    chain = [
        root.parent.parent,
        root.parent,
        root,
        root / "project",
        root / "project" / "mnemosyne",
        root / "project" / "mnemosyne" / "decisions",
    ]
    assert [mode(path) for path in chain] == [0o700] * len(chain)
    [record] = record_files(root)
    assert mode(record) == 0o600
    assert record.name == reply.payload["reference"]["id"] + ".json"
    assert os.listdir(record.parent) == [record.name]


def test_remember_leaves_existing_directory_modes_alone(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    namespace = memory_root / "project" / "mnemosyne"
    namespace.mkdir(parents=True)
    for path, wanted in (
        (memory_root, 0o755),
        (memory_root / "project", 0o750),
        (namespace, 0o711),
    ):
        path.chmod(wanted)
    assert_remembered(remember(draft()))
    assert [mode(memory_root), mode(memory_root / "project"), mode(namespace)] == [
        0o755,
        0o750,
        0o711,
    ]
    assert mode(namespace / "decisions") == 0o700


def test_remember_makes_new_directories_durable_in_their_parents(
    remember: Callable[..., ToolReply], memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    real = files._fsync_directory

    def spy(fd: int) -> None:
        synced.append(os.fstat(fd).st_ino)
        real(fd)

    monkeypatch.setattr(files, "_fsync_directory", spy)
    assert_remembered(remember(draft()))
    parents = [
        memory_root.parent,
        memory_root,
        memory_root / "project",
        memory_root / "project" / "mnemosyne",
        memory_root / "project" / "mnemosyne" / "decisions",
    ]
    assert {path.stat().st_ino for path in parents} <= set(synced)


def test_remember_writes_the_canonical_bytes(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    reply = remember(draft(content="Café au lait ☕", collection=None))
    after = datetime.now(UTC)
    assert_remembered(reply)
    assert reply.payload["reference"]["collection_id"] is None
    [path] = record_files(memory_root)
    assert path.parent == memory_root / "project" / "mnemosyne"
    data = path.read_bytes()
    assert serialize_canonical(parse_record_bytes(data)) == data  # type: ignore[arg-type]
    assert "Café au lait ☕".encode() in data
    record = json.loads(data)
    assert list(record) == V2_KEY_ORDER
    assert data == (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode()
    assert record["id"] == reply.payload["reference"]["id"]
    assert re.fullmatch(r"mem_[0-9a-f]{32}", record["id"])
    assert record["provenance"] == {
        "origin": "explicit_user_statement",
        "recorded_via": "memory_remember",
    }
    assert record["lifecycle"] == {"state": "active", "revision": 1}
    assert record["created_at"] == record["updated_at"]
    created = datetime.strptime(record["created_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert before <= created <= after


def test_remember_success_result_shape(remember: Callable[..., ToolReply]) -> None:
    reply = remember(draft())
    assert "isError" not in reply.raw
    assert list(reply.payload) == ["status", "reference", "lifecycle"]
    # Issue 12: schema_version leads the reference, as in every other result.
    assert list(reply.payload["reference"]) == [
        "schema_version",
        "scope",
        "namespace_id",
        "collection_id",
        "id",
    ]
    assert reply.payload["lifecycle"] == {"state": "active", "revision": 1}
    assert reply.raw["structuredContent"] == reply.payload


def test_remember_reports_write_conflict_for_a_taken_identity(
    remember: Callable[..., ToolReply], memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = place_canonical(memory_root, canonical_record())
    monkeypatch.setattr(
        "mymcp.plugins.mnemosyne.memory.services.remember.new_memory_id", lambda: CANONICAL_ID
    )
    before = snapshot_tree(memory_root.parent)
    reply = remember(draft(content="A different decision."))
    assert reply.is_error
    assert reply.payload == {
        "status": "conflict",
        "code": "write_conflict",
        "message": "generated memory identity conflicts with an existing record",
    }
    assert snapshot_tree(memory_root.parent) == before
    assert json.loads(path.read_text())["content"] == canonical_record()["content"]


def test_remember_ignores_and_cleans_crash_leftovers(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    directory = memory_root / "project" / "mnemosyne" / "decisions"
    record = canonical_record()
    parts = directory.relative_to(memory_root).parts
    leftover = write_record(memory_root, record, *parts, f".{CANONICAL_ID}.a1b2c3d4.tmp")
    reply = remember(draft())
    assert_remembered(reply)
    assert not leftover.exists()
    assert [p.name for p in directory.iterdir()] == [reply.payload["reference"]["id"] + ".json"]


def test_remember_refuses_a_symlinked_memory_root(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    target = memory_root.parent / "elsewhere"
    target.mkdir()
    memory_root.symlink_to(target)
    reply = remember(draft())
    assert reply.payload == {
        "status": "storage_error",
        "code": "memory_source_unavailable",
        "message": "memory could not be stored",
    }
    assert list(target.iterdir()) == []


def test_remember_reports_an_equal_record_behind_a_symlinked_root(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    # Like recall, the duplicate search reads through a symlinked root; only writing refuses it.
    target = memory_root.parent / "elsewhere"
    place_canonical(target, canonical_record())
    memory_root.symlink_to(target)
    before = snapshot_tree(target)
    reply = remember(draft(language="fr", origin="user_approved_proposal"))
    assert not reply.is_error
    assert reply.payload == {
        "status": "already_exists",
        "reference": {
            "schema_version": 2,
            "scope": "project",
            "namespace_id": "mnemosyne",
            "collection_id": "decisions",
            "id": CANONICAL_ID,
        },
        "lifecycle": {"state": "active", "revision": 1},
    }
    assert snapshot_tree(target) == before


def test_remember_counts_candidates_behind_a_symlinked_root(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    target = memory_root.parent / "elsewhere"
    junk_files(target / "project" / "other", files.MAX_CANDIDATES + 1)
    memory_root.symlink_to(target)
    before = snapshot_tree(target)
    assert remember(draft()).payload["code"] == "candidate_limit_exceeded"
    assert snapshot_tree(target) == before


def test_remember_refuses_a_dangling_root_symlink(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    target = memory_root.parent / "nowhere"
    memory_root.symlink_to(target)
    reply = remember(draft())
    assert (reply.payload["status"], reply.payload["code"]) == (
        "storage_error",
        "memory_source_unavailable",
    )
    assert not os.path.lexists(target)


def test_remember_refuses_a_symlinked_namespace_directory(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    target = memory_root.parent / "elsewhere"
    target.mkdir()
    (memory_root / "project").mkdir(parents=True)
    (memory_root / "project" / "mnemosyne").symlink_to(target)
    reply = remember(draft())
    assert reply.payload["code"] == "memory_source_unavailable"
    assert list(target.iterdir()) == []


def junk_files(directory: Path, count: int) -> None:
    directory.mkdir(parents=True)
    for number in range(count):
        (directory / f"{number}.json").write_bytes(b"{}")


def test_remember_fails_closed_past_the_candidate_limit(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    junk_files(memory_root / "project" / "other", files.MAX_CANDIDATES + 1)
    before = snapshot_tree(memory_root.parent)
    reply = remember(draft())
    assert reply.payload == {
        "status": "storage_error",
        "code": "candidate_limit_exceeded",
        "message": "memory scope contains more than 1000 candidate files",
    }
    assert snapshot_tree(memory_root.parent) == before


def test_remember_accepts_a_scope_at_the_candidate_limit(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    junk_files(memory_root / "project" / "other", files.MAX_CANDIDATES)
    assert_remembered(remember(draft()))
    assert remember(draft(content="One more.")).payload["code"] == "candidate_limit_exceeded"


def test_remember_counts_only_what_discovery_would_find(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    junk_files(memory_root / "project" / "a" / "b" / "c" / "d" / "e", files.MAX_CANDIDATES + 1)
    outside = memory_root.parent / "outside"
    junk_files(outside, files.MAX_CANDIDATES + 1)
    (memory_root / "project" / "linked").symlink_to(outside)
    other_scope = memory_root / "knowledge" / "other"
    junk_files(other_scope, files.MAX_CANDIDATES + 1)
    assert_remembered(remember(draft()))


def test_remember_refuses_a_symlinked_scope_directory(
    remember: Callable[..., ToolReply], memory_root: Path
) -> None:
    target = memory_root.parent / "elsewhere"
    target.mkdir()
    memory_root.mkdir()
    (memory_root / "project").symlink_to(target)
    reply = remember(draft())
    assert reply.payload["code"] == "memory_source_unavailable"
    assert list(target.iterdir()) == []


# --- logs ----------------------------------------------------------------------------------


def test_remember_logs_one_bounded_event_per_outcome(
    remember: Callable[..., ToolReply], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    secret_bits = ["Zanzibar-title", "Quokka-content", "Label-Wombat", "tag-narwhal", "coll-lbl"]
    arguments = draft(
        title=secret_bits[0],
        content=secret_bits[1],
        namespace={"kind": "project", "id": "mnemosyne", "label": secret_bits[2]},
        collection={"id": "decisions", "label": secret_bits[4]},
        tags=[secret_bits[3]],
    )
    first = remember(arguments)
    second = remember(arguments)
    memory_id = first.payload["reference"]["id"]
    lines = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    block = (
        "scope=project namespace_kind=project memory_kind=decision collection_present=True "
        "origin=explicit_user_statement"
    )
    tail = f"memory_id={memory_id} lifecycle_state=active revision=1"
    assert lines == [
        f"event=memory_remember outcome=remembered {block} {tail}",
        f"event=memory_remember outcome=already_exists {block} {tail}",
    ]
    assert second.payload["reference"]["id"] == memory_id
    everything = "\n".join(r.getMessage() for r in caplog.records)
    for bit in secret_bits:
        assert bit not in everything
