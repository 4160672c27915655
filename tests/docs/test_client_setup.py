"""docs/CLIENTS.md: every client entry parses, names a real command, and that command works.

Entries are read by tests/docs/client_entries.py. Stdio entries are started for real, with
their ``env`` (a temporary home and memory root added). The ``<!-- client trust -->`` block is
Gemini CLI's list of trusted folders. Installed entries (README, docs/INSTALL.md and here) are
checked below and started, from the built wheel, in tests/packaging/test_installed_entries.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mymcp import cli
from mymcp.plugins.mnemosyne.configuration.gates import GATE_VARIABLES
from tests.docs.client_entries import (
    INSTALLED_COMMAND,
    UVX,
    command_line,
    entries,
    parsed,
    server,
)
from tests.docs.markdown import ROOT, Block, blocks
from tests.processes import INITIALIZE, StdioPeer, child_environment, mymcp_command
from tests.surface import READ_LISTED, gates

GUIDE = ROOT / "docs" / "CLIENTS.md"
PLACEHOLDER = "/home/you/MyMCP/.venv/bin/mymcp"
URL = "http://127.0.0.1:8000/mcp"
CLIENTS = {
    "Claude Desktop": "claude_desktop_config.json",
    "Claude Code": "claude mcp add",
    "Gemini CLI": "~/.gemini/settings.json",
    "Cursor": "~/.cursor/mcp.json",
    "VS Code": ".vscode/mcp.json",
    "Codex": "~/.codex/config.toml",
    "OpenCode": '"type": "local"',
}
GATES = {variable for variable, _ in GATE_VARIABLES}


def _entries(kind: str) -> list[Block]:
    return entries(kind, GUIDE)


@pytest.mark.parametrize("client", list(CLIENTS))
def test_every_client_has_a_section_naming_its_configuration(client: str) -> None:
    text = GUIDE.read_text(encoding="utf-8")
    section = text.split(f"\n## {client}\n", 1)[1].split("\n## ", 1)[0]

    assert CLIENTS[client] in section


def test_there_is_a_stdio_entry_for_each_configuration_file_client() -> None:
    # Gemini CLI, Claude Desktop, Cursor, VS Code, Codex, OpenCode
    assert len(_entries("stdio")) == 6
    assert len(_entries("http")) == 4  # Gemini CLI, Cursor, VS Code, OpenCode


def test_the_folder_trust_entry_trusts_one_folder() -> None:
    [block] = [block for block in blocks(GUIDE) if block.marker == "client trust"]
    assert list(json.loads(block.text).values()) == ["TRUST_FOLDER"]


@pytest.mark.parametrize("block", _entries("http"), ids=lambda block: block.where)
def test_every_http_entry_names_the_local_endpoint(block: Block) -> None:
    entry = server(parsed(block))

    assert entry["url"] == URL
    assert entry.get("type", "http") in {"http", "remote"}


@pytest.mark.parametrize("block", _entries("stdio"), ids=lambda block: block.where)
def test_every_stdio_entry_names_mymcp_stdio_and_switches_a_gate_on(block: Block) -> None:
    command, env = command_line(server(parsed(block)))

    assert command == [PLACEHOLDER, "stdio"]
    assert cli.parse_arguments(command[1:]).command == "stdio"
    assert env == gates(remember=True)
    assert set(env) <= GATES


@pytest.mark.parametrize("block", _entries("stdio"), ids=lambda block: block.where)
def test_every_stdio_entry_starts_a_server_with_the_tools_its_gates_select(
    block: Block, tmp_path: Path, hermetic_home: Path
) -> None:
    command, env = command_line(server(parsed(block)))
    real = [*mymcp_command(), *command[1:]]  # the installed command instead of the placeholder
    environment = child_environment(hermetic_home, tmp_path / "memory", env)
    peer = StdioPeer(real, environment, tmp_path / "stderr.log")
    try:
        assert peer.request("initialize", INITIALIZE)["result"]["serverInfo"]["name"] == "mymcp"
        tools = [
            tool["name"] for tool in peer.request("tools/list", request_id=2)["result"]["tools"]
        ]
        peer.close_input()
        assert peer.wait()[0] == 0
    finally:
        peer.stop()

    assert tools == [*READ_LISTED, "memory_remember"]


def test_the_repository_opencode_json_is_the_documented_remote_entry() -> None:
    [remote] = [block for block in _entries("http") if '"remote"' in block.text]
    repository = json.loads((ROOT / "opencode.json").read_text(encoding="utf-8"))

    assert server(parsed(remote)) == repository["mcp"]["mymcp"]


# --- entries for an installed MyMCP ------------------------------------------------------

INSTALLED_DOCUMENTS = (ROOT / "README.md", ROOT / "docs" / "INSTALL.md", GUIDE)
INSTALLED = entries("installed", *INSTALLED_DOCUMENTS)


def _installed_section(client: str) -> str:
    text = GUIDE.read_text(encoding="utf-8")
    return text.split(f"\n### Installed: {client}\n", 1)[1].split("\n#", 1)[0]


@pytest.mark.parametrize("client", list(CLIENTS))
def test_every_client_has_an_entry_for_an_installed_mymcp(client: str) -> None:
    section = _installed_section(client)

    assert "uvx mymcp stdio" in section or '"uvx"' in section


def test_the_installed_entries_are_where_a_newcomer_looks() -> None:
    where = {block.document.name for block in INSTALLED}

    assert where == {"README.md", "INSTALL.md", "CLIENTS.md"}
    assert len(entries("installed", GUIDE)) == 6  # the five configuration files and the tool


@pytest.mark.parametrize("block", INSTALLED, ids=lambda block: block.where)
def test_every_installed_entry_starts_mymcp_stdio_from_uvx_or_the_installed_command(
    block: Block,
) -> None:
    command, env = command_line(server(parsed(block)))

    assert command in (UVX, [INSTALLED_COMMAND, "stdio"])
    assert cli.parse_arguments(command[-1:]).command == "stdio"
    assert env == {}  # the one entry: gates and the root as in the other sections
