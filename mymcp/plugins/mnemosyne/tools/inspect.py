"""``memory_inspect``: show one stored memory in full, named by its versioned reference."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mymcp.jsonvalue import JsonObject
from mymcp.plugins.mnemosyne.memory.model.errors import InvalidRequest
from mymcp.plugins.mnemosyne.memory.model.records import LEGACY_VERSION
from mymcp.plugins.mnemosyne.memory.model.references import REFERENCE, Reference, parse_reference
from mymcp.plugins.mnemosyne.tools import schemas
from mymcp.plugins.mnemosyne.tools.arguments import refuse_unexpected
from mymcp.plugins.mnemosyne.tools.framework import READS, MemoryTool, ToolCall

DESCRIPTION = (
    "Show everything one memory holds: text, tags and, for version 2, namespace, "
    "collection, kind, language, provenance, lifecycle state and revision, and timestamps. "
    "Archived memories too."
)

REFERENCE_DESCRIPTION = (
    "Copied unchanged from an earlier result (a legacy memory's reference has "
    f"schema_version {LEGACY_VERSION})."
)

INPUT_SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        REFERENCE: schemas.described(
            REFERENCE_DESCRIPTION,
            {"anyOf": [schemas.canonical_reference(), schemas.legacy_reference()]},
        )
    },
    "required": [REFERENCE],
    "additionalProperties": False,
}


def _parse(arguments: Mapping[str, Any]) -> Reference:
    """The reference, checked in the contract's order; the first broken rule is reported."""
    refuse_unexpected(arguments, (REFERENCE,), code="invalid_reference", field=REFERENCE)
    if REFERENCE not in arguments:
        raise InvalidRequest("invalid_reference", field=REFERENCE)
    return parse_reference(arguments[REFERENCE], legacy=True)


def _inspect(arguments: Mapping[str, Any], call: ToolCall) -> JsonObject:
    from mymcp.plugins.mnemosyne.memory.services.inspect import inspect_memory, memory_view

    reference = _parse(arguments)
    call.note(schema_version=reference.schema_version, scope=reference.scope.value)
    record = inspect_memory(call.store, call.memory_root(), reference)
    return {"status": "ok", "memory": memory_view(record, reference.scope)}


TOOL = MemoryTool(
    name="memory_inspect",
    title="Inspect a memory",
    description=DESCRIPTION,
    input_schema=INPUT_SCHEMA,
    effects=READS,
    handler=_inspect,
    messages={
        "not_found": "memory was not found",
        "ambiguous_reference": "legacy memory reference is ambiguous",
    },
    failure_message="memory could not be inspected",
    quiet_statuses=frozenset({"not_found"}),
)
