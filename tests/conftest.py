"""Shared fixtures: a hermetic home and memory root, and an MCP client over the real app."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from tests.helpers import McpClient
from tests.surface import GATE_VARIABLES, LIMIT_VARIABLE, gates

BASE_URL = "http://127.0.0.1:8000"


@pytest.fixture(autouse=True)
def hermetic_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test runs with a temporary HOME and no operator settings from the outside."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for variable in (*GATE_VARIABLES, LIMIT_VARIABLE, "MNEMOSYNE_MEMORY_ROOT"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.delenv("MYMCP_ALLOWED_HOSTS", raising=False)
    monkeypatch.delenv("MYMCP_ALLOWED_ORIGINS", raising=False)
    monkeypatch.delenv("MYMCP_REQUIRE_TOKEN", raising=False)
    return home


@pytest.fixture
def memory_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A memory root (not created) that the app resolves through MNEMOSYNE_MEMORY_ROOT."""
    root = tmp_path / "memory"
    monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(root))
    return root


@pytest.fixture
def mcp(memory_root: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., McpClient]]:
    """Factory: ``mcp(remember=True, ...)`` builds the production app with those gates."""
    clients: list[TestClient] = []

    def build(
        remember: bool = False,
        revise: bool = False,
        archive_restore: bool = False,
        forget: bool = False,
    ) -> McpClient:
        chosen = gates(
            remember=remember, revise=revise, archive_restore=archive_restore, forget=forget
        )
        for variable, value in chosen.items():
            monkeypatch.setenv(variable, value)
        from mymcp.app import create_production_app

        client = TestClient(create_production_app(), base_url=BASE_URL)
        clients.append(client)
        return McpClient(client)

    yield build
    for client in clients:
        client.close()
