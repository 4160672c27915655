"""memory_archive, memory_restore and memory_forget through POST /mcp."""

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
from tests.helpers import (
    CANONICAL_ID,
    McpClient,
    canonical_record,
    place_canonical,
    snapshot_tree,
    unexpected_argument,
    write_record,
)
from tests.mnemosyne.tools.mutation_support import (
    ALL_TOOLS,
    FIXED_STAMP,
    OTHER_ID,
    READ_TOOLS,
    existing,
    fix_clock,
    forbid_clock,
    on_disk,
    record_path,
    reference_of,
    tool_events,
)

ARCHIVE, RESTORE, FORGET = "memory_archive", "memory_restore", "memory_forget"
LIFECYCLE_TOOLS = [ARCHIVE, RESTORE, FORGET]
REFERENCE = reference_of(canonical_record())
PAST = {ARCHIVE: "archived", RESTORE: "restored", FORGET: "forgotten"}
OP = {ARCHIVE: "archive", RESTORE: "restore", FORGET: "forget"}
ACTIVE_1 = {"state": "active", "revision": 1}
ARCHIVED_2 = {"state": "archived", "revision": 2}

CONTRACT_SCOPES = ["self", "relationship", "preference", "practice", "project", "knowledge"]


def request(**overrides: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = {"reference": dict(REFERENCE), "expected_revision": 1}
    arguments.update(overrides)
    return arguments


def without(key: str, **overrides: Any) -> dict[str, Any]:
    arguments = request(**overrides)
    del arguments[key]
    return arguments


def invalid(code: str, field: str) -> dict[str, Any]:
    message = (
        "reference is invalid" if code == "invalid_reference" else ("expected revision is invalid")
    )
    return {"status": "invalid_request", "code": code, "field": field, "message": message}


def error(tool: str, status: str, code: str) -> dict[str, Any]:
    op, past = OP[tool], PAST[tool]
    messages = {
        "not_found": f"memory to {op} was not found",
        "revision_conflict": f"memory to {op} is not at the expected revision",
        "write_conflict": f"memory changed before it could be {past}",
        "replacement_outcome_uncertain": (
            f"memory {op} outcome is uncertain; inspect the same reference before any retry"
        ),
        "deletion_outcome_uncertain": (
            "memory deletion outcome is uncertain; inspect the same reference before any retry"
        ),
        "not_archived": "memory must be archived before it can be forgotten",
        "memory_source_unavailable": f"memory could not be {past}",
        "internal_error": f"memory could not be {past}",
    }
    return {"status": status, "code": code, "message": messages[code]}


@pytest.fixture
def client(mcp: Callable[..., McpClient]) -> McpClient:
    return mcp(archive_restore=True, forget=True)


@pytest.fixture
def call(client: McpClient) -> Callable[..., Any]:
    return lambda tool, arguments: client.call(tool, arguments)


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    fix_clock(monkeypatch)


def list_tools_text(client: McpClient) -> str:
    response = client.rpc("tools/call", {"name": "list_tools", "arguments": {}})
    text: str = response["result"]["content"][0]["text"]
    return text


def broken(*args: Any, **kwargs: Any) -> None:
    raise OSError("simulated failure")


# --- gates ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gates", "mutations"),
    [
        ({"archive_restore": True}, [ARCHIVE, RESTORE]),
        ({"forget": True}, [FORGET]),
        ({"archive_restore": True, "forget": True}, [ARCHIVE, RESTORE, FORGET]),
        ({"revise": True, "forget": True}, ["memory_revise", FORGET]),
    ],
)
def test_lifecycle_gates_are_independent(
    mcp: Callable[..., McpClient], gates: dict[str, bool], mutations: list[str]
) -> None:
    client = mcp(**gates)
    names = [*READ_TOOLS, *mutations]
    assert client.tool_names() == names
    assert list_tools_text(client).endswith("Available tools: " + ", ".join(names))


def test_all_gates_list_every_tool_in_order(mcp: Callable[..., McpClient]) -> None:
    client = mcp(remember=True, revise=True, archive_restore=True, forget=True)
    assert client.tool_names() == ALL_TOOLS


@pytest.mark.parametrize(
    ("gates", "absent"),
    [
        ({"forget": True, "revise": True, "remember": True}, [ARCHIVE, RESTORE]),
        ({"archive_restore": True, "revise": True, "remember": True}, [FORGET]),
        ({}, LIFECYCLE_TOOLS),
    ],
)
def test_disabled_lifecycle_tools_are_absent_and_unknown(
    mcp: Callable[..., McpClient],
    memory_root: Path,
    gates: dict[str, bool],
    absent: list[str],
) -> None:
    existing(memory_root, lifecycle=ARCHIVED_2)
    before = snapshot_tree(memory_root)
    client = mcp(**gates)
    for tool in absent:
        assert tool not in client.tool_names()
        assert tool not in list_tools_text(client)
        response = client.rpc("tools/call", {"name": tool, "arguments": request()})
        assert response["error"] == {"code": -32602, "message": f"Unknown tool: {tool}"}
    assert snapshot_tree(memory_root) == before


def test_lifecycle_annotations(client: McpClient) -> None:
    tools = {t["name"]: t for t in client.rpc("tools/list")["result"]["tools"]}
    for tool, destructive in ((ARCHIVE, False), (RESTORE, False), (FORGET, True)):
        assert tools[tool]["annotations"] == {
            "readOnlyHint": False,
            "destructiveHint": destructive,
            "idempotentHint": True,
            "openWorldHint": False,
        }


# --- schema ---------------------------------------------------------------------------------


def test_lifecycle_tools_share_one_schema(client: McpClient) -> None:
    tools = {t["name"]: t for t in client.rpc("tools/list")["result"]["tools"]}
    schema = tools[ARCHIVE]["inputSchema"]
    assert tools[RESTORE]["inputSchema"] == schema
    assert tools[FORGET]["inputSchema"] == schema
    assert list(schema) == ["type", "properties", "required", "additionalProperties"]
    assert list(schema["properties"]) == ["reference", "expected_revision"]
    assert schema["required"] == ["reference", "expected_revision"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["expected_revision"] == {"type": "integer", "minimum": 1}


def test_lifecycle_reference_schema(client: McpClient) -> None:
    tools = {t["name"]: t for t in client.rpc("tools/list")["result"]["tools"]}
    reference = tools[ARCHIVE]["inputSchema"]["properties"]["reference"]
    assert reference["type"] == "object"
    assert reference["required"] == [
        "schema_version",
        "scope",
        "namespace_id",
        "collection_id",
        "id",
    ]
    assert reference["additionalProperties"] is False
    props = reference["properties"]
    # Issue 12: schema_version is a one-value integer range instead of a const, and a
    # reference (copied, never composed) publishes types without patterns or enums.
    assert props["schema_version"] == {"type": "integer", "minimum": 2, "maximum": 2}
    assert props["scope"] == {"type": "string", "enum": CONTRACT_SCOPES}
    assert props["namespace_id"] == {"type": "string"}
    assert props["collection_id"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert props["id"] == {"type": "string"}


# --- validation order (§5.2) -------------------------------------------------------------------


@pytest.mark.parametrize("tool", LIFECYCLE_TOOLS)
@pytest.mark.parametrize(
    ("arguments", "code", "field"),
    [
        ({}, "invalid_reference", "reference"),
        (without("reference", expected_revision="x"), "invalid_reference", "reference"),
        (
            without("expected_revision", reference=5),
            "invalid_expected_revision",
            "expected_revision",
        ),
        (request(reference=[REFERENCE], expected_revision=0), "invalid_reference", "reference"),
        (request(reference={**REFERENCE, "schema_version": 1}), "invalid_reference", "reference"),
        (
            request(reference={**REFERENCE, "schema_version": True}),
            "invalid_reference",
            "reference",
        ),
        (request(reference={**REFERENCE, "schema_version": 2.0}), "invalid_reference", "reference"),
        (
            request(reference={"schema_version": 1, "scope": "project", "id": "legacy"}),
            "invalid_reference",
            "reference",
        ),
        (
            request(reference={**REFERENCE, "scope": "nope", "extra": 1}),
            "invalid_reference",
            "reference",
        ),
        (
            request(reference={k: v for k, v in REFERENCE.items() if k != "id"}),
            "invalid_reference",
            "reference",
        ),
        (
            request(
                reference={**REFERENCE, "scope": "Project", "namespace_id": "A"},
                expected_revision=0,
            ),
            "invalid_reference",
            "reference.scope",
        ),
        (
            request(reference={**REFERENCE, "namespace_id": "a_", "collection_id": "B"}),
            "invalid_reference",
            "reference.namespace_id",
        ),
        (
            request(reference={**REFERENCE, "collection_id": "", "id": "mem_1"}),
            "invalid_reference",
            "reference.collection_id",
        ),
        (
            request(reference={**REFERENCE, "collection_id": False}),
            "invalid_reference",
            "reference.collection_id",
        ),
        (
            request(reference={**REFERENCE, "id": "mem_" + "0" * 31}, expected_revision=0),
            "invalid_reference",
            "reference.id",
        ),
        (
            request(reference={**REFERENCE, "id": "../etc/passwd"}),
            "invalid_reference",
            "reference.id",
        ),
        (request(expected_revision=0), "invalid_expected_revision", "expected_revision"),
        (request(expected_revision=True), "invalid_expected_revision", "expected_revision"),
        (request(expected_revision=1.0), "invalid_expected_revision", "expected_revision"),
        (request(expected_revision="1.0"), "invalid_expected_revision", "expected_revision"),
        (request(expected_revision=None), "invalid_expected_revision", "expected_revision"),
    ],
)
def test_lifecycle_validation_order(
    call: Callable[..., Any],
    memory_root: Path,
    tool: str,
    arguments: dict[str, Any],
    code: str,
    field: str,
) -> None:
    reply = call(tool, arguments)
    assert reply.is_error
    assert reply.payload == invalid(code, field)
    assert not os.path.lexists(memory_root)


@pytest.mark.parametrize("tool", LIFECYCLE_TOOLS)
@pytest.mark.parametrize(
    ("arguments", "name"),
    [
        (request(bogus=True), "bogus"),
        (request(path="/tmp/x"), "path"),
        # Before every other rule, a missing reference and revision included.
        ({"extra": 1}, "extra"),
        (request(reference=None, expected_revision=0, state="archived"), "state"),
    ],
)
def test_lifecycle_names_an_unexpected_argument(
    call: Callable[..., Any], memory_root: Path, tool: str, arguments: dict[str, Any], name: str
) -> None:
    reply = call(tool, arguments)
    assert reply.is_error
    assert reply.payload == unexpected_argument("invalid_reference", name)
    assert not os.path.lexists(memory_root)


@pytest.mark.parametrize("tool", LIFECYCLE_TOOLS)
def test_lifecycle_non_object_arguments_are_invalid_params(client: McpClient, tool: str) -> None:
    response = client.rpc("tools/call", {"name": tool, "arguments": [REFERENCE, 1]})
    assert response["error"]["code"] == -32602


@pytest.mark.parametrize("tool", LIFECYCLE_TOOLS)
def test_lifecycle_decodes_stringified_reference_and_revision(
    call: Callable[..., Any], memory_root: Path, tool: str
) -> None:
    state = {"state": "active" if tool == ARCHIVE else "archived", "revision": 3}
    existing(memory_root, lifecycle=state)
    reply = call(
        tool,
        request(reference=json.dumps(REFERENCE), expected_revision="3"),
    )
    assert reply.payload["status"] == PAST[tool]


@pytest.mark.parametrize("tool", LIFECYCLE_TOOLS)
def test_lifecycle_decodes_a_stringified_schema_version(
    call: Callable[..., Any], memory_root: Path, tool: str
) -> None:
    state = {"state": "active" if tool == ARCHIVE else "archived", "revision": 1}
    existing(memory_root, lifecycle=state)
    reply = call(tool, request(reference={**REFERENCE, "schema_version": "2"}))
    assert reply.payload["status"] == PAST[tool]


@pytest.mark.parametrize("tool", LIFECYCLE_TOOLS)
@pytest.mark.parametrize("text", ["2.0", "2.5", "1e400", "true", "null", "[2]", "3"])
def test_lifecycle_schema_version_text_that_is_not_the_integer_2_stays_invalid(
    call: Callable[..., Any], memory_root: Path, tool: str, text: str
) -> None:
    # The published schema_version is a one-value integer range instead of a const (issue
    # 12); whatever the normalizer makes of such text, the answer is the original one.
    existing(memory_root, lifecycle={"state": "archived", "revision": 1})
    reply = call(tool, request(reference={**REFERENCE, "schema_version": text}))
    assert reply.payload == invalid("invalid_reference", "reference")


@pytest.mark.parametrize("tool", LIFECYCLE_TOOLS)
def test_lifecycle_decodes_only_one_layer(
    call: Callable[..., Any], memory_root: Path, tool: str
) -> None:
    existing(memory_root, lifecycle=ARCHIVED_2)
    twice = json.dumps(json.dumps(REFERENCE))
    reply = call(tool, request(reference=twice, expected_revision=2))
    assert reply.payload == invalid("invalid_reference", "reference")
    inner = json.dumps({**REFERENCE, "schema_version": "2"})
    reply = call(tool, request(reference=inner, expected_revision=2))
    assert reply.payload == invalid("invalid_reference", "reference")


# --- archive and restore --------------------------------------------------------------------


def test_archive_flips_state_bumps_revision_and_stamps_updated_at(
    call: Callable[..., Any], memory_root: Path
) -> None:
    record = existing(memory_root)
    reply = call(ARCHIVE, request())
    assert not reply.is_error
    assert "isError" not in reply.raw
    assert reply.payload == {
        "status": "archived",
        "reference": REFERENCE,
        "lifecycle": {"state": "archived", "revision": 2},
    }
    expected = {**record, "lifecycle": {"state": "archived", "revision": 2}}
    expected["updated_at"] = FIXED_STAMP
    data = on_disk(memory_root, record)
    assert data == expected
    assert list(data) == list(expected)


def test_restore_flips_state_back(call: Callable[..., Any], memory_root: Path) -> None:
    record = existing(memory_root, lifecycle={"state": "archived", "revision": 4})
    reply = call(RESTORE, request(expected_revision=4))
    assert reply.payload == {
        "status": "restored",
        "reference": REFERENCE,
        "lifecycle": {"state": "active", "revision": 5},
    }
    data = on_disk(memory_root, record)
    assert data["lifecycle"] == {"state": "active", "revision": 5}
    assert data["updated_at"] == FIXED_STAMP
    assert {k: v for k, v in data.items() if k not in ("lifecycle", "updated_at")} == {
        k: v for k, v in record.items() if k not in ("lifecycle", "updated_at")
    }


@pytest.mark.parametrize(
    ("tool", "state", "status"),
    [(ARCHIVE, "archived", "already_archived"), (RESTORE, "active", "already_active")],
)
def test_lifecycle_target_state_already_reached_writes_nothing(
    call: Callable[..., Any],
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    tool: str,
    state: str,
    status: str,
) -> None:
    existing(memory_root, lifecycle={"state": state, "revision": 3})
    forbid_clock(monkeypatch)
    before = snapshot_tree(memory_root)
    reply = call(tool, request(expected_revision=3))
    assert not reply.is_error
    assert reply.payload == {
        "status": status,
        "reference": REFERENCE,
        "lifecycle": {"state": state, "revision": 3},
    }
    assert snapshot_tree(memory_root) == before


@pytest.mark.parametrize(
    ("tool", "state"),
    [(ARCHIVE, "archived"), (ARCHIVE, "active"), (RESTORE, "active"), (RESTORE, "archived")],
)
@pytest.mark.parametrize("expected_revision", [1, 3])
def test_lifecycle_stale_revision_is_a_conflict_before_state_eligibility(
    call: Callable[..., Any], memory_root: Path, tool: str, state: str, expected_revision: int
) -> None:
    existing(memory_root, lifecycle={"state": state, "revision": 2})
    before = snapshot_tree(memory_root)
    reply = call(tool, request(expected_revision=expected_revision))
    assert reply.is_error
    assert reply.payload == error(tool, "conflict", "revision_conflict")
    assert snapshot_tree(memory_root) == before


def test_archive_then_restore_keeps_occurred_at_and_provenance(
    call: Callable[..., Any], memory_root: Path
) -> None:
    record = existing(
        memory_root,
        id=OTHER_ID,
        kind="event",
        occurred_at="2026-07-01T10:00:00Z",
        provenance={"origin": "manual", "recorded_via": "filesystem"},
        language="und",
    )
    reference = reference_of(record)
    assert call(ARCHIVE, request(reference=reference)).payload["status"] == "archived"
    reply = call(RESTORE, request(reference=reference, expected_revision=2))
    assert reply.payload["lifecycle"] == {"state": "active", "revision": 3}
    data = on_disk(memory_root, record)
    assert data["occurred_at"] == "2026-07-01T10:00:00Z"
    assert data["provenance"] == {"origin": "manual", "recorded_via": "filesystem"}
    assert data["created_at"] == record["created_at"]


def test_archived_record_leaves_recall_and_comes_back_on_restore(
    mcp: Callable[..., McpClient], memory_root: Path
) -> None:
    existing(memory_root, content="Hazelnut rollout plan for the memory domain.")
    client = mcp(archive_restore=True)

    def recalled() -> str:
        reply = client.call("memory_recall", {"query": "hazelnut rollout", "scope": "project"})
        status: str = reply.payload["status"]
        return status

    assert recalled() == "ok"
    client.call(ARCHIVE, request())
    assert recalled() == "no_matches"
    client.call(RESTORE, request(expected_revision=2))
    assert recalled() == "ok"


@pytest.mark.parametrize("tool", [ARCHIVE, RESTORE])
def test_lifecycle_replacement_is_a_new_file_with_mode_0600(
    call: Callable[..., Any], memory_root: Path, tool: str
) -> None:
    state = "active" if tool == ARCHIVE else "archived"
    record = existing(memory_root, lifecycle={"state": state, "revision": 1})
    path = record_path(memory_root, record)
    path.chmod(0o640)
    inode = path.stat().st_ino
    assert call(tool, request()).payload["status"] == PAST[tool]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.stat().st_ino != inode
    assert [p.name for p in path.parent.iterdir()] == [path.name]


@pytest.mark.parametrize("tool", [ARCHIVE, RESTORE])
def test_lifecycle_failed_directory_fsync_is_uncertain_with_the_new_state_visible(
    call: Callable[..., Any], memory_root: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    state, target = ("active", "archived") if tool == ARCHIVE else ("archived", "active")
    record = existing(memory_root, lifecycle={"state": state, "revision": 1})
    monkeypatch.setattr(files, "_fsync_directory", broken)
    reply = call(tool, request())
    assert reply.is_error
    assert reply.payload == error(tool, "uncertain", "replacement_outcome_uncertain")
    assert on_disk(memory_root, record)["lifecycle"] == {"state": target, "revision": 2}
    assert stat.S_IMODE(record_path(memory_root, record).stat().st_mode) == 0o600


@pytest.mark.parametrize("tool", [ARCHIVE, RESTORE])
def test_lifecycle_failed_rename_is_unavailable(
    call: Callable[..., Any], memory_root: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    state = "active" if tool == ARCHIVE else "archived"
    existing(memory_root, lifecycle={"state": state, "revision": 1})
    monkeypatch.setattr(files, "rename_over", broken)
    before = snapshot_tree(memory_root)
    reply = call(tool, request())
    assert reply.payload == error(tool, "storage_error", "memory_source_unavailable")
    assert snapshot_tree(memory_root) == before


@pytest.mark.parametrize("tool", [ARCHIVE, RESTORE])
def test_lifecycle_bytes_changed_before_the_rename_is_a_write_conflict(
    call: Callable[..., Any], memory_root: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    state = "active" if tool == ARCHIVE else "archived"
    record = existing(memory_root, lifecycle={"state": state, "revision": 1})
    path = record_path(memory_root, record)
    original = files.write_temp

    def write_temp_then_touch_target(dir_fd: int, memory_id: str, payload: bytes) -> str:
        name = original(dir_fd, memory_id, payload)
        path.write_bytes(path.read_bytes() + b"\n")
        return name

    monkeypatch.setattr(files, "write_temp", write_temp_then_touch_target)
    reply = call(tool, request())
    assert reply.payload == error(tool, "conflict", "write_conflict")
    assert on_disk(memory_root, record)["lifecycle"]["state"] == state


@pytest.mark.parametrize("tool", [ARCHIVE, RESTORE])
def test_lifecycle_backwards_clock_is_an_invalid_reference(
    call: Callable[..., Any], memory_root: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    state = "active" if tool == ARCHIVE else "archived"
    existing(memory_root, lifecycle={"state": state, "revision": 1})
    fix_clock(monkeypatch, datetime(2001, 1, 1, tzinfo=UTC))
    before = snapshot_tree(memory_root)
    assert call(tool, request()).payload == invalid("invalid_reference", "reference")
    assert snapshot_tree(memory_root) == before


@pytest.mark.parametrize("tool", [ARCHIVE, RESTORE])
def test_lifecycle_result_that_does_not_match_is_internal(
    call: Callable[..., Any], memory_root: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    state = "active" if tool == ARCHIVE else "archived"
    existing(memory_root, lifecycle={"state": state, "revision": 1})
    monkeypatch.setattr(MemoryStore, "replace", lambda self, root, current, new: current)
    assert call(tool, request()).payload == error(tool, "internal_error", "internal_error")


# --- not found and unavailable, all three Tools -------------------------------------------------


@pytest.mark.parametrize("tool", LIFECYCLE_TOOLS)
def test_lifecycle_missing_record_is_not_found_and_creates_nothing(
    call: Callable[..., Any], memory_root: Path, tool: str
) -> None:
    reply = call(tool, request())
    assert reply.is_error
    assert reply.payload == error(tool, "not_found", "not_found")
    assert not os.path.lexists(memory_root)


@pytest.mark.parametrize("tool", LIFECYCLE_TOOLS)
def test_lifecycle_legacy_record_is_not_found(
    call: Callable[..., Any], memory_root: Path, tool: str
) -> None:
    legacy = {"schema_version": 1, "id": CANONICAL_ID, "content": "old"}
    write_record(memory_root, legacy, "project", "mnemosyne", "decisions", f"{CANONICAL_ID}.json")
    before = snapshot_tree(memory_root)
    assert call(tool, request()).payload == error(tool, "not_found", "not_found")
    assert snapshot_tree(memory_root) == before


@pytest.mark.parametrize("tool", LIFECYCLE_TOOLS)
def test_lifecycle_misplaced_record_is_not_found(
    call: Callable[..., Any], memory_root: Path, tool: str
) -> None:
    record = canonical_record(lifecycle=ARCHIVED_2)
    write_record(memory_root, record, "project", "mnemosyne", f"{CANONICAL_ID}.json")
    reply = call(tool, request(reference={**REFERENCE, "collection_id": None}, expected_revision=2))
    assert reply.payload == error(tool, "not_found", "not_found")


@pytest.mark.parametrize("tool", LIFECYCLE_TOOLS)
def test_lifecycle_other_collection_is_not_found(
    call: Callable[..., Any], memory_root: Path, tool: str
) -> None:
    existing(memory_root, lifecycle=ARCHIVED_2)
    reply = call(
        tool, request(reference={**REFERENCE, "collection_id": "ideas"}, expected_revision=2)
    )
    assert reply.payload == error(tool, "not_found", "not_found")


@pytest.mark.parametrize("tool", LIFECYCLE_TOOLS)
def test_lifecycle_symlinked_collection_is_unavailable(
    call: Callable[..., Any], memory_root: Path, tmp_path: Path, tool: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    place_canonical(elsewhere, canonical_record(lifecycle=ARCHIVED_2))
    namespace = memory_root / "project" / "mnemosyne"
    namespace.mkdir(parents=True)
    (namespace / "decisions").symlink_to(elsewhere / "project" / "mnemosyne" / "decisions")
    before = snapshot_tree(elsewhere)
    reply = call(tool, request(expected_revision=2))
    assert reply.payload == error(tool, "storage_error", "memory_source_unavailable")
    assert snapshot_tree(elsewhere) == before


# --- forget -----------------------------------------------------------------------------------


def test_forget_removes_only_the_file(call: Callable[..., Any], memory_root: Path) -> None:
    record = existing(memory_root, lifecycle=ARCHIVED_2)
    neighbour = existing(memory_root, id=OTHER_ID)
    path = record_path(memory_root, record)
    reply = call(FORGET, request(expected_revision=2))
    assert not reply.is_error
    assert reply.payload == {"status": "forgotten", "reference": REFERENCE}
    assert "lifecycle" not in reply.payload
    assert not path.exists()
    assert record_path(memory_root, neighbour).exists()
    assert sorted(p.name for p in path.parent.iterdir()) == [f"{OTHER_ID}.json"]


def test_forget_leaves_empty_directories_and_no_tombstone(
    call: Callable[..., Any], memory_root: Path
) -> None:
    record = existing(memory_root, lifecycle=ARCHIVED_2)
    call(FORGET, request(expected_revision=2))
    collection = record_path(memory_root, record).parent
    assert collection.is_dir()
    assert list(collection.iterdir()) == []
    assert sorted(str(p.relative_to(memory_root)) for p in memory_root.rglob("*")) == [
        "project",
        "project/mnemosyne",
        "project/mnemosyne/decisions",
    ]


def test_forget_collectionless_record(call: Callable[..., Any], memory_root: Path) -> None:
    record = existing(memory_root, collection=None, lifecycle=ARCHIVED_2)
    reference = reference_of(record)
    reply = call(FORGET, request(reference=reference, expected_revision=2))
    assert reply.payload == {"status": "forgotten", "reference": reference}
    assert not record_path(memory_root, record).exists()
    assert (memory_root / "project" / "mnemosyne").is_dir()


def test_forget_twice_is_not_found(call: Callable[..., Any], memory_root: Path) -> None:
    existing(memory_root, lifecycle=ARCHIVED_2)
    assert call(FORGET, request(expected_revision=2)).payload["status"] == "forgotten"
    assert call(FORGET, request(expected_revision=2)).payload == error(
        FORGET, "not_found", "not_found"
    )


def test_forget_active_record_is_not_archived(call: Callable[..., Any], memory_root: Path) -> None:
    existing(memory_root)
    before = snapshot_tree(memory_root)
    reply = call(FORGET, request())
    assert reply.is_error
    assert reply.payload == error(FORGET, "conflict", "not_archived")
    assert snapshot_tree(memory_root) == before


@pytest.mark.parametrize("state", ["active", "archived"])
def test_forget_stale_revision_beats_not_archived(
    call: Callable[..., Any], memory_root: Path, state: str
) -> None:
    existing(memory_root, lifecycle={"state": state, "revision": 2})
    before = snapshot_tree(memory_root)
    reply = call(FORGET, request(expected_revision=1))
    assert reply.payload == error(FORGET, "conflict", "revision_conflict")
    assert snapshot_tree(memory_root) == before


def test_forget_failed_directory_fsync_is_uncertain_with_the_file_gone(
    call: Callable[..., Any], memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = existing(memory_root, lifecycle=ARCHIVED_2)
    monkeypatch.setattr(files, "_fsync_directory", broken)
    reply = call(FORGET, request(expected_revision=2))
    assert reply.is_error
    assert reply.payload == error(FORGET, "uncertain", "deletion_outcome_uncertain")
    assert not record_path(memory_root, record).exists()


def test_forget_after_an_uncertain_deletion_is_not_found(
    call: Callable[..., Any], memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    existing(memory_root, lifecycle=ARCHIVED_2)
    monkeypatch.setattr(files, "_fsync_directory", broken)
    call(FORGET, request(expected_revision=2))
    monkeypatch.undo()
    fix_clock(monkeypatch)
    assert call(FORGET, request(expected_revision=2)).payload["status"] == "not_found"


def test_forget_changed_bytes_are_a_write_conflict(
    call: Callable[..., Any], memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = existing(memory_root, lifecycle=ARCHIVED_2)
    path = record_path(memory_root, record)
    original = files.read_file_at

    def read_then_change(dir_fd: int, name: str) -> files.FileContent:
        content = original(dir_fd, name)
        path.write_bytes(path.read_bytes() + b"\n")  # an unlocked writer slips in
        return content

    real_load = MemoryStore.load_canonical

    def load_then_arm(self: MemoryStore, *args: Any) -> Any:
        stored = real_load(self, *args)
        monkeypatch.setattr(files, "read_file_at", read_then_change)
        return stored

    monkeypatch.setattr(MemoryStore, "load_canonical", load_then_arm)
    reply = call(FORGET, request(expected_revision=2))
    assert reply.payload == error(FORGET, "conflict", "write_conflict")
    assert path.exists()


@pytest.mark.parametrize(
    ("failure", "status", "code"),
    [
        (FileNotFoundError, "conflict", "write_conflict"),
        (PermissionError, "storage_error", "memory_source_unavailable"),
    ],
)
def test_forget_unlink_failures(
    call: Callable[..., Any],
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    failure: type[OSError],
    status: str,
    code: str,
) -> None:
    record = existing(memory_root, lifecycle=ARCHIVED_2)

    def failing_unlink(dir_fd: int, name: str) -> None:
        raise failure("simulated")

    monkeypatch.setattr(files, "unlink", failing_unlink)
    assert call(FORGET, request(expected_revision=2)).payload == error(FORGET, status, code)
    assert record_path(memory_root, record).exists()


# --- log events -------------------------------------------------------------------------------


def test_archive_and_restore_log_scope_and_lifecycle(
    call: Callable[..., Any], memory_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    existing(memory_root)
    caplog.set_level(logging.INFO)
    call(ARCHIVE, request())
    call(RESTORE, request(expected_revision=2))
    call(RESTORE, request(expected_revision=3))
    messages = [
        (r.name, r.levelno, r.getMessage())
        for r in caplog.records
        if r.name.startswith("mcp.memory_")
    ]
    assert messages == [
        (
            "mcp.memory_archive",
            logging.INFO,
            "event=memory_archive outcome=archived schema_version=2 scope=project "
            "lifecycle_state=archived revision=2",
        ),
        (
            "mcp.memory_restore",
            logging.INFO,
            "event=memory_restore outcome=restored schema_version=2 scope=project "
            "lifecycle_state=active revision=3",
        ),
        (
            "mcp.memory_restore",
            logging.INFO,
            "event=memory_restore outcome=already_active schema_version=2 scope=project "
            "lifecycle_state=active revision=3",
        ),
    ]


def test_forget_logs_no_lifecycle_and_no_identity(
    call: Callable[..., Any], memory_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    existing(memory_root, lifecycle=ARCHIVED_2)
    caplog.set_level(logging.INFO)
    call(FORGET, request(expected_revision=2))
    [event] = tool_events(caplog, FORGET)
    assert event.levelno == logging.INFO
    assert (
        event.getMessage() == "event=memory_forget outcome=forgotten schema_version=2 scope=project"
    )
    text = "\n".join(r.getMessage() for r in caplog.records)
    for private in (CANONICAL_ID, "mnemosyne", "decisions", str(memory_root)):
        assert private not in text


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        (
            ARCHIVE,
            request(expected_revision=0),
            "event=memory_archive outcome=invalid_request code=invalid_expected_revision "
            "field=expected_revision",
        ),
        (
            RESTORE,
            request(reference={**REFERENCE, "id": "x"}),
            "event=memory_restore outcome=invalid_request code=invalid_reference "
            "field=reference.id",
        ),
        (
            FORGET,
            request(),
            "event=memory_forget outcome=not_found code=not_found schema_version=2 scope=project",
        ),
        (
            ARCHIVE,
            request(expected_revision=9),
            "event=memory_archive outcome=not_found code=not_found schema_version=2 scope=project",
        ),
    ],
)
def test_lifecycle_failures_log_at_warning(
    call: Callable[..., Any],
    caplog: pytest.LogCaptureFixture,
    tool: str,
    arguments: dict[str, Any],
    message: str,
) -> None:
    caplog.set_level(logging.INFO)
    call(tool, arguments)
    [event] = tool_events(caplog, tool)
    assert event.levelno == logging.WARNING
    assert event.getMessage() == message


def test_forget_not_archived_logs_conflict(
    call: Callable[..., Any], memory_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    existing(memory_root)
    caplog.set_level(logging.INFO)
    call(FORGET, request())
    [event] = tool_events(caplog, FORGET)
    assert event.levelno == logging.WARNING
    assert event.getMessage() == (
        "event=memory_forget outcome=conflict code=not_archived schema_version=2 scope=project"
    )
