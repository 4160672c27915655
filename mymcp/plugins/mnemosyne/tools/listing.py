"""memory_list: a complete, paged inventory of one scope, namespace or collection."""

from __future__ import annotations

import threading
import weakref
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NoReturn

from mymcp.jsonvalue import JsonObject
from mymcp.plugins.mnemosyne.memory.model.errors import InvalidRequest
from mymcp.plugins.mnemosyne.memory.model.references import CanonicalReference, LegacyReference
from mymcp.plugins.mnemosyne.memory.model.values import is_identifier
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.services.cursors import (
    DEFAULT_PAGE_SIZE,
    MAX_CURSOR_LENGTH,
    MAX_PAGE_SIZE,
)
from mymcp.plugins.mnemosyne.tools import schemas
from mymcp.plugins.mnemosyne.tools.arguments import refuse_unexpected
from mymcp.plugins.mnemosyne.tools.framework import (
    LIMIT_PLACEHOLDER,
    READS,
    MemoryTool,
    ToolCall,
)

if TYPE_CHECKING:
    from mymcp.plugins.mnemosyne.memory.services.listing import (
        ListedItem,
        ListRequest,
        Page,
        Selector,
    )
    from mymcp.plugins.mnemosyne.memory.storage.scan import StoredRecord

_ARGUMENTS = frozenset({"scope", "namespace_id", "collection_id", "page_size", "cursor"})

_COMBINATIONS = (
    "Valid argument combinations: (1) scope [page_size]; (2) scope and namespace_id "
    "[collection_id, page_size]; (3) scope and cursor; (4) scope, namespace_id and cursor "
    "[collection_id]; brackets mark optional ones."
)

_DESCRIPTION = (
    "A complete, paged inventory of one scope, namespace or collection, archived memories "
    "included, in a fixed order: per memory its reference, title, "
    "inspectability (ambiguous: a legacy ID used twice) and, for version 2, kind and state. "
    "Read-only; no content. While page.truncated is true, send "
    "page.next_cursor as cursor with the same selector; on a stale_cursor conflict, start "
    "over. " + _COMBINATIONS
)

_SCOPE_DESCRIPTION = "Alone, lists the whole scope, legacy and version 2 records."

_NAMESPACE_DESCRIPTION = "Only version 2 records of this namespace; required with collection_id."

_COLLECTION_DESCRIPTION = (
    "Omitted: the whole namespace; null: only its memories without a collection; a string: "
    'that collection ("null" is an ID like any other).'
)

_PAGE_SIZE_DESCRIPTION = "Items per page; first requests only, never with cursor."

_CURSOR_DESCRIPTION = (
    f"page.next_cursor (at most {MAX_CURSOR_LENGTH:,} characters); send no page_size, and "
    "scope, namespace_id and collection_id exactly as on the first request."
)

INPUT_SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        "scope": schemas.scope_enum(_SCOPE_DESCRIPTION),
        "namespace_id": schemas.described(_NAMESPACE_DESCRIPTION, schemas.identifier()),
        "collection_id": schemas.described(
            _COLLECTION_DESCRIPTION, schemas.nullable(schemas.identifier())
        ),
        "page_size": {
            "type": "integer",
            "description": _PAGE_SIZE_DESCRIPTION,
            "minimum": 1,
            "maximum": MAX_PAGE_SIZE,
            "default": DEFAULT_PAGE_SIZE,
        },
        "cursor": {"type": "string", "description": _CURSOR_DESCRIPTION, "minLength": 1},
    },
    "required": ["scope"],
    "additionalProperties": False,
}

_MESSAGES = {
    "invalid_request": "request is invalid",
    "invalid_scope": "scope is invalid",
    "invalid_namespace": "namespace_id is invalid",
    "invalid_collection": "collection_id is invalid",
    "invalid_cursor": "cursor is invalid",
    "invalid_page_size": f"page_size must be an integer from 1 through {MAX_PAGE_SIZE}",
    "stale_cursor": "cursor is stale; start a new listing",
    "candidate_limit_exceeded": (
        f"selected memory container contains more than {LIMIT_PLACEHOLDER} candidate files"
    ),
}


# --- arguments, in the contract's validation order -----------------------------------------


def _fail(code: str, field: str) -> NoReturn:
    raise InvalidRequest(code, field=field)


def parse_arguments(arguments: Mapping[str, Any], call: ToolCall) -> ListRequest:
    """The typed request, or the first validation failure (noting the log fields as known)."""
    from mymcp.plugins.mnemosyne.memory.services.listing import ListRequest

    if not _ARGUMENTS.issuperset(arguments):
        call.note(namespace_selector_present=False, collection_selector_present=False)
        refuse_unexpected(arguments, _ARGUMENTS, code="invalid_request", field="request")
    flags = {
        "namespace_selector_present": "namespace_id" in arguments,
        "collection_selector_present": "collection_id" in arguments,
    }
    scope = arguments.get("scope")
    if not isinstance(scope, str) or scope not in schemas.SCOPE_VALUES:
        call.note(**flags)
        _fail("invalid_scope", "scope")
    call.note(scope=scope, **flags)
    selector = _selector(Scope(scope), arguments)
    if "cursor" in arguments:
        return ListRequest(selector, cursor=_cursor(arguments))
    return ListRequest(selector, page_size=_page_size(arguments))


def _selector(scope: Scope, arguments: Mapping[str, Any]) -> Selector:
    from mymcp.plugins.mnemosyne.memory.services.listing import Selector

    if "namespace_id" not in arguments:
        if "collection_id" in arguments:
            _fail("invalid_collection", "collection_id")
        return Selector(scope)
    namespace_id = arguments["namespace_id"]
    if not is_identifier(namespace_id):
        _fail("invalid_namespace", "namespace_id")
    if "collection_id" not in arguments:
        return Selector(scope, namespace_id)
    collection_id = arguments["collection_id"]
    if collection_id is None:
        return Selector(scope, namespace_id, "collectionless")
    if not is_identifier(collection_id):
        _fail("invalid_collection", "collection_id")
    return Selector(scope, namespace_id, "exact", collection_id)


def _cursor(arguments: Mapping[str, Any]) -> str:
    cursor = arguments["cursor"]
    if "page_size" in arguments or not isinstance(cursor, str):
        _fail("invalid_cursor", "cursor")
    if not 0 < len(cursor) <= MAX_CURSOR_LENGTH:
        _fail("invalid_cursor", "cursor")
    return cursor


def _page_size(arguments: Mapping[str, Any]) -> int:
    size = arguments.get("page_size", DEFAULT_PAGE_SIZE)
    if type(size) is not int or not 1 <= size <= MAX_PAGE_SIZE:
        _fail("invalid_page_size", "page_size")
    return size


# --- the result ----------------------------------------------------------------------------


# The list entry built for a record version is kept in its memo (``derived``) while it is
# among the last _MAX_ITEMS built; each is built from what the stored record keeps.
_ITEM_MEMO = "memory_list.item"
_MAX_ITEMS = 4096
_memoized: deque[weakref.ref[StoredRecord]] = deque()
_memoized_lock = threading.Lock()


def _item(item: ListedItem, scope: Scope) -> JsonObject:
    """The list entry of one record, built once per record version."""
    key = (scope, item.inspectability)
    memo = item.stored.derived.get(_ITEM_MEMO)
    if isinstance(memo, tuple) and memo[0] == key:
        cached: JsonObject = memo[1]
        return cached
    entry = _build_item(item, scope)
    item.stored.derived[_ITEM_MEMO] = (key, entry)
    with _memoized_lock:
        if len(_memoized) >= _MAX_ITEMS:
            oldest = _memoized.popleft()()
            if oldest is not None:
                oldest.derived.pop(_ITEM_MEMO, None)
        _memoized.append(weakref.ref(item.stored))
    return entry


def _build_item(item: ListedItem, scope: Scope) -> JsonObject:
    # Everything here is kept with the stored record: no record file is read again.
    stored = item.stored
    entry: JsonObject = {
        "reference": _reference(stored, scope),
        "title": stored.title,
        "inspectability": item.inspectability,
    }
    if stored.kind is not None and stored.state is not None:
        entry["kind"] = stored.kind.value
        entry["lifecycle"] = {"state": stored.state.value}
    return entry


def _reference(stored: StoredRecord, scope: Scope) -> JsonObject:
    """The reference of a listed record (a canonical record's is its path)."""
    if stored.legacy_id is not None:
        return LegacyReference(scope, stored.legacy_id).as_dict()
    namespace_id = stored.namespace_id
    assert namespace_id is not None
    return CanonicalReference(scope, namespace_id, stored.collection_id, stored.id).as_dict()


def _payload(page: Page, scope: Scope) -> JsonObject:
    return {
        "status": "ok",
        "memories": [_item(item, scope) for item in page.items],
        "page": {
            "number": page.number,
            "count": len(page.items),
            "total_count": page.total_count,
            "total_pages": page.total_pages,
            "truncated": page.truncated,
            "next_cursor": page.next_cursor,
        },
    }


def _handle(arguments: Mapping[str, Any], call: ToolCall) -> JsonObject:
    from mymcp.plugins.mnemosyne.memory.services.listing import list_page

    request = parse_arguments(arguments, call)
    page = list_page(call.store, call.memory_root(), request)
    call.note(
        returned_count=len(page.items),
        total_count=page.total_count,
        page_number=page.number,
        truncated=page.truncated,
    )
    return _payload(page, request.selector.scope)


TOOL = MemoryTool(
    name="memory_list",
    title="List memories",
    description=_DESCRIPTION,
    input_schema=INPUT_SCHEMA,
    effects=READS,
    handler=_handle,
    messages=_MESSAGES,
    failure_message="memory could not be listed",
)
