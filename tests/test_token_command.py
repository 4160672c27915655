"""``mymcp token``: one line on standard output, the same token every time, made private."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mymcp import access_token, cli
from mymcp.plugins.mnemosyne.notebook import launch
from tests.processes import child_environment, finished, mymcp_command


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def _problem(home: Path) -> str:
    with pytest.raises(access_token.TokenFileError) as raised:
        access_token.read_token(home)
    return raised.value.problem


def test_token_prints_the_token_and_nothing_else(
    hermetic_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["token"]) == 0
    first = capsys.readouterr()
    assert cli.main(["token"]) == 0
    second = capsys.readouterr()

    assert first.out == second.out == f"{access_token.read_token(hermetic_home)}\n"
    assert first.err == second.err == ""


def test_token_refuses_an_unsafe_file_in_two_lines(
    hermetic_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = access_token.token_path(hermetic_home)
    access_token.ensure_token(hermetic_home)
    os.chmod(path, 0o644)

    assert cli.main(["token"]) == 1
    out, err = capsys.readouterr()

    assert out == ""
    assert err.splitlines() == [
        f"mymcp: {access_token.TOKEN_FILE_MESSAGE}",
        f"{path} {_problem(hermetic_home)}",
    ]
    assert path.read_text().strip() not in err


@pytest.mark.slow  # starts a process
def test_the_command_makes_0600_in_0700_and_prints_the_same_value_twice(
    hermetic_home: Path,
) -> None:
    home = hermetic_home
    env = child_environment(home, None)

    runs = [finished(mymcp_command("token"), env) for _ in range(2)]

    assert [run.returncode for run in runs] == [0, 0]
    assert [run.stderr for run in runs] == ["", ""]
    assert runs[0].stdout == runs[1].stdout
    [line] = runs[0].stdout.splitlines()
    assert line == access_token.read_token(home)
    assert _mode(home / ".mnemosyne") == 0o700
    assert _mode(home / ".mnemosyne" / "token") == 0o600


# --- serve --require-token ------------------------------------------------------------------


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The setting's value each time Uvicorn would have been started."""
    import uvicorn

    seen: list[str | None] = []
    monkeypatch.setenv(access_token.REQUIRE_TOKEN_VARIABLE, "")  # restored after the test
    monkeypatch.delenv(access_token.REQUIRE_TOKEN_VARIABLE)
    monkeypatch.setattr(
        uvicorn,
        "run",
        lambda *a, **k: seen.append(os.environ.get(access_token.REQUIRE_TOKEN_VARIABLE)),
    )
    return seen


@pytest.mark.parametrize("arguments", [["serve", "--require-token"], ["--require-token"]])
def test_the_option_turns_the_setting_on_for_the_server(
    served: list[str | None], arguments: list[str]
) -> None:
    assert cli.main(arguments) is None
    assert served == ["true"]


def test_without_the_option_the_setting_is_left_alone(served: list[str | None]) -> None:
    assert cli.main(["serve"]) is None
    assert served == [None]


def test_the_option_wins_over_false(
    served: list[str | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(access_token.REQUIRE_TOKEN_VARIABLE, "false")

    assert cli.main(["serve", "--require-token"]) is None
    assert served == ["true"]


def test_the_option_still_refuses_a_bad_value(
    served: list[str | None], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(access_token.REQUIRE_TOKEN_VARIABLE, "maybe")

    assert cli.main(["serve", "--require-token"]) == 1
    assert served == []
    assert capsys.readouterr().err.splitlines()[0] == (
        "mymcp: MYMCP_REQUIRE_TOKEN must be 'true' or 'false'"
    )


def test_the_notebook_command_takes_the_option_too(
    served: list[str | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    def page(factory: object, host: str, port: int, *, open_browser: bool) -> None:
        served.append(os.environ.get(access_token.REQUIRE_TOKEN_VARIABLE))

    monkeypatch.setattr(launch, "serve_with_login", page)

    assert cli.main(["notebook", "--no-browser", "--require-token"]) is None
    assert served == ["true"]
