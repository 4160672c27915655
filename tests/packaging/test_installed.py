"""The built wheel installed as users install it, each into a fresh environment of its own.

``uv tool install`` and ``pipx install`` (a fresh virtual environment with nothing but the
base Python and what the wheel needs), and ``uvx --from <wheel>`` (what a client entry
``uvx mymcp stdio`` does once MyMCP is on PyPI). Each installed ``mymcp stdio`` is driven by
the MCP SDK client; the uv install also serves HTTP with ``mymcp serve``.
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
    BASE_PYTHON,
    handshake,
    imported_from,
    installer_environment,
    outside_the_repository,
    run,
    stdio_server,
    tool,
)
from tests.processes import child_environment, free_port, stop, wait_until_healthy
from tests.surface import READ_LISTED, gates

pytestmark = pytest.mark.slow  # builds and installs a wheel, starts servers

INFO = {"name": settings.SERVER_NAME, "version": settings.SERVER_VERSION}


@pytest.fixture(scope="module")
def uv_tool(
    tmp_path_factory: pytest.TempPathFactory, wheel: Path, wheelhouse: Path
) -> dict[str, Path]:
    """``uv tool install <wheel>``: where its commands and its environment are."""
    scratch = tmp_path_factory.mktemp("uv-tool")
    env = installer_environment(scratch)
    run([tool("uv"), "tool", "install", "--python", BASE_PYTHON, wheel], env, scratch)
    return {"bin": scratch / "uv-bin", "venv": scratch / "uv-tools" / "mymcp", "scratch": scratch}


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


def test_pipx_installs_the_wheel_into_a_fresh_environment_that_serves_stdio(
    tmp_path: Path, wheel: Path, wheelhouse: Path
) -> None:
    env = installer_environment(tmp_path)
    run([tool("pipx"), "install", "--python", BASE_PYTHON, wheel], env, tmp_path)
    venv = tmp_path / "pipx" / "venvs" / "mymcp"
    server_env = _server_env(tmp_path)

    report = anyio.run(
        handshake, stdio_server([tmp_path / "pipx-bin" / "mymcp", "stdio"], server_env, tmp_path)
    )

    assert imported_from(venv / "bin" / "python", server_env, tmp_path).is_relative_to(
        venv.resolve()
    )
    assert report["serverInfo"] == INFO
    assert report["tools"] == list(READ_LISTED)


def test_uvx_runs_mymcp_stdio_from_the_wheel(tmp_path: Path, wheel: Path, wheelhouse: Path) -> None:
    env = {**installer_environment(tmp_path), **_server_env(tmp_path)}
    command = [tool("uvx"), "--python", BASE_PYTHON, "--from", wheel, "mymcp", "stdio"]

    report = anyio.run(handshake, stdio_server(command, env, tmp_path))

    assert report["serverInfo"] == INFO
    assert report["tools"] == list(READ_LISTED)
