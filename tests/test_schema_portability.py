"""Every published input schema takes the forms that every client and model provider accepts.

The rules, checked on ``tools/list`` with every gate on and without the network: one flat
object per Tool (Anthropic refuses a combinator at the top), no keyword outside the Gemini
function-declaration subset except ``additionalProperties``, no ``const``, ``oneOf``, type
array or ``uniqueItems`` anywhere, string enums only, a type on every schema (MCP Inspector
``--strict``), nullable values as an ``anyOf`` with a null branch, and patterns the llama.cpp
grammar converters take without dropping them: anchored, explicit classes only (no backslash
at all, no ``(?``), and no length keyword beside them. The real converters are run by the
``schema-portability`` check that the README describes, not by this suite.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.helpers import McpClient
from tests.surface import ALL_LISTED

ALL_TOOLS = list(ALL_LISTED)
PUBLISHED_MAX_LENGTH = 1000
TOOLS_LIST_BYTE_LIMIT = 15_000

# The Gemini Schema object's fields, plus additionalProperties, which the contract keeps.
ALLOWED_KEYWORDS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
        "additionalProperties",
    }
)
TOP_LEVEL_KEYS = ["type", "properties", "required", "additionalProperties"]
SINGLE_TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})


def has_one_type(node: dict[str, Any]) -> bool:
    """``type`` is one type name (a type array is not portable)."""
    declared = node.get("type")
    return isinstance(declared, str) and declared in SINGLE_TYPES


@pytest.fixture
def published(mcp: Callable[..., McpClient]) -> list[dict[str, Any]]:
    client = mcp(remember=True, revise=True, archive_restore=True, forget=True)
    tools: list[dict[str, Any]] = client.rpc("tools/list")["result"]["tools"]
    return tools


@pytest.fixture
def schemas(published: list[dict[str, Any]]) -> dict[str, Any]:
    return {tool["name"]: tool["inputSchema"] for tool in published}


def subschemas(schema: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every subschema below ``schema`` (inclusive) with its path, whatever keyword holds it."""
    yield path, schema
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        if key in ("properties", "$defs", "definitions", "patternProperties"):
            if isinstance(value, dict):
                for name, member in value.items():
                    yield from subschemas(member, f"{path}/{key}/{name}")
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
            for index, member in enumerate(value):
                yield from subschemas(member, f"{path}/{key}/{index}")
        elif key in ("items", "not", "if", "then", "else", "contains", "additionalProperties"):
            if isinstance(value, dict):
                yield from subschemas(value, f"{path}/{key}")


def nodes(schema: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(path, node) for path, node in subschemas(schema) if isinstance(node, dict)]


def pattern_faults(pattern: str) -> list[str]:
    """Why a grammar converter would refuse or drop ``pattern`` (empty when it is fine)."""
    faults = []
    if not (pattern.startswith("^") and pattern.endswith("$")):
        faults.append("not anchored")
    if "\\" in pattern:
        faults.append("backslash escape")
    if "(?" in pattern:
        faults.append("group syntax (?")
    return faults


def test_every_tool_is_published_with_all_gates_on(schemas: dict[str, Any]) -> None:
    assert list(schemas) == ALL_TOOLS


def test_tools_list_with_every_gate_on_stays_small(mcp: Callable[..., McpClient]) -> None:
    client = mcp(remember=True, revise=True, archive_restore=True, forget=True)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert len(client.post(body).content) <= TOOLS_LIST_BYTE_LIMIT


@pytest.mark.parametrize("name", ALL_TOOLS[1:])
def test_every_input_schema_is_one_flat_object(schemas: dict[str, Any], name: str) -> None:
    schema = schemas[name]
    assert list(schema) == TOP_LEVEL_KEYS
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) <= set(schema["properties"])


def test_the_host_tool_has_no_top_level_combinator(schemas: dict[str, Any]) -> None:
    assert schemas["list_tools"] == {"type": "object", "properties": {}}


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_no_schema_uses_a_keyword_outside_the_portable_subset(
    schemas: dict[str, Any], name: str
) -> None:
    outside = [
        (path, key)
        for path, node in nodes(schemas[name])
        for key in node
        if key not in ALLOWED_KEYWORDS
    ]
    assert outside == []


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_every_schema_has_one_type_or_is_an_any_of(schemas: dict[str, Any], name: str) -> None:
    untyped = [
        path
        for path, node in nodes(schemas[name])
        if not (has_one_type(node) or ("anyOf" in node and "type" not in node))
    ]
    assert untyped == []


@pytest.mark.parametrize("name", ALL_TOOLS[1:])
def test_no_boolean_schemas_and_closed_objects(schemas: dict[str, Any], name: str) -> None:
    for path, node in subschemas(schemas[name]):
        assert isinstance(node, dict) or path.endswith("/additionalProperties"), path
        if isinstance(node, dict) and node.get("type") == "object":
            assert node.get("additionalProperties") is False, path


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_any_of_appears_only_below_the_top_level_with_typed_branches(
    schemas: dict[str, Any], name: str
) -> None:
    for path, node in nodes(schemas[name]):
        if "anyOf" in node:
            assert path, "anyOf at the top level"
            assert all(has_one_type(branch) for branch in node["anyOf"]), path


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_enums_are_strings_of_a_string_schema(schemas: dict[str, Any], name: str) -> None:
    for path, node in nodes(schemas[name]):
        if "enum" in node:
            assert node["type"] == "string", path
            assert node["enum"] and all(isinstance(value, str) for value in node["enum"]), path


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_patterns_are_converted_by_both_grammar_converters(
    schemas: dict[str, Any], name: str
) -> None:
    for path, node in nodes(schemas[name]):
        if "pattern" in node:
            assert node["type"] == "string", path
            assert pattern_faults(node["pattern"]) == [], path
            # A length beside a pattern is dropped by llama.cpp: the pattern carries it.
            assert not {"minLength", "maxLength"} & set(node), path


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_no_published_max_length_exceeds_1000(schemas: dict[str, Any], name: str) -> None:
    too_long = [
        (path, node["maxLength"])
        for path, node in nodes(schemas[name])
        if isinstance(node.get("maxLength"), int) and node["maxLength"] > PUBLISHED_MAX_LENGTH
    ]
    assert too_long == []


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_bounds_are_plain_integers(schemas: dict[str, Any], name: str) -> None:
    keywords = ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems")
    for path, node in nodes(schemas[name]):
        for key in keywords:
            if key in node:
                assert type(node[key]) is int and node[key] >= 0, (path, key)


def test_a_nullable_value_is_an_any_of_with_a_null_branch(schemas: dict[str, Any]) -> None:
    nullable = {
        (name, path)
        for name, schema in schemas.items()
        for path, node in nodes(schema)
        if {"type": "null"} in node.get("anyOf", [])
    }
    assert nullable == {
        ("memory_list", "/properties/collection_id"),
        ("memory_inspect", "/properties/reference/anyOf/0/properties/collection_id"),
        *(
            (tool, "/properties/reference/properties/collection_id")
            for tool in ("memory_archive", "memory_restore", "memory_revise", "memory_forget")
        ),
        ("memory_remember", "/properties/namespace/properties/label"),
        ("memory_remember", "/properties/collection"),
        ("memory_remember", "/properties/collection/anyOf/1/properties/label"),
        ("memory_remember", "/properties/language"),
        ("memory_remember", "/properties/title"),
        ("memory_revise", "/properties/namespace_label"),
        ("memory_revise", "/properties/collection_label"),
        ("memory_revise", "/properties/title"),
    }


def test_the_checks_catch_what_they_are_meant_to_catch() -> None:
    assert pattern_faults("\\S") == ["not anchored", "backslash escape"]
    assert pattern_faults("^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$") == ["group syntax (?"]
    assert pattern_faults("^[^ \\t\\f\\v]$") == ["backslash escape"]
    assert pattern_faults("^[0-9]{4}$") == []
    nested = {
        "properties": {"a": {"anyOf": [{"pattern": "x"}, {"items": {"const": 1}}]}},
        "oneOf": [{"not": {"required": ["a"]}}],
    }
    found = {path for path, _ in subschemas(nested)}
    assert found == {
        "",
        "/properties/a",
        "/properties/a/anyOf/0",
        "/properties/a/anyOf/1",
        "/properties/a/anyOf/1/items",
        "/oneOf/0",
        "/oneOf/0/not",
    }
