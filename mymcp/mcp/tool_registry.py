"""The ordered set of Tools one runtime serves."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from mymcp.jsonvalue import JsonObject
from mymcp.mcp.control_arguments import without_control_arguments
from mymcp.mcp.tool_arguments import normalize_tool_arguments

# Takes the normalized arguments, answers the MCP Tool result.
ToolHandler = Callable[[JsonObject], JsonObject]


def tool_annotations(
    *, read_only: bool, destructive: bool, idempotent: bool, open_world: bool
) -> dict[str, bool]:
    """The MCP behaviour hints of a Tool (its ``annotations``)."""
    return {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": open_world,
    }


@dataclass(frozen=True)
class ToolRegistration:
    """An MCP Tool definition paired with the callable that answers it."""

    tool: Mapping[str, Any]
    handler: ToolHandler


class ToolRegistry:
    """Registrations in publication order, keyed by Tool name; immutable once built."""

    def __init__(self, registrations: Iterable[ToolRegistration]) -> None:
        tools: list[JsonObject] = []
        handlers: dict[str, ToolHandler] = {}
        schemas: dict[str, JsonObject] = {}
        for registration in registrations:
            definition = _checked_definition(registration)
            name = definition["name"]
            if name in handlers:
                raise ValueError(f"duplicate tool registration: {name}")
            tools.append(definition)
            handlers[name] = registration.handler
            schemas[name] = definition["inputSchema"]
        self._tools = tuple(tools)
        self._handlers = MappingProxyType(handlers)
        self._schemas = schemas

    @property
    def tools(self) -> list[JsonObject]:
        """A fresh deep copy of the Tool definitions, in order."""
        return copy.deepcopy(list(self._tools))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(tool["name"] for tool in self._tools)

    @property
    def input_schemas(self) -> Mapping[str, Mapping[str, Any]]:
        return MappingProxyType(copy.deepcopy(self._schemas))

    @property
    def handlers(self) -> Mapping[str, ToolHandler]:
        return self._handlers

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._handlers

    def call_tool(self, name: object, arguments: Mapping[str, Any]) -> JsonObject | None:
        """Call the Tool without client control arguments, the rest normalized; None if unknown."""
        if not isinstance(name, str) or name not in self._handlers:
            return None
        schema = self._schemas[name]
        normalized = normalize_tool_arguments(without_control_arguments(arguments, schema), schema)
        return self._handlers[name](normalized)


def _checked_definition(registration: object) -> JsonObject:
    if not isinstance(registration, ToolRegistration) or not callable(registration.handler):
        raise ValueError("invalid tool registration")
    tool = registration.tool
    if not isinstance(tool, Mapping):
        raise ValueError("invalid tool registration")
    definition = copy.deepcopy(dict(tool))
    name = definition.get("name")
    if not isinstance(name, str) or not name or not isinstance(definition.get("inputSchema"), dict):
        raise ValueError("invalid tool registration")
    return definition
