"""``memory_recall``: find the few stored memories of one scope that answer a short request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mymcp.jsonvalue import JsonObject
from mymcp.plugins.mnemosyne.memory.model.errors import InvalidRequest
from mymcp.plugins.mnemosyne.memory.model.values import (
    MAX_TAGS,
    RESULT_LIMIT,
    TAG_LIMIT,
    is_identifier,
)
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.tools import schemas
from mymcp.plugins.mnemosyne.tools.framework import READS, MemoryTool, ToolCall

if TYPE_CHECKING:
    from mymcp.plugins.mnemosyne.memory.recall.ranking import RecallRequest

QUERY_LIMIT = 1000

DESCRIPTION = (
    "Look up what the user chose to keep in long-term memory: one narrow question about one "
    "scope, never general world knowledge; no secrets, credentials or pasted conversations "
    "in the query. Whole words first, then other forms (match.near). "
    f"Returns up to {RESULT_LIMIT} active memories, best first, with full text and a reference."
)

INPUT_SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "A short, specific request, such as 'preferred coffee brewing'.",
            "minLength": 1,
            "maxLength": QUERY_LIMIT,
        },
        "scope": schemas.scope_enum(schemas.scope_catalogue()),
        "tags": schemas.tags_schema(
            min_items=1,
            description=(
                "Optional, distinct: tags relevant memories carry, compared ignoring case; "
                "omit when none."
            ),
        ),
        "namespace_id": schemas.described(
            "Optional: one namespace.",
            schemas.identifier(),
        ),
    },
    "required": ["query", "scope"],
    "additionalProperties": False,
}


def _parse(arguments: Mapping[str, Any]) -> RecallRequest:
    """The request, checked in the contract's order; unknown keys are ignored."""
    from mymcp.plugins.mnemosyne.memory.recall.ranking import RecallRequest

    query = arguments.get("query")
    if not isinstance(query, str) or not query.strip() or len(query) > QUERY_LIMIT:
        raise InvalidRequest("invalid_query")
    scope = arguments.get("scope")
    if not isinstance(scope, str) or scope not in schemas.SCOPE_VALUES:
        raise InvalidRequest("invalid_scope")
    tags: tuple[str, ...] = ()
    if "tags" in arguments:
        tags = _parse_tags(arguments["tags"])
    namespace_id = arguments.get("namespace_id")
    if "namespace_id" in arguments and not is_identifier(namespace_id):
        raise InvalidRequest("invalid_namespace")
    return RecallRequest(query, Scope(scope), tags, namespace_id)


def _parse_tags(value: object) -> tuple[str, ...]:
    if (
        not isinstance(value, list)
        or not 1 <= len(value) <= MAX_TAGS
        or not all(_is_tag(item) for item in value)
        or len(set(value)) != len(value)
    ):
        raise InvalidRequest("invalid_tags")
    return tuple(value)


def _is_tag(item: object) -> bool:
    return isinstance(item, str) and bool(item.strip()) and len(item) <= TAG_LIMIT


def _recall(arguments: Mapping[str, Any], call: ToolCall) -> JsonObject:
    from mymcp.plugins.mnemosyne.memory.recall.ranking import hit_view, recall

    request = _parse(arguments)
    hits = recall(call.store, call.memory_root(), request)
    call.note(scope=request.scope.value, returned_count=len(hits))
    return {
        "status": "ok" if hits else "no_matches",
        "memories": [hit_view(hit, request.scope) for hit in hits],
    }


TOOL = MemoryTool(
    name="memory_recall",
    title="Recall memories",
    description=DESCRIPTION,
    input_schema=INPUT_SCHEMA,
    effects=READS,
    handler=_recall,
    messages={
        "invalid_query": f"query must be a non-empty string of at most {QUERY_LIMIT} characters",
        "invalid_scope": f"scope must be one of: {', '.join(schemas.SCOPE_VALUES)}",
        "invalid_tags": (
            f"tags must be an array of 1 to {MAX_TAGS} unique non-empty strings of at most "
            f"{TAG_LIMIT} characters"
        ),
        "invalid_namespace": "namespace_id is invalid",
        "memory_source_unavailable": "memory source could not be read",
    },
    failure_message="memory could not be recalled",
    status_names={"storage_error": "retrieval_error"},
    error_fields=False,
)
