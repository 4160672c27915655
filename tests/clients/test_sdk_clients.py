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
from tests.clients.conftest import SHUTDOWN_TIMEOUT, LiveServer, running_server
from tests.clients.scenario import check_report
from tests.clients.sdk_drivers import sdk1_report, sdk2_report


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_sdk2_client_lists_and_calls_every_read_tool(live_server: LiveServer, mode: str) -> None:
    report = anyio.run(sdk2_report, live_server.url, mode)
    assert report["protocolVersion"] == "2025-11-25"
    check_report(report)


async def _recorded_exchanges(url: str) -> list[tuple[str, str | None, Any, int]]:
    exchanges: list[tuple[str, str | None, Any, int]] = []

    async def record(response: httpx2.Response) -> None:
        request = response.request
        body = json.loads(request.content) if request.content else None
        method = body.get("method") if isinstance(body, dict) else None
        header = request.headers.get("mcp-protocol-version")
        exchanges.append((request.method, header, method, response.status_code))

    async with httpx2.AsyncClient(event_hooks={"response": [record]}) as http:
        async with mcp.Client(streamable_http_client(url, http_client=http)) as client:
            await client.list_tools()
            await client.call_tool("list_tools", {})
    return exchanges


def test_sdk2_default_mode_probes_discover_then_falls_back_to_initialize(
    live_server: LiveServer,
) -> None:
    exchanges = anyio.run(_recorded_exchanges, live_server.url)

    probe, handshake, *rest = exchanges
    assert probe[0] == "POST" and probe[2] == "server/discover"
    assert 400 <= probe[3] < 500 or probe[3] == 200
    assert handshake == ("POST", None, "initialize", 200)
    assert [exchange[0] for exchange in rest] == ["POST"] * len(rest)
    assert [exchange[2] for exchange in rest] == [
        "notifications/initialized",
        "tools/list",
        "tools/call",
    ]
    assert [exchange[3] for exchange in rest] == [202, 200, 200]
    assert {exchange[1] for exchange in rest} == {"2025-11-25"}


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
    with running_server(tmp_path / "server") as server:
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
