"""The host-owned ``list_tools`` Tool: the server version and the names it serves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mymcp import settings
from mymcp.jsonvalue import JsonObject
from mymcp.mcp.encoding import Fixed
from mymcp.mcp.tool_registry import ToolRegistration

NAME = "list_tools"

DEFINITION: JsonObject = {
    "name": NAME,
    "title": "List tools",
    "description": "Returns the list of tools exposed by this MCP server.",
    "inputSchema": {"type": "object", "properties": {}},
    "annotations": {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    },
}


def summary(names: Sequence[str]) -> str:
    """The one text line ``list_tools`` answers with."""
    listed = ", ".join(names)
    return f"Server: {settings.SERVER_NAME} {settings.SERVER_VERSION}. Available tools: {listed}"


def registration(plugin_tools: Sequence[Mapping[str, Any]]) -> ToolRegistration:
    """Bind ``list_tools`` to the final surface: itself first, then the plugin Tools."""
    text = summary([NAME, *(str(tool["name"]) for tool in plugin_tools)])
    answer = Fixed({"content": [{"type": "text", "text": text}]})  # encoded once

    def handle(arguments: Mapping[str, Any]) -> JsonObject:
        return answer

    return ToolRegistration(DEFINITION, handle)
