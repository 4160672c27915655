"""memory_inspect through POST /mcp: schema, validation order, lookup, containers, shapes, logs."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory.storage import scan
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore
from tests.helpers import (
    CANONICAL_ID,
    V2_KEY_ORDER,
    McpClient,
    ToolReply,
    canonical_record,
    log_events,
    log_messages,
    place_canonical,
    snapshot_tree,
    unexpected_argument,
    write_record,
)

TOOL = "memory_inspect"
LOGGER = "mcp.memory_inspect"
STORE_LOGGER = "mymcp.memory.store"

V2_REFERENCE: dict[str, Any] = {
    "schema_version": 2,
    "scope": "project",
    "namespace_id": "mnemosyne",
    "collection_id": "decisions",
    "id": CANONICAL_ID,
}
V1_REFERENCE: dict[str, Any] = {"schema_version": 1, "scope": "project", "id": "old-note"}

CONTRACT_SCOPES = ["self", "relationship", "preference", "practice", "project", "knowledge"]


def _inspect(client: McpClient, reference: Any = None, **changes: Any) -> ToolReply:
    if reference is None:
        reference = {**V2_REFERENCE, **changes}
    return client.call(TOOL, {"reference": reference})


def _legacy(root: Path, *parts: str, **fields: Any) -> Path:
    record: dict[str, Any] = {"schema_version": 1, "id": "old-note", "content": "legacy text"}
    record.update(fields)
    return write_record(root, record, "project", *parts)


def _error(reply: ToolReply) -> tuple[Any, ...]:
    assert reply.is_error
    payload = reply.payload
    return tuple(payload[key] for key in payload)


def _invalid(field: str) -> tuple[str, ...]:
    return ("invalid_request", "invalid_reference", field, "reference is invalid")


NOT_FOUND = ("not_found", "not_found", "memory was not found")
UNAVAILABLE = ("storage_error", "memory_source_unavailable", "memory could not be inspected")


def _exactly(number: int) -> dict[str, Any]:
    """The schema of an integer that can only be ``number``."""
    return {"type": "integer", "minimum": number, "maximum": number}


# --- schema ------------------------------------------------------------------------------


def test_inspect_schema_has_the_contract_structure(client: McpClient) -> None:
    tool = client.declaration(TOOL)
    schema = tool["inputSchema"]
    assert list(schema["properties"]) == ["reference"]
    assert schema["required"] == ["reference"]
    assert schema["additionalProperties"] is False
    # Issue 12: a property-level anyOf whose branches pin schema_version with a one-value
    # integer range (no oneOf, no const); references publish no patterns, but their scopes.
    canonical, legacy = schema["properties"]["reference"]["anyOf"]
    assert canonical["required"] == [
        "schema_version",
        "scope",
        "namespace_id",
        "collection_id",
        "id",
    ]
    assert canonical["properties"]["schema_version"] == _exactly(2)
    assert canonical["properties"]["id"] == {"type": "string"}
    assert canonical["additionalProperties"] is False
    assert legacy["required"] == ["schema_version", "scope", "id"]
    assert legacy["properties"]["schema_version"] == _exactly(1)
    assert legacy["properties"]["id"] == {"type": "string"}
    assert legacy["additionalProperties"] is False
    for branch in (canonical, legacy):
        assert branch["properties"]["scope"] == {"type": "string", "enum": CONTRACT_SCOPES}


# --- validation (§7.1, in order) ---------------------------------------------------------


def test_inspect_needs_the_reference(client: McpClient) -> None:
    assert _error(client.call(TOOL, {})) == _invalid("reference")


@pytest.mark.parametrize(
    ("arguments", "name"),
    [
        ({"reference": V2_REFERENCE, "bogus": 1}, "bogus"),
        ({"ref": V2_REFERENCE}, "ref"),
        # Before every other rule: the reference is not even looked at.
        ({"reference": None, "namspace": "x"}, "namspace"),
    ],
)
def test_inspect_names_an_unexpected_argument(
    client: McpClient, arguments: dict[str, Any], name: str
) -> None:
    reply = client.call(TOOL, arguments)
    assert reply.is_error
    assert reply.payload == unexpected_argument("invalid_reference", name)


@pytest.mark.parametrize("reference", [None, [V2_REFERENCE], 2, "mem_x", True])
def test_inspect_reference_must_be_an_object(client: McpClient, reference: Any) -> None:
    assert _error(client.call(TOOL, {"reference": reference})) == _invalid("reference")


@pytest.mark.parametrize("version", [None, True, 1.0, 2.0, "2", 0, 3, -1])
def test_inspect_schema_version_must_be_the_integer_1_or_2(client: McpClient, version: Any) -> None:
    reply = _inspect(client, schema_version=version, scope="bad", id="bad")
    assert _error(reply) == _invalid("reference")


def test_inspect_missing_schema_version_is_invalid(client: McpClient) -> None:
    reference = {key: value for key, value in V2_REFERENCE.items() if key != "schema_version"}
    assert _error(_inspect(client, reference)) == _invalid("reference")


@pytest.mark.parametrize(
    "reference",
    [
        {key: V2_REFERENCE[key] for key in ("schema_version", "scope", "namespace_id", "id")},
        {**V2_REFERENCE, "extra": None},
        {**V2_REFERENCE, "schema_version": 1},
        {**V1_REFERENCE, "namespace_id": "mnemosyne"},
        {"schema_version": 1, "scope": "project"},
    ],
)
def test_inspect_reference_keys_must_match_the_version(
    client: McpClient, reference: dict[str, Any]
) -> None:
    # Key-set errors win over bad values in any key.
    assert _error(_inspect(client, {**reference, "scope": "nope"})) == _invalid("reference")


@pytest.mark.parametrize("scope", ["nope", "Project", None, 1, ["project"]])
def test_inspect_scope_must_be_valid(client: McpClient, scope: Any) -> None:
    reply = _inspect(client, scope=scope, namespace_id="BAD", id="bad")
    assert _error(reply) == _invalid("reference.scope")
    reply = _inspect(client, {**V1_REFERENCE, "scope": scope, "id": "bad id"})
    assert _error(reply) == _invalid("reference.scope")


@pytest.mark.parametrize("namespace_id", ["", "BAD", "-x", "x-", "a" * 65, None, 5, "a/b"])
def test_inspect_namespace_id_must_be_an_identifier(client: McpClient, namespace_id: Any) -> None:
    reply = _inspect(client, namespace_id=namespace_id, collection_id="BAD", id="bad")
    assert _error(reply) == _invalid("reference.namespace_id")


@pytest.mark.parametrize("collection_id", ["", "Decisions", "..", 0, False, ["x"]])
def test_inspect_collection_id_must_be_null_or_an_identifier(
    client: McpClient, collection_id: Any
) -> None:
    reply = _inspect(client, collection_id=collection_id, id="bad")
    assert _error(reply) == _invalid("reference.collection_id")


@pytest.mark.parametrize(
    "memory_id", ["mem_0123", "MEM_0123456789abcdef0123456789abcdef", CANONICAL_ID.upper(), None]
)
def test_inspect_canonical_id_must_be_canonical(client: McpClient, memory_id: Any) -> None:
    assert _error(_inspect(client, id=memory_id)) == _invalid("reference.id")


@pytest.mark.parametrize("memory_id", ["", "a b", "x" * 101, "ü", "a/b", None, 7])
def test_inspect_legacy_id_must_be_a_legacy_id(client: McpClient, memory_id: Any) -> None:
    reply = _inspect(client, {**V1_REFERENCE, "id": memory_id})
    assert _error(reply) == _invalid("reference.id")


def test_inspect_string_null_collection_is_a_literal_identifier(
    client: McpClient, memory_root: Path
) -> None:
    place_canonical(memory_root, canonical_record(collection={"id": "null", "label": None}))
    assert _inspect(client, collection_id="null").payload["status"] == "ok"
    assert _error(_inspect(client, collection_id=None)) == NOT_FOUND


# --- host argument normalization (§10) ---------------------------------------------------


def test_inspect_reference_as_json_text_is_decoded_once(
    client: McpClient, memory_root: Path
) -> None:
    place_canonical(memory_root, canonical_record())
    reply = client.call(TOOL, {"reference": json.dumps(V2_REFERENCE)})
    assert reply.payload["status"] == "ok"


def test_inspect_doubly_encoded_reference_is_invalid(client: McpClient, memory_root: Path) -> None:
    place_canonical(memory_root, canonical_record())
    reply = client.call(TOOL, {"reference": json.dumps(json.dumps(V2_REFERENCE))})
    assert _error(reply) == _invalid("reference")


def test_inspect_schema_version_as_text_is_not_decoded(
    client: McpClient, memory_root: Path
) -> None:
    place_canonical(memory_root, canonical_record())
    assert _error(_inspect(client, schema_version="2")) == _invalid("reference")
    assert _error(_inspect(client, {**V1_REFERENCE, "schema_version": "1"})) == _invalid(
        "reference"
    )


# --- canonical lookup and shape ----------------------------------------------------------


def test_inspect_canonical_record_shape(client: McpClient, memory_root: Path) -> None:
    place_canonical(
        memory_root,
        canonical_record(
            language=" EN-us ",
            title="  Shared  memory ",
            content="Line one\r\nline two ",
            tags=["Field   Work", "memory"],
            created_at="２０２６-07-18T12:00:00Z",
        ),
    )
    reply = _inspect(client)
    assert not reply.is_error
    assert list(reply.payload) == ["status", "memory"]
    memory = reply.payload["memory"]
    assert list(memory) == ["reference", *V2_KEY_ORDER]
    assert memory["reference"] == V2_REFERENCE
    assert list(memory["reference"]) == list(V2_REFERENCE)
    assert memory["namespace"] == {"kind": "project", "id": "mnemosyne", "label": "Mnemosyne"}
    assert memory["collection"] == {"id": "decisions", "label": "Decisions"}
    assert memory["language"] == "en-us"
    assert memory["title"] == "Shared  memory"
    assert memory["content"] == "Line one\nline two"
    assert memory["tags"] == ["Field Work", "memory"]
    assert memory["provenance"] == {
        "origin": "explicit_user_statement",
        "recorded_via": "memory_remember",
    }
    assert memory["lifecycle"] == {"state": "active", "revision": 1}
    assert memory["created_at"] == "2026-07-18T12:00:00Z"


def test_inspect_event_shows_occurred_at_last(client: McpClient, memory_root: Path) -> None:
    place_canonical(memory_root, canonical_record(kind="event", occurred_at="2026-07-01T08:30:00Z"))
    memory = _inspect(client).payload["memory"]
    assert list(memory)[-3:] == ["created_at", "updated_at", "occurred_at"]
    assert memory["occurred_at"] == "2026-07-01T08:30:00Z"


def test_inspect_collectionless_record_and_null_language(
    client: McpClient, memory_root: Path
) -> None:
    place_canonical(memory_root, canonical_record(collection=None, language=None, title=None))
    memory = _inspect(client, collection_id=None).payload["memory"]
    assert memory["reference"]["collection_id"] is None
    assert (memory["collection"], memory["language"], memory["title"]) == (None, "und", None)


def test_inspect_returns_archived_records(client: McpClient, memory_root: Path) -> None:
    place_canonical(memory_root, canonical_record(lifecycle={"state": "archived", "revision": 3}))
    memory = _inspect(client).payload["memory"]
    assert memory["lifecycle"] == {"state": "archived", "revision": 3}


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        json.dumps({**canonical_record(), "extra": 1}),
        json.dumps({"schema_version": 1, "id": CANONICAL_ID, "content": "legacy here"}),
        json.dumps(canonical_record(id="mem_" + "f" * 32)),
    ],
    ids=["invalid-json", "invalid-record", "legacy-record", "path-mismatch"],
)
def test_inspect_canonical_path_without_a_valid_v2_record_is_not_found(
    client: McpClient, memory_root: Path, content: str
) -> None:
    write_record(memory_root, content, "project", "mnemosyne", "decisions", f"{CANONICAL_ID}.json")
    assert _error(_inspect(client)) == NOT_FOUND


def test_inspect_canonical_oversized_file_is_not_found(
    client: McpClient, memory_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = place_canonical(memory_root, canonical_record())
    path.write_bytes(path.read_bytes() + b" " * 70_000)
    caplog.set_level(logging.INFO)
    assert _error(_inspect(client)) == NOT_FOUND
    assert log_messages(caplog, STORE_LOGGER) == ["skipped scope='project' reason='oversized'"]


def test_inspect_canonical_lookup_needs_the_exact_collection(
    client: McpClient, memory_root: Path
) -> None:
    place_canonical(memory_root, canonical_record())
    assert _error(_inspect(client, collection_id=None)) == NOT_FOUND
    assert _error(_inspect(client, collection_id="other")) == NOT_FOUND
    assert _error(_inspect(client, namespace_id="other")) == NOT_FOUND
    assert _error(_inspect(client, scope="knowledge")) == NOT_FOUND


def test_inspect_canonical_ignores_the_candidate_bound(
    client: McpClient, memory_root: Path
) -> None:
    place_canonical(memory_root, canonical_record())
    bulk = memory_root / "project" / "bulk"
    bulk.mkdir()
    for number in range(1001):
        (bulk / f"{number}.json").write_text("{}")
    assert _inspect(client).payload["status"] == "ok"


# --- legacy lookup and shape -------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "order"),
    [
        ({"title": "T", "tags": ["a"]}, ["schema_version", "id", "title", "content", "tags"]),
        ({"tags": ["a"], "title": "T"}, ["schema_version", "id", "title", "content", "tags"]),
        ({"title": "T"}, ["schema_version", "id", "title", "content", "tags"]),
        ({"tags": ["a"]}, ["schema_version", "id", "content", "tags", "title"]),
        ({}, ["schema_version", "id", "content", "title", "tags"]),
    ],
)
def test_inspect_legacy_key_order_follows_the_file(
    client: McpClient, memory_root: Path, fields: dict[str, Any], order: list[str]
) -> None:
    _legacy(memory_root, "old.json", **fields)
    memory = _inspect(client, V1_REFERENCE).payload["memory"]
    assert list(memory) == ["reference", *order]
    assert memory["reference"] == V1_REFERENCE
    assert memory["title"] == fields.get("title")
    assert memory["tags"] == fields.get("tags", [])


def test_inspect_legacy_values_are_verbatim(client: McpClient, memory_root: Path) -> None:
    _legacy(
        memory_root,
        "deep",
        "er",
        "old.json",
        title="  Spaced  ",
        content=" keep\r\n this ",
        tags=["A  b", "a  b"],
    )
    memory = _inspect(client, V1_REFERENCE).payload["memory"]
    assert memory == {
        "reference": V1_REFERENCE,
        "schema_version": 1,
        "id": "old-note",
        "title": "  Spaced  ",
        "content": " keep\r\n this ",
        "tags": ["A  b", "a  b"],
    }


def test_inspect_legacy_null_title_shows_null(client: McpClient, memory_root: Path) -> None:
    _legacy(memory_root, "old.json", title=None)
    memory = _inspect(client, V1_REFERENCE).payload["memory"]
    assert memory["title"] is None


def test_inspect_legacy_ids_are_case_sensitive(client: McpClient, memory_root: Path) -> None:
    _legacy(memory_root, "old.json")
    assert _error(_inspect(client, {**V1_REFERENCE, "id": "Old-Note"})) == NOT_FOUND


def test_inspect_legacy_reference_never_matches_a_canonical_record(
    client: McpClient, memory_root: Path
) -> None:
    place_canonical(memory_root, canonical_record())
    reply = _inspect(client, {**V1_REFERENCE, "id": CANONICAL_ID})
    assert _error(reply) == NOT_FOUND


def test_inspect_legacy_in_two_valid_files_is_ambiguous(
    client: McpClient, memory_root: Path
) -> None:
    _legacy(memory_root, "a", "old.json")
    _legacy(memory_root, "b", "copy.json")
    assert _error(_inspect(client, V1_REFERENCE)) == (
        "conflict",
        "ambiguous_reference",
        "legacy memory reference is ambiguous",
    )


def test_inspect_legacy_duplicate_in_an_invalid_file_does_not_count(
    client: McpClient, memory_root: Path
) -> None:
    _legacy(memory_root, "a", "old.json")
    _legacy(memory_root, "b", "broken.json", tags=[])
    assert _inspect(client, V1_REFERENCE).payload["status"] == "ok"


def test_inspect_legacy_is_found_at_the_depth_limit_but_not_beyond(
    client: McpClient, memory_root: Path
) -> None:
    _legacy(memory_root, "a", "b", "c", "d", "e", "old.json")
    assert _error(_inspect(client, V1_REFERENCE)) == NOT_FOUND
    _legacy(memory_root, "a", "b", "c", "d", "old.json")
    assert _inspect(client, V1_REFERENCE).payload["status"] == "ok"


def test_inspect_legacy_more_than_1000_candidates_is_refused(
    client: McpClient, memory_root: Path
) -> None:
    _legacy(memory_root, "old.json")
    bulk = memory_root / "project" / "bulk"
    bulk.mkdir()
    for number in range(999):
        (bulk / f"{number}.json").write_text("{}")
    assert _inspect(client, V1_REFERENCE).payload["status"] == "ok"
    (bulk / "last.json").write_text("{}")
    assert _error(_inspect(client, V1_REFERENCE)) == (
        "storage_error",
        "candidate_limit_exceeded",
        "memory scope contains more than 1000 candidate files",
    )


# --- containers (§4.3 inspect columns) ---------------------------------------------------


def test_inspect_missing_root_is_not_found(client: McpClient, memory_root: Path) -> None:
    assert _error(_inspect(client)) == NOT_FOUND
    assert _error(_inspect(client, V1_REFERENCE)) == NOT_FOUND
    assert not memory_root.exists()


def test_inspect_follows_a_symlinked_root(
    client: McpClient, memory_root: Path, tmp_path: Path
) -> None:
    real = tmp_path / "real-root"
    place_canonical(real, canonical_record())
    _legacy(real, "old.json")
    memory_root.symlink_to(real)
    assert _inspect(client).payload["status"] == "ok"
    assert _inspect(client, V1_REFERENCE).payload["status"] == "ok"


def test_inspect_root_that_is_a_file_is_not_found(client: McpClient, memory_root: Path) -> None:
    memory_root.write_text("plain file")
    assert _error(_inspect(client)) == NOT_FOUND
    assert _error(_inspect(client, V1_REFERENCE)) == NOT_FOUND


def test_inspect_missing_scope_is_not_found(client: McpClient, memory_root: Path) -> None:
    (memory_root / "knowledge").mkdir(parents=True)
    assert _error(_inspect(client)) == NOT_FOUND
    assert _error(_inspect(client, V1_REFERENCE)) == NOT_FOUND


def test_inspect_symlinked_scope(
    client: McpClient, memory_root: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    real = tmp_path / "elsewhere"
    place_canonical(real, canonical_record())
    _legacy(real, "old.json")
    memory_root.mkdir()
    (memory_root / "project").symlink_to(real / "project")
    caplog.set_level(logging.INFO)
    assert _error(_inspect(client, V1_REFERENCE)) == NOT_FOUND
    assert log_messages(caplog, STORE_LOGGER) == ["skipped scope='project' reason='symlink'"]
    assert _error(_inspect(client)) == UNAVAILABLE


def test_inspect_scope_path_that_is_a_file(client: McpClient, memory_root: Path) -> None:
    memory_root.mkdir()
    (memory_root / "project").write_text("file")
    assert _error(_inspect(client, V1_REFERENCE)) == UNAVAILABLE
    assert _error(_inspect(client)) == NOT_FOUND


def test_inspect_symlinked_namespace_or_collection_directory(
    client: McpClient, memory_root: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    elsewhere = tmp_path / "elsewhere"
    place_canonical(elsewhere, canonical_record())
    _legacy(elsewhere, "mnemosyne", "old.json")
    (memory_root / "project").mkdir(parents=True)
    (memory_root / "project" / "mnemosyne").symlink_to(elsewhere / "project" / "mnemosyne")
    caplog.set_level(logging.INFO)
    assert _error(_inspect(client)) == UNAVAILABLE
    assert _error(_inspect(client, V1_REFERENCE)) == NOT_FOUND
    assert "skipped scope='project' reason='symlink'" in log_messages(caplog, STORE_LOGGER)


def test_inspect_symlinked_collection_directory_is_unavailable(
    client: McpClient, memory_root: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    place_canonical(elsewhere, canonical_record())
    (memory_root / "project" / "mnemosyne").mkdir(parents=True)
    (memory_root / "project" / "mnemosyne" / "decisions").symlink_to(
        elsewhere / "project" / "mnemosyne" / "decisions"
    )
    assert _error(_inspect(client)) == UNAVAILABLE


def test_inspect_symlinked_record_file(
    client: McpClient, memory_root: Path, tmp_path: Path
) -> None:
    real = place_canonical(tmp_path / "elsewhere", canonical_record())
    link = memory_root / "project" / "mnemosyne" / "decisions" / f"{CANONICAL_ID}.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert _error(_inspect(client)) == UNAVAILABLE
    (memory_root / "project" / "old.json").symlink_to(_legacy(tmp_path / "x", "old.json"))
    assert _error(_inspect(client, V1_REFERENCE)) == NOT_FOUND


def test_inspect_selected_namespace_missing_or_a_file_is_not_found(
    client: McpClient, memory_root: Path
) -> None:
    (memory_root / "project").mkdir(parents=True)
    assert _error(_inspect(client)) == NOT_FOUND
    (memory_root / "project" / "mnemosyne").write_text("file")
    assert _error(_inspect(client)) == NOT_FOUND


def test_inspect_record_path_that_is_a_directory_is_not_found(
    client: McpClient, memory_root: Path
) -> None:
    (memory_root / "project" / "mnemosyne" / "decisions" / f"{CANONICAL_ID}.json").mkdir(
        parents=True
    )
    assert _error(_inspect(client)) == NOT_FOUND


def test_inspect_unlistable_scope_is_unavailable(
    client: McpClient, memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _legacy(memory_root, "old.json")
    real_scandir = os.scandir

    def refuse(path: Any) -> Any:
        if isinstance(path, int):
            raise PermissionError("denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", refuse)
    assert _error(_inspect(client, V1_REFERENCE)) == UNAVAILABLE


def test_inspect_unexpected_failure_is_a_bounded_internal_error(
    client: McpClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def explode(self: MemoryStore, *args: Any) -> Any:
        raise RuntimeError("SECRET-DETAIL")

    monkeypatch.setattr(MemoryStore, "load_canonical", explode)
    caplog.set_level(logging.INFO)
    assert _error(_inspect(client)) == (
        "internal_error",
        "internal_error",
        "memory could not be inspected",
    )
    assert log_events(caplog, LOGGER) == [
        (
            logging.ERROR,
            "event=memory_inspect outcome=internal_error code=internal_error "
            "schema_version=2 scope=project",
        )
    ]
    assert "SECRET-DETAIL" not in caplog.text


# --- freshness and read-only -------------------------------------------------------------


def test_inspect_sees_edited_replaced_added_and_deleted_files(
    client: McpClient, memory_root: Path
) -> None:
    assert _error(_inspect(client)) == NOT_FOUND
    path = place_canonical(memory_root, canonical_record(content="first text"))
    legacy = _legacy(memory_root, "old.json", content="first text")
    assert _inspect(client).payload["memory"]["content"] == "first text"
    assert _inspect(client, V1_REFERENCE).payload["memory"]["content"] == "first text"
    # Same-size rewrites.
    path.write_text(path.read_text().replace("first", "other"))
    legacy.write_text(legacy.read_text().replace("first", "other"))
    assert _inspect(client).payload["memory"]["content"] == "other text"
    assert _inspect(client, V1_REFERENCE).payload["memory"]["content"] == "other text"
    # Replaced through a rename.
    for target, content in ((path, "third"), (legacy, "third")):
        data = json.loads(target.read_text())
        data["content"] = content
        temporary = target.with_name("swap.tmp")
        temporary.write_text(json.dumps(data))
        os.replace(temporary, target)
    assert _inspect(client).payload["memory"]["content"] == "third"
    assert _inspect(client, V1_REFERENCE).payload["memory"]["content"] == "third"
    # A second legacy file appears, then both are deleted.
    _legacy(memory_root, "copy.json")
    assert _error(_inspect(client, V1_REFERENCE))[1] == "ambiguous_reference"
    path.unlink()
    legacy.unlink()
    assert _error(_inspect(client)) == NOT_FOUND
    assert _inspect(client, V1_REFERENCE).payload["status"] == "ok"


def test_inspect_sees_a_same_size_rewrite_of_a_settled_file(
    client: McpClient, memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scan, "RACY_WINDOW_NS", 0)
    path = place_canonical(memory_root, canonical_record(content="first text"))
    os.utime(path, ns=(1, 1))
    assert _inspect(client).payload["memory"]["content"] == "first text"
    path.write_text(path.read_text().replace("first", "other"))
    assert _inspect(client).payload["memory"]["content"] == "other text"


def test_inspect_never_creates_or_changes_anything(
    client: McpClient, memory_root: Path, hermetic_home: Path
) -> None:
    _inspect(client)
    _inspect(client, V1_REFERENCE)
    assert not memory_root.exists()
    place_canonical(memory_root, canonical_record())
    _legacy(memory_root, "old.json")
    before_root, before_home = snapshot_tree(memory_root), snapshot_tree(hermetic_home)
    for reference in (
        V2_REFERENCE,
        V1_REFERENCE,
        {**V2_REFERENCE, "namespace_id": "absent"},
        {**V1_REFERENCE, "scope": "knowledge"},
        {**V2_REFERENCE, "id": "bad"},
    ):
        _inspect(client, reference)
    assert snapshot_tree(memory_root) == before_root
    assert snapshot_tree(hermetic_home) == before_home


# --- result envelope and logs ------------------------------------------------------------


def test_inspect_result_is_compact_ascii_json_with_equal_structured_content(
    client: McpClient, memory_root: Path
) -> None:
    place_canonical(memory_root, canonical_record(content="Un café naïf ✓"))
    reply = _inspect(client)
    text = reply.raw["content"][0]["text"]
    assert text.isascii() and "caf\\u00e9" in text
    assert text == json.dumps(reply.payload, separators=(",", ":"))
    assert reply.raw["structuredContent"] == json.loads(text)
    assert "isError" not in reply.raw
    error = _inspect(client, id="bad")
    assert error.raw["isError"] is True
    assert error.raw["structuredContent"] == error.payload


def test_inspect_logs_one_bounded_terminal_event(
    client: McpClient, memory_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    place_canonical(memory_root, canonical_record())
    caplog.set_level(logging.INFO)
    _inspect(client)
    _inspect(client, {**V1_REFERENCE, "scope": "knowledge"})
    _inspect(client, id="bad")
    _inspect(client, {"schema_version": "2"})
    (memory_root / "self").write_text("file")
    _inspect(client, {**V1_REFERENCE, "scope": "self"})
    _legacy(memory_root, "a.json")
    _legacy(memory_root, "b.json")
    _inspect(client, V1_REFERENCE)
    assert log_events(caplog, LOGGER) == [
        (logging.INFO, "event=memory_inspect outcome=ok schema_version=2 scope=project"),
        (
            logging.INFO,
            "event=memory_inspect outcome=not_found code=not_found schema_version=1 "
            "scope=knowledge",
        ),
        (
            logging.WARNING,
            "event=memory_inspect outcome=invalid_request code=invalid_reference "
            "field=reference.id",
        ),
        (
            logging.WARNING,
            "event=memory_inspect outcome=invalid_request code=invalid_reference field=reference",
        ),
        (
            logging.WARNING,
            "event=memory_inspect outcome=storage_error code=memory_source_unavailable "
            "schema_version=1 scope=self cause=other errno=ENOTDIR directory=self",
        ),
        (
            logging.WARNING,
            "event=memory_inspect outcome=conflict code=ambiguous_reference "
            "schema_version=1 scope=project",
        ),
    ]


def test_inspect_logs_never_carry_ids_or_record_values(
    client: McpClient, memory_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _legacy(memory_root, "old.json", id="IDMARKER", title="TITLEMARKER", content="CONTENTMARKER")
    place_canonical(
        memory_root,
        canonical_record(
            namespace={"kind": "project", "id": "nsmarker", "label": "LABELMARKER"},
            collection={"id": "collmarker", "label": None},
        ),
    )
    caplog.set_level(logging.DEBUG)
    _inspect(client, {**V1_REFERENCE, "id": "IDMARKER"})
    _inspect(client, {**V1_REFERENCE, "id": "IDMARKER-absent"})
    _inspect(client, namespace_id="nsmarker", collection_id="collmarker")
    _inspect(client, namespace_id="nsmarker", collection_id="collmarker", id="IDMARKER")
    assert caplog.records
    text = caplog.text.lower()
    for marker in ("idmarker", "titlemarker", "contentmarker", "nsmarker", "collmarker"):
        assert marker not in text
    assert CANONICAL_ID not in caplog.text
