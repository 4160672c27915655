"""memory_revise through POST /mcp: gate, schema, validation order, policy, semantics, files."""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory.storage import files
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore
from mymcp.plugins.mnemosyne.tools import schemas
from tests.helpers import (
    CANONICAL_ID,
    McpClient,
    ToolReply,
    canonical_record,
    place_canonical,
    snapshot_tree,
    write_record,
)
from tests.mnemosyne.tools.mutation_support import (
    ALL_TOOLS,
    FIXED_STAMP,
    OTHER_ID,
    READ_TOOLS,
    REFUSAL_MESSAGE,
    existing,
    fix_clock,
    forbid_clock,
    on_disk,
    record_path,
    reference_of,
    tool_events,
)

TOOL = "memory_revise"
SECRET = "password=hunter2"
REFERENCE = reference_of(canonical_record())


def request(**overrides: Any) -> dict[str, Any]:
    """Valid revise arguments for the default record at revision 1, with overrides."""
    arguments: dict[str, Any] = {
        "reference": dict(REFERENCE),
        "expected_revision": 1,
        "namespace_label": "Mnemosyne plugin",
        "collection_label": "Design decisions",
        "title": "Memory ownership",
        "content": "The memory domain owns every canonical memory concept.",
        "tags": ["domain", "Architecture"],
    }
    arguments.update(overrides)
    return arguments


def without(*keys: str, **overrides: Any) -> dict[str, Any]:
    arguments = request(**overrides)
    for key in keys:
        del arguments[key]
    return arguments


def unchanged_request(record: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    """Revise arguments that repeat exactly what ``record`` holds."""
    collection = record["collection"]
    arguments: dict[str, Any] = {
        "reference": reference_of(record),
        "expected_revision": record["lifecycle"]["revision"],
        "namespace_label": record["namespace"]["label"],
        "title": record["title"],
        "content": record["content"],
        "tags": list(record["tags"]),
    }
    if collection is not None:
        arguments["collection_label"] = collection["label"]
    arguments.update(overrides)
    return arguments


def invalid(code: str, field: str, message: str) -> dict[str, Any]:
    return {"status": "invalid_request", "code": code, "field": field, "message": message}


def invalid_record(field: str, message: str) -> dict[str, Any]:
    return invalid("invalid_record", field, message)


BAD_REFERENCE = "reference is invalid"
BAD_REVISION = "expected revision is invalid"


@pytest.fixture
def client(mcp: Callable[..., McpClient]) -> McpClient:
    return mcp(revise=True)


@pytest.fixture
def revise(client: McpClient) -> Callable[[dict[str, Any]], ToolReply]:
    return lambda arguments: client.call(TOOL, arguments)


@pytest.fixture
def stored(memory_root: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The default record on disk, and a fixed clock."""
    fix_clock(monkeypatch)
    return existing(memory_root)


def list_tools_text(client: McpClient) -> str:
    response = client.rpc("tools/call", {"name": "list_tools", "arguments": {}})
    text: str = response["result"]["content"][0]["text"]
    return text


# --- gate -------------------------------------------------------------------------------------


def test_revise_is_absent_and_unknown_when_its_gate_is_off(
    mcp: Callable[..., McpClient], memory_root: Path
) -> None:
    existing(memory_root)
    before = snapshot_tree(memory_root)
    client = mcp(remember=True, archive_restore=True, forget=True)
    assert TOOL not in client.tool_names()
    assert TOOL not in list_tools_text(client)
    response = client.rpc("tools/call", {"name": TOOL, "arguments": request()})
    assert response["error"] == {"code": -32602, "message": f"Unknown tool: {TOOL}"}
    assert snapshot_tree(memory_root) == before


def test_revise_gate_enables_only_revise(client: McpClient) -> None:
    names = [*READ_TOOLS, TOOL]
    assert client.tool_names() == names
    assert list_tools_text(client).endswith("Available tools: " + ", ".join(names))


def test_all_gates_give_the_mutation_tools_in_manifest_order(
    mcp: Callable[..., McpClient],
) -> None:
    client = mcp(remember=True, revise=True, archive_restore=True, forget=True)
    assert client.tool_names() == ALL_TOOLS


def test_revise_is_destructive_and_not_read_only(client: McpClient) -> None:
    entry = client.declaration(TOOL)
    assert entry["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    }


# --- schema ------------------------------------------------------------------------------------


@pytest.fixture
def schema(client: McpClient) -> dict[str, Any]:
    entry = client.declaration(TOOL)
    result: dict[str, Any] = entry["inputSchema"]
    return result


def test_revise_schema_has_seven_properties_six_required_and_no_one_of(
    schema: dict[str, Any],
) -> None:
    assert list(schema) == ["type", "properties", "required", "additionalProperties"]
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert list(schema["properties"]) == [
        "reference",
        "expected_revision",
        "namespace_label",
        "collection_label",
        "title",
        "content",
        "tags",
    ]
    assert schema["required"] == [
        "reference",
        "expected_revision",
        "namespace_label",
        "title",
        "content",
        "tags",
    ]


def test_revise_schema_reference_is_the_lifecycle_reference(schema: dict[str, Any]) -> None:
    assert schema["properties"]["reference"] == schemas.canonical_reference()
    assert schema["properties"]["expected_revision"] == {"type": "integer", "minimum": 1}


@pytest.mark.parametrize(
    ("key", "limit"), [("namespace_label", 100), ("collection_label", 100), ("title", 200)]
)
def test_revise_schema_nullable_text_is_an_any_of_with_a_null_branch(
    schema: dict[str, Any], key: str, limit: int
) -> None:
    # Issue 12: a type array (["string","null"]) is not portable; anyOf with a null branch is,
    # and a pattern beside a length is dropped by grammar converters.
    prop = schema["properties"][key]
    assert prop["anyOf"] == [
        {"type": "string", "minLength": 1, "maxLength": limit},
        {"type": "null"},
    ]
    assert "type" not in prop
    assert "null removes it" in prop["description"]


def test_revise_schema_content_states_its_limit_without_publishing_it(
    schema: dict[str, Any],
) -> None:
    content = schema["properties"]["content"]
    assert content["type"] == "string"
    assert content["minLength"] == 1
    assert "maxLength" not in content
    assert "pattern" not in content
    assert "4,000" in content["description"]


def test_revise_schema_tags_are_as_for_remember(schema: dict[str, Any]) -> None:
    tags = schema["properties"]["tags"]
    assert tags["type"] == "array"
    # Issue 12: no pattern beside the length and no uniqueItems; the description says it.
    assert tags["items"] == {"type": "string", "minLength": 1, "maxLength": 50}
    assert (tags["minItems"], tags["maxItems"]) == (0, 10)
    assert "uniqueItems" not in tags
    assert "no two equal ignoring case" in tags["description"]


# --- validation order (§4.2) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "name"),
    [
        (request(bogus=1), "bogus"),
        (without("reference", extra=1), "extra"),
        (request(reference="nope", expected_revision=0, surprise=None), "surprise"),
        (request(lifecycle={"state": "archived"}), "lifecycle"),
    ],
)
def test_revise_unknown_key_is_reported_first_and_named(
    revise: Callable[..., ToolReply], arguments: dict[str, Any], name: str
) -> None:
    reply = revise(arguments)
    assert reply.is_error
    assert reply.payload == invalid_record(name, f"unexpected argument: {name}")


def test_revise_missing_reference_beats_missing_revision(revise: Callable[..., ToolReply]) -> None:
    reply = revise(without("reference", "expected_revision", "content"))
    assert reply.payload == invalid("invalid_reference", "reference", BAD_REFERENCE)


def test_revise_missing_revision_beats_a_bad_reference(revise: Callable[..., ToolReply]) -> None:
    reply = revise(without("expected_revision", reference={"schema_version": 1}))
    assert reply.payload == invalid("invalid_expected_revision", "expected_revision", BAD_REVISION)


@pytest.mark.parametrize(
    ("reference", "field"),
    [
        ([], "reference"),
        (None, "reference"),
        ({**REFERENCE, "schema_version": 1}, "reference"),
        ({**REFERENCE, "schema_version": True}, "reference"),
        ({**REFERENCE, "schema_version": 2.0}, "reference"),
        ({"schema_version": 1, "scope": "project", "id": "legacy-1"}, "reference"),
        ({**REFERENCE, "path": "x"}, "reference"),
        ({k: v for k, v in REFERENCE.items() if k != "collection_id"}, "reference"),
        ({**REFERENCE, "scope": "work", "id": "mem_x"}, "reference.scope"),
        ({**REFERENCE, "scope": None}, "reference.scope"),
        ({**REFERENCE, "namespace_id": "Mnemosyne", "id": "x"}, "reference.namespace_id"),
        ({**REFERENCE, "collection_id": "-bad", "id": "x"}, "reference.collection_id"),
        ({**REFERENCE, "collection_id": 3}, "reference.collection_id"),
        ({**REFERENCE, "id": "mem_0123456789ABCDEF0123456789ABCDEF"}, "reference.id"),
        ({**REFERENCE, "id": "legacy-1"}, "reference.id"),
    ],
)
def test_revise_reference_checks_in_order(
    revise: Callable[..., ToolReply], reference: Any, field: str
) -> None:
    reply = revise(request(reference=reference, expected_revision=0, title="  "))
    assert reply.payload == invalid("invalid_reference", field, BAD_REFERENCE)


@pytest.mark.parametrize("revision", [0, -1, True, 1.5, 1.0, "1.0", "one", None, [1]])
def test_revise_bad_expected_revision_beats_every_value_error(
    revise: Callable[..., ToolReply], revision: Any
) -> None:
    reply = revise(without("content", expected_revision=revision, title=" "))
    assert reply.payload == invalid("invalid_expected_revision", "expected_revision", BAD_REVISION)


@pytest.mark.parametrize(
    ("missing", "field"),
    [
        (("namespace_label", "title", "content", "tags"), "namespace_label"),
        (("title", "content", "tags"), "title"),
        (("content", "tags"), "content"),
        (("tags", "collection_label"), "tags"),
    ],
)
def test_revise_missing_keys_in_order(
    revise: Callable[..., ToolReply], missing: tuple[str, ...], field: str
) -> None:
    messages = {
        "namespace_label": "namespace label is invalid",
        "title": "title is invalid",
        "content": "content is invalid",
        "tags": "tags are invalid",
    }
    reply = revise(without(*missing, namespace_label=" "))
    assert reply.payload == invalid_record(field, messages[field])


def test_revise_requires_collection_label_for_a_collected_reference(
    revise: Callable[..., ToolReply],
) -> None:
    reply = revise(without("collection_label", namespace_label=" ", tags="x"))
    assert reply.payload == invalid_record(
        "collection_label", "collection label is required for collected memory"
    )


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"namespace_label": " \n", "title": ""}, "namespace_label", "namespace label is invalid"),
        ({"namespace_label": "x" * 101}, "namespace_label", "namespace label is invalid"),
        ({"namespace_label": 5}, "namespace_label", "namespace label is invalid"),
        ({"collection_label": "", "title": ""}, "collection_label", "collection label is invalid"),
        ({"collection_label": "y" * 101}, "collection_label", "collection label is invalid"),
        ({"title": "\t", "content": ""}, "title", "title is invalid"),
        ({"title": "t" * 201}, "title", "title is invalid"),
        ({"content": "   ", "tags": "nope"}, "content", "content is invalid"),
        ({"content": "c" * 4001}, "content", "content is invalid"),
        ({"content": None}, "content", "content is invalid"),
        ({"tags": ["a", "A"]}, "tags", "tags are invalid"),
        ({"tags": [f"t{i}" for i in range(11)]}, "tags", "tags are invalid"),
        ({"tags": ["x" * 51]}, "tags", "tags are invalid"),
        ({"tags": [" "]}, "tags", "tags are invalid"),
        ({"tags": None}, "tags", "tags are invalid"),
        ({"tags": {"a": 1}}, "tags", "tags are invalid"),
    ],
)
def test_revise_value_rules_in_order(
    revise: Callable[..., ToolReply], overrides: dict[str, Any], field: str, message: str
) -> None:
    assert revise(request(**overrides)).payload == invalid_record(field, message)


def test_revise_value_limits_count_after_normalization(
    revise: Callable[..., ToolReply], stored: dict[str, Any], memory_root: Path
) -> None:
    reply = revise(
        request(
            namespace_label="n" * 100,
            collection_label=" " + "c" * 100 + "\r\n",
            title="t" * 200,
            content="  " + "x" * 4000 + "  ",
            tags=[f"tag{i}" for i in range(10)],
        )
    )
    assert reply.payload["status"] == "revised"
    data = on_disk(memory_root, stored)
    assert data["collection"]["label"] == "c" * 100
    assert data["content"] == "x" * 4000


# --- host normalization -----------------------------------------------------------------------


def test_revise_decodes_a_stringified_reference_tags_and_revision(
    revise: Callable[..., ToolReply], stored: dict[str, Any], memory_root: Path
) -> None:
    reply = revise(
        request(
            reference=json.dumps(REFERENCE),
            expected_revision="1",
            tags=json.dumps(["one", "two"]),
        )
    )
    assert reply.payload["status"] == "revised"
    assert on_disk(memory_root, stored)["tags"] == ["one", "two"]


def test_revise_decodes_a_stringified_schema_version(
    revise: Callable[..., ToolReply], stored: dict[str, Any]
) -> None:
    reply = revise(request(reference={**REFERENCE, "schema_version": "2"}))
    assert reply.payload["status"] == "revised"


def test_revise_keeps_the_string_null_as_literal_text(
    revise: Callable[..., ToolReply], stored: dict[str, Any], memory_root: Path
) -> None:
    reply = revise(request(title="null", namespace_label="null", collection_label="null"))
    assert reply.payload["status"] == "revised"
    data = on_disk(memory_root, stored)
    assert data["title"] == "null"
    assert data["namespace"]["label"] == "null"
    assert data["collection"]["label"] == "null"


def test_revise_refuses_a_stringified_float_revision(revise: Callable[..., ToolReply]) -> None:
    reply = revise(request(expected_revision="1.0"))
    assert reply.payload == invalid("invalid_expected_revision", "expected_revision", BAD_REVISION)


# --- content policy -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"namespace_label": SECRET, "content": "4111 1111 1111 1111"}, "namespace_label"),
        ({"collection_label": SECRET, "title": SECRET}, "collection_label"),
        ({"title": "Authorization: Bearer abc", "content": SECRET}, "title"),
        ({"content": SECRET, "tags": ["123-45-6789"]}, "content"),
        ({"tags": ["ok", "4111  1111  1111  1111"]}, "tags"),
    ],
)
def test_revise_refusal_names_the_first_refused_field(
    revise: Callable[..., ToolReply],
    stored: dict[str, Any],
    memory_root: Path,
    overrides: dict[str, Any],
    field: str,
) -> None:
    before = snapshot_tree(memory_root)
    reply = revise(request(**overrides))
    assert reply.is_error
    assert reply.payload["status"] == "refused"
    assert reply.payload["field"] == field
    assert list(reply.payload) == ["status", "code", "field", "reason", "message"]
    assert reply.payload["code"] == "disallowed_content"
    assert reply.payload["message"] == REFUSAL_MESSAGE
    assert snapshot_tree(memory_root) == before


def test_revise_refusal_reports_the_reason(revise: Callable[..., ToolReply]) -> None:
    reply = revise(request(content="token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"))
    assert reply.payload == {
        "status": "refused",
        "code": "disallowed_content",
        "field": "content",
        "reason": "compact_token_shape",
        "message": REFUSAL_MESSAGE,
    }


def test_revise_refusal_beats_not_found(
    revise: Callable[..., ToolReply], memory_root: Path
) -> None:
    reply = revise(request(content=SECRET))
    assert reply.payload["status"] == "refused"
    assert not os.path.lexists(memory_root)


def test_revise_refusal_beats_revision_conflict(
    revise: Callable[..., ToolReply], stored: dict[str, Any]
) -> None:
    reply = revise(request(expected_revision=7, title=SECRET))
    assert reply.payload["status"] == "refused"


def test_revise_refusal_beats_invalid_collection(
    revise: Callable[..., ToolReply], memory_root: Path
) -> None:
    record = existing(memory_root, collection=None)
    reply = revise(request(reference=reference_of(record), collection_label="x", title=SECRET))
    assert reply.payload["status"] == "refused"


def test_revise_policy_ignores_the_reference_ids(
    revise: Callable[..., ToolReply], memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fix_clock(monkeypatch)
    record = canonical_record(namespace={"kind": "project", "id": "123-45-6789", "label": None})
    place_canonical(memory_root, record)
    reply = revise(request(reference=reference_of(record)))
    assert reply.payload["status"] == "revised"


def test_revise_refusal_logs_no_field_and_no_reason(
    revise: Callable[..., ToolReply], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    revise(request(title=SECRET))
    [event] = tool_events(caplog, TOOL)
    assert event.getMessage() == (
        "event=memory_revise outcome=refused code=disallowed_content schema_version=2 scope=project"
    )
    assert event.levelno == logging.WARNING
    assert all("hunter2" not in r.getMessage() for r in caplog.records)


# --- loading the record -------------------------------------------------------------------------


NOT_FOUND = {
    "status": "not_found",
    "code": "not_found",
    "message": "memory to revise was not found",
}


def test_revise_missing_record_is_not_found_and_creates_nothing(
    revise: Callable[..., ToolReply], memory_root: Path
) -> None:
    reply = revise(request())
    assert reply.is_error
    assert reply.payload == NOT_FOUND
    assert not os.path.lexists(memory_root)


def test_revise_legacy_file_at_the_canonical_path_is_not_found(
    revise: Callable[..., ToolReply], memory_root: Path
) -> None:
    legacy = {"schema_version": 1, "id": CANONICAL_ID, "content": "old note"}
    write_record(memory_root, legacy, "project", "mnemosyne", "decisions", f"{CANONICAL_ID}.json")
    before = snapshot_tree(memory_root)
    assert revise(request()).payload == NOT_FOUND
    assert snapshot_tree(memory_root) == before


def test_revise_misplaced_record_is_not_found(
    revise: Callable[..., ToolReply], memory_root: Path
) -> None:
    record = canonical_record()
    write_record(memory_root, record, "project", "mnemosyne", "other", f"{CANONICAL_ID}.json")
    reference = {**REFERENCE, "collection_id": "other"}
    assert revise(request(reference=reference)).payload == NOT_FOUND


def test_revise_invalid_record_is_not_found(
    revise: Callable[..., ToolReply], memory_root: Path
) -> None:
    write_record(
        memory_root, "{not json", "project", "mnemosyne", "decisions", f"{CANONICAL_ID}.json"
    )
    assert revise(request()).payload == NOT_FOUND


@pytest.mark.parametrize("collection_id", [None, "ideas"])
def test_revise_collection_mismatch_is_not_found(
    revise: Callable[..., ToolReply], stored: dict[str, Any], collection_id: str | None
) -> None:
    reference = {**REFERENCE, "collection_id": collection_id}
    arguments = request(reference=reference)
    if collection_id is None:
        del arguments["collection_label"]
    assert revise(arguments).payload == NOT_FOUND


def test_revise_through_a_symlinked_namespace_is_unavailable(
    revise: Callable[..., ToolReply], tmp_path: Path, memory_root: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    place_canonical(elsewhere, canonical_record())
    (memory_root / "project").mkdir(parents=True)
    (memory_root / "project" / "mnemosyne").symlink_to(elsewhere / "project" / "mnemosyne")
    before = snapshot_tree(elsewhere)
    assert revise(request()).payload == {
        "status": "storage_error",
        "code": "memory_source_unavailable",
        "message": "memory could not be revised",
    }
    assert snapshot_tree(elsewhere) == before


# --- revision, collection label and no-op ordering ---------------------------------------


CONFLICT = {
    "status": "conflict",
    "code": "revision_conflict",
    "message": "memory to revise is not at the expected revision",
}


@pytest.mark.parametrize("expected", [2, 5])
def test_revise_stale_revision_is_a_conflict(
    revise: Callable[..., ToolReply], stored: dict[str, Any], memory_root: Path, expected: int
) -> None:
    before = snapshot_tree(memory_root)
    reply = revise(request(expected_revision=expected))
    assert reply.is_error
    assert reply.payload == CONFLICT
    assert snapshot_tree(memory_root) == before


def test_revise_conflict_comes_before_the_no_op_check(
    revise: Callable[..., ToolReply], memory_root: Path
) -> None:
    record = existing(memory_root, lifecycle={"state": "active", "revision": 3})
    reply = revise(unchanged_request(record, expected_revision=2))
    assert reply.payload == CONFLICT


def test_revise_conflict_comes_before_the_collection_label_check(
    revise: Callable[..., ToolReply], memory_root: Path
) -> None:
    record = existing(memory_root, collection=None)
    reply = revise(unchanged_request(record, expected_revision=2, collection_label="Label"))
    assert reply.payload == CONFLICT


def test_revise_collection_label_on_a_collectionless_record_is_refused(
    revise: Callable[..., ToolReply], memory_root: Path
) -> None:
    record = existing(memory_root, collection=None)
    before = snapshot_tree(memory_root)
    reply = revise(unchanged_request(record, collection_label="Label"))
    assert reply.payload == {
        "status": "invalid_request",
        "code": "invalid_collection",
        "field": "collection_label",
        "message": "collection label is invalid for memory",
    }
    assert snapshot_tree(memory_root) == before


@pytest.mark.parametrize("label", ["omitted", None])
def test_revise_collectionless_record_accepts_a_null_or_omitted_collection_label(
    revise: Callable[..., ToolReply],
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    label: str | None,
) -> None:
    fix_clock(monkeypatch)
    record = existing(memory_root, collection=None)
    arguments = unchanged_request(record, content="Changed content.")
    if label is None:
        arguments["collection_label"] = None
    reply = revise(arguments)
    assert reply.payload["status"] == "revised"
    assert reply.payload["reference"]["collection_id"] is None
    data = on_disk(memory_root, record)
    assert data["collection"] is None
    assert data["content"] == "Changed content."


def test_revise_equal_request_is_already_current_without_write_or_clock(
    revise: Callable[..., ToolReply], memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = existing(memory_root, lifecycle={"state": "active", "revision": 4})
    forbid_clock(monkeypatch)
    path = record_path(memory_root, record)
    before, inode = snapshot_tree(memory_root), path.stat().st_ino
    reply = revise(unchanged_request(record))
    assert not reply.is_error
    assert reply.payload == {
        "status": "already_current",
        "reference": REFERENCE,
        "lifecycle": {"state": "active", "revision": 4},
    }
    assert snapshot_tree(memory_root) == before
    assert path.stat().st_ino == inode


def test_revise_no_op_compares_normalized_values_and_keeps_stored_bytes(
    revise: Callable[..., ToolReply], memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = existing(memory_root, content="  Spaced   content\r\n", tags=["a  b"], title=" T ")
    forbid_clock(monkeypatch)
    before = snapshot_tree(memory_root)
    arguments = unchanged_request(record, content="Spaced   content", tags=["a b"], title="T")
    assert revise(arguments).payload["status"] == "already_current"
    assert snapshot_tree(memory_root) == before


@pytest.mark.parametrize(
    "tags", [["memory-domain", "architecture"], ["Architecture", "memory-domain"]]
)
def test_revise_tag_order_and_case_are_changes(
    revise: Callable[..., ToolReply], stored: dict[str, Any], memory_root: Path, tags: list[str]
) -> None:
    reply = revise(unchanged_request(stored, tags=tags))
    assert reply.payload["status"] == "revised"
    assert reply.payload["lifecycle"]["revision"] == 2
    assert on_disk(memory_root, stored)["tags"] == tags


# --- what revise replaces and preserves -----------------------------------------------------


def test_revise_replaces_mutable_text_and_bumps_revision_and_updated_at(
    revise: Callable[..., ToolReply], stored: dict[str, Any], memory_root: Path
) -> None:
    reply = revise(request())
    assert not reply.is_error
    assert "isError" not in reply.raw
    assert reply.payload == {
        "status": "revised",
        "reference": REFERENCE,
        "lifecycle": {"state": "active", "revision": 2},
    }
    assert list(reply.payload["reference"]) == [
        "schema_version",
        "scope",
        "namespace_id",
        "collection_id",
        "id",
    ]
    expected = {
        **stored,
        "namespace": {"kind": "project", "id": "mnemosyne", "label": "Mnemosyne plugin"},
        "collection": {"id": "decisions", "label": "Design decisions"},
        "title": "Memory ownership",
        "content": "The memory domain owns every canonical memory concept.",
        "tags": ["domain", "Architecture"],
        "lifecycle": {"state": "active", "revision": 2},
        "updated_at": FIXED_STAMP,
    }
    data = on_disk(memory_root, stored)
    assert data == expected
    assert list(data) == list(expected)


def test_revise_null_removes_labels_and_title(
    revise: Callable[..., ToolReply], stored: dict[str, Any], memory_root: Path
) -> None:
    reply = revise(request(namespace_label=None, collection_label=None, title=None, tags=[]))
    assert reply.payload["status"] == "revised"
    data = on_disk(memory_root, stored)
    assert data["namespace"]["label"] is None
    assert data["collection"]["label"] is None
    assert data["title"] is None
    assert data["tags"] == []


def test_revise_stores_normalized_values(
    revise: Callable[..., ToolReply], stored: dict[str, Any], memory_root: Path
) -> None:
    reply = revise(request(title=" Cafe\u0301 \r\n", content="a\r\nb\rc ", tags=[" x \u00a0 y "]))
    assert reply.payload["status"] == "revised"
    data = on_disk(memory_root, stored)
    assert (data["title"], data["content"], data["tags"]) == ("Caf\u00e9", "a\nb\nc", ["x y"])


@pytest.mark.parametrize(
    "provenance",
    [
        {"origin": "manual", "recorded_via": "filesystem"},
        {"origin": "import", "recorded_via": "migration"},
        {"origin": "user_approved_proposal", "recorded_via": "import"},
    ],
)
def test_revise_preserves_provenance_as_stored(
    revise: Callable[..., ToolReply],
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    provenance: dict[str, str],
) -> None:
    fix_clock(monkeypatch)
    record = existing(memory_root, provenance=provenance, language="de-ch")
    assert revise(request()).payload["status"] == "revised"
    data = on_disk(memory_root, record)
    assert data["provenance"] == provenance
    assert data["language"] == "de-ch"


def test_revise_keeps_an_archived_record_archived(
    revise: Callable[..., ToolReply], memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fix_clock(monkeypatch)
    record = existing(memory_root, lifecycle={"state": "archived", "revision": 5})
    reply = revise(request(expected_revision=5))
    assert reply.payload["lifecycle"] == {"state": "archived", "revision": 6}
    assert on_disk(memory_root, record)["lifecycle"] == {"state": "archived", "revision": 6}


def test_revise_keeps_identity_kind_created_at_and_occurred_at(
    revise: Callable[..., ToolReply], memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fix_clock(monkeypatch)
    record = existing(
        memory_root,
        id=OTHER_ID,
        kind="event",
        occurred_at="2026-07-01T10:00:00Z",
        created_at="2026-07-02T00:00:00Z",
        updated_at="2026-07-03T00:00:00Z",
    )
    reply = revise(request(reference=reference_of(record)))
    assert reply.payload["status"] == "revised"
    data = on_disk(memory_root, record)
    for key in ("schema_version", "id", "scope", "kind", "language", "created_at"):
        assert data[key] == record[key]
    assert data["occurred_at"] == "2026-07-01T10:00:00Z"
    assert list(data)[-1] == "occurred_at"
    assert (data["namespace"]["kind"], data["namespace"]["id"]) == ("project", "mnemosyne")
    assert data["collection"]["id"] == "decisions"
    assert data["updated_at"] == FIXED_STAMP


def test_revise_labels_never_move_the_file(
    revise: Callable[..., ToolReply], stored: dict[str, Any], memory_root: Path
) -> None:
    names_before = sorted(str(p.relative_to(memory_root)) for p in memory_root.rglob("*"))
    revise(request(namespace_label="Renamed project", collection_label="Renamed collection"))
    names_after = sorted(str(p.relative_to(memory_root)) for p in memory_root.rglob("*"))
    assert names_after == names_before


def test_revise_writes_a_new_file_with_mode_0600(
    revise: Callable[..., ToolReply], stored: dict[str, Any], memory_root: Path
) -> None:
    path = record_path(memory_root, stored)
    path.chmod(0o644)
    inode = path.stat().st_ino
    assert revise(request()).payload["status"] == "revised"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.stat().st_ino != inode
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_revise_file_is_canonical_json(
    revise: Callable[..., ToolReply], stored: dict[str, Any], memory_root: Path
) -> None:
    revise(request(content="Caf\u00e9 au lait"))
    raw = record_path(memory_root, stored).read_bytes()
    data = json.loads(raw)
    assert raw == (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()
    assert "Caf\u00e9".encode() in raw


def test_revise_removes_leftover_temp_files(
    revise: Callable[..., ToolReply], stored: dict[str, Any], memory_root: Path
) -> None:
    directory = record_path(memory_root, stored).parent
    leftover = directory / f".{CANONICAL_ID}.abcd1234.tmp"
    leftover.write_text("crash leftover")
    assert revise(request()).payload["status"] == "revised"
    assert not leftover.exists()


def test_revise_twice_in_a_row_needs_the_new_revision(
    revise: Callable[..., ToolReply], stored: dict[str, Any], memory_root: Path
) -> None:
    assert revise(request(content="first")).payload["lifecycle"]["revision"] == 2
    assert revise(request(content="second")).payload == CONFLICT
    reply = revise(request(content="second", expected_revision=2))
    assert reply.payload["lifecycle"]["revision"] == 3
    assert on_disk(memory_root, stored)["content"] == "second"


# --- failures of the write --------------------------------------------------------------------


def test_revise_failed_directory_fsync_is_uncertain_with_the_new_state_visible(
    revise: Callable[..., ToolReply],
    stored: dict[str, Any],
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken_fsync(fd: int) -> None:
        raise OSError("fsync failed")

    monkeypatch.setattr(files, "_fsync_directory", broken_fsync)
    reply = revise(request())
    assert reply.is_error
    assert reply.payload == {
        "status": "uncertain",
        "code": "replacement_outcome_uncertain",
        "message": "memory revise outcome is uncertain; inspect the same reference before any "
        "retry",
    }
    data = on_disk(memory_root, stored)
    assert (data["content"], data["lifecycle"]["revision"]) == (request()["content"], 2)
    assert stat.S_IMODE(record_path(memory_root, stored).stat().st_mode) == 0o600
    assert not [p for p in memory_root.rglob(".*.tmp")]


def test_revise_bytes_changed_before_the_rename_is_a_write_conflict(
    revise: Callable[..., ToolReply],
    stored: dict[str, Any],
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = record_path(memory_root, stored)
    original = files.write_temp

    def write_temp_then_touch_target(dir_fd: int, memory_id: str, payload: bytes) -> str:
        name = original(dir_fd, memory_id, payload)
        path.write_bytes(path.read_bytes() + b"\n")  # an unlocked writer slips in
        return name

    monkeypatch.setattr(files, "write_temp", write_temp_then_touch_target)
    reply = revise(request())
    assert reply.payload == {
        "status": "conflict",
        "code": "write_conflict",
        "message": "memory changed before it could be revised",
    }
    assert on_disk(memory_root, stored) == stored
    assert not [p for p in memory_root.rglob(".*.tmp")]


def test_revise_failed_rename_is_unavailable_and_keeps_the_old_file(
    revise: Callable[..., ToolReply],
    stored: dict[str, Any],
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken_rename(dir_fd: int, source: str, target: str) -> None:
        raise OSError("rename failed")

    monkeypatch.setattr(files, "rename_over", broken_rename)
    before = snapshot_tree(memory_root)
    reply = revise(request())
    assert reply.payload == {
        "status": "storage_error",
        "code": "memory_source_unavailable",
        "message": "memory could not be revised",
    }
    assert snapshot_tree(memory_root) == before


def test_revise_backwards_clock_is_an_invalid_revision(
    revise: Callable[..., ToolReply], memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = existing(memory_root)
    fix_clock(monkeypatch, datetime(2020, 1, 1, tzinfo=UTC))
    before = snapshot_tree(memory_root)
    reply = revise(request())
    assert reply.payload == invalid_record("revision", "revision request is invalid")
    assert snapshot_tree(memory_root) == before
    assert on_disk(memory_root, record) == record


def test_revise_unserializable_text_is_an_invalid_revision(
    revise: Callable[..., ToolReply], stored: dict[str, Any], memory_root: Path
) -> None:
    before = snapshot_tree(memory_root)
    reply = revise(request(content="text \ud800 here"))
    assert reply.payload == invalid_record("revision", "revision request is invalid")
    assert snapshot_tree(memory_root) == before


def test_revise_result_that_does_not_match_the_request_is_internal(
    revise: Callable[..., ToolReply],
    stored: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def replace_nothing(self: MemoryStore, root: Path, current: Any, new: Any) -> Any:
        return current

    monkeypatch.setattr(MemoryStore, "replace", replace_nothing)
    caplog.set_level(logging.INFO)
    reply = revise(request())
    assert reply.payload == {
        "status": "internal_error",
        "code": "internal_error",
        "message": "memory could not be revised",
    }
    [event] = tool_events(caplog, TOOL)
    assert event.levelno == logging.ERROR
    assert event.getMessage() == (
        "event=memory_revise outcome=internal_error code=internal_error schema_version=2 "
        "scope=project"
    )


# --- log events -------------------------------------------------------------------------------


def test_revise_success_logs_scope_and_lifecycle_only(
    revise: Callable[..., ToolReply],
    stored: dict[str, Any],
    memory_root: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    revise(request(title="Quokka title", content="Wombat content", tags=["narwhal"]))
    [event] = tool_events(caplog, TOOL)
    assert event.levelno == logging.INFO
    assert event.getMessage() == (
        "event=memory_revise outcome=revised schema_version=2 scope=project "
        "lifecycle_state=active revision=2"
    )
    text = "\n".join(r.getMessage() for r in caplog.records)
    for private in ("Quokka", "Wombat", "narwhal", CANONICAL_ID, "mnemosyne", str(memory_root)):
        assert private not in text


def test_revise_validation_failure_logs_code_and_field_only(
    revise: Callable[..., ToolReply], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    revise(request(title=" "))
    [event] = tool_events(caplog, TOOL)
    assert event.levelno == logging.WARNING
    assert event.getMessage() == (
        "event=memory_revise outcome=invalid_request code=invalid_record field=title"
    )


@pytest.mark.parametrize(
    ("place", "code", "outcome"),
    [(False, "not_found", "not_found"), (True, "revision_conflict", "conflict")],
)
def test_revise_operation_failure_logs_scope_but_no_lifecycle(
    revise: Callable[..., ToolReply],
    memory_root: Path,
    caplog: pytest.LogCaptureFixture,
    place: bool,
    code: str,
    outcome: str,
) -> None:
    if place:
        existing(memory_root)
    caplog.set_level(logging.INFO)
    revise(request(expected_revision=2))
    [event] = tool_events(caplog, TOOL)
    assert event.levelno == logging.WARNING
    assert event.getMessage() == (
        f"event=memory_revise outcome={outcome} code={code} schema_version=2 scope=project"
    )


def test_revise_already_current_logs_the_unchanged_lifecycle(
    revise: Callable[..., ToolReply], stored: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    revise(unchanged_request(stored))
    [event] = tool_events(caplog, TOOL)
    assert event.getMessage() == (
        "event=memory_revise outcome=already_current schema_version=2 scope=project "
        "lifecycle_state=active revision=1"
    )
