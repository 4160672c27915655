"""The configuration tests' HOME: a temporary one, with none of Mnemosyne's variables set."""

from __future__ import annotations

from pathlib import Path

import pytest

from mymcp.plugins.mnemosyne.configuration.memory_root import ROOT_VARIABLE
from tests.mnemosyne.configuration.settings_support import ALL_VARIABLES, LIMIT


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary HOME with no gate variables and no memory root variable set."""
    directory = tmp_path / "user-home"
    directory.mkdir()
    monkeypatch.setenv("HOME", str(directory))
    for variable in (*ALL_VARIABLES, LIMIT, ROOT_VARIABLE):
        monkeypatch.delenv(variable, raising=False)
    return directory
