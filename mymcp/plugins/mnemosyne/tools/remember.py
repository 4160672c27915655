"""``memory_remember``: propose one new memory; gated, consent per call, duplicate-safe."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mymcp.plugin.contracts import ConsentRequirement
from mymcp.plugins.mnemosyne.memory import remember as service
from mymcp.plugins.mnemosyne.memory.errors import InvalidRequest
from mymcp.plugins.mnemosyne.memory.records import CanonicalRecord, Collection, Namespace
from mymcp.plugins.mnemosyne.memory.values import (
    CONTENT_LIMIT,
    LABEL_LIMIT,
    TITLE_LIMIT,
    is_identifier,
    normalize_language,
    normalize_tags,
    normalize_text,
    parse_event_timestamp,
)
from mymcp.plugins.mnemosyne.memory.vocabulary import (
    PUBLIC_ORIGINS,
    SCOPE_RULES,
    MemoryKind,
    NamespaceKind,
    Origin,
    Scope,
)
from mymcp.plugins.mnemosyne.tools import schemas
from mymcp.plugins.mnemosyne.tools.framework import CHANGES, MemoryTool, Payload, ToolCall

# --- the published input schema ----------------------------------------------------------

_REQUIRED: Final = [
    "scope",
    "namespace",
    "collection",
    "kind",
    "language",
    "title",
    "content",
    "tags",
    "origin",
]
_OCCURRED_AT: Final = "occurred_at"


def _first_seen(values: list[Any]) -> list[str]:
    return [str(value) for value in dict.fromkeys(values)]


_NAMESPACE_KINDS: Final = _first_seen(
    [kind for scope in Scope for kind in SCOPE_RULES[scope].namespace_kinds]
)
_MEMORY_KINDS: Final = _first_seen(
    [kind for scope in Scope for kind in SCOPE_RULES[scope].memory_kinds]
)

_MUST_MATCH_SCOPE = (
    "It has to belong to the chosen scope; the per-scope branches of this schema list the "
    "values each scope accepts."
)


def _kind_guidance(scope: Scope) -> str:
    return "; ".join(f"{item.kind}: {item.guidance}" for item in SCOPE_RULES[scope].kinds)


_SCOPE_DESCRIPTION: Final = (
    "The single high-level area this memory belongs to; pick the one that fits best. "
    + schemas.scope_catalogue()
)
_KIND_DESCRIPTION: Final = (
    f"What sort of memory this is. {_MUST_MATCH_SCOPE} Writing guidance by scope: "
    + " | ".join(f"{scope}: {_kind_guidance(scope)}" for scope in Scope)
)
_NAMESPACE_KIND_DESCRIPTION: Final = f"What the namespace stands for. {_MUST_MATCH_SCOPE}"
_CONTENT_DESCRIPTION: Final = (
    f"The memory itself: non-blank text of at most {CONTENT_LIMIT:,} characters after "
    "trimming, self-contained and limited to what the user approved."
)
_ORIGIN_DESCRIPTION: Final = (
    "How the memory reached you, kept as context (it is not a record of consent): "
    "explicit_user_statement when the user said it directly, user_approved_proposal when "
    "the user approved a memory you suggested."
)
_OCCURRED_AT_DESCRIPTION: Final = (
    "When the event took place, in UTC to the second: YYYY-MM-DDTHH:MM:SSZ. Give it for "
    "kind event (project scope) and for no other kind."
)
_TOOL_DESCRIPTION: Final = (
    "Propose one bounded, non-sensitive memory for the user's local Mnemosyne notebook. "
    "The client must get the user's approval for each exact call. Never include secrets, "
    "passwords, credentials or keys, payment-card or government identification numbers, "
    "personal details beyond what the memory needs, file paths, or values the server owns "
    "(IDs, timestamps, revisions, lifecycle). When a value looks like something Mnemosyne "
    "does not keep, the call is refused naming only the field and a coarse reason. Do not "
    "disguise or reformat the value to get past that: try again only once the user has "
    "confirmed the formatting is harmless and approved the changed call. An equal memory "
    "that already exists is reported instead of being written twice."
)


def _null_or(schema: schemas.Schema) -> schemas.Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def _namespace_schema(kind: schemas.Schema) -> schemas.Schema:
    return {
        "type": "object",
        "properties": {
            "kind": kind,
            "id": schemas.identifier(bounded=True),
            "label": _null_or(schemas.text(LABEL_LIMIT)),
        },
        "required": ["kind", "id", "label"],
        "additionalProperties": False,
    }


def _collection_schema() -> schemas.Schema:
    collection = {
        "type": "object",
        "properties": {
            "id": schemas.identifier(bounded=True),
            "label": _null_or(schemas.text(LABEL_LIMIT)),
        },
        "required": ["id", "label"],
        "additionalProperties": False,
    }
    return {"anyOf": [{"type": "null"}, collection]}


def _language_schema() -> schemas.Schema:
    language = {
        "type": "string",
        "minLength": 1,
        "maxLength": 35,
        "pattern": schemas.LANGUAGE_PATTERN,
    }
    return _null_or(language)


def _occurred_at_schema() -> schemas.Schema:
    return {
        "type": "string",
        "description": _OCCURRED_AT_DESCRIPTION,
        "pattern": schemas.TIMESTAMP_PATTERN,
    }


def _properties(
    scope: schemas.Schema,
    namespace_kind: schemas.Schema,
    kind: schemas.Schema,
    origin: schemas.Schema,
    *,
    occurred_at: bool,
) -> schemas.Schema:
    properties: schemas.Schema = {
        "scope": scope,
        "namespace": _namespace_schema(namespace_kind),
        "collection": _collection_schema(),
        "kind": kind,
        "language": _language_schema(),
        "title": _null_or(schemas.text(TITLE_LIMIT)),
        "content": {**schemas.text(CONTENT_LIMIT), "description": _CONTENT_DESCRIPTION},
        "tags": schemas.tags_schema(min_items=0),
        "origin": origin,
    }
    if occurred_at:
        properties[_OCCURRED_AT] = _occurred_at_schema()
    return properties


_ORIGIN_VALUES: Final = [str(origin) for origin in PUBLIC_ORIGINS]

_EVENT_RULE: Final = {
    "if": {"properties": {"kind": {"const": MemoryKind.EVENT.value}}},
    "then": {"required": [_OCCURRED_AT]},
    "else": {"not": {"required": [_OCCURRED_AT]}},
}


def _branch(scope: Scope) -> schemas.Schema:
    rule = SCOPE_RULES[scope]
    kinds = [str(kind) for kind in rule.memory_kinds]
    takes_events = MemoryKind.EVENT in rule.memory_kinds
    branch: schemas.Schema = {
        "type": "object",
        "properties": _properties(
            {"const": scope.value, "description": rule.definition},
            {"type": "string", "enum": [str(kind) for kind in rule.namespace_kinds]},
            {
                "type": "string",
                "enum": kinds,
                "description": f"Writing guidance for {scope} memory kinds: "
                + _kind_guidance(scope),
            },
            {"type": "string", "enum": list(_ORIGIN_VALUES)},
            occurred_at=takes_events,
        ),
        "required": list(_REQUIRED),
        "additionalProperties": False,
    }
    if takes_events:
        branch["allOf"] = [_EVENT_RULE]
    return branch


INPUT_SCHEMA: Final[schemas.Schema] = {
    "type": "object",
    "properties": _properties(
        schemas.scope_enum(_SCOPE_DESCRIPTION),
        {"type": "string", "enum": _NAMESPACE_KINDS, "description": _NAMESPACE_KIND_DESCRIPTION},
        {"type": "string", "enum": _MEMORY_KINDS, "description": _KIND_DESCRIPTION},
        {"type": "string", "enum": list(_ORIGIN_VALUES), "description": _ORIGIN_DESCRIPTION},
        occurred_at=True,
    ),
    "required": list(_REQUIRED),
    "additionalProperties": False,
    "oneOf": [_branch(scope) for scope in Scope],
}

# --- argument parsing, in the contract's order -------------------------------------------

_KEYS: Final = frozenset(_REQUIRED)
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


def parse_arguments(arguments: Mapping[str, Any]) -> service.Draft:
    """The draft of a remember call; raises InvalidRequest in the contract's order."""
    origin: Origin | None = _member(_ORIGINS, arguments.get("origin"))
    if origin is None:
        raise _invalid("invalid_origin", "origin")
    if not _KEYS <= arguments.keys() <= _KEYS | {_OCCURRED_AT}:
        raise _invalid("invalid_record", "memory")
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


def _outcome(result: service.Remembered) -> Payload:
    record: CanonicalRecord = result.record
    return {
        "status": result.status,
        "reference": {
            "scope": record.scope.value,
            "namespace_id": record.namespace.id,
            "collection_id": None if record.collection is None else record.collection.id,
            "id": record.id,
        },
        "lifecycle": {"state": record.state.value, "revision": record.revision},
    }


def _remember(arguments: Mapping[str, Any], call: ToolCall) -> Payload:
    draft = parse_arguments(arguments)
    call.note(
        scope=draft.scope.value,
        namespace_kind=draft.namespace.kind.value,
        memory_kind=draft.kind.value,
        collection_present=draft.collection is not None,
        origin=draft.origin.value,
    )
    result = service.remember(call.store, call.memory_root(), draft)
    call.note(
        memory_id=result.record.id,
        lifecycle_state=result.record.state.value,
        revision=result.record.revision,
    )
    return _outcome(result)


_INVALID_RECORD: Final = "memory field is invalid"
_NOT_STORED: Final = "memory could not be stored"

TOOL = MemoryTool(
    name="memory_remember",
    title="Remember a memory",
    description=_TOOL_DESCRIPTION,
    input_schema=INPUT_SCHEMA,
    effects=CHANGES,
    consent=ConsentRequirement.PER_CALL,
    handler=_remember,
    messages={
        "invalid_origin": "origin is invalid",
        "invalid_scope": "scope is invalid",
        "invalid_namespace": "namespace is invalid for scope",
        "invalid_collection": "collection is invalid",
        "invalid_kind": "kind is invalid for scope",
        "invalid_record": _INVALID_RECORD,
        "mutation_disabled": "memory remember is disabled",
        "candidate_limit_exceeded": "memory scope contains more than 1000 candidate files",
        "write_conflict": "generated memory identity conflicts with an existing record",
        "memory_source_unavailable": _NOT_STORED,
    },
    failure_message=_NOT_STORED,
    gate="remember_enabled",
)
