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
from mymcp.plugins.mnemosyne import plugin
from mymcp.plugins.mnemosyne.configuration import memory_root

TARGET = "mymcp.app:create_production_app"


@pytest.fixture(autouse=True)
def command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each entry point reads ``sys.argv``: give it a bare command, not pytest's arguments."""
    monkeypatch.setattr(sys, "argv", ["mymcp"])


@pytest.fixture
def uvicorn_runs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    runs: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: runs.append((args, kwargs)))
    return runs


def test_main_serves_the_factory_on_loopback_port_8000(uvicorn_runs: list[Any]) -> None:
    returned: object = cli.main()

    assert returned is None

    assert uvicorn_runs == [((TARGET,), {"host": "127.0.0.1", "port": 8000, "factory": True})]


def test_dev_serves_the_same_factory_with_reload(uvicorn_runs: list[Any]) -> None:
    returned: object = cli.dev()

    assert returned is None

    assert uvicorn_runs == [
        ((TARGET,), {"host": "127.0.0.1", "port": 8000, "factory": True, "reload": True})
    ]


def test_dev_checks_the_setup_without_composing_the_plugin(
    uvicorn_runs: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    composed: list[object] = []
    monkeypatch.setattr(plugin, "mnemosyne_contribution", lambda: composed.append(1))
    checked: list[object] = []
    monkeypatch.setattr(memory_root, "check_memory_root", lambda: checked.append(1))

    assert cli.dev() is None

    assert composed == []  # the reloader never serves: it reads no large scope ahead
    assert checked == [1]
    assert len(uvicorn_runs) == 1


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


# --- the command line ------------------------------------------------------------------------


def _exit_code(call: Any) -> int:
    with pytest.raises(SystemExit) as stopped:
        call()
    code = stopped.value.code
    assert isinstance(code, int)
    return code


def test_help_names_every_command_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code(lambda: cli.main(["--help"])) == 0

    out = capsys.readouterr().out
    assert out.startswith("usage: mymcp")
    for command in ("serve", "stdio", "doctor"):
        assert f"    {command} " in out


@pytest.mark.parametrize("command", ["serve", "stdio", "doctor"])
def test_each_command_has_its_own_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code(lambda: cli.main([command, "--help"])) == 0

    assert capsys.readouterr().out.startswith(f"usage: mymcp {command}")


def test_version_prints_name_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code(lambda: cli.main(["--version"])) == 0

    assert capsys.readouterr().out == "mymcp 0.2.0\n"


@pytest.mark.parametrize(
    ("arguments", "host", "port"),
    [
        (["--port", "9000"], "127.0.0.1", 9000),
        (["serve", "--port", "9001"], "127.0.0.1", 9001),
        (["serve"], "127.0.0.1", 8000),
        (["--host", "127.0.0.2", "--port", "1"], "127.0.0.2", 1),
        (["serve", "--host", "::1"], "::1", 8000),
        (["serve", "--host", "[::1]", "--port", "65535"], "::1", 65535),
        (["--host", "localhost"], "localhost", 8000),
    ],
)
def test_serve_hands_host_and_port_to_uvicorn(
    arguments: list[str], host: str, port: int, uvicorn_runs: list[Any]
) -> None:
    assert cli.main(arguments) is None

    assert uvicorn_runs == [((TARGET,), {"host": host, "port": port, "factory": True})]


@pytest.mark.parametrize(
    "host", ["0.0.0.0", "10.1.2.3", "192.168.1.20", "mybox.lan", "2001:db8::1"]
)
def test_a_host_that_is_not_loopback_is_refused_as_a_usage_error(
    host: str, uvicorn_runs: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _exit_code(lambda: cli.main(["--host", host])) == 2

    err = capsys.readouterr().err
    assert "--host: must be a loopback address" in err
    assert host not in err
    assert uvicorn_runs == []


@pytest.mark.parametrize("port", ["0", "65536", "-1", "eighty", "80.5", ""])
def test_a_port_out_of_range_is_a_usage_error(
    port: str, uvicorn_runs: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _exit_code(lambda: cli.main(["serve", "--port", port])) == 2

    assert "--port: must be a whole number from 1 to 65535" in capsys.readouterr().err
    assert uvicorn_runs == []


@pytest.mark.parametrize(
    "arguments",
    [["--bogus"], ["serve", "--bogus"], ["stdio", "--port", "9000"], ["doctor", "extra"], ["nope"]],
)
def test_an_unknown_option_or_command_is_a_usage_error(
    arguments: list[str], uvicorn_runs: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _exit_code(lambda: cli.main(arguments)) == 2

    assert "usage: mymcp" in capsys.readouterr().err
    assert uvicorn_runs == []


def test_the_command_line_comes_from_sys_argv(
    monkeypatch: pytest.MonkeyPatch, uvicorn_runs: list[Any]
) -> None:
    monkeypatch.setattr(sys, "argv", ["mymcp", "serve", "--port", "9100"])

    assert cli.main() is None

    assert uvicorn_runs == [((TARGET,), {"host": "127.0.0.1", "port": 9100, "factory": True})]


def test_dev_takes_the_same_host_and_port(uvicorn_runs: list[Any]) -> None:
    assert cli.dev(["--port", "9200", "--host", "127.0.0.1"]) is None

    assert uvicorn_runs == [
        ((TARGET,), {"host": "127.0.0.1", "port": 9200, "factory": True, "reload": True})
    ]


def test_dev_refuses_a_host_that_is_not_loopback(uvicorn_runs: list[Any]) -> None:
    assert _exit_code(lambda: cli.dev(["--host", "0.0.0.0"])) == 2
    assert uvicorn_runs == []


def test_test_passes_its_arguments_to_pytest(
    monkeypatch: pytest.MonkeyPatch, pytest_calls: list[Any]
) -> None:
    monkeypatch.setattr(sys, "argv", ["mymcp-test", "-q", "-k", "cli", "tests/test_cli.py"])

    assert cli.test() == 3

    command = [sys.executable, "-m", "pytest", "-q", "-k", "cli", "tests/test_cli.py"]
    assert pytest_calls == [(command, {})]


def test_the_package_runs_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mymcp", "--version"], capture_output=True, text=True, timeout=60
    )

    assert (done.returncode, done.stdout, done.stderr) == (0, "mymcp 0.2.0\n", "")
