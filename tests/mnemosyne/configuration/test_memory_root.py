"""Tests for configuration/memory_root.py: where the memories live."""

from __future__ import annotations

from pathlib import Path

import pytest

from mymcp.plugins.mnemosyne.configuration.memory_root import ROOT_VARIABLE, resolve_memory_root
from tests.mnemosyne.configuration.settings_support import (
    snapshot,
)

# --- memory root -----------------------------------------------------------------------------


def test_root_defaults_under_home(home: Path) -> None:
    assert resolve_memory_root() == home / ".mnemosyne" / "memory"


def test_empty_root_variable_falls_back_to_default(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ROOT_VARIABLE, "")
    assert resolve_memory_root() == home / ".mnemosyne" / "memory"


def test_absolute_root_is_used_verbatim(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "a" / ".." / "b"
    assert resolve_memory_root({ROOT_VARIABLE: str(target)}) == target


def test_relative_root_stays_relative(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ROOT_VARIABLE, "memories/here")
    root = resolve_memory_root()
    assert root == Path("memories/here")
    assert not root.is_absolute()


@pytest.mark.parametrize(("value", "suffix"), [("~", ()), ("~/mem", ("mem",))])
def test_tilde_root_is_expanded(
    home: Path, monkeypatch: pytest.MonkeyPatch, value: str, suffix: tuple[str, ...]
) -> None:
    monkeypatch.setenv(ROOT_VARIABLE, value)
    assert resolve_memory_root() == home.joinpath(*suffix)


def test_symlinked_root_is_not_resolved(home: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(home)
    assert resolve_memory_root({ROOT_VARIABLE: str(link)}) == link


def test_mapping_without_home_falls_back_to_the_process_home(home: Path) -> None:
    assert (
        resolve_memory_root({})
        == Path.home() / ".mnemosyne" / "memory"
        == (home / ".mnemosyne" / "memory")
    )


def test_resolving_the_root_creates_nothing(home: Path, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    resolve_memory_root()
    resolve_memory_root({ROOT_VARIABLE: str(tmp_path / "custom" / "root")})
    assert snapshot(tmp_path) == before
    assert not (home / ".mnemosyne").exists()
