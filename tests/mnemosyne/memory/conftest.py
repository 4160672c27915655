"""Fixtures of the memory domain tests: a root, a start folder, a store in both modes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore
from tests.helpers import settled_clock


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "memory"


@pytest.fixture
def start(tmp_path: Path) -> Path:
    directory = tmp_path / "scope"
    directory.mkdir()
    return directory


@pytest.fixture(params=[True, False], ids=["change-feed", "stat-only"])
def store(request: pytest.FixtureRequest) -> MemoryStore:
    """The store with and without change notification: both must behave the same."""
    return MemoryStore(clock=settled_clock, watch_changes=request.param)
