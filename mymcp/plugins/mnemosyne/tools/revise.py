"""``memory_revise``: replace all mutable text of one memory at the revision the user saw."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from mymcp.jsonvalue import JsonObject
from mymcp.plugins.mnemosyne.memory.model.errors import InvalidRequest
from mymcp.plugins.mnemosyne.memory.model.references import (
    EXPECTED_REVISION,
    REFERENCE,
    CanonicalReference,
    parse_change_target,
)
from mymcp.plugins.mnemosyne.memory.model.values import (
    CONTENT_LIMIT,
    LABEL_LIMIT,
    TITLE_LIMIT,
    normalize_tags,
    normalize_text,
)
from mymcp.plugins.mnemosyne.tools import schemas
from mymcp.plugins.mnemosyne.tools.arguments import refuse_unexpected
from mymcp.plugins.mnemosyne.tools.framework import (
    DESTROYS,
    MemoryTool,
    ToolCall,
    lifecycle_result,
)
from mymcp.plugins.mnemosyne.tools.lifecycle import (
    EXPECTED_REVISION_SCHEMA,
    note_target,
    operation_messages,
)

if TYPE_CHECKING:
    from mymcp.plugins.mnemosyne.memory.services import revise as service

NAMESPACE_LABEL: Final = "namespace_label"
COLLECTION_LABEL: Final = "collection_label"
TITLE: Final = "title"
CONTENT: Final = "content"
TAGS: Final = "tags"

# --- the published input schema ----------------------------------------------------------


def _nullable_text(limit: int, description: str) -> JsonObject:
    return schemas.described(description, schemas.nullable(schemas.text(limit)))


_TOOL_DESCRIPTION: Final = (
    "Replace the text, title, tags and labels of one memory: repeat every value that should "
    "stay; all else is kept. Pass an earlier result's reference and, as expected_revision, the "
    "revision the user saw; a changed memory is left alone. Each exact call needs the user's "
    "approval. Never send secrets, passwords, credentials or keys, payment-card or government "
    "ID numbers or file paths. A refusal names only the field and a coarse reason: never "
    "disguise the value; retry only once the user confirms it is harmless and approves the "
    "changed call. Texts must not be blank; limits count characters after trimming. Sending "
    "what is stored writes nothing (already_current). If the outcome is uncertain, inspect "
    "before retrying."
)
_NAMESPACE_LABEL_DESCRIPTION: Final = "null removes it."
_COLLECTION_LABEL_DESCRIPTION: Final = (
    "null removes it. Required when reference.collection_id is a string; leave it out when "
    "that is null."
)
_TITLE_DESCRIPTION: Final = "null removes it."
_CONTENT_DESCRIPTION: Final = f"At most {CONTENT_LIMIT:,} characters."
_TAGS_DESCRIPTION: Final = "The complete list, in order; no two equal ignoring case."

INPUT_SCHEMA: Final[JsonObject] = {
    "type": "object",
    "properties": {
        REFERENCE: schemas.canonical_reference(),
        EXPECTED_REVISION: EXPECTED_REVISION_SCHEMA,
        NAMESPACE_LABEL: _nullable_text(LABEL_LIMIT, _NAMESPACE_LABEL_DESCRIPTION),
        COLLECTION_LABEL: _nullable_text(LABEL_LIMIT, _COLLECTION_LABEL_DESCRIPTION),
        TITLE: _nullable_text(TITLE_LIMIT, _TITLE_DESCRIPTION),
        CONTENT: schemas.described(_CONTENT_DESCRIPTION, schemas.text(CONTENT_LIMIT)),
        TAGS: schemas.tags_schema(min_items=0, description=_TAGS_DESCRIPTION),
    },
    "required": [REFERENCE, EXPECTED_REVISION, NAMESPACE_LABEL, TITLE, CONTENT, TAGS],
    "additionalProperties": False,
}

# --- argument parsing, in the contract's order -------------------------------------------

_KEYS: Final = frozenset(INPUT_SCHEMA["properties"])
_REQUEST: Final = "revision"
_VALUE_MESSAGES: Final = {
    NAMESPACE_LABEL: "namespace label is invalid",
    COLLECTION_LABEL: "collection label is invalid",
    TITLE: "title is invalid",
    CONTENT: "content is invalid",
    TAGS: "tags are invalid",
}
_LABEL_REQUIRED: Final = "collection label is required for collected memory"


def _invalid_value(key: str) -> InvalidRequest:
    return InvalidRequest("invalid_record", field=key, message=_VALUE_MESSAGES[key])


def _nullable(arguments: Mapping[str, Any], key: str, limit: int) -> str | None:
    value = arguments.get(key)
    if value is None:
        return None
    text = normalize_text(value, limit)
    if text is None:
        raise _invalid_value(key)
    return text


def _revision(arguments: Mapping[str, Any], reference: CanonicalReference) -> service.Revision:
    from mymcp.plugins.mnemosyne.memory.services import revise as service

    for key in (NAMESPACE_LABEL, TITLE, CONTENT, TAGS):
        if key not in arguments:
            raise _invalid_value(key)
    if reference.collection_id is not None and COLLECTION_LABEL not in arguments:
        raise InvalidRequest("invalid_record", field=COLLECTION_LABEL, message=_LABEL_REQUIRED)
    namespace_label = _nullable(arguments, NAMESPACE_LABEL, LABEL_LIMIT)
    collection_label = _nullable(arguments, COLLECTION_LABEL, LABEL_LIMIT)
    title = _nullable(arguments, TITLE, TITLE_LIMIT)
    content = normalize_text(arguments[CONTENT], CONTENT_LIMIT)
    if content is None:
        raise _invalid_value(CONTENT)
    tags = normalize_tags(arguments[TAGS])
    if tags is None:
        raise _invalid_value(TAGS)
    return service.Revision(namespace_label, collection_label, title, content, tags)


def _parse(
    arguments: Mapping[str, Any], call: ToolCall
) -> tuple[CanonicalReference, int, service.Revision]:
    """The reference, expected revision and new values; raises InvalidRequest in order."""
    if not isinstance(arguments, Mapping):
        raise InvalidRequest("invalid_record", field=_REQUEST)
    refuse_unexpected(arguments, _KEYS, code="invalid_record", field=_REQUEST)
    reference, expected_revision = parse_change_target(arguments)
    revision = _revision(arguments, reference)
    note_target(call, reference)
    return reference, expected_revision, revision


# --- the handler -------------------------------------------------------------------------


def _revise(arguments: Mapping[str, Any], call: ToolCall) -> JsonObject:
    from mymcp.plugins.mnemosyne.memory.services import revise as service

    reference, expected_revision, revision = _parse(arguments, call)
    result = service.revise(call.store, call.memory_root(), reference, expected_revision, revision)
    return lifecycle_result(call, result.status, result.record)


TOOL = MemoryTool(
    name="memory_revise",
    title="Revise a memory",
    description=_TOOL_DESCRIPTION,
    input_schema=INPUT_SCHEMA,
    effects=DESTROYS,
    handler=_revise,
    messages={
        **operation_messages("revise", "revised"),
        "invalid_record": "revision request is invalid",
        "invalid_collection": "collection label is invalid for memory",
    },
    failure_message="memory could not be revised",
    gate="revise_enabled",
)
