"""docs/CLIENTS.md, "When the server requires the access token": every entry marked
``<!-- client token -->`` names the local endpoint and sends the header that a server started
with the token required accepts, once the client has put the token in as it does (the shell
runs ``mymcp token``, OpenCode reads the file, VS Code asks, the rest hold a copy)."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from mymcp import access_token
from tests.docs.markdown import ROOT, Block, blocks
from tests.processes import INITIALIZE, child_environment, finished, mymcp_command
from tests.synthetic_host import BASE_URL

GUIDE = ROOT / "docs" / "CLIENTS.md"
SECTION = "## When the server requires the access token"
URL = "http://127.0.0.1:8000/mcp"
PLACEHOLDER = "/home/you/MyMCP/.venv/bin/mymcp"
HTTP_CLIENTS = ("Claude Code", "Gemini CLI", "Cursor", "VS Code", "OpenCode", "MCP Inspector")
HANDSHAKE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}
_SHELL_TOKEN = f"$({PLACEHOLDER} token)"
_VS_CODE_INPUT = "${input:mymcp-token}"
_OPENCODE_FILE = "{file:~/.mnemosyne/token}"
_COPY = "YOUR-TOKEN"


def _entries() -> list[Block]:
    return [block for block in blocks(GUIDE) if block.marker == "client token"]


@pytest.fixture
def guarded(memory_root: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """The production app as ``mymcp serve --require-token`` builds it, over the test HOME."""
    monkeypatch.setenv(access_token.REQUIRE_TOKEN_VARIABLE, "true")
    from mymcp.app import create_production_app

    with TestClient(create_production_app(), base_url=BASE_URL) as client:
        yield client


# --- how each client puts the token in --------------------------------------------------------


def _shell_header(block: Block, home: Path) -> tuple[str, str]:
    """(URL, Authorization value) of a command, its ``$(mymcp token)`` run for real."""
    words = shlex.split(block.text)
    urls = [word for word in words if word.startswith("http://")]
    [header] = [word for word in words if word.startswith("Authorization: ")]
    assert words[words.index(header) - 1] in {"--header", "-H"}, block.where
    value = header.removeprefix("Authorization: ")
    assert value.count(_SHELL_TOKEN) == 1, block.where
    done = finished(mymcp_command("token"), child_environment(home, None))
    assert done.returncode == 0, done.stderr
    return urls[0], value.replace(_SHELL_TOKEN, done.stdout.strip())


def _configured_header(block: Block, home: Path) -> tuple[str, str]:
    """(URL, Authorization value) of a configuration file, as its client fills it in."""
    document: dict[str, Any] = json.loads(block.text)
    [table] = [key for key in ("mcpServers", "servers", "mcp") if key in document]
    [name] = document[table]
    assert name == "mymcp", block.where
    entry = document[table][name]
    assert set(entry["headers"]) == {"Authorization"}, block.where
    value: str = entry["headers"]["Authorization"]
    token = access_token.ensure_token(home)
    if _VS_CODE_INPUT in value:
        [asked] = document["inputs"]
        assert (asked["type"], asked["id"], asked["password"]) == (
            "promptString",
            "mymcp-token",
            True,
        )
        value = value.replace(_VS_CODE_INPUT, token)
    elif _OPENCODE_FILE in value:
        assert entry["type"] == "remote", block.where
        read = (home / ".mnemosyne" / "token").read_text(encoding="utf-8").strip()
        value = value.replace(_OPENCODE_FILE, read)
    else:
        assert value.count(_COPY) == 1, block.where
        value = value.replace(_COPY, token)
    assert entry.get("type", "http") in {"http", "remote"}, block.where
    return entry["url"], value


_HEADER_OF: dict[str, Callable[[Block, Path], tuple[str, str]]] = {
    "sh": _shell_header,
    "json": _configured_header,
}


# --- the tests -------------------------------------------------------------------------------


def test_every_http_client_has_a_token_subsection_with_an_entry() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    section = text.split(f"\n{SECTION}\n", 1)[1]
    headings = re.findall(r"^### (.+) with the token$", section, flags=re.MULTILINE)

    assert headings == list(HTTP_CLIENTS)
    assert len(_entries()) == 7  # Gemini CLI shows its command and the entry it writes
    for part in section.split("\n### ")[1:]:
        assert "<!-- client token -->" in part, part.splitlines()[0]


@pytest.mark.parametrize("block", _entries(), ids=lambda block: block.where)
def test_every_token_entry_is_accepted_where_its_absence_is_refused(
    block: Block, guarded: TestClient, hermetic_home: Path
) -> None:
    url, value = _HEADER_OF[block.lang](block, hermetic_home)
    path = "/" + url.split("/", 3)[3]

    refused = guarded.post(path, json=HANDSHAKE)
    answered = guarded.post(path, json=HANDSHAKE, headers={"Authorization": value})

    assert url == URL
    assert (refused.status_code, refused.headers["www-authenticate"]) == (401, "Bearer")
    assert answered.status_code == 200, block.where
    assert answered.json()["result"]["serverInfo"]["name"] == "mymcp"
