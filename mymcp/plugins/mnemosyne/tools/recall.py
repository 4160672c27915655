"""``memory_recall``: find the few stored memories of one scope that answer a short request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mymcp.plugin.contracts import ConsentRequirement
from mymcp.plugins.mnemosyne.memory.errors import InvalidRequest
from mymcp.plugins.mnemosyne.memory.recall import RecallRequest, hit_view, recall
from mymcp.plugins.mnemosyne.memory.vocabulary import Scope
from mymcp.plugins.mnemosyne.tools import schemas
from mymcp.plugins.mnemosyne.tools.framework import READS, MemoryTool, Payload, ToolCall

QUERY_LIMIT = 1000
TAG_LIMIT = 50
MAX_TAGS = 10

DESCRIPTION = (
    "Look up what the user has chosen to keep in long-term memory. Ask one narrow question "
    "about one scope (for example a single preference, a project decision or a person), "
    "never general world knowledge; do not put secrets, credentials or pasted conversations "
    "in the query. Returns at most 5 memories, best first, with their full text and a "
    "reference for memory_inspect; archived memories are left out. Matching is by whole "
    "words, case-insensitive: a requested tag scores 4, a query word in the title 3, in the "
    "memory's location or tag words 2, in the content 1. Nothing found is status no_matches. "
    "Read-only."
)

INPUT_SCHEMA: schemas.Schema = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": (
                "A short, specific request in plain words, up to 1000 characters, such as "
                "'preferred coffee brewing'. Words of one letter and common question words "
                "are ignored."
            ),
            "minLength": 1,
            "maxLength": QUERY_LIMIT,
        },
        "scope": schemas.scope_enum(schemas.scope_catalogue()),
        "tags": {
            "type": "array",
            "description": (
                "Optional: 1 to 10 distinct tags (each up to 50 characters) that relevant "
                "memories carry; compared case-insensitively with spacing collapsed. Omit "
                "the key when there are none."
            ),
            "items": schemas.text(TAG_LIMIT),
            "minItems": 1,
            "maxItems": MAX_TAGS,
            "uniqueItems": True,
        },
    },
    "required": ["query", "scope"],
    "additionalProperties": False,
}


def _parse(arguments: Mapping[str, Any]) -> RecallRequest:
    """The request, checked in the contract's order; unknown keys are ignored."""
    query = arguments.get("query")
    if not isinstance(query, str) or not query.strip() or len(query) > QUERY_LIMIT:
        raise InvalidRequest("invalid_query")
    scope = arguments.get("scope")
    if not isinstance(scope, str) or scope not in schemas.SCOPE_VALUES:
        raise InvalidRequest("invalid_scope")
    tags: tuple[str, ...] = ()
    if "tags" in arguments:
        tags = _parse_tags(arguments["tags"])
    return RecallRequest(query=query, scope=Scope(scope), tags=tags)


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


def _recall(arguments: Mapping[str, Any], call: ToolCall) -> Payload:
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
    consent=ConsentRequirement.NONE,
    handler=_recall,
    messages={
        "invalid_query": "query must be a non-empty string of at most 1000 characters",
        "invalid_scope": (
            "scope must be one of: self, relationship, preference, practice, project, knowledge"
        ),
        "invalid_tags": (
            "tags must be an array of 1 to 10 unique non-empty strings of at most 50 characters"
        ),
        "candidate_limit_exceeded": "memory scope contains more than 1000 candidate files",
        "memory_source_unavailable": "memory source could not be read",
    },
    failure_message="memory could not be recalled",
    status_names={"storage_error": "retrieval_error"},
    error_fields=False,
)
