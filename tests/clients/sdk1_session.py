# mypy: disable-error-code="attr-defined"
# (type-checked against the 2.x SDK of the test environment; this script runs under 1.x)
"""Drive a server with the 1.x MCP Python SDK and print what it saw as one JSON object.

Run in a subprocess whose ``PYTHONPATH`` holds an isolated ``mcp<2`` install:
``python sdk1_session.py URL CALLS_JSON`` where CALLS_JSON is ``[[label, tool, arguments], ...]``.
It imports nothing from this repository, so the 2.x SDK of the test environment stays out.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import mcp
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


async def session_report(url: str, calls: list[list[Any]]) -> dict[str, Any]:
    async with streamablehttp_client(url) as (read, write, _):
        async with ClientSession(read, write) as session:
            initialized = await session.initialize()
            listed = await session.list_tools()
            results: dict[str, Any] = {}
            for label, tool, arguments in calls:
                result = await session.call_tool(tool, arguments)
                results[label] = {
                    "isError": result.isError,
                    "text": result.content[0].text,  # type: ignore[union-attr]
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
    url, calls = sys.argv[1], json.loads(sys.argv[2])
    report = anyio.run(session_report, url, calls)
    report["sdkModule"] = mcp.__file__
    print(json.dumps(report))


if __name__ == "__main__":
    main()
