"""Client configuration entries in the documentation: parsed, whatever the client's shape.

An entry is a fenced block marked ``<!-- client stdio -->`` (the client starts ``mymcp
stdio`` from a clone's ``.venv``), ``<!-- client installed -->`` (it starts an installed
MyMCP: ``uvx mymcp stdio`` or the installed ``mymcp``) or ``<!-- client http -->`` (it
reaches a running ``mymcp serve``).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from tests.docs.markdown import Block, blocks

UVX = ["uvx", "mymcp", "stdio"]
INSTALLED_COMMAND = "/home/you/.local/bin/mymcp"  # what uv tool install and pipx install give


def entries(kind: str, *documents: Path) -> list[Block]:
    """The blocks marked ``client <kind>`` in ``documents``, in order."""
    return [
        block
        for document in documents
        for block in blocks(document)
        if block.marker == f"client {kind}"
    ]


def parsed(block: Block) -> dict[str, Any]:
    if block.lang == "toml":
        return tomllib.loads(block.text)
    assert block.lang == "json", block.where
    document: dict[str, Any] = json.loads(block.text)
    return document


def server(document: dict[str, Any]) -> dict[str, Any]:
    """The one server entry of a client configuration, whatever the client calls the table."""
    [table] = [key for key in ("mcpServers", "servers", "mcp_servers", "mcp") if key in document]
    [name] = document[table]
    assert name == "mymcp"
    entry: dict[str, Any] = document[table][name]
    return entry


def command_line(entry: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """(command and arguments, environment) of a stdio entry, in any client's shape."""
    if isinstance(entry.get("command"), list):  # OpenCode: the whole command line as a list
        assert entry["type"] == "local"
        return entry["command"], entry.get("environment", {})
    if "type" in entry:
        assert entry["type"] == "stdio"
    return [entry["command"], *entry["args"]], entry.get("env", {})
