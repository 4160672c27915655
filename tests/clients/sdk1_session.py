# mypy: disable-error-code="attr-defined"
# (type-checked against the 2.x SDK of the test environment; this script runs under 1.x)
"""Drive a server with the 1.x MCP Python SDK and print what it saw as one JSON object.

Run in a subprocess whose ``PYTHONPATH`` holds an isolated ``mcp<2`` install:
``python sdk1_session.py TARGET CALLS_JSON`` where TARGET is the server's URL (Streamable
HTTP) or a JSON object ``{"command": ..., "args": [...], "env": {...}}`` (a stdio server
this script starts), and CALLS_JSON is ``[[label, tool, arguments], ...]`` whose arguments
may hold the placeholders of ``flow.py``. Apart from that sibling module it imports nothing
from this repository, so the 2.x SDK of the test environment stays out.
"""

from __future__ import annotations

import json
import sys
from contextlib import AbstractAsyncContextManager
from typing import Any

import anyio
import mcp
from flow import Flow  # the sibling module: this script's folder is first on sys.path
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client


def _streams(target: str) -> AbstractAsyncContextManager[Any]:
    if target.startswith("{"):
        return stdio_client(StdioServerParameters(**json.loads(target)))
    return streamablehttp_client(target)


async def session_report(target: str, calls: list[list[Any]]) -> dict[str, Any]:
    async with _streams(target) as (read, write, *_):
        async with ClientSession(read, write) as session:
            initialized = await session.initialize()
            listed = await session.list_tools()
            results: dict[str, Any] = {}
            flow = Flow()
            for label, tool, template in calls:
                result = await session.call_tool(tool, flow.arguments(template))
                text = result.content[0].text  # type: ignore[union-attr]
                flow.saw(result.structuredContent, text)
                results[label] = {
                    "isError": result.isError,
                    "text": text,
                    "structured": result.structuredContent,
                }
    return {
        "sdkVersion": _sdk_version(),
        "protocolVersion": initialized.protocolVersion,
        "serverName": initialized.serverInfo.name,
        "tools": [tool.name for tool in listed.tools],
        "calls": results,
    }


def _sdk_version() -> str:
    from importlib.metadata import version

    return version("mcp")


def main() -> None:
    target, calls = sys.argv[1], json.loads(sys.argv[2])
    report = anyio.run(session_report, target, calls)
    report["sdkModule"] = mcp.__file__
    print(json.dumps(report))


if __name__ == "__main__":
    main()
