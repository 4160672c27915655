"""A real Uvicorn server on a free loopback port, and an isolated 1.x SDK, for client tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clients.scenario import seeded_server
from tests.processes import LiveServer

# Pinned in one file, which scripts/test installs beside the interpreter (.venv/mcp-sdk1).
SDK1_PIN = Path(__file__).with_name("sdk1-requirements.txt")
SDK1_SITE = Path(sys.prefix) / "mcp-sdk1"


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server with the default gates over a seeded temporary memory root."""
    with seeded_server(tmp_path_factory.mktemp("live")) as server:
        yield server


@pytest.fixture(scope="session")
def sdk1_site() -> Path:
    """The isolated MCP SDK 1.x that ``scripts/test`` installs, for PYTHONPATH.

    Tests never install anything: without that folder (plain ``pytest`` on a fresh setup) the
    1.x client tests are skipped, naming the command that sets it up.
    """
    installed = SDK1_SITE / ".installed"
    if not installed.is_file() or installed.read_text() != SDK1_PIN.read_text():
        pytest.skip(f"the MCP SDK 1.x is not set up in {SDK1_SITE.name}: run ./scripts/test once")
    return SDK1_SITE
