"""What every Mnemosyne Tool publishes, pinned: property names in order, types, enums, required.

A client that worked with the original sends the same names, types and enum values, so these
may change only on purpose. Each property is summarized on one line (``a|b`` for an ``anyOf``,
``integer=2`` for a one-value integer range, ``[...]`` for an enum, ``*`` for required) and
nested objects are listed below their parent with a dotted path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers import McpClient

SCOPES = "[self,relationship,preference,practice,project,knowledge]"
NAMESPACE_KINDS = "[aspect,person,group,relationship,domain,project,topic]"
KINDS = (
    "[attribute,perspective,summary,preference,practice,decision,constraint,state,event,"
    "question,reference]"
)
ORIGINS = "[explicit_user_statement,user_approved_proposal]"

CANONICAL_REFERENCE = {
    "reference": "*object",
    "reference.schema_version": "*integer=2",
    "reference.scope": f"*string{SCOPES}",
    "reference.namespace_id": "*string",
    "reference.collection_id": "*string|null",
    "reference.id": "*string",
}
LIFECYCLE = {**CANONICAL_REFERENCE, "expected_revision": "*integer"}

EXPECTED: dict[str, dict[str, str]] = {
    "memory_recall": {
        "query": "*string",
        "scope": f"*string{SCOPES}",
        "tags": "array",
        "tags[]": "string",
        "namespace_id": "string",
    },
    "memory_list": {
        "scope": f"*string{SCOPES}",
        "namespace_id": "string",
        "collection_id": "string|null",
        "page_size": "integer",
        "cursor": "string",
    },
    "memory_inspect": {
        "reference": "*object|object",
        "reference|0.schema_version": "*integer=2",
        "reference|0.scope": f"*string{SCOPES}",
        "reference|0.namespace_id": "*string",
        "reference|0.collection_id": "*string|null",
        "reference|0.id": "*string",
        "reference|1.schema_version": "*integer=1",
        "reference|1.scope": f"*string{SCOPES}",
        "reference|1.id": "*string",
    },
    "memory_archive": LIFECYCLE,
    "memory_restore": LIFECYCLE,
    "memory_remember": {
        "scope": f"*string{SCOPES}",
        "namespace": "*object",
        "namespace.kind": f"*string{NAMESPACE_KINDS}",
        "namespace.id": "*string",
        "namespace.label": "*string|null",
        "collection": "*null|object",
        "collection|1.id": "*string",
        "collection|1.label": "*string|null",
        "kind": f"*string{KINDS}",
        "language": "*string|null",
        "title": "*string|null",
        "content": "*string",
        "tags": "*array",
        "tags[]": "string",
        "origin": f"*string{ORIGINS}",
        "occurred_at": "string",
    },
    "memory_revise": {
        **CANONICAL_REFERENCE,
        "expected_revision": "*integer",
        "namespace_label": "*string|null",
        "collection_label": "string|null",
        "title": "*string|null",
        "content": "*string",
        "tags": "*array",
        "tags[]": "string",
    },
    "memory_forget": LIFECYCLE,
}


def _type(node: dict[str, Any]) -> str:
    if "anyOf" in node:
        return "|".join(_type(branch) for branch in node["anyOf"])
    text = str(node["type"])
    if text == "integer" and "minimum" in node and node.get("maximum") == node["minimum"]:
        text += f"={node['minimum']}"
    if "enum" in node:
        text += "[" + ",".join(node["enum"]) + "]"
    return text


def _members(node: dict[str, Any], prefix: str, out: dict[str, str]) -> None:
    """Each property of an object schema (and of each object branch of an ``anyOf``)."""
    required = set(node.get("required", []))
    for name, member in node.get("properties", {}).items():
        path = f"{prefix}{name}"
        out[path] = ("*" if name in required else "") + _type(member)
        _nested(member, path, out)


def _nested(member: dict[str, Any], path: str, out: dict[str, str]) -> None:
    if member.get("type") == "object":
        _members(member, f"{path}.", out)
    elif member.get("type") == "array":
        out[f"{path}[]"] = _type(member["items"])
    elif "anyOf" in member:
        objects = [
            (index, branch)
            for index, branch in enumerate(member["anyOf"])
            if branch.get("type") == "object"
        ]
        for index, branch in objects:
            _members(branch, f"{path}|{index}.", out)


def shape(schema: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    _members(schema, "", out)
    return out


@pytest.fixture
def schemas(mcp: Callable[..., McpClient]) -> dict[str, Any]:
    client = mcp(remember=True, revise=True, archive_restore=True, forget=True)
    tools = client.rpc("tools/list")["result"]["tools"]
    return {tool["name"]: tool["inputSchema"] for tool in tools if tool["name"] in EXPECTED}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_published_properties_types_enums_and_required_are_pinned(
    schemas: dict[str, Any], name: str
) -> None:
    assert list(shape(schemas[name]).items()) == list(EXPECTED[name].items())


def test_the_summary_tells_the_forms_apart() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "b": {"type": "integer", "minimum": 1, "maximum": 1},
            "c": {"type": "integer", "minimum": 1},
            "d": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}},
            "e": {
                "anyOf": [
                    {"type": "null"},
                    {"type": "object", "properties": {"f": {"type": "string"}}, "required": ["f"]},
                ]
            },
        },
        "required": ["b"],
    }
    assert shape(schema) == {
        "a": "string|null",
        "b": "*integer=1",
        "c": "integer",
        "d": "array",
        "d[]": "string[x,y]",
        "e": "null|object",
        "e|1.f": "*string",
    }
