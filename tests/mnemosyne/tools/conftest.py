"""The Tool tests' default client (the production app with every gate off) and their spies."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.configuration.memory_root import resolve_memory_root
from tests.helpers import McpClient


@pytest.fixture
def client(mcp: Callable[..., McpClient]) -> McpClient:
    return mcp()


@pytest.fixture
def root_resolutions(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every memory root the plugin resolves from here on, in order."""
    resolved: list[Path] = []

    def counting(*args: Any, **kwargs: Any) -> Path:
        resolved.append(resolve_memory_root(*args, **kwargs))
        return resolved[-1]

    monkeypatch.setattr(
        "mymcp.plugins.mnemosyne.configuration.memory_root.resolve_memory_root", counting
    )
    return resolved
