"""The official SDK clients as drivers: each runs calls against a target and reports.

A report has ``protocolVersion``, ``serverName``, ``tools`` (names in order) and ``calls``
(label -> ``{"isError", "text", "structured"}``), as ``scenario.check_report`` expects. The
2.x SDK runs in this process; the 1.x SDK runs ``sdk1_session.py`` in a child whose path
holds only an isolated ``mcp<2`` install.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import mcp

from tests.clients.flow import Flow
from tests.clients.scenario import READ_CALLS

SDK1_SCRIPT = Path(__file__).with_name("sdk1_session.py")
Calls = Sequence[tuple[str, str, dict[str, Any]]]


async def sdk2_report(target: Any, mode: str = "auto", calls: Calls = READ_CALLS) -> dict[str, Any]:
    """``mcp.Client(target, mode=mode)``: list the Tools, then make each call in order."""
    async with mcp.Client(target, mode=mode) as client:
        listed = await client.list_tools()
        results: dict[str, Any] = {}
        flow = Flow()
        for label, tool, template in calls:
            result = await client.call_tool(tool, flow.arguments(template))
            text = result.content[0].text  # type: ignore[union-attr]
            flow.saw(result.structured_content, text)
            results[label] = {
                "isError": result.is_error,
                "text": text,
                "structured": result.structured_content,
            }
        info = client.server_info
        # A client pinned to 2026-07-28 sends no discover: the results' stamp names the server.
        stamp = (listed.meta or {}).get("io.modelcontextprotocol/serverInfo") or {}
        return {
            "protocolVersion": client.protocol_version,
            "serverName": info.name if info is not None else stamp.get("name"),
            "tools": [tool.name for tool in listed.tools],
            "calls": results,
        }


def sdk1_report(site: Path, target: str, cwd: Path, calls: Calls = READ_CALLS) -> dict[str, Any]:
    """Run ``sdk1_session.py`` with only ``site`` on its path; its report."""
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONNOUSERSITE": "1"}
    done = subprocess.run(
        [sys.executable, str(SDK1_SCRIPT), target, json.dumps(calls)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout)
    return report
