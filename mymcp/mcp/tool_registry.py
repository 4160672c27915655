"""The ordered set of Tools one runtime serves."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mymcp.jsonvalue import JsonObject
from mymcp.mcp.tool_arguments import tool_arguments

# Takes the normalized arguments, answers the MCP Tool result: plain JSON values, where a
# result that gives ``structuredContent`` may leave its text item to the host
# (``mymcp.mcp.encoding.tool_result``).
ToolHandler = Callable[[JsonObject], JsonObject]


@dataclass(frozen=True)
class ToolRegistration:
    """An MCP Tool definition paired with the callable that answers it."""

    tool: Mapping[str, Any]
    handler: ToolHandler


class ToolRegistry:
    """Registrations in publication order, keyed by Tool name; immutable once built."""

    def __init__(self, registrations: Iterable[ToolRegistration]) -> None:
        tools: list[JsonObject] = []
        entries: dict[str, tuple[ToolHandler, JsonObject]] = {}
        for registration in registrations:
            definition = _checked_definition(registration)
            name = definition["name"]
            if name in entries:
                raise ValueError(f"duplicate tool registration: {name}")
            tools.append(definition)
            entries[name] = (registration.handler, definition["inputSchema"])
        self._tools = tuple(tools)
        self._entries = entries

    @property
    def tools(self) -> list[JsonObject]:
        """A fresh deep copy of the Tool definitions, in order."""
        return copy.deepcopy(list(self._tools))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._entries

    def call_tool(self, name: object, arguments: Mapping[str, Any]) -> JsonObject | None:
        """Call the Tool without client control arguments, the rest normalized; None if unknown."""
        if not isinstance(name, str) or name not in self._entries:
            return None
        handler, schema = self._entries[name]
        return handler(tool_arguments(arguments, schema))


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
