"""The official MCP Python SDK (2.x here, 1.x in an isolated install) against a live server."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import mcp
import pytest
from mcp.client.streamable_http import streamable_http_client

from mymcp import settings
from tests.clients.scenario import (
    MUTATION_CALLS,
    check_mutation_report,
    check_report,
    seeded_server,
)
from tests.clients.sdk_drivers import sdk1_report, sdk2_report
from tests.processes import SHUTDOWN_TIMEOUT, LiveServer
from tests.surface import GATES_ON

pytestmark = pytest.mark.slow  # real SDK clients against a server process

# Each mode of mcp.Client and the revision it ends on. Before issue 14 the default mode
# fell back to the handshake (2025-11-25); now its discover probe is answered.
MODES = [("auto", "2026-07-28"), ("2026-07-28", "2026-07-28"), ("legacy", "2025-11-25")]


@pytest.mark.parametrize(("mode", "revision"), MODES)
def test_sdk2_client_lists_and_calls_every_read_tool(
    live_server: LiveServer, mode: str, revision: str
) -> None:
    report = anyio.run(sdk2_report, live_server.url, mode)
    assert report["protocolVersion"] == revision
    check_report(report)


@pytest.mark.parametrize("mode", ["auto", "2026-07-28"])
def test_sdk2_client_runs_every_change_tool_on_2026_07_28(tmp_path: Path, mode: str) -> None:
    with seeded_server(tmp_path / "server", GATES_ON) as server:
        report = anyio.run(sdk2_report, server.url, mode, MUTATION_CALLS)

        assert report["protocolVersion"] == "2026-07-28"
        assert len(report["tools"]) == 9
        check_mutation_report(report, server.memory_root)


Exchange = tuple[str, str | None, Any, int, bool]


async def _recorded_exchanges(url: str, mode: str) -> list[Exchange]:
    """(HTTP method, protocol header, JSON-RPC method, status, session id sent back)."""
    exchanges: list[Exchange] = []

    async def record(response: httpx2.Response) -> None:
        request = response.request
        body = json.loads(request.content) if request.content else None
        method = body.get("method") if isinstance(body, dict) else None
        header = request.headers.get("mcp-protocol-version")
        session = "mcp-session-id" in response.headers
        exchanges.append((request.method, header, method, response.status_code, session))

    async with httpx2.AsyncClient(event_hooks={"response": [record]}) as http:
        transport = streamable_http_client(url, http_client=http)
        async with mcp.Client(transport, mode=mode) as client:
            await client.list_tools()
            await client.call_tool("list_tools", {})
    return exchanges


def test_sdk2_default_mode_probes_discover_and_stays_on_2026_07_28(
    live_server: LiveServer,
) -> None:
    exchanges = anyio.run(_recorded_exchanges, live_server.url, "auto")

    assert exchanges == [
        ("POST", "2026-07-28", "server/discover", 200, False),
        ("POST", "2026-07-28", "tools/list", 200, False),
        ("POST", "2026-07-28", "tools/call", 200, False),
    ]


def test_sdk2_legacy_mode_uses_the_handshake_as_before(live_server: LiveServer) -> None:
    exchanges = anyio.run(_recorded_exchanges, live_server.url, "legacy")

    assert exchanges == [
        ("POST", None, "initialize", 200, False),
        ("POST", "2025-11-25", "notifications/initialized", 202, False),
        ("POST", "2025-11-25", "tools/list", 200, False),
        ("POST", "2025-11-25", "tools/call", 200, False),
    ]


def test_sdk1_streamable_http_client_lists_and_calls_every_read_tool(
    live_server: LiveServer, sdk1_site: Path, tmp_path: Path
) -> None:
    report = sdk1_report(sdk1_site, live_server.url, tmp_path)

    assert report["sdkVersion"].startswith("1.")
    assert report["sdkModule"].startswith(str(sdk1_site))
    assert report["protocolVersion"] in settings.SUPPORTED_PROTOCOL_VERSIONS
    assert report["protocolVersion"] != settings.PROTOCOL_VERSION
    check_report(report)


def test_server_stops_promptly_on_sigterm_with_clients_connected(tmp_path: Path) -> None:
    with seeded_server(tmp_path / "server") as server:
        with httpx.Client(base_url=server.base_url) as idle:
            stream = idle.get("/mcp", headers={"accept": "text/event-stream"})
            assert stream.status_code == 405
            assert stream.headers["allow"] == "POST"
            assert idle.get("/health").status_code == 200  # keep-alive connection stays open
            took = server.stop()
        assert took < SHUTDOWN_TIMEOUT
        # A graceful exit: Uvicorn finishes, then re-raises the signal it caught (never a kill).
        assert server.process.returncode in (0, -signal.SIGTERM), server.log()
        assert "Finished server process" in server.log()
        assert "Traceback" not in server.log()
