"""Console entry points: what they hand to Uvicorn and how ``mymcp-test`` runs pytest."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from mymcp import cli

TARGET = "mymcp.app:create_production_app"


@pytest.fixture
def uvicorn_runs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    runs: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: runs.append((args, kwargs)))
    return runs


def test_main_serves_the_factory_on_loopback_port_8000(uvicorn_runs: list[Any]) -> None:
    returned: object = cli.main()  # type: ignore[func-returns-value]

    assert returned is None

    assert uvicorn_runs == [((TARGET,), {"host": "127.0.0.1", "port": 8000, "factory": True})]


def test_dev_serves_the_same_factory_with_reload(uvicorn_runs: list[Any]) -> None:
    returned: object = cli.dev()  # type: ignore[func-returns-value]

    assert returned is None

    assert uvicorn_runs == [
        ((TARGET,), {"host": "127.0.0.1", "port": 8000, "factory": True, "reload": True})
    ]


def test_the_target_is_an_importable_factory() -> None:
    module_name, _, attribute = TARGET.partition(":")
    module = importlib.import_module(module_name)

    assert callable(getattr(module, attribute))
    assert not hasattr(module, "app")


def test_uvicorn_is_imported_lazily() -> None:
    tree = ast.parse(Path(cli.__file__).read_text(encoding="utf-8"))
    top_level = [
        alias.name for node in tree.body if isinstance(node, ast.Import) for alias in node.names
    ] + [node.module for node in tree.body if isinstance(node, ast.ImportFrom)]

    assert "uvicorn" not in top_level


@pytest.fixture
def pytest_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, dict[str, Any]]]:
    calls: list[tuple[Any, dict[str, Any]]] = []

    def call(command: Any, **kwargs: Any) -> int:
        calls.append((command, kwargs))
        return 3

    monkeypatch.setattr(subprocess, "call", call)
    return calls


def test_test_runs_pytest_on_tests_and_returns_its_code(pytest_calls: list[Any]) -> None:
    assert cli.test() == 3

    assert pytest_calls == [([sys.executable, "-m", "pytest", "tests"], {})]


def test_test_explains_how_to_install_test_support_without_pytest(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], pytest_calls: list[Any]
) -> None:
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name == "pytest" else real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)

    assert cli.test() == 1

    assert (
        capsys.readouterr().out == 'Test support is not installed. Run: pip install -e ".[test]"\n'
    )
    assert pytest_calls == []


def test_test_returns_a_failing_code_without_raising(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_fails.py").write_text("def test_fails():\n    assert False\n")
    monkeypatch.chdir(tmp_path)

    assert cli.test() == 1
    assert "1 failed" in capfd.readouterr().out
