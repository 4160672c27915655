"""The Tool tests' default client: the production app with every gate off."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.helpers import McpClient


@pytest.fixture
def client(mcp: Callable[..., McpClient]) -> McpClient:
    return mcp()
