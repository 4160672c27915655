"""MyMCP installed from its built wheel, outside the repository, as a user installs it.

Nothing here reaches the network: the wheel is built from the repository's files with the
build backend of the test environment, and every installer takes MyMCP's dependencies from
``.venv/wheelhouse``, the wheels ``scripts/ensure-packaging`` downloads while ``./scripts/test``
sets up. The installed server gets an environment without ``PYTHONPATH`` and runs in a
temporary folder, so it can only work from what was installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import mcp
import pytest
from mcp import StdioServerParameters

from tests.processes import REPO_ROOT, child_environment

BIN = Path(sys.executable).parent  # the test environment's scripts: uv, uvx, pipx
WHEELHOUSE = Path(sys.prefix) / "wheelhouse"
PACKER = Path(sys.prefix) / "mcpb" / "node_modules" / ".bin" / "mcpb"
# The interpreter the test environment was made from: Python and nothing installed for MyMCP.
BASE_PYTHON = getattr(sys, "_base_executable", sys.executable)
TIMEOUT = 180


def unavailable(what: str) -> NoReturn:
    """Skip with one line saying what is missing; fail instead under CI.

    CI runs ``./scripts/test``, which sets all of it up: a missing piece there is a broken
    setup step, not a reason to pass quietly.
    """
    message = f"{what}: run ./scripts/test once, which sets it up"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def tool(name: str) -> Path:
    """An installer of the test extra (uv, uvx, pipx) beside the test interpreter."""
    path = BIN / name
    if not path.is_file():
        unavailable(f"{name} is not installed in {BIN.parent.name}")
    return path


def installer_environment(scratch: Path) -> dict[str, str]:
    """Where pip, pipx and uv install to, and from: the wheelhouse only, no configuration."""
    env = child_environment(scratch / "home", None, repository=False)
    env.update(
        PIP_CONFIG_FILE=os.devnull,  # the machine's pip settings (indexes, caps) do not apply
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(WHEELHOUSE),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIPX_HOME=str(scratch / "pipx"),
        PIPX_BIN_DIR=str(scratch / "pipx-bin"),
        PIPX_MAN_DIR=str(scratch / "pipx-man"),
        UV_NO_CONFIG="1",
        UV_OFFLINE="1",
        UV_NO_INDEX="1",
        UV_FIND_LINKS=str(WHEELHOUSE),
        UV_PYTHON_DOWNLOADS="never",
        UV_CACHE_DIR=str(scratch / "uv-cache"),
        UV_TOOL_DIR=str(scratch / "uv-tools"),
        UV_TOOL_BIN_DIR=str(scratch / "uv-bin"),
    )
    (scratch / "home").mkdir(parents=True, exist_ok=True)
    return env


def run(command: Sequence[str | Path], env: Mapping[str, str], cwd: Path) -> str:
    """Run an installer or a command of the installed MyMCP; its standard output."""
    done = subprocess.run(
        [str(part) for part in command],
        env=dict(env),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, f"{command[:3]} exited {done.returncode}:\n{done.stderr[-3000:]}"
    return done.stdout


def imported_from(python: Path, env: Mapping[str, str], cwd: Path) -> Path:
    """Where ``python`` imports the ``mymcp`` package from, in that environment."""
    out = run([python, "-c", "import mymcp; print(mymcp.__file__)"], env, cwd)
    return Path(out.strip()).resolve()


def outside_the_repository(path: Path) -> bool:
    return not path.is_relative_to(REPO_ROOT.resolve())


def stdio_server(
    command: Sequence[str | Path], env: Mapping[str, str], cwd: Path
) -> StdioServerParameters:
    """What an MCP client needs to start ``command`` (ending in ``stdio``) itself."""
    program, *arguments = [str(part) for part in command]
    return StdioServerParameters(command=program, args=arguments, env=dict(env), cwd=cwd)


Calls = Sequence[tuple[str, dict[str, Any]]]


async def handshake(server: StdioServerParameters, calls: Calls = ()) -> dict[str, Any]:
    """The SDK client in legacy mode: ``initialize``, ``tools/list``, then each Tool call."""
    async with mcp.Client(server, mode="legacy") as client:
        listed = await client.list_tools()
        results = []
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            results.append({"isError": result.is_error, "structured": result.structured_content})
        info = client.server_info
        return {
            "protocolVersion": client.protocol_version,
            "serverInfo": None if info is None else {"name": info.name, "version": info.version},
            "tools": [tool.name for tool in listed.tools],
            "results": results,
        }
