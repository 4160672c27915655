"""The built wheel installed with ``uv tool install``: a fresh virtual environment with
nothing but the base Python and what the wheel needs, outside the repository.

Its ``mymcp stdio`` is driven by the MCP SDK client and its ``mymcp serve`` over HTTP. The
documented ``pipx install``, ``uvx`` and client entries run in test_installed_entries.py.
"""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import pytest

from mymcp import settings
from tests.helpers import remember_arguments
from tests.packaging.installs import (
    handshake,
    imported_from,
    outside_the_repository,
    stdio_server,
)
from tests.processes import child_environment, free_port, stop, wait_until_healthy
from tests.surface import READ_LISTED, gates

pytestmark = pytest.mark.slow  # builds and installs a wheel, starts servers

INFO = {"name": settings.SERVER_NAME, "version": settings.SERVER_VERSION}


def _server_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    (tmp_path / "home").mkdir(exist_ok=True)
    return child_environment(tmp_path / "home", tmp_path / "memory", extra, repository=False)


def test_uv_tool_install_puts_three_commands_on_the_tool_path(uv_tool: dict[str, Path]) -> None:
    commands = sorted(path.name for path in uv_tool["bin"].iterdir())

    assert commands == ["mymcp", "mymcp-dev", "mymcp-test"]


def test_the_installed_package_is_the_wheel_not_the_repository(
    uv_tool: dict[str, Path], tmp_path: Path
) -> None:
    python = uv_tool["venv"] / "bin" / "python"
    where = imported_from(python, _server_env(tmp_path), tmp_path)

    assert where.is_relative_to(uv_tool["venv"].resolve())
    assert outside_the_repository(where)


def test_the_installed_mymcp_stdio_serves_the_read_tools_by_default(
    uv_tool: dict[str, Path], tmp_path: Path
) -> None:
    server = stdio_server([uv_tool["bin"] / "mymcp", "stdio"], _server_env(tmp_path), tmp_path)

    report = anyio.run(handshake, server)

    assert report["serverInfo"] == INFO
    assert report["tools"] == list(READ_LISTED)
    assert not (tmp_path / "memory").exists()


def test_the_installed_mymcp_stdio_remembers_with_its_gate_on_and_recalls(
    uv_tool: dict[str, Path], tmp_path: Path
) -> None:
    env = _server_env(tmp_path, **gates(remember=True))
    server = stdio_server([uv_tool["bin"] / "mymcp", "stdio"], env, tmp_path)
    calls = [
        ("memory_remember", remember_arguments()),
        ("memory_recall", {"query": "memory ownership", "scope": "project"}),
    ]

    report = anyio.run(handshake, server, calls)

    remembered, recalled = report["results"]
    assert report["tools"] == [*READ_LISTED, "memory_remember"]
    assert (remembered["isError"], remembered["structured"]["status"]) == (False, "remembered")
    assert recalled["structured"]["memories"][0]["content"] == remember_arguments()["content"]
    assert list((tmp_path / "memory").rglob("*.json"))


def _post(url: str, message: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, json.dumps(message).encode(), {"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        answer: dict[str, Any] = json.loads(response.read())
        return answer


def test_the_installed_mymcp_serve_answers_over_http(
    uv_tool: dict[str, Path], tmp_path: Path
) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(uv_tool["bin"] / "mymcp"), "serve", "--port", str(port)],
            env=_server_env(tmp_path),
            cwd=tmp_path,
            stdout=output,
            stderr=output,
        )
    try:
        wait_until_healthy(process, port, log=log)
        base = f"http://127.0.0.1:{port}"
        with urllib.request.urlopen(f"{base}/version", timeout=10) as response:
            version = json.loads(response.read())
        listed = _post(f"{base}/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    finally:
        stop(process)

    assert (version["name"], version["version"]) == (INFO["name"], INFO["version"])
    assert [entry["name"] for entry in listed["result"]["tools"]] == list(READ_LISTED)
