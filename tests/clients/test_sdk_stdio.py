"""The official MCP Python SDK clients over stdio: they start ``mymcp stdio`` themselves.

2.x (``mcp.Client`` with ``StdioServerParameters``) runs here, in its default mode (which
opens with a ``server/discover`` probe and, answered, stays on 2026-07-28), pinned to
2026-07-28 (no probe) and in legacy mode (``initialize``); 1.x (``stdio_client`` and
``ClientSession``) runs in an isolated install.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters

from tests.clients.scenario import (
    MUTATION_CALLS,
    check_mutation_report,
    check_report,
    seed_memory_root,
)
from tests.clients.sdk_drivers import sdk1_report, sdk2_report
from tests.helpers import snapshot_tree
from tests.processes import child_environment, mymcp_command
from tests.surface import GATES_ON

pytestmark = pytest.mark.slow


def _server(tmp_path: Path, gates: dict[str, str] | None = None) -> dict[str, Any]:
    """What a client needs to start ``mymcp stdio`` over a seeded temporary home and root."""
    home, root = tmp_path / "home", tmp_path / "memory"
    home.mkdir(exist_ok=True)
    if not root.exists():
        seed_memory_root(root)
    command, *args = mymcp_command("stdio")
    return {"command": command, "args": args, "env": child_environment(home, root, gates)}


# Each mode of mcp.Client and the revision it ends on. Before issue 14 the default mode
# fell back to the handshake (2025-11-25); now its discover probe is answered.
MODES = [("auto", "2026-07-28"), ("2026-07-28", "2026-07-28"), ("legacy", "2025-11-25")]


@pytest.mark.parametrize(("mode", "revision"), MODES)
def test_sdk2_client_over_stdio_lists_and_calls_every_read_tool(
    tmp_path: Path, mode: str, revision: str
) -> None:
    server = _server(tmp_path)
    before = snapshot_tree(tmp_path / "memory")

    report = anyio.run(sdk2_report, StdioServerParameters(**server), mode)

    assert report["protocolVersion"] == revision
    check_report(report)
    assert snapshot_tree(tmp_path / "memory") == before


@pytest.mark.parametrize(("mode", "revision"), MODES)
def test_sdk2_client_over_stdio_runs_every_change_tool(
    tmp_path: Path, mode: str, revision: str
) -> None:
    server = _server(tmp_path, GATES_ON)

    report = anyio.run(sdk2_report, StdioServerParameters(**server), mode, MUTATION_CALLS)

    assert report["protocolVersion"] == revision
    assert len(report["tools"]) == 9
    check_mutation_report(report, tmp_path / "memory")


def test_sdk1_stdio_client_lists_and_calls_every_read_tool(tmp_path: Path, sdk1_site: Path) -> None:
    server = _server(tmp_path)

    report = sdk1_report(sdk1_site, json.dumps(server), tmp_path)

    assert report["sdkVersion"].startswith("1.")
    assert report["sdkModule"].startswith(str(sdk1_site))
    assert report["protocolVersion"] == "2025-11-25"
    check_report(report)


def test_sdk1_stdio_client_runs_every_change_tool(tmp_path: Path, sdk1_site: Path) -> None:
    server = _server(tmp_path, GATES_ON)

    report = sdk1_report(sdk1_site, json.dumps(server), tmp_path, MUTATION_CALLS)

    assert report["sdkVersion"].startswith("1.")
    check_mutation_report(report, tmp_path / "memory")
