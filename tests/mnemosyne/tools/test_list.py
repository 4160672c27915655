"""memory_list through POST /mcp: selectors, validation order, ordering, pages, cursors, logs."""

from __future__ import annotations

import base64
import json
import logging
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory.services import cursors
from mymcp.plugins.mnemosyne.memory.storage import files, scan
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore
from tests.helpers import (
    SCOPES,
    McpClient,
    canonical_record,
    log_events,
    place_canonical,
    snapshot_tree,
    unexpected_argument,
    write_record,
)

TOOL = "memory_list"
LOGGER = "mcp.memory_list"
COMBINATIONS_HINT = "(4) scope, namespace_id and cursor"


def _list(client: McpClient, **arguments: Any) -> dict[str, Any]:
    reply = client.call(TOOL, arguments)
    assert reply.is_error == (reply.payload["status"] != "ok")
    return reply.payload


def _mem_id(number: int) -> str:
    return f"mem_{number:032x}"


def _v2(
    root: Path,
    number: int,
    namespace: str = "mnemosyne",
    collection: str | None = "decisions",
    namespace_kind: str = "project",
    **overrides: Any,
) -> Path:
    overrides.setdefault("title", f"record {number}")
    record = canonical_record(
        id=_mem_id(number),
        namespace={"kind": namespace_kind, "id": namespace, "label": None},
        collection=None if collection is None else {"id": collection, "label": None},
        **overrides,
    )
    return place_canonical(root, record)


def _v1(root: Path, memory_id: str, *parts: str, **fields: Any) -> Path:
    record = {"schema_version": 1, "id": memory_id, "content": "legacy", **fields}
    return write_record(root, record, "project", *(parts or (f"{memory_id}.json",)))


def _refs(payload: dict[str, Any]) -> list[tuple[Any, ...]]:
    found: list[tuple[Any, ...]] = []
    for item in payload["memories"]:
        ref = item["reference"]
        if ref["schema_version"] == 1:
            found.append((1, ref["id"]))
        else:
            found.append((2, ref["namespace_id"], ref["collection_id"], ref["id"]))
    return found


def _titles(payload: dict[str, Any]) -> list[Any]:
    return [item["title"] for item in payload["memories"]]


def _walk(client: McpClient, page_size: int, **selector: Any) -> list[dict[str, Any]]:
    pages = [_list(client, **selector, page_size=page_size)]
    while pages[-1]["page"]["truncated"]:
        pages.append(_list(client, **selector, cursor=pages[-1]["page"]["next_cursor"]))
    return pages


def _error(
    code: str, field: str | None, message: str, status: str = "invalid_request"
) -> dict[str, Any]:
    payload: dict[str, Any] = {"status": status, "code": code}
    if field is not None:
        payload["field"] = field
    payload["message"] = message
    return payload


SCOPE_ERROR = _error("invalid_scope", "scope", "scope is invalid")
NAMESPACE_ERROR = _error("invalid_namespace", "namespace_id", "namespace_id is invalid")
COLLECTION_ERROR = _error("invalid_collection", "collection_id", "collection_id is invalid")
CURSOR_ERROR = _error("invalid_cursor", "cursor", "cursor is invalid")
PAGE_SIZE_ERROR = _error(
    "invalid_page_size", "page_size", "page_size must be an integer from 1 through 100"
)
STALE = _error("stale_cursor", None, "cursor is stale; start a new listing", "conflict")
UNAVAILABLE = _error(
    "memory_source_unavailable", None, "memory could not be listed", "storage_error"
)
OVERFLOW = _error(
    "candidate_limit_exceeded",
    None,
    "selected memory container contains more than 1000 candidate files",
    "storage_error",
)
EMPTY_PAGE = {
    "number": 1,
    "count": 0,
    "total_count": 0,
    "total_pages": 0,
    "truncated": False,
    "next_cursor": None,
}


# --- the published declaration ---------------------------------------------------------------


def _declaration(client: McpClient) -> dict[str, Any]:
    return client.declaration(TOOL)


def test_list_schema_is_flat_without_top_level_one_of(client: McpClient) -> None:
    schema = _declaration(client)["inputSchema"]
    assert set(schema) == {"type", "properties", "required", "additionalProperties"}
    assert list(schema["properties"]) == [
        "scope",
        "namespace_id",
        "collection_id",
        "page_size",
        "cursor",
    ]
    assert schema["required"] == ["scope"]
    assert schema["additionalProperties"] is False
    properties = schema["properties"]
    assert properties["scope"]["enum"] == SCOPES
    assert [branch.get("type") for branch in properties["collection_id"]["anyOf"]] == [
        "string",
        "null",
    ]
    page_size = properties["page_size"]
    assert (page_size["type"], page_size["minimum"], page_size["maximum"]) == ("integer", 1, 100)
    assert page_size["default"] == 50
    assert properties["cursor"]["type"] == "string"
    assert properties["cursor"]["minLength"] == 1
    assert "maxLength" not in properties["cursor"]


def test_list_descriptions_state_the_four_combinations(client: McpClient) -> None:
    # Issue 12: the sentence is stated once, in the Tool description, to keep tools/list
    # small; the scope description says what a scope alone selects.
    declaration = _declaration(client)
    description = declaration["description"]
    sentence = description[description.index("Valid argument combinations") :]
    assert COMBINATIONS_HINT in sentence
    scope_description = declaration["inputSchema"]["properties"]["scope"]["description"]
    assert "whole scope" in scope_description
    assert "Read-only" in description


# --- selectors ---------------------------------------------------------------------------------


def test_list_scope_wide_selects_legacy_and_canonical_records(
    client: McpClient, memory_root: Path
) -> None:
    _v2(memory_root, 1)
    _v2(memory_root, 2, collection=None)
    _v1(memory_root, "top")
    _v1(memory_root, "deep", "a", "b", "c", "d", "deep.json")
    _v1(memory_root, "too-deep", "a", "b", "c", "d", "e", "x.json")
    _v2(memory_root, 3, "x", scope="knowledge", namespace_kind="topic", kind="reference")

    payload = _list(client, scope="project")

    assert _refs(payload) == [
        (1, "deep"),
        (1, "top"),
        (2, "mnemosyne", None, _mem_id(2)),
        (2, "mnemosyne", "decisions", _mem_id(1)),
    ]


def test_list_namespace_selects_its_canonical_records_in_every_collection(
    client: McpClient, memory_root: Path
) -> None:
    _v2(memory_root, 1)
    _v2(memory_root, 2, collection=None)
    _v2(memory_root, 3, collection="other")
    _v2(memory_root, 4, namespace="elsewhere")
    _v1(memory_root, "legacy-in-namespace", "mnemosyne", "legacy.json")
    _v1(memory_root, "legacy-in-collection", "mnemosyne", "decisions", "legacy.json")

    payload = _list(client, scope="project", namespace_id="mnemosyne")

    assert _refs(payload) == [
        (2, "mnemosyne", None, _mem_id(2)),
        (2, "mnemosyne", "decisions", _mem_id(1)),
        (2, "mnemosyne", "other", _mem_id(3)),
    ]


def test_list_null_collection_selects_collectionless_records(
    client: McpClient, memory_root: Path
) -> None:
    _v2(memory_root, 1)
    _v2(memory_root, 2, collection=None)
    _v1(memory_root, "legacy", "mnemosyne", "legacy.json")

    payload = _list(client, scope="project", namespace_id="mnemosyne", collection_id=None)

    assert _refs(payload) == [(2, "mnemosyne", None, _mem_id(2))]


def test_list_exact_collection_selects_only_that_collection(
    client: McpClient, memory_root: Path
) -> None:
    _v2(memory_root, 1)
    _v2(memory_root, 2, collection=None)
    _v2(memory_root, 3, collection="other")

    payload = _list(client, scope="project", namespace_id="mnemosyne", collection_id="other")

    assert _refs(payload) == [(2, "mnemosyne", "other", _mem_id(3))]


def test_list_string_null_is_a_literal_collection_id(client: McpClient, memory_root: Path) -> None:
    _v2(memory_root, 1, collection="null")
    _v2(memory_root, 2, collection=None)

    payload = _list(client, scope="project", namespace_id="mnemosyne", collection_id="null")

    assert _refs(payload) == [(2, "mnemosyne", "null", _mem_id(1))]


def test_list_includes_archived_records_with_their_state(
    client: McpClient, memory_root: Path
) -> None:
    _v2(memory_root, 1, lifecycle={"state": "archived", "revision": 3})
    _v2(memory_root, 2)

    memories = _list(client, scope="project")["memories"]

    assert [item["lifecycle"] for item in memories] == [{"state": "archived"}, {"state": "active"}]


def test_list_namespace_listing_reaches_one_level_of_collections(
    client: McpClient, memory_root: Path
) -> None:
    _v2(memory_root, 1)
    write_record(
        memory_root, canonical_record(), "project", "mnemosyne", "decisions", "x", "a.json"
    )

    assert _refs(_list(client, scope="project", namespace_id="mnemosyne")) == [
        (2, "mnemosyne", "decisions", _mem_id(1))
    ]


# --- item and page shapes ------------------------------------------------------------------------


def test_list_item_shapes(client: McpClient, memory_root: Path) -> None:
    _v1(memory_root, "legacy", title="Old title", tags=["x"])
    _v2(memory_root, 1, kind="state", title="  Caf\u0065\u0301  ")

    memories = _list(client, scope="project")["memories"]

    assert memories == [
        {
            "reference": {"schema_version": 1, "scope": "project", "id": "legacy"},
            "title": "Old title",
            "inspectability": "exact",
        },
        {
            "reference": {
                "schema_version": 2,
                "scope": "project",
                "namespace_id": "mnemosyne",
                "collection_id": "decisions",
                "id": _mem_id(1),
            },
            "title": "Caf\u00e9",
            "inspectability": "exact",
            "kind": "state",
            "lifecycle": {"state": "active"},
        },
    ]


def test_list_legacy_title_is_verbatim_or_null(client: McpClient, memory_root: Path) -> None:
    _v1(memory_root, "a", title=" spaced ")
    _v1(memory_root, "b")
    _v1(memory_root, "c", title=None)

    assert _titles(_list(client, scope="project")) == [" spaced ", None, None]


def test_list_empty_inventory_when_root_is_missing(client: McpClient, memory_root: Path) -> None:
    assert _list(client, scope="project") == {"status": "ok", "memories": [], "page": EMPTY_PAGE}
    assert not memory_root.exists()


def test_list_empty_inventory_when_scope_or_container_is_missing(
    client: McpClient, memory_root: Path
) -> None:
    _v2(memory_root, 1, scope="project")
    empty = {"status": "ok", "memories": [], "page": EMPTY_PAGE}

    assert _list(client, scope="self") == empty
    assert _list(client, scope="project", namespace_id="absent") == empty
    assert _list(client, scope="project", namespace_id="mnemosyne", collection_id="absent") == empty


def test_list_page_size_defaults_to_fifty(client: McpClient, memory_root: Path) -> None:
    for number in range(51):
        _v2(memory_root, number)

    page = _list(client, scope="project")["page"]

    assert (page["count"], page["total_count"], page["total_pages"]) == (50, 51, 2)
    assert page["truncated"] is True


def test_list_pages_at_an_exact_multiple(client: McpClient, memory_root: Path) -> None:
    for number in range(4):
        _v2(memory_root, number)

    pages = _walk(client, 2, scope="project")

    assert [page["page"] for page in pages][1] == {
        "number": 2,
        "count": 2,
        "total_count": 4,
        "total_pages": 2,
        "truncated": False,
        "next_cursor": None,
    }
    assert len(pages) == 2
    assert pages[0]["page"]["number"] == 1
    assert isinstance(pages[0]["page"]["next_cursor"], str)


def test_list_last_page_is_partial(client: McpClient, memory_root: Path) -> None:
    for number in range(5):
        _v2(memory_root, number)

    pages = _walk(client, 2, scope="project")

    assert [(p["page"]["number"], p["page"]["count"]) for p in pages] == [(1, 2), (2, 2), (3, 1)]
    assert {p["page"]["total_pages"] for p in pages} == {3}
    walked = [ref for page in pages for ref in _refs(page)]
    assert walked == _refs(_list(client, scope="project", page_size=100))


def test_list_single_page_when_everything_fits(client: McpClient, memory_root: Path) -> None:
    for number in range(3):
        _v2(memory_root, number)

    page = _list(client, scope="project", page_size=3)["page"]

    assert page == {**EMPTY_PAGE, "count": 3, "total_count": 3, "total_pages": 1}


def test_list_page_size_bounds_are_accepted(client: McpClient, memory_root: Path) -> None:
    for number in range(101):
        _v2(memory_root, number)

    assert _list(client, scope="project", page_size=1)["page"]["total_pages"] == 101
    assert _list(client, scope="project", page_size=100)["page"]["count"] == 100


def test_list_page_size_given_as_json_text_is_decoded_by_the_host(
    client: McpClient, memory_root: Path
) -> None:
    for number in range(3):
        _v2(memory_root, number)

    assert _list(client, scope="project", page_size="2")["page"]["count"] == 2


# --- ordering ----------------------------------------------------------------------------------


def test_list_orders_legacy_before_canonical(client: McpClient, memory_root: Path) -> None:
    _v2(memory_root, 1, namespace="a")
    _v1(memory_root, "zzz")

    assert _refs(_list(client, scope="project")) == [(1, "zzz"), (2, "a", "decisions", _mem_id(1))]


def test_list_orders_legacy_ids_by_code_point(client: McpClient, memory_root: Path) -> None:
    for memory_id in ["coffee0", "null", "alpha", "a_b", "coffee-x", "Zeta", "coffee", "a-b"]:
        _v1(memory_root, memory_id)

    assert [ref[1] for ref in _refs(_list(client, scope="project"))] == [
        "Zeta",
        "a-b",
        "a_b",
        "alpha",
        "coffee",
        "coffee-x",
        "coffee0",
        "null",
    ]


def test_list_orders_namespaces_and_collections_by_code_point(
    client: McpClient, memory_root: Path
) -> None:
    _v2(memory_root, 1, namespace="null")
    _v2(memory_root, 2, namespace="a_b")
    _v2(memory_root, 3, namespace="a-b")
    _v2(memory_root, 4, namespace="coffee", collection="coffee0")
    _v2(memory_root, 5, namespace="coffee", collection="coffee-x")
    _v2(memory_root, 6, namespace="coffee", collection="coffee")
    _v2(memory_root, 7, namespace="coffee", collection=None)
    _v2(memory_root, 8, namespace="coffee", collection="coffee")

    assert _refs(_list(client, scope="project")) == [
        (2, "a-b", "decisions", _mem_id(3)),
        (2, "a_b", "decisions", _mem_id(2)),
        (2, "coffee", None, _mem_id(7)),
        (2, "coffee", "coffee", _mem_id(6)),
        (2, "coffee", "coffee", _mem_id(8)),
        (2, "coffee", "coffee-x", _mem_id(5)),
        (2, "coffee", "coffee0", _mem_id(4)),
        (2, "null", "decisions", _mem_id(1)),
    ]


def test_list_orders_collectionless_before_collected_within_a_namespace(
    client: McpClient, memory_root: Path
) -> None:
    _v2(memory_root, 1, collection="a")
    _v2(memory_root, 9, collection=None)

    assert _refs(_list(client, scope="project", namespace_id="mnemosyne")) == [
        (2, "mnemosyne", None, _mem_id(9)),
        (2, "mnemosyne", "a", _mem_id(1)),
    ]


def test_list_keeps_duplicate_legacy_ids_as_ambiguous_items_ordered_by_path(
    client: McpClient, memory_root: Path
) -> None:
    # Discovery visits a/ before a-b/, but the path "a-b/x.json" sorts before "a/x.json".
    _v1(memory_root, "dup", "a", "x.json", title="second")
    _v1(memory_root, "dup", "a-b", "x.json", title="first")
    _v1(memory_root, "dup", "z.json", title="third")
    _v1(memory_root, "single")

    memories = _list(client, scope="project")["memories"]

    assert [(m["reference"]["id"], m["title"], m["inspectability"]) for m in memories] == [
        ("dup", "first", "ambiguous"),
        ("dup", "second", "ambiguous"),
        ("dup", "third", "ambiguous"),
        ("single", None, "exact"),
    ]


def test_list_inspectability_spans_the_whole_selection_not_the_page(
    client: McpClient, memory_root: Path
) -> None:
    _v1(memory_root, "dup", "a.json")
    _v1(memory_root, "dup", "b.json")

    pages = _walk(client, 1, scope="project")

    assert [page["memories"][0]["inspectability"] for page in pages] == ["ambiguous"] * 2


# --- validation --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"scope": "project", "bogus": 1}, unexpected_argument("invalid_request", "bogus")),
        (
            {"scope": "nope", "namespace_id": "x", "limit": 5},
            unexpected_argument("invalid_request", "limit"),
        ),
        ({}, SCOPE_ERROR),
        ({"scope": "Project"}, SCOPE_ERROR),
        ({"scope": None}, SCOPE_ERROR),
        ({"scope": 3}, SCOPE_ERROR),
        ({"scope": "nope", "namespace_id": "BAD"}, SCOPE_ERROR),
        ({"scope": "project", "namespace_id": None}, NAMESPACE_ERROR),
        ({"scope": "project", "namespace_id": ""}, NAMESPACE_ERROR),
        ({"scope": "project", "namespace_id": "Upper"}, NAMESPACE_ERROR),
        ({"scope": "project", "namespace_id": "trailing-"}, NAMESPACE_ERROR),
        ({"scope": "project", "namespace_id": "x" * 65}, NAMESPACE_ERROR),
        ({"scope": "project", "namespace_id": 7}, NAMESPACE_ERROR),
        ({"scope": "project", "namespace_id": "BAD", "collection_id": "BAD"}, NAMESPACE_ERROR),
        ({"scope": "project", "collection_id": "decisions"}, COLLECTION_ERROR),
        ({"scope": "project", "collection_id": None}, COLLECTION_ERROR),
        ({"scope": "project", "collection_id": None, "page_size": 0}, COLLECTION_ERROR),
        ({"scope": "project", "collection_id": "x", "cursor": ""}, COLLECTION_ERROR),
        ({"scope": "project", "namespace_id": "n", "collection_id": "Bad"}, COLLECTION_ERROR),
        ({"scope": "project", "namespace_id": "n", "collection_id": ""}, COLLECTION_ERROR),
        ({"scope": "project", "namespace_id": "n", "collection_id": 5}, COLLECTION_ERROR),
        ({"scope": "project", "namespace_id": "n", "collection_id": False}, COLLECTION_ERROR),
        (
            {"scope": "project", "namespace_id": "n", "collection_id": "B", "cursor": 1},
            COLLECTION_ERROR,
        ),
        ({"scope": "project", "cursor": "abc.def", "page_size": 5}, CURSOR_ERROR),
        ({"scope": "project", "cursor": "abc.def", "page_size": None}, CURSOR_ERROR),
        ({"scope": "project", "cursor": "abc.def", "page_size": 0}, CURSOR_ERROR),
        ({"scope": "project", "cursor": None}, CURSOR_ERROR),
        ({"scope": "project", "cursor": ""}, CURSOR_ERROR),
        ({"scope": "project", "cursor": 12}, CURSOR_ERROR),
        ({"scope": "project", "cursor": "a" * 4097}, CURSOR_ERROR),
        ({"scope": "project", "page_size": 0}, PAGE_SIZE_ERROR),
        ({"scope": "project", "page_size": 101}, PAGE_SIZE_ERROR),
        ({"scope": "project", "page_size": -1}, PAGE_SIZE_ERROR),
        ({"scope": "project", "page_size": None}, PAGE_SIZE_ERROR),
        ({"scope": "project", "page_size": True}, PAGE_SIZE_ERROR),
        ({"scope": "project", "page_size": 5.0}, PAGE_SIZE_ERROR),
        ({"scope": "project", "page_size": "5.0"}, PAGE_SIZE_ERROR),
        ({"scope": "project", "page_size": "many"}, PAGE_SIZE_ERROR),
        ({"scope": "project", "namespace_id": "n", "page_size": 0}, PAGE_SIZE_ERROR),
    ],
)
def test_list_validation_reports_the_first_failure_in_contract_order(
    client: McpClient, arguments: dict[str, Any], expected: dict[str, Any]
) -> None:
    reply = client.call(TOOL, arguments)

    assert reply.is_error is True
    assert reply.payload == expected


def test_list_long_cursor_within_limit_is_checked_as_a_cursor(client: McpClient) -> None:
    reply = client.call(TOOL, {"scope": "project", "cursor": "a" * 4096})

    assert reply.payload == CURSOR_ERROR


def test_list_validates_before_touching_the_root(client: McpClient, memory_root: Path) -> None:
    memory_root.write_text("not a directory")

    assert _list(client, scope="project", page_size=0) == PAGE_SIZE_ERROR
    assert _list(client, scope="project") == UNAVAILABLE


# --- containers and failures -------------------------------------------------------------------


def _symlink_root(memory_root: Path) -> None:
    real = memory_root.parent / "real-memory"
    _v2(real, 1)
    memory_root.symlink_to(real)


def test_list_symlinked_root_is_unavailable(client: McpClient, memory_root: Path) -> None:
    _symlink_root(memory_root)

    assert _list(client, scope="project") == UNAVAILABLE


def test_list_root_that_is_a_file_is_unavailable(client: McpClient, memory_root: Path) -> None:
    memory_root.parent.mkdir(parents=True, exist_ok=True)
    memory_root.write_text("x")

    assert _list(client, scope="project") == UNAVAILABLE


def test_list_symlinked_scope_is_unavailable(client: McpClient, memory_root: Path) -> None:
    _v2(memory_root.parent / "real", 1)
    memory_root.mkdir()
    (memory_root / "project").symlink_to(memory_root.parent / "real" / "project")

    assert _list(client, scope="project") == UNAVAILABLE
    assert _list(client, scope="project", namespace_id="mnemosyne") == UNAVAILABLE


def test_list_scope_path_that_is_a_file_is_unavailable(
    client: McpClient, memory_root: Path
) -> None:
    memory_root.mkdir()
    (memory_root / "project").write_text("x")

    assert _list(client, scope="project") == UNAVAILABLE


def test_list_symlinked_namespace_is_skipped_scope_wide_but_unavailable_when_selected(
    client: McpClient, memory_root: Path
) -> None:
    _v2(memory_root, 1, namespace="real")
    (memory_root / "project" / "linked").symlink_to(memory_root / "project" / "real")

    assert _refs(_list(client, scope="project")) == [(2, "real", "decisions", _mem_id(1))]
    assert _list(client, scope="project", namespace_id="linked") == UNAVAILABLE


def test_list_symlinked_selected_collection_is_unavailable(
    client: McpClient, memory_root: Path
) -> None:
    _v2(memory_root, 1)
    namespace = memory_root / "project" / "mnemosyne"
    (namespace / "linked").symlink_to(namespace / "decisions")

    assert _list(client, scope="project", namespace_id="mnemosyne", collection_id="linked") == (
        UNAVAILABLE
    )
    assert len(_list(client, scope="project", namespace_id="mnemosyne")["memories"]) == 1


def test_list_selected_container_that_is_a_file_is_unavailable(
    client: McpClient, memory_root: Path
) -> None:
    _v2(memory_root, 1)
    (memory_root / "project" / "plain").write_text("x")
    (memory_root / "project" / "mnemosyne" / "flat").write_text("x")

    assert _list(client, scope="project", namespace_id="plain") == UNAVAILABLE
    assert _list(client, scope="project", namespace_id="mnemosyne", collection_id="flat") == (
        UNAVAILABLE
    )


def _junk(directory: Path, count: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for number in range(count):
        (directory / f"junk{number:04}.json").write_text("{")


def test_list_candidate_overflow_fails_without_a_partial_inventory(
    client: McpClient, memory_root: Path
) -> None:
    _v2(memory_root, 1, collection=None)
    _junk(memory_root / "project" / "mnemosyne" / "big", 1000)

    assert _list(client, scope="project", namespace_id="mnemosyne") == OVERFLOW
    assert _list(client, scope="project") == OVERFLOW
    assert _list(client, scope="project", namespace_id="mnemosyne", collection_id="big") == {
        "status": "ok",
        "memories": [],
        "page": EMPTY_PAGE,
    }
    collectionless = _list(client, scope="project", namespace_id="mnemosyne", collection_id=None)
    assert _refs(collectionless) == [(2, "mnemosyne", None, _mem_id(1))]


def test_list_exactly_one_thousand_candidates_is_fine(client: McpClient, memory_root: Path) -> None:
    _junk(memory_root / "project" / "mnemosyne" / "big", 999)
    _v2(memory_root, 1, collection="big")

    assert _list(client, scope="project")["page"]["total_count"] == 1


def test_list_unexpected_failure_is_an_internal_error(
    client: McpClient, memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(MemoryStore, "list_scan", explode)

    assert _list(client, scope="project") == _error(
        "internal_error", None, "memory could not be listed", "internal_error"
    )


def test_list_never_creates_or_changes_anything(client: McpClient, memory_root: Path) -> None:
    _list(client, scope="project")
    _list(client, scope="project", namespace_id="mnemosyne", collection_id=None)
    assert not memory_root.exists()

    _v2(memory_root, 1)
    _v2(memory_root, 2)
    _v1(memory_root, "legacy")
    (memory_root / "project" / "broken.json").write_text("{")
    before = snapshot_tree(memory_root.parent)
    for page in _walk(client, 1, scope="project"):
        assert page["status"] == "ok"
    _list(client, scope="project", cursor="bogus")
    _list(client, scope="knowledge", namespace_id="absent", collection_id="gone")
    assert snapshot_tree(memory_root.parent) == before


# --- cursors -------------------------------------------------------------------------------------


def _first_cursor(client: McpClient, page_size: int = 1, **selector: Any) -> str:
    page = _list(client, **selector, page_size=page_size)["page"]
    assert page["truncated"] is True
    cursor: str = page["next_cursor"]
    return cursor


def _payload_of(cursor: str) -> dict[str, Any]:
    part = cursor.split(".")[0]
    decoded: dict[str, Any] = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    return decoded


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _with_payload(cursor: str, **changes: Any) -> str:
    fields = {**_payload_of(cursor), **changes}
    payload = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
    return f"{_b64(payload)}.{cursor.split('.')[1]}"


def _with_signature(cursor: str, signature: bytes) -> str:
    return f"{cursor.split('.')[0]}.{_b64(signature)}"


@pytest.fixture
def three(memory_root: Path) -> list[Path]:
    return [_v2(memory_root, number) for number in range(3)]


def test_list_cursor_continues_and_can_be_reused(client: McpClient, three: list[Path]) -> None:
    cursor = _first_cursor(client, scope="project")

    first = _list(client, scope="project", cursor=cursor)
    again = _list(client, scope="project", cursor=cursor)

    assert first == again
    assert first["page"]["number"] == 2
    assert _refs(first) == [(2, "mnemosyne", "decisions", _mem_id(1))]


def test_list_cursor_is_opaque(client: McpClient, three: list[Path]) -> None:
    cursor = _first_cursor(client, scope="project", namespace_id="mnemosyne")

    decoded = base64.urlsafe_b64decode(cursor.split(".")[0] + "==").decode()
    assert "mnemosyne" not in decoded
    assert "decisions" not in decoded
    assert all(path.name not in decoded for path in three)


def test_list_cursor_for_each_selector_form(client: McpClient, memory_root: Path) -> None:
    for number in range(3):
        _v2(memory_root, number)
        _v2(memory_root, 10 + number, collection=None)
        _v2(memory_root, 20 + number, collection="null")
    selectors: list[dict[str, Any]] = [
        {"scope": "project"},
        {"scope": "project", "namespace_id": "mnemosyne"},
        {"scope": "project", "namespace_id": "mnemosyne", "collection_id": None},
        {"scope": "project", "namespace_id": "mnemosyne", "collection_id": "null"},
    ]
    for selector in selectors:
        walked = [ref for page in _walk(client, 2, **selector) for ref in _refs(page)]
        assert walked == _refs(_list(client, **selector, page_size=100))


def _change_then_continue(
    client: McpClient, change: Callable[[], object], **selector: Any
) -> dict[str, Any]:
    selector = selector or {"scope": "project"}
    cursor = _first_cursor(client, **selector)
    change()
    return _list(client, **selector, cursor=cursor)


def _rewrite(path: Path, **changes: Any) -> None:
    record = json.loads(path.read_text())
    record.update(changes)
    path.write_text(json.dumps(record, indent=2) + "\n")


def test_list_cursor_is_stale_after_an_addition(
    client: McpClient, memory_root: Path, three: list[Path]
) -> None:
    assert _change_then_continue(client, lambda: _v2(memory_root, 9)) == STALE


def test_list_cursor_is_stale_after_a_removal(client: McpClient, three: list[Path]) -> None:
    assert _change_then_continue(client, three[2].unlink) == STALE


def test_list_cursor_is_stale_after_a_relocation(client: McpClient, memory_root: Path) -> None:
    _v1(memory_root, "a")
    _v1(memory_root, "b")
    old = memory_root / "project" / "b.json"

    def move() -> None:
        (memory_root / "project" / "sub").mkdir()
        old.rename(memory_root / "project" / "sub" / "b.json")

    assert _change_then_continue(client, move) == STALE


def test_list_cursor_is_stale_after_a_whitespace_only_rewrite(
    client: McpClient, three: list[Path]
) -> None:
    def reformat() -> None:
        three[1].write_text(json.dumps(json.loads(three[1].read_text())))

    assert _change_then_continue(client, reformat) == STALE


def test_list_cursor_is_stale_after_a_lifecycle_change(
    client: McpClient, three: list[Path]
) -> None:
    def archive() -> None:
        _rewrite(three[0], lifecycle={"state": "archived", "revision": 2})

    assert _change_then_continue(client, archive) == STALE


def test_list_cursor_is_stale_when_a_selected_record_turns_invalid(
    client: McpClient, three: list[Path]
) -> None:
    assert _change_then_continue(client, lambda: _rewrite(three[2], kind="nonsense")) == STALE


def test_list_cursor_is_stale_when_a_selected_file_turns_valid(
    client: McpClient, memory_root: Path, three: list[Path]
) -> None:
    broken = _v2(memory_root, 7, kind="nonsense")

    assert _change_then_continue(client, lambda: _rewrite(broken, kind="decision")) == STALE


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(
            lambda root: (root / "project" / "new.json").write_text("{"), id="new-invalid"
        ),
        pytest.param(lambda root: (root / "project" / "notes.txt").write_text("x"), id="non-json"),
        pytest.param(
            lambda root: _v2(
                root, 9, "me", scope="self", namespace_kind="aspect", kind="attribute"
            ),
            id="other-scope",
        ),
        pytest.param(lambda root: _v2(root, 9, collection="other"), id="other-collection"),
        pytest.param(lambda root: _v2(root, 9, collection=None), id="namespace-level"),
        pytest.param(
            lambda root: _v1(root, "legacy", "mnemosyne", "decisions", "l.json"),
            id="legacy-in-collection",
        ),
    ],
)
def test_list_cursor_survives_changes_outside_the_selection(
    client: McpClient,
    memory_root: Path,
    three: list[Path],
    change: Callable[[Path], object],
) -> None:
    (memory_root / "project" / "broken.json").write_text("{")
    selector = {"scope": "project", "namespace_id": "mnemosyne", "collection_id": "decisions"}

    payload = _change_then_continue(client, lambda: change(memory_root), **selector)

    assert payload["status"] == "ok"
    assert payload["page"]["number"] == 2


def test_list_scope_wide_cursor_survives_an_invalid_file_changing(
    client: McpClient, memory_root: Path, three: list[Path]
) -> None:
    broken = memory_root / "project" / "mnemosyne" / "broken.json"
    broken.write_text("{")

    assert _change_then_continue(client, lambda: broken.write_text("[]"))["status"] == "ok"


def test_list_cursor_after_a_restart_is_stale(
    client: McpClient, three: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    cursor = _first_cursor(client, scope="project")
    monkeypatch.setattr(cursors, "PROCESS_SECRET", cursors.ProcessSecret.generate())

    assert _list(client, scope="project", cursor=cursor) == STALE


def test_list_cursor_with_an_altered_marker_is_stale(client: McpClient, three: list[Path]) -> None:
    cursor = _first_cursor(client, scope="project")

    assert _list(client, scope="project", cursor=_with_payload(cursor, p="x" * 32)) == STALE


@pytest.mark.parametrize(
    "mangle",
    [
        pytest.param(lambda c: c.replace(".", ""), id="no-separator"),
        pytest.param(lambda c: c + ".AAAA", id="extra-part"),
        pytest.param(lambda c: c.split(".")[0] + ".", id="empty-signature"),
        pytest.param(lambda c: "." + c.split(".")[1], id="empty-payload"),
        pytest.param(lambda c: c + "=", id="padding"),
        pytest.param(lambda c: c.replace("-", "+").replace("_", "/") + "+", id="std-alphabet"),
        pytest.param(lambda c: _with_signature(c, b"\x00" * 32), id="forged-signature"),
        pytest.param(lambda c: c[:-1] + ("B" if c[-1] == "A" else "A"), id="loose-trailing-bits"),
        pytest.param(lambda c: "!" + c, id="bad-character"),
        pytest.param(lambda c: _b64(b"\xff\xfe") + "." + c.split(".")[1], id="not-ascii"),
        pytest.param(lambda c: _b64(b"[1]") + "." + c.split(".")[1], id="not-an-object"),
        pytest.param(lambda c: _with_payload(c, o=2), id="changed-offset"),
        pytest.param(lambda c: _with_payload(c, z=2), id="changed-page-size"),
        pytest.param(lambda c: _with_payload(c, d="0" * 64), id="changed-snapshot"),
        pytest.param(lambda c: _with_payload(c, o=3, z=2), id="offset-not-multiple"),
        pytest.param(lambda c: _with_payload(c, extra=1), id="extra-key"),
    ],
)
def test_list_tampered_cursor_is_invalid(
    client: McpClient, three: list[Path], mangle: Callable[[str], str]
) -> None:
    cursor = _first_cursor(client, scope="project")

    assert _list(client, scope="project", cursor=mangle(cursor)) == CURSOR_ERROR


@pytest.mark.parametrize(
    ("first", "continuation"),
    [
        ({"scope": "project"}, {"scope": "knowledge"}),
        ({"scope": "project"}, {"scope": "project", "namespace_id": "mnemosyne"}),
        ({"scope": "project", "namespace_id": "mnemosyne"}, {"scope": "project"}),
        (
            {"scope": "project", "namespace_id": "mnemosyne"},
            {"scope": "project", "namespace_id": "mnemosyne", "collection_id": "decisions"},
        ),
        (
            {"scope": "project", "namespace_id": "mnemosyne", "collection_id": None},
            {"scope": "project", "namespace_id": "mnemosyne"},
        ),
        (
            {"scope": "project", "namespace_id": "mnemosyne", "collection_id": None},
            {"scope": "project", "namespace_id": "mnemosyne", "collection_id": "null"},
        ),
        (
            {"scope": "project", "namespace_id": "mnemosyne", "collection_id": "decisions"},
            {"scope": "project", "namespace_id": "mnemosyne", "collection_id": "other"},
        ),
    ],
)
def test_list_cursor_for_another_selector_is_invalid(
    client: McpClient,
    memory_root: Path,
    first: dict[str, Any],
    continuation: dict[str, Any],
) -> None:
    for number in range(2):
        _v2(memory_root, number)
        _v2(memory_root, 10 + number, collection=None)
    cursor = _first_cursor(client, **first)

    assert _list(client, **continuation, cursor=cursor) == CURSOR_ERROR


def test_list_cursor_with_page_size_is_invalid(client: McpClient, three: list[Path]) -> None:
    cursor = _first_cursor(client, scope="project")

    assert _list(client, scope="project", cursor=cursor, page_size=1) == CURSOR_ERROR


def test_list_signed_cursor_beyond_the_selection_is_invalid(
    client: McpClient, three: list[Path]
) -> None:
    fields = _payload_of(_first_cursor(client, scope="project"))
    beyond = cursors.issue_cursor(fields["s"], fields["d"], 3, 1)
    inside = cursors.issue_cursor(fields["s"], fields["d"], 2, 1)

    assert _list(client, scope="project", cursor=beyond) == CURSOR_ERROR
    assert _list(client, scope="project", cursor=inside)["page"]["number"] == 3


def test_list_cursor_checks_that_need_no_disk_come_first(
    client: McpClient, memory_root: Path, three: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    cursor = _first_cursor(client, scope="project")
    shutil.rmtree(memory_root)
    memory_root.write_text("now a file")

    assert _list(client, scope="project", cursor=cursor) == UNAVAILABLE
    assert _list(client, scope="knowledge", cursor=cursor) == CURSOR_ERROR
    monkeypatch.setattr(cursors, "PROCESS_SECRET", cursors.ProcessSecret.generate())
    assert _list(client, scope="knowledge", cursor=cursor) == STALE


def test_list_stale_snapshot_is_checked_before_the_offset(
    client: McpClient, three: list[Path]
) -> None:
    fields = _payload_of(_first_cursor(client, scope="project"))
    three[0].unlink()
    three[1].unlink()

    assert (
        _list(client, scope="project", cursor=cursors.issue_cursor(fields["s"], fields["d"], 2, 1))
        == STALE
    )


def test_list_pages_reuse_unchanged_files(
    client: McpClient, memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for number in range(6):
        _v2(memory_root, number)
    monkeypatch.setattr(scan, "RACY_WINDOW_NS", -(10**15))
    reads: list[str] = []
    original = files.read_file_at

    def counting(dir_fd: int, name: str) -> files.FileContent:
        reads.append(name)
        return original(dir_fd, name)

    monkeypatch.setattr(files, "read_file_at", counting)

    pages = _walk(client, 2, scope="project")

    assert len(pages) == 3
    assert len(reads) == 6


def test_list_page_served_again_after_a_change_shows_the_change(
    client: McpClient, three: list[Path]
) -> None:
    before = _list(client, scope="project", page_size=2)
    _rewrite(three[0], title="renamed")

    after = _list(client, scope="project", page_size=2)

    assert _titles(before) == ["record 0", "record 1"]
    assert _titles(after) == ["renamed", "record 1"]
    assert after["page"]["next_cursor"] != before["page"]["next_cursor"]


def test_list_same_snapshot_in_other_page_sizes_pages_correctly(
    client: McpClient, memory_root: Path
) -> None:
    for number in range(7):
        _v2(memory_root, number)
    expected = [f"record {number}" for number in range(7)]

    for page_size in (1, 2, 3, 7, 100, 3, 2, 1):
        pages = _walk(client, page_size, scope="project")

        assert [title for page in pages for title in _titles(page)] == expected
        assert [page["page"]["number"] for page in pages] == list(range(1, len(pages) + 1))


# --- logging -------------------------------------------------------------------------------------


@pytest.fixture
def events(caplog: pytest.LogCaptureFixture) -> Callable[[], list[tuple[int, str]]]:
    caplog.set_level(logging.INFO, logger=LOGGER)

    def collected() -> list[tuple[int, str]]:
        found = log_events(caplog, LOGGER)
        caplog.clear()
        return found

    return collected


def test_list_logs_one_ok_event_with_counts(
    client: McpClient, memory_root: Path, events: Callable[[], list[tuple[int, str]]]
) -> None:
    for number in range(3):
        _v2(memory_root, number)
    events()

    cursor = _first_cursor(client, 2, scope="project", namespace_id="mnemosyne")
    _list(client, scope="project", namespace_id="mnemosyne", cursor=cursor)

    assert events() == [
        (
            logging.INFO,
            "event=memory_list outcome=ok scope=project namespace_selector_present=True "
            "collection_selector_present=False returned_count=2 total_count=3 page_number=1 "
            "truncated=True",
        ),
        (
            logging.INFO,
            "event=memory_list outcome=ok scope=project namespace_selector_present=True "
            "collection_selector_present=False returned_count=1 total_count=3 page_number=2 "
            "truncated=False",
        ),
    ]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"scope": "project", "namespace_id": "n", "collection_id": None, "x": 1},
            "code=invalid_request field=request namespace_selector_present=False "
            "collection_selector_present=False",
        ),
        (
            {"scope": "bogus", "namespace_id": "n"},
            "code=invalid_scope field=scope namespace_selector_present=True "
            "collection_selector_present=False",
        ),
        (
            {"scope": "self", "namespace_id": "secret-ns", "collection_id": "Bad"},
            "code=invalid_collection field=collection_id scope=self "
            "namespace_selector_present=True collection_selector_present=True",
        ),
        (
            {"scope": "self", "cursor": "secret.cursor"},
            "code=invalid_cursor field=cursor scope=self namespace_selector_present=False "
            "collection_selector_present=False",
        ),
    ],
)
def test_list_logs_invalid_requests_as_warnings(
    client: McpClient,
    events: Callable[[], list[tuple[int, str]]],
    arguments: dict[str, Any],
    message: str,
) -> None:
    client.call(TOOL, arguments)

    assert events() == [(logging.WARNING, f"event=memory_list outcome=invalid_request {message}")]


def test_list_logs_stale_and_storage_failures_without_selector_values(
    client: McpClient,
    memory_root: Path,
    three: list[Path],
    events: Callable[[], list[tuple[int, str]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    selector: dict[str, Any] = {
        "scope": "project",
        "namespace_id": "mnemosyne",
        "collection_id": "decisions",
    }
    cursor = _first_cursor(client, **selector)
    _v2(memory_root, 9)
    events()

    _list(client, **selector, cursor=cursor)
    (memory_root / "project" / "mnemosyne" / "decisions").rename(memory_root / "elsewhere")
    (memory_root / "project" / "mnemosyne" / "decisions").symlink_to(memory_root / "elsewhere")
    _list(client, **selector)
    monkeypatch.setattr(MemoryStore, "list_scan", lambda *a: 1 / 0)
    _list(client, **selector)

    flags = "scope=project namespace_selector_present=True collection_selector_present=True"
    assert events() == [
        (logging.WARNING, f"event=memory_list outcome=conflict code=stale_cursor {flags}"),
        (
            logging.WARNING,
            f"event=memory_list outcome=storage_error code=memory_source_unavailable {flags} "
            "cause=other errno=ELOOP directory=project/mnemosyne/decisions",
        ),
        (logging.ERROR, f"event=memory_list outcome=internal_error code=internal_error {flags}"),
    ]


def test_list_store_skips_are_logged_by_the_store(
    client: McpClient, memory_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="mymcp.memory.store")
    _v2(memory_root, 1)
    (memory_root / "project" / "broken.json").write_text("{")

    _list(client, scope="project")

    assert "skipped scope='project' reason='invalid_json'" in caplog.messages
    assert not any(os.fspath(memory_root) in message for message in caplog.messages)


def test_list_page_text_escapes_non_ascii_titles_like_every_result(
    client: McpClient, memory_root: Path
) -> None:
    _v2(memory_root, 1, title="caf\u00e9 \u2713 \u2028 line")
    _v1(memory_root, "creme", title="cr\u00e8me br\u00fbl\u00e9e")
    first = _list(client, scope="project", page_size=1)
    second = _list(client, scope="project", cursor=first["page"]["next_cursor"])
    assert [first["memories"][0]["title"], second["memories"][0]["title"]] == [
        "cr\u00e8me br\u00fbl\u00e9e",
        "caf\u00e9 \u2713 \u2028 line",
    ]


def test_list_page_text_is_exactly_the_compact_json_of_its_payload(
    memory_root: Path, client: McpClient
) -> None:
    _v2(memory_root, 1, title='caf\u00e9 \u2713 \u2028 "quoted" \\ line')
    _v2(memory_root, 2, collection=None)
    _v2(memory_root, 3, namespace="other", collection=None)
    _v1(memory_root, "creme", title="cr\u00e8me br\u00fbl\u00e9e")
    _v1(memory_root, "twin", "a", "twin.json")
    _v1(memory_root, "twin", "b", "twin.json", title=None)
    texts = []
    for page_size in (1, 2, 100):
        arguments: dict[str, Any] = {"scope": "project", "page_size": page_size}
        while True:
            result = client.call(TOOL, arguments).raw
            text = result["content"][0]["text"]
            structured = result["structuredContent"]

            assert text == json.dumps(structured, separators=(",", ":"))
            texts.append(text)
            if structured["page"]["next_cursor"] is None:
                break
            arguments = {"scope": "project", "cursor": structured["page"]["next_cursor"]}

    assert len(texts) == 6 + 3 + 1
    assert '"inspectability":"ambiguous"' in texts[-1]
