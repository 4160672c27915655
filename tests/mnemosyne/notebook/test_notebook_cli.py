"""``mymcp notebook`` on the command line: its options, and what it hands the server."""

from __future__ import annotations

from typing import Any

import pytest

from mymcp import cli
from mymcp.app import create_production_app
from mymcp.plugins.mnemosyne.notebook import launch


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, str, int, bool]]:
    calls: list[tuple[Any, str, int, bool]] = []

    def record(factory: Any, host: str, port: int, *, open_browser: bool) -> None:
        calls.append((factory, host, port, open_browser))

    monkeypatch.setattr(launch, "serve_with_login", record)
    return calls


def test_notebook_serves_the_production_app_on_port_8000_and_opens_the_browser(
    served: list[Any],
) -> None:
    assert cli.main(["notebook"]) is None

    assert served == [(create_production_app, "127.0.0.1", 8000, True)]


def test_no_browser_and_the_address_options(served: list[Any]) -> None:
    assert cli.main(["notebook", "--no-browser", "--port", "9000", "--host", "::1"]) is None

    assert served == [(create_production_app, "::1", 9000, False)]


@pytest.mark.parametrize("arguments", [["--host", "0.0.0.0"], ["--port", "0"], ["--browser"]])
def test_a_bad_option_is_a_usage_error(
    arguments: list[str], served: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["notebook", *arguments])

    assert stopped.value.code == 2
    assert "usage: mymcp" in capsys.readouterr().err
    assert served == []


def test_notebook_is_a_listed_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])

    assert "notebook" in capsys.readouterr().out
    assert cli.parse_arguments(["notebook"]).command == "notebook"
