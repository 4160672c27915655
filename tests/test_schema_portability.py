"""Every published input schema is portable to grammar-compiling clients (all gates on).

Clients such as llama.cpp and Ollama compile Tool schemas into grammars; one schema they cannot
convert disables every Tool. So: patterns anchored ``^...$`` with no backslash shorthand class,
no published ``maxLength`` above 1,000, and ``memory_list`` without a top-level combinator.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.helpers import McpClient

ALL_TOOLS = [
    "list_tools",
    "memory_recall",
    "memory_list",
    "memory_inspect",
    "memory_archive",
    "memory_restore",
    "memory_remember",
    "memory_revise",
    "memory_forget",
]
SHORTHAND_CLASSES = frozenset("dwsDWS")
PUBLISHED_MAX_LENGTH = 1000


@pytest.fixture
def schemas(mcp: Callable[..., McpClient]) -> dict[str, Any]:
    client = mcp(remember=True, revise=True, archive_restore=True, forget=True)
    tools = client.rpc("tools/list")["result"]["tools"]
    return {tool["name"]: tool["inputSchema"] for tool in tools}


def _walk(node: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object below ``node`` (inclusive), with a readable path."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{path}/{index}")


def _patterns(schema: Any) -> list[tuple[str, str]]:
    return [
        (path, node["pattern"])
        for path, node in _walk(schema, "")
        if isinstance(node.get("pattern"), str)
    ]


def _shorthand_escapes(pattern: str) -> list[str]:
    """The ``\\d``-style escapes in ``pattern`` (an escaped backslash is skipped whole)."""
    found, index = [], 0
    while index < len(pattern):
        if pattern[index] == "\\" and index + 1 < len(pattern):
            if pattern[index + 1] in SHORTHAND_CLASSES:
                found.append(pattern[index : index + 2])
            index += 2
        else:
            index += 1
    return found


def _anchored(pattern: str) -> bool:
    tail = pattern[:-1]
    escaped_dollar = (len(tail) - len(tail.rstrip("\\"))) % 2 == 1
    return pattern.startswith("^") and pattern.endswith("$") and not escaped_dollar


def test_every_tool_is_published_with_all_gates_on(schemas: dict[str, Any]) -> None:
    assert list(schemas) == ALL_TOOLS


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_every_pattern_is_anchored(schemas: dict[str, Any], name: str) -> None:
    loose = [
        (path, pattern) for path, pattern in _patterns(schemas[name]) if not _anchored(pattern)
    ]
    assert loose == []


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_no_pattern_uses_a_shorthand_class(schemas: dict[str, Any], name: str) -> None:
    offending = [
        (path, pattern) for path, pattern in _patterns(schemas[name]) if _shorthand_escapes(pattern)
    ]
    assert offending == []


@pytest.mark.parametrize("name", ALL_TOOLS)
def test_no_published_max_length_exceeds_1000(schemas: dict[str, Any], name: str) -> None:
    too_long = [
        (path, node["maxLength"])
        for path, node in _walk(schemas[name], "")
        if isinstance(node.get("maxLength"), int) and node["maxLength"] > PUBLISHED_MAX_LENGTH
    ]
    assert too_long == []


def test_memory_list_is_published_as_flat_properties(schemas: dict[str, Any]) -> None:
    schema = schemas["memory_list"]
    assert not {"oneOf", "anyOf", "allOf"} & set(schema)
    assert list(schema["properties"]) == [
        "scope",
        "namespace_id",
        "collection_id",
        "page_size",
        "cursor",
    ]
    assert schema["required"] == ["scope"]
    assert schema["additionalProperties"] is False


def test_the_checks_catch_what_they_are_meant_to_catch() -> None:
    assert _shorthand_escapes("\\S") == ["\\S"]
    assert _shorthand_escapes("^[0-9]\\\\d$") == []  # an escaped backslash, then a literal d
    assert _shorthand_escapes("^\\.\\-$") == []
    assert not _anchored("\\S")
    assert not _anchored("^a\\$")
    assert _anchored("^a\\\\$")
    assert _anchored("^mem_[0-9a-f]{32}$")
    nested = {"properties": {"a": {"anyOf": [{"pattern": "x"}, {"items": {"pattern": "^y$"}}]}}}
    assert [pattern for _, pattern in _patterns(nested)] == ["x", "^y$"]


@pytest.mark.parametrize(
    ("text", "allowed"),
    [
        ("x", True),
        ("  tea  ", True),
        ("a\nb", True),
        ("\u2028x\u2028y\u2028", True),
        (" ", False),
        ("\n\t", False),
        ("\u00a0\u3000", False),
    ],
)
def test_the_published_non_blank_pattern_means_not_only_white_space(
    text: str, allowed: bool
) -> None:
    from mymcp.plugins.mnemosyne.tools.schemas import NONBLANK_PATTERN

    assert bool(re.search(NONBLANK_PATTERN, text)) is allowed
