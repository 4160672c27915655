"""``memory_archive``, ``memory_restore`` and ``memory_forget``: lifecycle changes by reference.

All three take the same request: the exact version 2 reference of one memory and the
revision the caller last saw. The reference and revision parsers here are shared with
``memory_revise``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from mymcp.plugin.contracts import ConsentRequirement
from mymcp.plugins.mnemosyne.memory import lifecycle as service
from mymcp.plugins.mnemosyne.memory.errors import InvalidRequest, MnemosyneError
from mymcp.plugins.mnemosyne.memory.inspect import CanonicalReference
from mymcp.plugins.mnemosyne.memory.records import CanonicalRecord
from mymcp.plugins.mnemosyne.memory.store import MemoryStore
from mymcp.plugins.mnemosyne.memory.values import is_canonical_id, is_identifier
from mymcp.plugins.mnemosyne.memory.vocabulary import LifecycleState, Scope
from mymcp.plugins.mnemosyne.tools import schemas
from mymcp.plugins.mnemosyne.tools.framework import (
    CHANGES,
    DESTROYS,
    Handler,
    MemoryTool,
    Payload,
    ToolCall,
)

REFERENCE: Final = "reference"
EXPECTED_REVISION: Final = "expected_revision"

EXPECTED_REVISION_SCHEMA: Final[schemas.Schema] = {"type": "integer", "minimum": 1}

INPUT_SCHEMA: Final[schemas.Schema] = {
    "type": "object",
    "properties": {
        REFERENCE: schemas.canonical_reference(),
        EXPECTED_REVISION: EXPECTED_REVISION_SCHEMA,
    },
    "required": [REFERENCE, EXPECTED_REVISION],
    "additionalProperties": False,
}

_REFERENCE_KEYS: Final = frozenset(
    {"schema_version", "scope", "namespace_id", "collection_id", "id"}
)
_KEYS: Final = frozenset({REFERENCE, EXPECTED_REVISION})

_ARGUMENTS_HINT: Final = (
    " Pass an earlier result's reference and, as expected_revision, the revision the user "
    "saw; a changed memory is left alone. Each exact call needs the user's approval; if the "
    "outcome is uncertain, inspect before retrying."
)

# --- shared request parsing (memory_revise uses it too) ---------------------------------


def invalid_reference(field: str = REFERENCE) -> InvalidRequest:
    return InvalidRequest("invalid_reference", field=field)


def invalid_expected_revision() -> InvalidRequest:
    return InvalidRequest("invalid_expected_revision", field=EXPECTED_REVISION)


def require_reference_and_revision(arguments: Mapping[str, Any]) -> None:
    """Both request keys must be present: the reference is checked first."""
    if REFERENCE not in arguments:
        raise invalid_reference()
    if EXPECTED_REVISION not in arguments:
        raise invalid_expected_revision()


def parse_reference(value: object) -> CanonicalReference:
    """An exact version 2 reference; its problems are reported in the contract's order."""
    if not isinstance(value, dict):
        raise invalid_reference()
    version = value.get("schema_version")
    if type(version) is not int or version != 2:
        raise invalid_reference()
    if value.keys() != _REFERENCE_KEYS:
        raise invalid_reference()
    scope = value["scope"]
    if not isinstance(scope, str) or scope not in schemas.SCOPE_VALUES:
        raise invalid_reference("reference.scope")
    namespace_id, collection_id, memory_id = (
        value["namespace_id"],
        value["collection_id"],
        value["id"],
    )
    if not is_identifier(namespace_id):
        raise invalid_reference("reference.namespace_id")
    if collection_id is not None and not is_identifier(collection_id):
        raise invalid_reference("reference.collection_id")
    if not is_canonical_id(memory_id):
        raise invalid_reference("reference.id")
    return CanonicalReference(Scope(scope), namespace_id, collection_id, memory_id)


def parse_expected_revision(value: object) -> int:
    """A JSON integer of at least 1 (``true`` and ``1.0`` are not integers)."""
    if type(value) is not int or value < 1:
        raise invalid_expected_revision()
    return value


def reference_payload(reference: CanonicalReference) -> Payload:
    """The versioned reference as the mutation results show it."""
    return {
        "schema_version": 2,
        "scope": reference.scope.value,
        "namespace_id": reference.namespace_id,
        "collection_id": reference.collection_id,
        "id": reference.id,
    }


def lifecycle_payload(
    status: str, reference: CanonicalReference, record: CanonicalRecord
) -> Payload:
    """A result naming the memory and its lifecycle after the call."""
    return {
        "status": status,
        REFERENCE: reference_payload(reference),
        "lifecycle": {"state": record.state.value, "revision": record.revision},
    }


def refers_to(record: CanonicalRecord, reference: CanonicalReference) -> bool:
    collection_id = None if record.collection is None else record.collection.id
    return (
        record.scope is reference.scope
        and record.namespace.id == reference.namespace_id
        and collection_id == reference.collection_id
        and record.id == reference.id
    )


def operation_messages(op: str, past: str) -> dict[str, str]:
    """The fixed messages shared by revise, archive, restore and forget."""
    return {
        "invalid_reference": "reference is invalid",
        "invalid_expected_revision": "expected revision is invalid",
        "mutation_disabled": f"memory {op} is disabled",
        "not_found": f"memory to {op} was not found",
        "revision_conflict": f"memory to {op} is not at the expected revision",
        "write_conflict": f"memory changed before it could be {past}",
        "replacement_outcome_uncertain": (
            f"memory {op} outcome is uncertain; inspect the same reference before any retry"
        ),
        "memory_source_unavailable": f"memory could not be {past}",
    }


def _parse(arguments: Mapping[str, Any]) -> tuple[CanonicalReference, int]:
    if not isinstance(arguments, Mapping) or not arguments.keys() <= _KEYS:
        raise invalid_reference()
    require_reference_and_revision(arguments)
    reference = parse_reference(arguments[REFERENCE])
    return reference, parse_expected_revision(arguments[EXPECTED_REVISION])


# --- archive and restore ----------------------------------------------------------------

_UNCHANGED: Final = frozenset({service.ALREADY_ARCHIVED, service.ALREADY_ACTIVE})

_Operation = Callable[[MemoryStore, Path, CanonicalReference, int], service.Changed]


def _state_handler(operation: _Operation, target: LifecycleState) -> Handler:
    def handle(arguments: Mapping[str, Any], call: ToolCall) -> Payload:
        reference, expected_revision = _parse(arguments)
        call.note(schema_version=2, scope=reference.scope.value)
        result = operation(call.store, call.memory_root(), reference, expected_revision)
        record = result.record
        revision_step = 0 if result.status in _UNCHANGED else 1
        if (
            not refers_to(record, reference)
            or record.state is not target
            or record.revision != expected_revision + revision_step
        ):
            raise MnemosyneError()
        call.note(lifecycle_state=record.state.value, revision=record.revision)
        return lifecycle_payload(result.status, reference, record)

    return handle


ARCHIVE = MemoryTool(
    name="memory_archive",
    title="Archive a memory",
    description=(
        "Archive one memory: it stays stored and inspectable, but recall no longer returns "
        "it; memory_restore brings it back, and memory_forget needs it archived first. "
        "Answers archived, or already_archived." + _ARGUMENTS_HINT
    ),
    input_schema=INPUT_SCHEMA,
    effects=CHANGES,
    consent=ConsentRequirement.PER_CALL,
    handler=_state_handler(service.archive, LifecycleState.ARCHIVED),
    messages=operation_messages("archive", "archived"),
    failure_message="memory could not be archived",
    gate="archive_restore_enabled",
)

RESTORE = MemoryTool(
    name="memory_restore",
    title="Restore a memory",
    description=(
        "Restore one archived memory so that recall finds it again. Answers restored, or "
        "already_active." + _ARGUMENTS_HINT
    ),
    input_schema=INPUT_SCHEMA,
    effects=CHANGES,
    consent=ConsentRequirement.PER_CALL,
    handler=_state_handler(service.restore, LifecycleState.ACTIVE),
    messages=operation_messages("restore", "restored"),
    failure_message="memory could not be restored",
    gate="archive_restore_enabled",
)

# --- forget -----------------------------------------------------------------------------


def _forget(arguments: Mapping[str, Any], call: ToolCall) -> Payload:
    reference, expected_revision = _parse(arguments)
    call.note(schema_version=2, scope=reference.scope.value)
    service.forget(call.store, call.memory_root(), reference, expected_revision)
    return {"status": "forgotten", REFERENCE: reference_payload(reference)}


FORGET = MemoryTool(
    name="memory_forget",
    title="Forget a memory",
    description=(
        "Permanently delete one archived memory: the file is removed and no copy or history "
        "remains. An active memory answers not_archived (archive it first)." + _ARGUMENTS_HINT
    ),
    input_schema=INPUT_SCHEMA,
    effects=DESTROYS,
    consent=ConsentRequirement.PER_CALL,
    handler=_forget,
    messages={
        **operation_messages("forget", "forgotten"),
        "not_archived": "memory must be archived before it can be forgotten",
        "deletion_outcome_uncertain": (
            "memory deletion outcome is uncertain; inspect the same reference before any retry"
        ),
    },
    failure_message="memory could not be forgotten",
    gate="forget_enabled",
)
