"""``memory_remember``: propose one new memory; gated, consent per call, duplicate-safe."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mymcp.jsonvalue import JsonObject
from mymcp.plugins.mnemosyne.memory.model.errors import InvalidRequest
from mymcp.plugins.mnemosyne.memory.model.records import CanonicalRecord, Collection, Namespace
from mymcp.plugins.mnemosyne.memory.model.values import (
    CONTENT_LIMIT,
    LABEL_LIMIT,
    LANGUAGE_LIMIT,
    TITLE_LIMIT,
    is_identifier,
    normalize_language,
    normalize_tags,
    normalize_text,
    parse_event_timestamp,
)
from mymcp.plugins.mnemosyne.memory.model.vocabulary import (
    PUBLIC_ORIGINS,
    SCOPE_RULES,
    MemoryKind,
    NamespaceKind,
    Origin,
    Scope,
)
from mymcp.plugins.mnemosyne.tools import schemas
from mymcp.plugins.mnemosyne.tools.arguments import refuse_unexpected
from mymcp.plugins.mnemosyne.tools.framework import CHANGES, MemoryTool, ToolCall, lifecycle_result

# --- the published input schema ----------------------------------------------------------
#
# One flat object: which kinds each scope takes and when occurred_at belongs are said in the
# descriptions below, built from the scope table, and enforced by parse_arguments.

_OCCURRED_AT: Final = "occurred_at"


def _first_seen(values: list[Any]) -> list[str]:
    return [str(value) for value in dict.fromkeys(values)]


def _joined(values: tuple[Any, ...]) -> str:
    return ", ".join(str(value) for value in values)


_NAMESPACE_KINDS: Final = _first_seen(
    [kind for scope in Scope for kind in SCOPE_RULES[scope].namespace_kinds]
)
_MEMORY_KINDS: Final = _first_seen(
    [kind for scope in Scope for kind in SCOPE_RULES[scope].memory_kinds]
)
_EVENT_SCOPES: Final = tuple(
    scope for scope in Scope if MemoryKind.EVENT in SCOPE_RULES[scope].memory_kinds
)
_ORIGIN_VALUES: Final = [str(origin) for origin in PUBLIC_ORIGINS]


def _kind_guidance(scope: Scope) -> str:
    return "; ".join(f"{item.kind}: {item.guidance}" for item in SCOPE_RULES[scope].kinds)


_SCOPE_DESCRIPTION: Final = schemas.scope_catalogue()
_NAMESPACE_KIND_DESCRIPTION: Final = "Must belong to the scope: " + "; ".join(
    f"{scope}: {_joined(SCOPE_RULES[scope].namespace_kinds)}" for scope in Scope
)
_KIND_DESCRIPTION: Final = "Must belong to the scope. Writing guidance by scope: " + " | ".join(
    f"{scope}: {_kind_guidance(scope)}" for scope in Scope
)
_COLLECTION_DESCRIPTION: Final = "null, or a collection inside the namespace."
_LANGUAGE_DESCRIPTION: Final = (
    f"A language tag such as en or pt-BR, at most {LANGUAGE_LIMIT} characters, or null "
    "when undetermined."
)
_CONTENT_DESCRIPTION: Final = (
    f"The memory itself, self-contained, at most {CONTENT_LIMIT:,} characters."
)
_TAGS_DESCRIPTION: Final = "No two equal ignoring case."
_ORIGIN_DESCRIPTION: Final = (
    f"Context, not consent: {PUBLIC_ORIGINS[0]} if the user said it, {PUBLIC_ORIGINS[1]} "
    "if the user approved your suggestion."
)
_OCCURRED_AT_DESCRIPTION: Final = (
    f"Required for kind {MemoryKind.EVENT} (scope {_joined(_EVENT_SCOPES)}), refused for "
    "any other kind even as null: when it happened, a real UTC time."
)
_TOOL_DESCRIPTION: Final = (
    "Propose one memory for the user's local notebook; each exact call needs the user's "
    "approval. Recall first: an equal stored memory is reported, not written twice. Never "
    "include secrets, passwords, credentials or keys, payment-card or government ID numbers, "
    "personal details the memory does not need, file paths or server-owned values (IDs, "
    "timestamps, revisions). A refusal names only the field and a coarse reason: never "
    "disguise the value; retry only once the user confirms it is harmless and approves the "
    "changed call. Texts must not be blank; limits count characters after trimming. The "
    "result's reference works as is with memory_inspect and the change Tools."
)


def _namespace_schema() -> JsonObject:
    return {
        "type": "object",
        "properties": {
            "kind": {
                "type": "string",
                "description": _NAMESPACE_KIND_DESCRIPTION,
                "enum": list(_NAMESPACE_KINDS),
            },
            "id": schemas.identifier(),
            "label": schemas.nullable(schemas.text(LABEL_LIMIT)),
        },
        "required": ["kind", "id", "label"],
        "additionalProperties": False,
    }


def _collection_schema() -> JsonObject:
    collection = {
        "type": "object",
        "properties": {
            "id": schemas.identifier(),
            "label": schemas.nullable(schemas.text(LABEL_LIMIT)),
        },
        "required": ["id", "label"],
        "additionalProperties": False,
    }
    return schemas.described(_COLLECTION_DESCRIPTION, {"anyOf": [{"type": "null"}, collection]})


_PROPERTIES: Final[JsonObject] = {
    "scope": schemas.scope_enum(_SCOPE_DESCRIPTION),
    "namespace": _namespace_schema(),
    "collection": _collection_schema(),
    "kind": {"type": "string", "description": _KIND_DESCRIPTION, "enum": _MEMORY_KINDS},
    "language": schemas.described(
        _LANGUAGE_DESCRIPTION,
        schemas.nullable({"type": "string", "pattern": schemas.LANGUAGE_PATTERN}),
    ),
    "title": schemas.nullable(schemas.text(TITLE_LIMIT)),
    "content": schemas.described(_CONTENT_DESCRIPTION, schemas.text(CONTENT_LIMIT)),
    "tags": schemas.tags_schema(min_items=0, description=_TAGS_DESCRIPTION),
    "origin": {
        "type": "string",
        "description": _ORIGIN_DESCRIPTION,
        "enum": list(_ORIGIN_VALUES),
    },
    _OCCURRED_AT: {
        "type": "string",
        "description": _OCCURRED_AT_DESCRIPTION,
        "pattern": schemas.TIMESTAMP_PATTERN,
    },
}
_REQUIRED: Final = [name for name in _PROPERTIES if name != _OCCURRED_AT]

INPUT_SCHEMA: Final[JsonObject] = {
    "type": "object",
    "properties": _PROPERTIES,
    "required": list(_REQUIRED),
    "additionalProperties": False,
}

# --- argument parsing, in the contract's order -------------------------------------------

_KEYS: Final = frozenset(_REQUIRED)
_ALLOWED: Final = _KEYS | {_OCCURRED_AT}
_REQUEST: Final = "memory"
_ORIGINS: Final = {str(origin): origin for origin in PUBLIC_ORIGINS}
_SCOPES: Final = {str(scope): scope for scope in Scope}
_KINDS: Final = {str(kind): kind for kind in MemoryKind}
_NAMESPACE_KIND_VALUES: Final = {str(kind): kind for kind in NamespaceKind}


def _invalid(code: str, field: str) -> InvalidRequest:
    return InvalidRequest(code, field=field)


def _member(table: Mapping[str, Any], value: object) -> Any:
    """The table entry for a string value, else None (never hashes a non-string)."""
    return table.get(value) if isinstance(value, str) else None


def _object(value: object, keys: set[str]) -> Mapping[str, Any] | None:
    if isinstance(value, dict) and value.keys() == keys:
        return value
    return None


def _label(value: object, field: str) -> str | None:
    if value is None:
        return None
    label = normalize_text(value, LABEL_LIMIT)
    if label is None:
        raise _invalid("invalid_record", field)
    return label


def _parse_namespace(value: object) -> Namespace | None:
    """The namespace object, or None when its kind is a string naming no namespace kind."""
    fields = _object(value, {"kind", "id", "label"})
    if fields is None:
        raise _invalid("invalid_record", "namespace")
    if not isinstance(fields["kind"], str):
        raise _invalid("invalid_namespace", "namespace.kind")
    if not is_identifier(fields["id"]):
        raise _invalid("invalid_namespace", "namespace.id")
    label = _label(fields["label"], "namespace.label")
    kind: NamespaceKind | None = _member(_NAMESPACE_KIND_VALUES, fields["kind"])
    return None if kind is None else Namespace(kind, fields["id"], label)


def _parse_collection(value: object) -> Collection | None:
    if value is None:
        return None
    fields = _object(value, {"id", "label"})
    if fields is None:
        raise _invalid("invalid_record", "collection")
    if not is_identifier(fields["id"]):
        raise _invalid("invalid_collection", "collection.id")
    return Collection(fields["id"], _label(fields["label"], "collection.label"))


def _parse_occurred_at(arguments: Mapping[str, Any], kind: MemoryKind) -> str | None:
    present = _OCCURRED_AT in arguments
    if kind is not MemoryKind.EVENT:
        if present:
            raise _invalid("invalid_record", _OCCURRED_AT)
        return None
    instant = parse_event_timestamp(arguments.get(_OCCURRED_AT))
    if instant is None:
        raise _invalid("invalid_record", _OCCURRED_AT)
    return instant


def _required(value: Any, field: str) -> Any:
    if value is None:
        raise _invalid("invalid_record", field)
    return value


def parse_arguments(arguments: Mapping[str, Any]) -> CanonicalRecord:
    """The draft of a remember call; raises InvalidRequest in the contract's order."""
    from mymcp.plugins.mnemosyne.memory.services import remember as service

    origin: Origin | None = _member(_ORIGINS, arguments.get("origin"))
    if origin is None:
        raise _invalid("invalid_origin", "origin")
    refuse_unexpected(arguments, _ALLOWED, code="invalid_record", field=_REQUEST)
    if not _KEYS <= arguments.keys():
        raise _invalid("invalid_record", _REQUEST)
    scope: Scope | None = _member(_SCOPES, arguments["scope"])
    if scope is None:
        raise _invalid("invalid_scope", "scope")
    namespace = _parse_namespace(arguments["namespace"])
    collection = _parse_collection(arguments["collection"])
    kind: MemoryKind | None = _member(_KINDS, arguments["kind"])
    if kind is None:
        raise _invalid("invalid_kind", "kind")
    rule = SCOPE_RULES[scope]
    if namespace is None or namespace.kind not in rule.namespace_kinds:
        raise _invalid("invalid_namespace", "namespace.kind")
    if kind not in rule.memory_kinds:
        raise _invalid("invalid_kind", "kind")
    occurred_at = _parse_occurred_at(arguments, kind)
    language = _required(normalize_language(arguments["language"]), "language")
    title = arguments["title"]
    if title is not None:
        title = _required(normalize_text(title, TITLE_LIMIT), "title")
    return service.Draft(
        scope=scope,
        namespace=namespace,
        collection=collection,
        kind=kind,
        language=language,
        title=title,
        content=_required(normalize_text(arguments["content"], CONTENT_LIMIT), "content"),
        tags=_required(normalize_tags(arguments["tags"]), "tags"),
        origin=origin,
        occurred_at=occurred_at,
    )


# --- the handler -------------------------------------------------------------------------


def _remember(arguments: Mapping[str, Any], call: ToolCall) -> JsonObject:
    from mymcp.plugins.mnemosyne.memory.services import remember as service

    draft = parse_arguments(arguments)
    call.note(
        scope=draft.scope.value,
        namespace_kind=draft.namespace.kind.value,
        memory_kind=draft.kind.value,
        collection_present=draft.collection is not None,
        origin=draft.origin.value,
    )
    result = service.remember(call.store, call.memory_root(), draft)
    call.note(memory_id=result.record.id)
    return lifecycle_result(call, result.status, result.record)


TOOL = MemoryTool(
    name="memory_remember",
    title="Remember a memory",
    description=_TOOL_DESCRIPTION,
    input_schema=INPUT_SCHEMA,
    effects=CHANGES,
    handler=_remember,
    messages={
        "invalid_origin": "origin is invalid",
        "invalid_scope": "scope is invalid",
        "invalid_namespace": "namespace is invalid for scope",
        "invalid_collection": "collection is invalid",
        "invalid_kind": "kind is invalid for scope",
        "invalid_record": "memory field is invalid",
        "mutation_disabled": "memory remember is disabled",
        "write_conflict": "generated memory identity conflicts with an existing record",
    },
    failure_message="memory could not be stored",
    gate="remember_enabled",
)
