"""Every documented way to start or install an installed MyMCP works with the built wheel.

The client entries marked ``<!-- client installed -->`` (README, docs/INSTALL.md,
docs/CLIENTS.md) are started as their client would start them, with two substitutions for a
MyMCP not yet on PyPI: ``uvx mymcp stdio`` runs as ``uvx --from <wheel> mymcp stdio``, and the
installed command ``/home/you/.local/bin/mymcp`` is the one ``uv tool install`` put in place.
The shell lines of those documents that run uvx, uv or pipx, and the server commands of the
``claude mcp add`` and ``gemini mcp add`` lines, run too, with the built wheel where they name
``./dist/mymcp-<version>-py3-none-any.whl``.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import anyio
import pytest

from mymcp import settings
from tests.docs.client_entries import INSTALLED_COMMAND, command_line, entries, parsed, server
from tests.docs.markdown import ROOT, blocks
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
from tests.processes import child_environment
from tests.surface import READ_LISTED

pytestmark = pytest.mark.slow  # installs the built wheel and starts servers

DOCUMENTS = (ROOT / "README.md", ROOT / "docs" / "INSTALL.md", ROOT / "docs" / "CLIENTS.md")
DOCUMENTED_WHEEL = f"./dist/mymcp-{settings.SERVER_VERSION}-py3-none-any.whl"
ENTRIES = entries("installed", *DOCUMENTS)


def _shell_lines(*programs: str) -> list[tuple[str, list[str]]]:
    """(where, words) of each documented command line that starts with one of ``programs``."""
    found = []
    for document in DOCUMENTS:
        for block in blocks(document):
            if block.lang != "sh":
                continue
            for line in block.text.replace("\\\n", " ").splitlines():
                words = shlex.split(line, comments=True)
                if words and words[0] in programs:
                    found.append((block.where, words))
    return found


def _runnable(command: list[str], wheel: Path, uv_tool: dict[str, Path]) -> list[str | Path]:
    """The documented command line as it runs before the PyPI release: from the wheel."""
    if command[0] == "uvx":
        arguments = command[1:]
        if arguments[0] == "--from":
            assert arguments[1] == DOCUMENTED_WHEEL
            arguments = arguments[2:]
        return [tool("uvx"), "--python", BASE_PYTHON, "--from", wheel, *arguments]
    assert command[0] == INSTALLED_COMMAND
    return [uv_tool["bin"] / "mymcp", *command[1:]]


def _server_command(words: list[str]) -> list[str]:
    """The command after the server's name in ``claude mcp add`` or ``gemini mcp add``."""
    rest = words[words.index("mymcp") + 1 :]
    return rest[1:] if rest[0] == "--" else rest


def _started(
    command: list[str | Path], env: dict[str, str], tmp_path: Path, cache: Path
) -> list[str]:
    home = tmp_path / "home"
    environment = installer_environment(tmp_path)
    environment.update(child_environment(home, tmp_path / "memory", env, repository=False))
    environment["UV_CACHE_DIR"] = str(cache)  # the session's: uvx unpacks the wheel once
    report = anyio.run(handshake, stdio_server(command, environment, tmp_path))
    assert report["serverInfo"]["version"] == settings.SERVER_VERSION
    tools: list[str] = report["tools"]
    return tools


CLIENT_LINES = [
    (where, words)
    for where, words in _shell_lines("claude", "gemini", "uvx")
    if words[0] == "uvx" or "uvx" in _server_command(words)[:1]
]


def _documented_commands() -> dict[tuple[str, ...], list[str]]:
    """Each distinct server command line of the entries and lines, with where it is shown.

    Many entries start the same command (``uvx mymcp stdio``); each command runs once.
    """
    found: dict[tuple[str, ...], list[str]] = {}
    for block in ENTRIES:
        command, env = command_line(server(parsed(block)))
        assert env == {}, block.where
        found.setdefault(tuple(command), []).append(block.where)
    for where, words in CLIENT_LINES:
        command = words if words[0] == "uvx" else _server_command(words)
        found.setdefault(tuple(command), []).append(where)
    return found


COMMANDS = _documented_commands()


@pytest.mark.parametrize("command", list(COMMANDS), ids=[" ".join(key) for key in COMMANDS])
def test_every_documented_server_command_starts_mymcp_with_the_read_tools(
    command: tuple[str, ...],
    wheel: Path,
    wheelhouse: Path,
    uv_tool: dict[str, Path],
    tmp_path: Path,
) -> None:
    runnable = _runnable(list(command), wheel, uv_tool)

    tools = _started(runnable, {}, tmp_path, uv_tool["scratch"] / "uv-cache")

    assert tools == list(READ_LISTED), COMMANDS[command]


def test_the_documented_commands_cover_every_entry_and_line() -> None:
    shown = [where for places in COMMANDS.values() for where in places]

    assert len(shown) == len(ENTRIES) + len(CLIENT_LINES) >= 10
    assert {command[0] for command in COMMANDS} == {"uvx", INSTALLED_COMMAND}


INSTALLER_LINES = _shell_lines("uv", "pipx")


@pytest.mark.parametrize("installer", ["uv", "pipx"])
def test_the_documented_install_and_removal_lines_work(
    installer: str, wheel: Path, wheelhouse: Path, tmp_path: Path
) -> None:
    env = installer_environment(tmp_path)
    documented = [words for _, words in INSTALLER_LINES if words[0] == installer]
    commands = {words[2] if installer == "uv" else words[1]: words for words in documented}
    install = commands["install"]
    bin_dir = tmp_path / ("uv-bin" if installer == "uv" else "pipx-bin")
    real = [tool(installer), *install[1:-1], "--python", BASE_PYTHON, wheel]
    assert install[-1] == DOCUMENTED_WHEEL

    run(real, env, tmp_path)
    venv = tmp_path / ("uv-tools" if installer == "uv" else "pipx/venvs") / "mymcp"
    where = imported_from(venv / "bin" / "python", env, tmp_path)
    tools = _started([bin_dir / "mymcp", "stdio"], {}, tmp_path, tmp_path / "uv-cache")
    run([tool(installer), *commands["uninstall"][1:]], env, tmp_path)

    assert where.is_relative_to(venv.resolve()) and outside_the_repository(where)
    assert tools == list(READ_LISTED)
    assert not (bin_dir / "mymcp").exists()
