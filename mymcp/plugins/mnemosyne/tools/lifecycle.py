"""``memory_archive``, ``memory_restore`` and ``memory_forget``: lifecycle changes by reference.

All three take the same request: the exact version 2 reference of one memory and the
revision the caller last saw. The request schema, its parser and the result shapes here
are shared with ``memory_revise``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mymcp.jsonvalue import JsonObject
from mymcp.plugins.mnemosyne.memory.model.errors import InvalidRequest
from mymcp.plugins.mnemosyne.memory.model.records import CANONICAL_VERSION
from mymcp.plugins.mnemosyne.memory.model.references import (
    EXPECTED_REVISION,
    REFERENCE,
    CanonicalReference,
    parse_change_target,
)
from mymcp.plugins.mnemosyne.memory.model.vocabulary import LifecycleState
from mymcp.plugins.mnemosyne.tools import schemas
from mymcp.plugins.mnemosyne.tools.arguments import refuse_unexpected
from mymcp.plugins.mnemosyne.tools.framework import (
    CHANGES,
    DESTROYS,
    Handler,
    MemoryTool,
    ToolCall,
    lifecycle_result,
)

EXPECTED_REVISION_SCHEMA: Final[JsonObject] = {"type": "integer", "minimum": 1}

INPUT_SCHEMA: Final[JsonObject] = {
    "type": "object",
    "properties": {
        REFERENCE: schemas.canonical_reference(),
        EXPECTED_REVISION: EXPECTED_REVISION_SCHEMA,
    },
    "required": [REFERENCE, EXPECTED_REVISION],
    "additionalProperties": False,
}

_KEYS: Final = frozenset(INPUT_SCHEMA["properties"])
_ARGUMENTS_HINT: Final = (
    " Pass an earlier result's reference and, as expected_revision, the revision the user "
    "saw; a changed memory is left alone. Each exact call needs the user's approval; if the "
    "outcome is uncertain, inspect before retrying."
)

# --- shared with memory_revise --------------------------------------------------------------


def note_target(call: ToolCall, reference: CanonicalReference) -> None:
    """Note the version and scope of a valid change request for the log."""
    call.note(schema_version=CANONICAL_VERSION, scope=reference.scope.value)


def operation_messages(op: str, past: str) -> dict[str, str]:
    """The fixed messages shared by revise, archive, restore and forget."""
    return {
        "invalid_expected_revision": "expected revision is invalid",
        "mutation_disabled": f"memory {op} is disabled",
        "not_found": f"memory to {op} was not found",
        "revision_conflict": f"memory to {op} is not at the expected revision",
        "write_conflict": f"memory changed before it could be {past}",
        "replacement_outcome_uncertain": (
            f"memory {op} outcome is uncertain; inspect the same reference before any retry"
        ),
    }


def _parse(arguments: Mapping[str, Any], call: ToolCall) -> tuple[CanonicalReference, int]:
    if not isinstance(arguments, Mapping):
        raise InvalidRequest("invalid_reference", field=REFERENCE)
    refuse_unexpected(arguments, _KEYS, code="invalid_reference", field=REFERENCE)
    reference, expected_revision = parse_change_target(arguments)
    note_target(call, reference)
    return reference, expected_revision


# --- archive and restore ----------------------------------------------------------------


def _state_handler(target: LifecycleState) -> Handler:
    def handle(arguments: Mapping[str, Any], call: ToolCall) -> JsonObject:
        from mymcp.plugins.mnemosyne.memory.services import lifecycle as service

        reference, expected_revision = _parse(arguments, call)
        result = service.change_state(
            call.store, call.memory_root(), reference, expected_revision, target
        )
        return lifecycle_result(call, result.status, result.record)

    return handle


def _state_tool(op: str, past: str, target: LifecycleState, title: str, text: str) -> MemoryTool:
    """``memory_<op>``, which brings a memory into ``target``; ``past`` is the participle."""
    return MemoryTool(
        name=f"memory_{op}",
        title=title,
        description=text + _ARGUMENTS_HINT,
        input_schema=INPUT_SCHEMA,
        effects=CHANGES,
        handler=_state_handler(target),
        messages=operation_messages(op, past),
        failure_message=f"memory could not be {past}",
        gate="archive_restore_enabled",
    )


ARCHIVE = _state_tool(
    "archive",
    "archived",
    LifecycleState.ARCHIVED,
    "Archive a memory",
    "Archive one memory: it stays stored and inspectable, but recall no longer returns it; "
    "memory_restore brings it back, and memory_forget needs it archived first. Answers "
    "archived, or already_archived.",
)

RESTORE = _state_tool(
    "restore",
    "restored",
    LifecycleState.ACTIVE,
    "Restore a memory",
    "Restore one archived memory so that recall finds it again. Answers restored, or "
    "already_active.",
)

# --- forget -----------------------------------------------------------------------------


def _forget(arguments: Mapping[str, Any], call: ToolCall) -> JsonObject:
    from mymcp.plugins.mnemosyne.memory.services import lifecycle as service

    reference, expected_revision = _parse(arguments, call)
    service.forget(call.store, call.memory_root(), reference, expected_revision)
    return {"status": "forgotten", REFERENCE: reference.as_dict()}


FORGET = MemoryTool(
    name="memory_forget",
    title="Forget a memory",
    description=(
        "Permanently delete one archived memory: the file is removed and no copy or history "
        "remains. An active memory answers not_archived (archive it first)." + _ARGUMENTS_HINT
    ),
    input_schema=INPUT_SCHEMA,
    effects=DESTROYS,
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
