"""``memory_inspect``: show one stored memory in full, named by its versioned reference."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mymcp.plugin.contracts import ConsentRequirement
from mymcp.plugins.mnemosyne.memory.errors import InvalidRequest
from mymcp.plugins.mnemosyne.memory.inspect import (
    CanonicalReference,
    LegacyReference,
    Reference,
    inspect_memory,
    memory_view,
)
from mymcp.plugins.mnemosyne.memory.values import is_canonical_id, is_identifier, is_legacy_id
from mymcp.plugins.mnemosyne.memory.vocabulary import Scope
from mymcp.plugins.mnemosyne.tools import schemas
from mymcp.plugins.mnemosyne.tools.framework import READS, MemoryTool, Payload, ToolCall

DESCRIPTION = (
    "Show everything one memory holds: text, tags and, for version 2, namespace, "
    "collection, kind, language, provenance, lifecycle state and revision, and timestamps. "
    "Archived memories too."
)

REFERENCE_DESCRIPTION = (
    "Copied unchanged from an earlier result (a legacy memory's reference has "
    f"schema_version {schemas.LEGACY_VERSION})."
)

INPUT_SCHEMA: schemas.Schema = {
    "type": "object",
    "properties": {
        "reference": schemas.described(
            REFERENCE_DESCRIPTION,
            {"anyOf": [schemas.canonical_reference(), schemas.legacy_reference()]},
        )
    },
    "required": ["reference"],
    "additionalProperties": False,
}

_CANONICAL_KEYS = frozenset({"schema_version", "scope", "namespace_id", "collection_id", "id"})
_LEGACY_KEYS = frozenset({"schema_version", "scope", "id"})


def _invalid(field: str = "reference") -> InvalidRequest:
    return InvalidRequest("invalid_reference", field=field)


def _parse(arguments: Mapping[str, Any]) -> Reference:
    """The reference, checked in the contract's order; the first broken rule is reported."""
    if arguments.keys() != {"reference"}:
        raise _invalid()
    reference = arguments["reference"]
    if not isinstance(reference, dict):
        raise _invalid()
    version = reference.get("schema_version")
    if type(version) is not int or version not in (1, 2):
        raise _invalid()
    if reference.keys() != (_CANONICAL_KEYS if version == 2 else _LEGACY_KEYS):
        raise _invalid()
    scope = reference["scope"]
    if not isinstance(scope, str) or scope not in schemas.SCOPE_VALUES:
        raise _invalid("reference.scope")
    if version == 1:
        if not is_legacy_id(reference["id"]):
            raise _invalid("reference.id")
        return LegacyReference(Scope(scope), reference["id"])
    return _parse_canonical(Scope(scope), reference)


def _parse_canonical(scope: Scope, reference: Mapping[str, Any]) -> CanonicalReference:
    namespace_id, collection_id = reference["namespace_id"], reference["collection_id"]
    if not is_identifier(namespace_id):
        raise _invalid("reference.namespace_id")
    if collection_id is not None and not is_identifier(collection_id):
        raise _invalid("reference.collection_id")
    if not is_canonical_id(reference["id"]):
        raise _invalid("reference.id")
    return CanonicalReference(scope, namespace_id, collection_id, reference["id"])


def _inspect(arguments: Mapping[str, Any], call: ToolCall) -> Payload:
    reference = _parse(arguments)
    version = 2 if isinstance(reference, CanonicalReference) else 1
    call.note(schema_version=version, scope=reference.scope.value)
    record = inspect_memory(call.store, call.memory_root(), reference)
    return {"status": "ok", "memory": memory_view(record, reference.scope)}


TOOL = MemoryTool(
    name="memory_inspect",
    title="Inspect a memory",
    description=DESCRIPTION,
    input_schema=INPUT_SCHEMA,
    effects=READS,
    consent=ConsentRequirement.NONE,
    handler=_inspect,
    messages={
        "invalid_reference": "reference is invalid",
        "not_found": "memory was not found",
        "ambiguous_reference": "legacy memory reference is ambiguous",
        "candidate_limit_exceeded": "memory scope contains more than 1000 candidate files",
        "memory_source_unavailable": "memory could not be inspected",
    },
    failure_message="memory could not be inspected",
    quiet_statuses=frozenset({"not_found"}),
)
